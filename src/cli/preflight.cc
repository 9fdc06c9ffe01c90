#include "cli/preflight.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "cli/sim_flags.h"
#include "client/client_settings.h"
#include "engine/engine.h"
#include "engine/session_plan.h"
#include "recipe/agentic_trace.h"
#include "recipe/topology.h"
#include "run/real_backends.h"
#include "run/search_point.h"

namespace servebench::cli {
namespace {

// Where to report a problem with `point`: the first of `fields` (paths below the
// recipe, "sim.hardware") that the recipe wrote, else where the point came from.
recipe::Location Locate(const recipe::RecipeSet& set, const recipe::Point& point,
                        const recipe::Location& origin, const std::vector<std::string>& fields) {
  for (const std::string& field : fields) {
    auto it = set.field_locations.find(point.recipe + "." + field);
    if (it != set.field_locations.end()) return it->second;
  }
  return origin;
}

// The recipe field an adapter message is about ("serve.extra_args[1] = ..." names
// extra_args[1]), as candidates for Locate.
std::vector<std::string> FieldsOfAdapterMessage(const std::string& message) {
  auto after = [&](const std::string& prefix) -> std::string {
    if (message.rfind(prefix, 0) != 0) return "";
    size_t end = message.find_first_of(" :=", prefix.size());
    return message.substr(prefix.size(), end - prefix.size());
  };
  if (std::string f = after("serve.extra_args"); !f.empty())
    return {"extra_args" + f, "extra_args"};
  if (std::string f = after("serve.env."); !f.empty()) return {"env." + f, "env"};
  if (std::string f = after("serve.sim_options."); !f.empty()) {
    std::string fault = f.rfind("fault-", 0) == 0 ? f.substr(6) : f;
    return {"sim.faults." + fault, "sim.faults." + f, "sim." + f, "sim"};
  }
  if (message.rfind("serve.max_model_len", 0) == 0) return {"max_model_len"};
  if (message.rfind("serve.spec", 0) == 0) return {"spec_decoding"};
  return {"engine"};
}

// The same for a `servebench sim` message ("--hardware x: ...", "--fault-...").
std::vector<std::string> FieldsOfSimMessage(const std::string& message) {
  if (message.find("--hardware") != std::string::npos) return {"sim.hardware", "hardware"};
  if (message.find("--model") != std::string::npos) return {"model"};
  if (message.find("--time-scale") != std::string::npos) return {"sim.time_scale", "sim"};
  if (message.find("--power-average-s") != std::string::npos) return {"sim.power_average_s", "sim"};
  if (message.find("--fault") != std::string::npos) return {"sim.faults", "sim"};
  if (message.find("--max-model-len") != std::string::npos) return {"max_model_len"};
  if (message.find("--precision") != std::string::npos) return {"precision"};
  if (message.find("--speculative-config") != std::string::npos) return {"spec_decoding"};
  return {"sim", "engine"};
}

// The largest prompt + output a point's requests ask for: BenchSettingsFor draws
// lengths in InferenceX's [L*r, L] for a ratio > 0, so at most isl + osl.
int64_t MaxContextTokens(const recipe::Point& p) {
  return int64_t{p.load.isl} + int64_t{p.load.osl};
}

// What one serve session's command check found: an error, or the tokens a request
// may hold (0 = unknown: a real engine decides).
struct SessionCheck {
  Status status;
  std::vector<std::string> fields;  // where to report `status`
  int64_t context_tokens = 0;
};

SessionCheck CheckSession(const recipe::Point& point, const run::RunSettings& settings) {
  SessionCheck out;
  auto command = run::RenderEngineCommand(settings, point.serve, 0);
  if (!command.ok()) {
    out.status = command.status();
    out.fields = FieldsOfAdapterMessage(command.status().message());
    return out;
  }
  if (point.serve.engine != "sim") return out;
  // argv = [servebench, sim, flags...] after any container words.
  const std::vector<std::string>& argv = command->argv;
  auto sim_word = std::find(argv.begin(), argv.end(), "sim");
  if (sim_word == argv.end()) return out;
  StatusOr<int> context = CheckSimCommandLine({sim_word + 1, argv.end()});
  if (!context.ok()) {
    out.status = Status::InvalidArgument("the simulated engine would refuse this recipe: " +
                                         context.status().message());
    out.fields = FieldsOfSimMessage(context.status().message());
    return out;
  }
  out.context_tokens = *context;
  return out;
}

}  // namespace

recipe::Diagnostics CheckPlanRunnable(const recipe::RecipeSet& set, const recipe::Plan& plan,
                                      const run::RunSettings& settings, PreflightFor purpose) {
  bool validating = purpose == PreflightFor::kValidate;
  recipe::Diagnostics out;
  std::map<std::string, SessionCheck> sessions;  // by session_id: one check each
  std::map<std::string, Status> topologies;      // the same for sessions of several processes
  std::set<std::string> messages;                // one line per distinct problem per recipe
  auto add = [&](const recipe::Location& at, const recipe::Point& point, std::string message,
                 bool warning = false) {
    std::string key = point.recipe + "\n" + message;
    if (!messages.insert(key).second) return;
    if (warning) {
      out.AddWarning(at, point.recipe, std::move(message));
    } else {
      out.Add(at, point.recipe, std::move(message));
    }
  };
  for (size_t i = 0; i < plan.points.size(); ++i) {
    const recipe::Point& point = plan.points[i];
    recipe::Location origin = i < plan.origins.size() ? plan.origins[i] : recipe::Location{};
    if (origin.file.empty()) origin.file = point.source_file;

    // The load, as the client would refuse it. An agentic point names its trace only
    // at run time (`run --trace`, recipe/agentic_trace.h): `validate` has none to check.
    const bool unbound_trace =
        point.load.scenario == "agentic-coding" && !recipe::IsTraceReplay(point.load);
    client::BenchSettings bench = run::BenchSettingsFor(point, settings, "http://127.0.0.1:1", "");
    bench.model = bench.model.empty() ? "-" : bench.model;
    // A speed_bench point of a nightly workload gets its folder at run time too (`run
    // --speed-bench-dir`, cli/conversation_datasets.h, which reads and checks it before
    // this): the rest of its load is checked here as it stands.
    if (point.load.dataset == "speed_bench" && bench.dataset_path.empty()) {
      bench.dataset_path = "(--speed-bench-dir)";
    }
    if (unbound_trace) {
      if (!validating) {
        add(Locate(set, point, origin, {"load", "scenarios"}), point,
            "agentic-coding: no trace to replay (`servebench run --trace PATH`)");
      }
    } else if (Status st = client::Validate(bench); !st.ok()) {
      add(Locate(set, point, origin, {"load", "scenarios"}), point,
          fmt::format("concurrency {}: the load servebench would send is refused: {}",
                      point.load.concurrency, st.message()));
    }
    if (point.load.search.enabled()) {
      // A search point: its limits and range as `servebench search` would refuse them,
      // at the key of the recipe's search they are about (run/search_point.h).
      std::vector<std::string> fields;
      auto search = run::SearchSettingsFor(point, settings, "http://127.0.0.1:1", &fields);
      if (!search.ok()) {
        fields.push_back("scenarios");
        add(Locate(set, point, origin, fields), point, search.status().message());
      }
    }
    if (Status st = run::CheckEvalInputs(point, settings); !st.ok()) {
      add(Locate(set, point, origin, {"evals"}), point,
          fmt::format("this point runs evals: {}", st.message()),
          validating && settings.eval_data_path.empty());
    }
    if (recipe::HasTopology(point.serve)) {
      // A serve session of several processes: roles, connector, router and launch path
      // (engine/session_plan.h), once per session.
      auto [it, first] = topologies.try_emplace(point.session_id);
      if (first) {
        auto catalog = engine::DefaultSessionCatalog();
        it->second = catalog.ok() ? engine::CheckSession(point.serve, **catalog) : catalog.status();
      }
      if (!it->second.ok()) {
        // A valid session another launcher runs (llm-d, TileRT, ATOM) only stops `run`.
        bool other_launcher = it->second.code() == StatusCode::kFailedPrecondition;
        add(Locate(set, point, origin, {"topology", "framework", "engine"}), point,
            fmt::format("serve session: {}{}", it->second.message(),
                        other_launcher && !validating
                            ? "; select the others with --single-node or --framework"
                            : ""),
            validating && other_launcher);
      }
      continue;
    }
    if (!engine::IsKnownEngine(point.serve.engine)) {
      add(Locate(set, point, origin, {"engine", "framework"}), point,
          fmt::format("`servebench run` cannot launch this point here (engine {} has no "
                      "adapter); `servebench matrix` exports it for its own launcher{}",
                      point.serve.engine,
                      validating ? "" : "; select the others with --single-node or --framework"),
          validating);
      continue;
    }
    int64_t context = MaxContextTokens(point);
    bool too_long = point.serve.max_model_len > 0 && context > point.serve.max_model_len;
    if (too_long) {
      add(Locate(set, point, origin, {"max_model_len"}), point,
          fmt::format("max_model_len {} is below isl {} + osl {} = {}: every request would be "
                      "refused; raise max_model_len (or write `auto`)",
                      point.serve.max_model_len, point.load.isl, point.load.osl, context));
    }

    auto [it, first] = sessions.try_emplace(point.session_id);
    if (first) it->second = CheckSession(point, settings);
    const SessionCheck& session = it->second;
    if (!session.status.ok()) {
      add(Locate(set, point, origin, session.fields), point, session.status.message());
      continue;
    }
    if (!too_long && session.context_tokens > 0 && context > session.context_tokens) {
      add(Locate(set, point, origin, {"max_model_len", "model"}), point,
          fmt::format("isl {} + osl {} = {} tokens exceed the {} tokens the simulated {} serves "
                      "(its context, or max_model_len): every request would be refused",
                      point.load.isl, point.load.osl, context, session.context_tokens,
                      point.serve.model));
    }
  }
  return out;
}

}  // namespace servebench::cli
