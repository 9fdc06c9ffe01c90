#include "recipe/agentic_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <vector>

#include "trace/trace_loader.h"

namespace servebench::recipe {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kLoaderPrefix = "semianalysis_cc_traces_weka_";

// What a point replays: PATH/<loader>/ when PATH holds the point's loader folder,
// else PATH itself.
std::string TraceOf(const Point& p, const std::string& path, std::string* loader) {
  *loader = InferenceXTraceLoader(p.model_prefix);
  fs::path own = fs::path(path) / *loader;
  std::error_code ec;
  if (fs::is_directory(own, ec)) return own.string();
  return path;
}

}  // namespace

std::string InferenceXTraceLoader(std::string_view model_prefix) {
  for (std::string_view family : {"dsv4", "glm5.2", "minimaxm3", "kimik3"}) {
    if (model_prefix.starts_with(family)) return std::string(kLoaderPrefix) + "062126";
  }
  return std::string(kLoaderPrefix) + "062126_256k";
}

std::string InferenceXTraceDataset(std::string_view loader) {
  if (!loader.starts_with(kLoaderPrefix)) return "";
  std::string rest(loader.substr(kLoaderPrefix.size()));
  // The rolling name is the 061526 corpus; the dated ones spell their date.
  if (rest.starts_with("with_subagents") && !rest.starts_with("with_subagents_0"))
    rest = "061526" + rest.substr(std::string_view("with_subagents").size());
  for (char& c : rest) c = c == '_' ? '-' : c;
  return "semianalysisai/cc-traces-weka-" + rest;
}

void AddAgenticLaunchFlags(ServeSpec* serve, int concurrency, std::string_view model_prefix) {
  std::vector<std::string>& args = serve->extra_args;
  const int batch =
      serve->dp_attn ? std::max(1, 2 * concurrency / std::max(1, serve->tp)) : 2 * concurrency;
  if (serve->engine == "vllm" || serve->engine == "atom") {
    const int block = model_prefix.starts_with("dsv4") ? 256 : 128;
    args.insert(args.end(), {"--enable-prefix-caching", "--block-size", std::to_string(block),
                             "--max-num-seqs", std::to_string(batch)});
  } else if (serve->engine == "sglang") {
    args.insert(args.end(), {"--max-running-requests", std::to_string(batch)});
  }
}

bool TokenizesChatMessages(const ServeSpec& serve) {
  const std::string& engine = serve.stands_in_for.empty() ? serve.engine : serve.stands_in_for;
  return engine != "llamacpp";
}

std::string AgenticEndpoint(const ServeSpec& serve) {
  return TokenizesChatMessages(serve) ? "/v1/chat/completions" : "/v1/completions";
}

std::string AgenticCacheBust(std::string_view endpoint) {
  return endpoint.find("chat") != std::string_view::npos ? "first_turn_prefix" : "none";
}

std::string AgenticTokenIdsReason(const ServeSpec& serve, std::string_view endpoint) {
  if (endpoint.find("chat") != std::string_view::npos) return "";
  const std::string& engine = serve.stands_in_for.empty() ? serve.engine : serve.stands_in_for;
  return fmt::format(
      "token ids on {} instead of InferenceX's chat messages on /v1/chat/completions: {}", endpoint,
      TokenizesChatMessages(serve)
          ? "the point's endpoint says so"
          : fmt::format("the {} engine's /tokenize cannot count chat messages, so chat prompts "
                        "of exact length cannot be made (no cache-bust marker either)",
                        engine));
}

bool IsTraceReplay(const LoadSpec& load) { return trace::IsTraceFormatName(load.dataset); }

std::optional<int> KvBlockTokens(const ServeSpec& serve) {
  auto number = [](const std::string& text) -> std::optional<int> {
    char* end = nullptr;
    long v = std::strtol(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0' || v < 1 || v > 65536) return std::nullopt;
    return static_cast<int>(v);
  };
  if (serve.engine == "llamacpp") return 1;
  if (serve.engine == "sim") {
    for (const char* key : {"block-size", "--block-size"}) {
      if (auto it = serve.sim_options.find(key); it != serve.sim_options.end())
        return number(it->second);
    }
  }
  std::optional<int> found;
  for (const auto* args : {&serve.extra_args, &serve.command.argv}) {
    for (size_t i = 0; i < args->size(); ++i) {
      const std::string& a = (*args)[i];
      for (std::string_view flag : {"--block-size", "--page-size"}) {
        if (a == flag && i + 1 < args->size()) {
          if (auto v = number((*args)[i + 1])) found = v;
        } else if (a.starts_with(std::string(flag) + "=")) {
          if (auto v = number(a.substr(flag.size() + 1))) found = v;
        }
      }
    }
  }
  return found;
}

Status BindAgenticTraces(Plan* plan, const AgenticTraceSettings& settings) {
  std::optional<trace::TraceFormat> format;
  if (!settings.trace_format.empty()) {
    auto parsed = trace::ParseTraceFormat(settings.trace_format);
    if (!parsed.ok()) return parsed.status().WithContext("--trace-format");
    format = *parsed;
  }
  if (settings.duration_s < 0) {
    return Status::InvalidArgument(
        fmt::format("--duration {}: must be a positive number of seconds", settings.duration_s));
  }
  // path -> the loaded trace's format name (each trace is read and checked once).
  std::map<std::string, std::string> loaded;
  bool any = false;
  for (Point& p : plan->points) {
    if (p.load.scenario != "agentic-coding") continue;
    any = true;
    std::string loader;
    if (settings.trace_path.empty()) {
      const std::string dataset = InferenceXTraceDataset(InferenceXTraceLoader(p.model_prefix));
      return Status::InvalidArgument(fmt::format(
          "{} (agentic-coding, concurrency {}): needs a trace to replay: --trace PATH, a "
          "trace file or folder (mooncake_trace, weka_trace, bailian_trace), or a folder "
          "holding InferenceX's loader folder {}/ (the Hugging Face dataset {}, which "
          "servebench does not download)",
          p.recipe, p.load.concurrency, InferenceXTraceLoader(p.model_prefix), dataset));
    }
    const std::string path = fs::absolute(TraceOf(p, settings.trace_path, &loader)).string();
    auto known = loaded.find(path);
    if (known == loaded.end()) {
      trace::TraceLoadOptions options;
      options.format = format;
      auto trace = trace::LoadTrace(path, options);
      if (!trace.ok()) {
        return Status::InvalidArgument(fmt::format(
            "{} (agentic-coding): --trace {}: {} (InferenceX replays {} here: {}/ under "
            "--trace is used when present)",
            p.recipe, settings.trace_path, trace.status().message(), loader, loader));
      }
      if (trace->text_messages) {
        return Status::InvalidArgument(fmt::format(
            "{} (agentic-coding): --trace {}: a {} trace is chat messages; agentic rows "
            "replay hash-id traces (mooncake_trace, weka_trace, bailian_trace), as InferenceX "
            "replays Weka trajectories",
            p.recipe, settings.trace_path, trace::TraceFormatName(trace->format)));
      }
      known = loaded.emplace(path, std::string(trace::TraceFormatName(trace->format))).first;
    }
    p.load.dataset = known->second;
    p.load.dataset_path = path;
    p.load.endpoint = AgenticEndpoint(p.serve);
    if (settings.duration_s > 0) p.load.duration_s = settings.duration_s;
    AssignIds(&p);
  }
  if (!any && settings.duration_s > 0) {
    return Status::InvalidArgument(
        "--duration applies to agentic-coding points (trace replay); the selected points "
        "have none (--scenario-type agentic-coding selects them)");
  }
  if (!any && !settings.trace_path.empty()) {
    return Status::InvalidArgument(
        "--trace: the selected points have no agentic-coding scenario to replay it "
        "(--scenario-type agentic-coding selects them)");
  }
  return Status::Ok();
}

}  // namespace servebench::recipe
