// servebench eval: accuracy tasks against a running server and the gates that
// judge them (docs/eval.md). Subcommands:
//   servebench eval --task gsm8k --base-url URL --data test.jsonl ...   run (+ gates)
//   servebench eval make-synthetic --count N --seed S --output FILE
//   servebench eval gate floor|mcnemar|equivalence ...                 gates on saved runs
#include "eval/eval.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>

#include "cli/command.h"
#include "cli/command_line.h"
#include "common/atomic_file.h"
#include "common/exit_codes.h"
#include "eval/synthetic.h"

namespace servebench::cli {
namespace {

namespace json = boost::json;
using eval::Verdict;

std::atomic<bool> g_interrupted{false};

extern "C" void OnInterrupt(int) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

int Fail(const Status& status) {
  std::fprintf(stderr, "servebench eval: %s\n", status.message().c_str());
  return status.code() == StatusCode::kInvalidArgument || status.code() == StatusCode::kNotFound
             ? kExitInvalidInput
             : kExitRunFailed;
}

// The samples file of a run folder, or the path itself when it is a file.
std::string SamplesPath(const std::string& path) {
  return std::filesystem::is_directory(path) ? path + "/samples.jsonl" : path;
}
std::string ResultsPath(const std::string& path) {
  return std::filesystem::is_directory(path) ? path + "/results.json" : path;
}

struct GateOptions {
  std::string thresholds_path;
  std::string model_prefix;
  std::string task = "gsm8k";
  double min_score = eval::kDefaultMinScore;
  std::string baseline;
  std::string filter = "flexible-extract";
  double alpha = 0.01;
  double max_drop_points = 1.0;
  std::string reference;
  double equivalence_threshold = 0.90;
};

void AddFloorOptions(CLI::App* app, GateOptions& o, bool required) {
  auto* t = app->add_option("--thresholds", o.thresholds_path,
                            "thresholds YAML (data/evals/thresholds.yaml semantics)");
  if (required) t->required();
  app->add_option("--model-prefix", o.model_prefix,
                  "thresholds key (default: the model name up to its first '-')");
  app->add_option("--min-score", o.min_score, "floor when neither table names the task")
      ->capture_default_str();
}
void AddMcNemarOptions(CLI::App* app, GateOptions& o) {
  app->add_option("--filter", o.filter, "which correctness to pair")->capture_default_str();
  app->add_option("--alpha", o.alpha, "significance level")->capture_default_str();
  app->add_option("--max-drop-points", o.max_drop_points, "largest allowed accuracy drop")
      ->capture_default_str();
}

struct GateOutcome {
  json::array reports;
  bool failed = false;   // a gate said FAIL: exit 5
  bool invalid = false;  // the runs cannot be compared (INVALID): bad input, exit 1

  // The exit code this outcome alone calls for.
  int ExitCode() const {
    if (failed) return kExitGateFailed;
    return invalid ? kExitInvalidInput : kExitOk;
  }
};

void Record(GateOutcome& outcome, json::object report, Verdict verdict) {
  std::printf("%s\n", json::serialize(report).c_str());
  outcome.failed |= verdict == Verdict::kFail;
  outcome.invalid |= verdict == Verdict::kInvalid;
  outcome.reports.push_back(std::move(report));
}

Status FloorFromResults(const json::object& results, const std::string& model, const GateOptions& o,
                        GateOutcome& outcome) {
  SB_ASSIGN_OR_RETURN(eval::Thresholds thresholds, eval::LoadThresholds(o.thresholds_path));
  std::string prefix = o.model_prefix.empty() ? eval::ModelPrefixOf(model) : o.model_prefix;
  eval::FloorReport report = eval::FloorGate(results, thresholds, prefix, o.task, o.min_score);
  Record(outcome, eval::ToJson(report), report.verdict);
  return Status::Ok();
}

// L0: when both runs have a results.json, their task hashes must agree.
Status SameProtocol(const std::string& baseline, const std::string& candidate, const GateOptions& o,
                    GateOutcome& outcome) {
  if (!std::filesystem::is_directory(baseline) || !std::filesystem::is_directory(candidate)) {
    return Status::Ok();
  }
  auto a = ReadFile(ResultsPath(baseline));
  auto b = ReadFile(ResultsPath(candidate));
  if (!a.ok() || !b.ok()) return Status::Ok();
  boost::system::error_code ec1, ec2;
  json::value va = json::parse(*a, ec1);
  json::value vb = json::parse(*b, ec2);
  if (ec1 || ec2 || !va.is_object() || !vb.is_object()) {
    return Status::InvalidArgument(
        fmt::format("{} or {}: results.json is not a JSON object", baseline, candidate));
  }
  eval::ProtocolReport report = eval::ProtocolGate(va.as_object(), vb.as_object(), o.task);
  Record(outcome, eval::ToJson(report), report.verdict);
  return Status::Ok();
}

Status McNemar(const std::string& baseline, const std::string& candidate, const GateOptions& o,
               GateOutcome& outcome) {
  SB_RETURN_IF_ERROR(SameProtocol(baseline, candidate, o, outcome));
  SB_ASSIGN_OR_RETURN(auto base, eval::CorrectnessFromSamples(SamplesPath(baseline), o.filter));
  SB_ASSIGN_OR_RETURN(auto cand, eval::CorrectnessFromSamples(SamplesPath(candidate), o.filter));
  eval::McNemarReport report =
      eval::McNemarGate(eval::PairCorrectness(base, cand), o.alpha, o.max_drop_points);
  Record(outcome, eval::ToJson(report), report.verdict);
  return Status::Ok();
}

Status Equivalence(const std::string& reference, const std::string& candidate, const GateOptions& o,
                   GateOutcome& outcome) {
  SB_RETURN_IF_ERROR(SameProtocol(reference, candidate, o, outcome));
  SB_ASSIGN_OR_RETURN(auto ref, eval::ResponsesFromSamples(SamplesPath(reference)));
  SB_ASSIGN_OR_RETURN(auto cand, eval::ResponsesFromSamples(SamplesPath(candidate)));
  eval::EquivalenceReport report = eval::EquivalenceGate(ref, cand, o.equivalence_threshold);
  Record(outcome, eval::ToJson(report), report.verdict);
  return Status::Ok();
}

void PrintSummary(const eval::EvalResult& r) {
  auto stderr_text = [](const eval::MetricValue& m) {
    return m.has_stderr ? fmt::format("{:.4f}", m.stderr_value) : std::string("N/A");
  };
  std::printf("gsm8k (%s, %s, %u-shot): strict-match %.4f ± %s, flexible-extract %.4f ± %s\n",
              std::string(eval::ProtocolName(r.settings.protocol)).c_str(),
              std::string(eval::EndpointName(r.settings.endpoint)).c_str(), r.settings.num_fewshot,
              r.strict_match.value, stderr_text(r.strict_match).c_str(), r.flexible_extract.value,
              stderr_text(r.flexible_extract).c_str());
  std::printf("scored %zu, failed %zu, not run %zu of %zu in %.2f s%s\n", r.n_scored, r.n_failed,
              r.n_not_run, r.docs.size(), r.wall_seconds, r.interrupted ? " (interrupted)" : "");
  if (!r.stopped_reason.empty()) std::printf("stopped: %s\n", r.stopped_reason.c_str());
}

int RunTask(eval::EvalSettings& s, const std::string& protocol, const std::string& endpoint,
            const GateOptions& gates) {
  auto p = eval::ParseProtocol(protocol);
  if (!p.ok()) return Fail(p.status());
  auto e = eval::ParseEndpoint(endpoint);
  if (!e.ok()) return Fail(e.status());
  s.protocol = *p;
  s.endpoint = *e;
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  auto result = eval::RunEval(s, &g_interrupted);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (!result.ok()) return Fail(result.status());
  PrintSummary(*result);
  if (!s.output_dir.empty()) {
    Status written = eval::WriteEvalOutputs(*result, s.output_dir);
    if (!written.ok()) return Fail(written);
    std::printf("wrote %s/results.json and %s/samples.jsonl\n", s.output_dir.c_str(),
                s.output_dir.c_str());
  }
  GateOutcome outcome;
  if (!gates.thresholds_path.empty()) {
    Status st = FloorFromResults(eval::ToResultsJson(*result), s.model, gates, outcome);
    if (!st.ok()) return Fail(st);
  }
  if (!gates.baseline.empty() || !gates.reference.empty()) {
    if (s.output_dir.empty()) {
      return Fail(Status::InvalidArgument("--baseline/--reference need --output DIR"));
    }
    Status st = gates.baseline.empty() ? Status::Ok()
                                       : McNemar(gates.baseline, s.output_dir, gates, outcome);
    if (st.ok() && !gates.reference.empty()) {
      st = Equivalence(gates.reference, s.output_dir, gates, outcome);
    }
    if (!st.ok()) return Fail(st);
  }
  if (!s.output_dir.empty() && !outcome.reports.empty()) {
    Status st =
        WriteFileAtomically(s.output_dir + "/gates.json", json::serialize(outcome.reports) + "\n");
    if (!st.ok()) return Fail(st);
  }
  if (result->interrupted) return kExitInterrupted;
  if (result->n_scored == 0 || !result->stopped_reason.empty()) return kExitRunFailed;
  if (outcome.ExitCode() != kExitOk) return outcome.ExitCode();
  if (result->n_failed > 0) return kExitRunInvalid;
  return kExitOk;
}

int RunEvalCommand(int argc, char** argv) {
  CLI::App app{
      "Accuracy evals against a running OpenAI-compatible server, scored as\n"
      "lm-evaluation-harness scores them, and the gates that judge them.\n"
      "Probes the server first (GET /v1/models); shows questions done and accuracy so far.\n"
      "Exit codes: see the table below; 2 = some samples failed, 3 = nothing scored or the\n"
      "server stopped answering, 5 = a gate failed, 130 = interrupted (what was scored is\n"
      "still written).",
      argv[0]};
  app.require_subcommand(0, 1);
  eval::EvalSettings s;
  std::string protocol = "lm-eval";
  std::string endpoint = "completions";
  GateOptions gates;
  app.add_option("--task", s.task, "accuracy task")->capture_default_str();
  app.add_option("--base-url", s.base_url, "server, e.g. http://127.0.0.1:8000 (or https://)");
  app.add_option("--model", s.model, "the request's model field");
  app.add_option("--data", s.data_path, "test JSONL (question, answer ending '#### N')");
  app.add_option("--fewshot-data", s.fewshot_data_path, "train JSONL for the n-shot examples");
  app.add_option("--num-fewshot", s.num_fewshot, "shots per prompt")->capture_default_str();
  app.add_option("--fewshot-seed", s.fewshot_seed, "lm-eval fewshot_random_seed")
      ->capture_default_str();
  app.add_option("--protocol", protocol, "lm-eval | inferencex")->capture_default_str();
  app.add_option("--endpoint", endpoint, "completions | chat")->capture_default_str();
  app.add_option("--max-tokens", s.max_tokens, "generation cap per request")->capture_default_str();
  app.add_option("--num-concurrent", s.num_concurrent, "requests in flight")->capture_default_str();
  app.add_option("--max-retries", s.max_retries, "retries after a server error")
      ->capture_default_str();
  app.add_option("--timeout-ms", s.timeout_ms, "per-attempt timeout")->capture_default_str();
  bool no_keep_alive = false, no_progress = false;
  app.add_flag("--no-keep-alive", no_keep_alive, "a new connection per request");
  app.add_option("--ssl-ca-cert", s.tls.ca_cert_file,
                 "https: PEM file of CAs to trust besides the system store");
  app.add_flag("--insecure", s.tls.insecure, "https: do not verify the server's certificate");
  app.add_flag("--no-progress", no_progress,
               "no live progress line (questions done, accuracy so far) on stderr");
  app.add_option("--limit", s.limit, "first N questions only (0 = all)")->capture_default_str();
  app.add_option("--output", s.output_dir, "folder for results.json and samples.jsonl");
  AddFloorOptions(&app, gates, false);
  AddMcNemarOptions(&app, gates);
  app.add_option("--baseline", gates.baseline,
                 "earlier run (folder or samples.jsonl): McNemar parity gate");
  app.add_option("--reference", gates.reference,
                 "run of the reference server on the same prompts: equivalence gate");
  app.add_option("--equivalence-threshold", gates.equivalence_threshold,
                 "PASS when this fraction matches")
      ->capture_default_str();

  // make-synthetic
  uint64_t synthetic_seed = 0;
  size_t synthetic_count = 1319;
  std::string synthetic_output;
  CLI::App* synthetic = app.add_subcommand(
      "make-synthetic", "write gsm8k-format arithmetic problems with known answers");
  synthetic->add_option("--seed", synthetic_seed, "same seed, same file")->capture_default_str();
  synthetic->add_option("--count", synthetic_count, "questions")->capture_default_str();
  synthetic->add_option("--output", synthetic_output, "JSONL file to write")->required();

  // gate floor|mcnemar|equivalence
  CLI::App* gate = app.add_subcommand("gate", "judge saved runs");
  gate->require_subcommand(1);
  std::string results_path, candidate_path, reference_path, baseline_path, gate_model;
  CLI::App* floor = gate->add_subcommand("floor", "every exact_match metric >= the floor");
  floor->add_option("--results", results_path, "results.json (or its folder)")->required();
  floor->add_option("--task", gates.task, "task in the results")->capture_default_str();
  AddFloorOptions(floor, gates, true);
  CLI::App* mcnemar = gate->add_subcommand("mcnemar", "paired parity with a baseline run");
  mcnemar->add_option("--baseline", baseline_path, "baseline run folder or samples.jsonl")
      ->required();
  mcnemar->add_option("--candidate", candidate_path, "candidate run folder or samples.jsonl")
      ->required();
  AddMcNemarOptions(mcnemar, gates);
  CLI::App* equivalence =
      gate->add_subcommand("equivalence", "greedy outputs of two servers, compared");
  equivalence->add_option("--reference", reference_path, "reference run")->required();
  equivalence->add_option("--candidate", candidate_path, "candidate run")->required();
  equivalence->add_option("--threshold", gates.equivalence_threshold, "PASS fraction")
      ->capture_default_str();

  if (auto done = ParseCommandLine(app, argc, argv)) return *done;

  if (synthetic->parsed()) {
    Status st = WriteFileAtomically(
        synthetic_output, eval::GsmJsonl(eval::MakeSyntheticGsm(synthetic_seed, synthetic_count)));
    if (!st.ok()) return Fail(st);
    std::printf("wrote %zu questions to %s (seed %llu)\n", synthetic_count,
                synthetic_output.c_str(), static_cast<unsigned long long>(synthetic_seed));
    return kExitOk;
  }
  if (gate->parsed()) {
    GateOutcome outcome;
    Status st;
    if (floor->parsed()) {
      auto text = ReadFile(ResultsPath(results_path));
      if (!text.ok()) return Fail(text.status());
      boost::system::error_code ec;
      json::value results = json::parse(*text, ec);
      if (ec || !results.is_object()) {
        return Fail(Status::InvalidArgument(
            fmt::format("{}: not a JSON object (an lm-eval results.json)", results_path)));
      }
      std::string model;
      if (auto* name = results.as_object().if_contains("model_name"); name && name->is_string()) {
        model = std::string(name->as_string());
      }
      st = FloorFromResults(results.as_object(), model, gates, outcome);
    } else if (mcnemar->parsed()) {
      st = McNemar(baseline_path, candidate_path, gates, outcome);
    } else {
      st = Equivalence(reference_path, candidate_path, gates, outcome);
    }
    if (!st.ok()) return Fail(st);
    return outcome.ExitCode();
  }
  s.keep_alive = !no_keep_alive;
  s.progress = !no_progress;
  return RunTask(s, protocol, endpoint, gates);
}

const CommandRegistration kRegister{
    {"eval", "accuracy tasks (gsm8k) and speculative-decoding gates", RunEvalCommand}};

}  // namespace
}  // namespace servebench::cli
