// Internal to engine/: the per-engine render functions behind RenderServerCommand
// (adapter.cc) and the small helpers they share. Each appends to `out`, whose argv
// already holds the table's command; RenderServerCommand has already checked the
// extras for owned flags and fills host, port, timeouts and the container wrap.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "engine/engine_catalog.h"
#include "engine/server_command.h"
#include "recipe/point.h"

namespace servebench::engine::internal {

struct RenderContext {
  const recipe::ServeSpec& spec;
  const EngineFlagTable& table;
  const RenderOptions& options;
  std::string host;
  int port = 0;
};

Status RenderVllm(const RenderContext& ctx, ServerCommand& out);
Status RenderSim(const RenderContext& ctx, ServerCommand& out);
Status RenderSglang(const RenderContext& ctx, ServerCommand& out);
Status RenderTrtllm(const RenderContext& ctx, ServerCommand& out);
Status RenderLlamacpp(const RenderContext& ctx, ServerCommand& out);

// serve.command set: the command as written (verbatim_adapter.cc). `table` is the
// engine's flag table, or null for an engine servebench has no adapter for (atom),
// which a verbatim command may still name.
StatusOr<ServerCommand> RenderVerbatim(const recipe::ServeSpec& spec, const RenderOptions& options,
                                       const EngineFlagTable* table);

// Appends `flag value` to argv.
inline void AddFlag(std::vector<std::string>& argv, const std::string& flag,
                    const std::string& value) {
  argv.push_back(flag);
  argv.push_back(value);
}

// Checks what every engine needs of a SpecDecoding: tokens > 0 with a method, a
// draft model for eagle/eagle3/draft_model, and a synthetic target AL in
// [1, N + 1]. InvalidArgument naming serve.spec.<field>.
Status CheckSpec(const recipe::SpecDecoding& spec, std::string_view engine);

// True when synthetic acceptance is asked for (either synthetic mode).
bool IsSynthetic(const recipe::SpecDecoding& spec);

// InvalidArgument "<engine> cannot express <what> (serve.<field> = <value>): <why>".
Status Unsupported(std::string_view engine, std::string_view field, std::string_view value,
                   std::string_view why);

}  // namespace servebench::engine::internal
