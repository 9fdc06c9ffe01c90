// ReadConfigText / ReadConfigFile: the one way servebench reads a data file — the
// sim's hardware and model catalogues, the engine flag tables and failure signatures,
// eval thresholds, the golden acceptance-length tables — with the recipe loader's
// rules and messages. The YAML is parsed into a located tree (yaml_tree.h: size,
// depth and alias limits, YAML 1.1 typing); `read` walks it with FieldReader
// (field_reader.h), which reports unknown keys (with "did you mean"), duplicates,
// missing keys and wrong types, and the reader adds its own rules through ctx.Error().
// Every problem is collected; any error fails the load. Reentrant.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "config/field_reader.h"
#include "config/yaml_tree.h"

namespace servebench::config {

// Reads the document's root. Report problems with ctx.Error() or a FieldReader on
// `ctx`; never stop at the first.
using ConfigReader = std::function<void(const LoadContext& ctx, const YNode& root)>;

// Parses `text`, named `file` in messages, and runs `read` over its root. Fails with
// InvalidArgument whose message lists every problem, one per line, as
// "file:line:column: field.path: what is wrong; what is allowed".
Status ReadConfigText(std::string_view text, const std::string& file, const ConfigReader& read);

// The same for the file at `path` (NotFound when it cannot be read).
Status ReadConfigFile(const std::string& path, const ConfigReader& read);

}  // namespace servebench::config
