// servebench import inferencex DIR: capture what InferenceX's benchmark scripts
// launch (capture/capture.h) and write it as native recipes.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "capture/capture.h"
#include "capture/recipe_writer.h"
#include "cli/command.h"
#include "common/atomic_file.h"
#include "common/exit_codes.h"
#include "common/json_string.h"
#include "recipe/recipe.h"

namespace servebench::cli {
namespace {

namespace fs = std::filesystem;

// The checkout's master configs and runners.yaml, or why DIR is not a checkout.
StatusOr<std::vector<std::string>> CheckoutFiles(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Status::InvalidArgument(dir + ": not a folder; give an InferenceX checkout");
  if (!fs::is_directory(fs::path(dir) / "benchmarks", ec))
    return Status::InvalidArgument(dir +
                                   ": no benchmarks/ folder; an InferenceX checkout has "
                                   "benchmarks/single_node/ and configs/");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(fs::path(dir) / "configs", ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() > 12 && name.compare(name.size() - 12, 12, "-master.yaml") == 0)
      files.push_back(entry.path().string());
  }
  if (files.empty())
    return Status::InvalidArgument(dir +
                                   "/configs: no *-master.yaml; an InferenceX checkout "
                                   "keeps its master configs there");
  std::sort(files.begin(), files.end());
  if (fs::is_regular_file(fs::path(dir) / "configs" / "runners.yaml", ec))
    files.push_back((fs::path(dir) / "configs" / "runners.yaml").string());
  return files;
}

// One JSON line per script run: what ran and what was kept.
std::string Transcript(const std::vector<capture::LaunchCapture>& captures) {
  std::string out;
  auto strings = [&](const std::vector<std::string>& v) {
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      AppendJsonString(&out, v[i]);
    }
    out += ']';
  };
  auto string_map = [&](const auto& m) {
    out += '{';
    bool first = true;
    for (const auto& [k, v] : m) {
      if (!first) out += ',';
      first = false;
      AppendJsonString(&out, k);
      out += ':';
      AppendJsonString(&out, v);
    }
    out += '}';
  };
  auto field = [&](const char* name) {
    out += ",\"";
    out += name;
    out += "\":";
  };
  for (const auto& c : captures) {
    out += "{\"script\":";
    AppendJsonString(&out, c.script);
    field("captured");
    out += c.ok() ? "true" : "false";
    field("failure");
    AppendJsonString(&out, c.failure);
    field("argv");
    strings(c.argv);
    field("port");
    out += std::to_string(c.port);
    field("env");
    string_map(c.env);
    field("env_from");
    string_map(c.env_from);
    field("prepare");
    out += '[';
    for (size_t i = 0; i < c.prepare.size(); ++i) {
      if (i) out += ',';
      strings(c.prepare[i]);
    }
    out += ']';
    std::vector<std::string> paths;
    for (const auto& f : c.files) paths.push_back(f.path);
    field("files");
    strings(paths);
    field("client");
    strings(c.client_argv);
    field("notes");
    strings(c.notes);
    field("exit_code");
    out += std::to_string(c.exit_code) + "}\n";
  }
  return out;
}

int RunImportInferenceX(const std::string& dir, const std::string& out_path,
                        const std::string& transcript_path, recipe::MatrixFilters filters,
                        capture::CaptureSettings settings, bool notes) {
  auto files = CheckoutFiles(dir);
  if (!files.ok()) {
    std::fprintf(stderr, "servebench import: %s\n", files.status().message().c_str());
    return kExitInvalidInput;
  }
  recipe::Diagnostics diagnostics;
  recipe::RecipeSet set = recipe::LoadRecipes(*files, &diagnostics);
  if (!diagnostics.empty()) std::fputs(diagnostics.ToString().c_str(), stderr);
  if (!diagnostics.ok()) {
    std::fprintf(stderr, "servebench import: %zu problem(s) in %s/configs; nothing was run\n",
                 diagnostics.error_count(), dir.c_str());
    return kExitInvalidInput;
  }
  auto plan = recipe::ExpandRecipes(set, filters);
  if (!plan.ok()) {
    std::fprintf(stderr, "servebench import: %s\n", plan.status().message().c_str());
    return kExitInvalidInput;
  }
  settings.inferencex_root = dir;
  std::vector<capture::LaunchCapture> captures;
  auto report = capture::CaptureInferenceXLaunches(&*plan, set.runners, settings, &captures);
  if (!report.ok()) {
    std::fprintf(stderr, "servebench import: %s\n", report.status().message().c_str());
    return kExitRunFailed;
  }
  std::fputs(capture::FormatCaptureReport(*report, notes).c_str(), stdout);
  auto written = capture::WriteNativeRecipes(
      plan->points,
      "Captured by `servebench import inferencex` from " + dir +
          ":\nthe server command, environment, files and downloads of each InferenceX "
          "benchmark script,\nand its client's load (docs/recipes.md, \"Captured InferenceX "
          "launches\").\nInferenceX's eval marking is not carried: run the master config with "
          "--inferencex-root for it.");
  if (!written.ok()) {
    std::fprintf(stderr, "servebench import: %s\n", written.status().message().c_str());
    return kExitRunFailed;
  }
  for (const auto& why : written->skipped) std::printf("not written: %s\n", why.c_str());
  Status saved = WriteFileAtomically(out_path, written->yaml);
  if (!saved.ok()) {
    std::fprintf(stderr, "servebench import: %s\n", saved.message().c_str());
    return kExitRunFailed;
  }
  std::printf("wrote %d recipe(s) to %s\n", written->recipes, out_path.c_str());
  if (!transcript_path.empty()) {
    Status t = WriteFileAtomically(transcript_path, Transcript(captures));
    if (!t.ok()) {
      std::fprintf(stderr, "servebench import: %s\n", t.message().c_str());
      return kExitRunFailed;
    }
    std::printf("wrote %zu script run(s) to %s\n", captures.size(), transcript_path.c_str());
  }
  return report->all_captured() ? kExitOk : kExitRunFailed;
}

int RunImport(int argc, char** argv) {
  CLI::App app{
      "Import recipes from another system.\n\n"
      "  servebench import inferencex DIR   run each InferenceX benchmark script of DIR's master\n"
      "                                     configs with stand-in engines, clients and GPU tools,\n"
      "                                     once per job environment, and write native recipes\n"
      "                                     that launch exactly what the scripts launch",
      argv[0]};
  app.require_subcommand(1);
  CLI::App* ix = app.add_subcommand("inferencex", "capture an InferenceX checkout's launches");
  std::string dir, out = "inferencex-captured.yaml", transcript;
  recipe::MatrixFilters filters;
  capture::CaptureSettings settings;
  bool notes = false;
  ix->add_option("DIR", dir, "the InferenceX checkout (benchmarks/, configs/*-master.yaml)")
      ->required();
  ix->add_option("--out", out, "the native recipe file to write")->capture_default_str();
  ix->add_option("--transcript", transcript,
                 "also write every script run (argv, env, files, client, notes) as JSON lines");
  ix->add_option("--config-keys", filters.config_keys, "config keys or globs (* ?)")
      ->delimiter(',');
  ix->add_option("--seq-lens", filters.seq_lens, "1k1k, 8k1k, 1k8k or <isl>x<osl>")->delimiter(',');
  ix->add_option("--conc", filters.conc, "only these concurrencies")->delimiter(',');
  ix->add_option("--runner", filters.runners, "runner labels")->delimiter(',');
  ix->add_option("--framework", filters.frameworks, "frameworks")->delimiter(',');
  ix->add_option("--precision", filters.precisions, "precisions")->delimiter(',');
  ix->add_option("--model-prefix", filters.model_prefixes, "model prefixes")->delimiter(',');
  ix->add_option("--scenario-type", filters.scenario_types, "fixed-seq-len and/or agentic-coding")
      ->delimiter(',');
  ix->add_option("--port", settings.port, "the PORT the scripts get (InferenceX's 8888)")
      ->check(CLI::Range(1, 65535))
      ->capture_default_str();
  ix->add_option("--jobs", settings.jobs, "scripts run at once (0 = the cores, at most 4)")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  ix->add_option("--script-timeout", settings.script_timeout_s,
                 "seconds a script may run before it counts as not captured")
      ->check(CLI::Range(1.0, 3600.0))
      ->capture_default_str();
  ix->add_flag("--notes", notes, "also list what the scripts ran that is not carried");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  return RunImportInferenceX(dir, out, transcript, filters, settings, notes);
}

const CommandRegistration kRegister{
    {"import", "capture InferenceX's launch scripts as native recipes", RunImport}};

}  // namespace
}  // namespace servebench::cli
