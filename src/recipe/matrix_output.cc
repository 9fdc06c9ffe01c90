#include "recipe/matrix_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "recipe/canonical_json.h"

namespace servebench::recipe {
namespace {

std::string Topology(const ServeSpec& s) {
  if (s.multinode)
    return fmt::format("prefill {}x(tp{} ep{}{}) decode {}x(tp{} ep{}{})", s.prefill.num_workers,
                       s.prefill.tp, s.prefill.ep, s.prefill.dp_attn ? " dpa" : "",
                       s.decode.num_workers, s.decode.tp, s.decode.ep,
                       s.decode.dp_attn ? " dpa" : "");
  std::string t = fmt::format("tp{}", s.tp);
  if (s.pp != 1) t += fmt::format(" pp{}", s.pp);
  if (s.ep != 1) t += fmt::format(" ep{}", s.ep);
  if (s.dcp_size != 1) t += fmt::format(" dcp{}", s.dcp_size);
  if (s.pcp_size != 1) t += fmt::format(" pcp{}", s.pcp_size);
  if (s.dp_attn) t += " dpa";
  return t;
}

std::string SpecText(const SpecDecoding& s) {
  if (s.method == SpecMethod::kNone) return "";
  std::string t = fmt::format(" spec={}", SpecMethodName(s.method));
  if (s.num_speculative_tokens > 0) t += fmt::format("x{}", s.num_speculative_tokens);
  if (s.acceptance != AcceptanceMode::kReal)
    t += fmt::format(" AL={:g}", s.synthetic_acceptance_length);
  return t;
}

std::string Table(const Plan& plan) {
  auto sessions = GroupSessions(plan.points);
  std::string out;
  std::string current_recipe;
  int evals = 0;
  for (const auto& s : sessions) {
    const Point& first = s.points.front();
    if (first.recipe != current_recipe) {
      current_recipe = first.recipe;
      size_t n = 0, ns = 0;
      for (const auto& t : sessions)
        if (t.points.front().recipe == current_recipe) n += t.points.size(), ++ns;
      out += fmt::format("{} ({}, {}): {} points in {} sessions{}\n", first.recipe,
                         first.source_format, first.runner, n, ns,
                         first.blocked ? " [blocked: " + first.blocked_reason + "]" : "");
    }
    const ServeSpec& v = first.serve;
    std::string load = first.load.scenario == "agentic-coding"
                           ? fmt::format("agentic {}s", first.load.duration_s)
                           : fmt::format("isl {} osl {}", first.load.isl, first.load.osl);
    // A verbatim command says where it came from (a captured InferenceX script).
    std::string command;
    if (!v.command.argv.empty())
      command = "  command: " + (v.command.source.empty() ? "as written" : v.command.source);
    out += fmt::format("  session {}  {} {} {}{}  {}  ({} points){}\n", s.session_id.substr(0, 12),
                       v.engine, v.precision, Topology(v), SpecText(v.spec), load, s.points.size(),
                       command);
    for (const auto& p : s.points) {
      std::string eval;
      if (p.run_eval) {
        ++evals;
        eval = "  eval:";
        for (const auto& t : p.eval_tasks) eval += " " + t;
        if (p.eval_only) eval += " (eval only)";
      }
      std::string prompts =
          p.load.num_prompts > 0 ? fmt::format(" prompts {}", p.load.num_prompts) : "";
      out += fmt::format("    conc {:>5}{}  {}  {}{}\n", p.load.concurrency, prompts, p.exp_name,
                         p.point_id.substr(0, 12), eval);
    }
  }
  out += fmt::format("{} points, {} serve sessions, {} with evals, {} matrix rows\n",
                     plan.points.size(), sessions.size(), evals, plan.rows.size());
  return out;
}

std::string Buildkite(const Plan& plan, const std::vector<std::string>& paths,
                      const ConfigLabeler& config_label) {
  boost::json::array steps;
  std::string files;
  for (const auto& p : paths) files += " '" + p + "'";
  // A nightly selection (`matrix --nightly`) becomes `servebench nightly` steps, so
  // each carries the build identity the pipeline passes in its environment.
  bool all_nightly = !plan.points.empty() && std::all_of(plan.points.begin(), plan.points.end(),
                                                         [](const Point& p) { return p.nightly; });
  const char* subcommand = all_nightly ? "nightly" : "run";
  for (const auto& s : GroupSessions(plan.points)) {
    const Point& first = s.points.front();
    std::string concs;
    for (const auto& p : s.points)
      concs += (concs.empty() ? "" : ",") + std::to_string(p.load.concurrency);
    boost::json::object step;
    step["label"] = fmt::format("{} {} conc {}", first.recipe, config_label(first.serve), concs);
    step["key"] = "session-" + s.session_id.substr(0, 16);
    step["command"] = fmt::format("servebench {}{} --session {}", subcommand, files, s.session_id);
    step["agents"] = boost::json::object{{"queue", first.runner}};
    step["env"] = boost::json::object{{"SERVEBENCH_SESSION_ID", s.session_id}};
    steps.push_back(std::move(step));
  }
  return OrderedJson(boost::json::object{{"steps", std::move(steps)}}) + "\n";
}

}  // namespace

std::optional<MatrixFormat> ParseMatrixFormat(std::string_view name) {
  if (name == "table") return MatrixFormat::kTable;
  if (name == "json") return MatrixFormat::kJson;
  if (name == "jsonl") return MatrixFormat::kJsonl;
  if (name == "github") return MatrixFormat::kGithub;
  if (name == "buildkite") return MatrixFormat::kBuildkite;
  return std::nullopt;
}

std::string RenderMatrix(const Plan& plan, MatrixFormat format,
                         const std::vector<std::string>& recipe_paths,
                         const ConfigLabeler& config_label) {
  switch (format) {
    case MatrixFormat::kTable:
      return Table(plan);
    case MatrixFormat::kJson: {
      boost::json::array rows;
      for (const auto& r : plan.rows) rows.push_back(r);
      return OrderedJson(rows, /*python_style=*/true) + "\n";
    }
    case MatrixFormat::kJsonl: {
      std::string out;
      for (const auto& p : plan.points) out += PointToJson(WithSecretsRedacted(p)) + "\n";
      return out;
    }
    case MatrixFormat::kGithub: {
      boost::json::array rows;
      for (const auto& r : plan.rows) rows.push_back(r);
      return OrderedJson(boost::json::object{{"include", std::move(rows)}}) + "\n";
    }
    case MatrixFormat::kBuildkite:
      return Buildkite(plan, recipe_paths, config_label);
  }
  return "";
}

}  // namespace servebench::recipe
