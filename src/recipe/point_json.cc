// Point ⇄ canonical JSON, point_id / session_id, and grouping into sessions.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/sha256.h"
#include "recipe/canonical_json.h"
#include "recipe/hub_snapshot.h"
#include "recipe/recipe.h"

namespace servebench::recipe {
namespace {

namespace json = boost::json;

const char* AcceptanceName(AcceptanceMode m) {
  switch (m) {
    case AcceptanceMode::kReal:
      return "real";
    case AcceptanceMode::kSyntheticTarget:
      return "synthetic";
    case AcceptanceMode::kSyntheticGolden:
      return "golden";
  }
  return "real";
}

json::object StringMapJson(const std::map<std::string, std::string>& m) {
  json::object o;
  for (const auto& [k, v] : m) o[k] = v;
  return o;
}

json::array StringsJson(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.push_back(json::string(s));
  return a;
}

json::object WorkerJson(const WorkerSpec& w) {
  json::object o{{"num_workers", w.num_workers},
                 {"tp", w.tp},
                 {"pp", w.pp},
                 {"ep", w.ep},
                 {"dp_attn", w.dp_attn},
                 {"dcp_size", w.dcp_size},
                 {"pcp_size", w.pcp_size},
                 {"hardware", w.hardware},
                 {"additional_settings", StringsJson(w.additional_settings)}};
  if (w.nodes != 0) o["nodes"] = w.nodes;  // only when set: identities stay as they were
  return o;
}

// The fields added for verbatim commands are written only when set, so points
// without them keep the ids they had before the fields existed.
void AddLaunchFields(const ServeSpec& s, json::object* serve) {
  if (!s.env_from.empty()) (*serve)["env_from"] = StringMapJson(s.env_from);
  if (!s.prepare.empty()) {
    json::array steps;
    for (const auto& argv : s.prepare) steps.push_back(StringsJson(argv));
    (*serve)["prepare"] = std::move(steps);
  }
  const VerbatimCommand& c = s.command;
  if (c.argv.empty() && c.files.empty() && c.port == 0 && c.source.empty() && c.folder.empty())
    return;
  json::array files;
  for (const auto& f : c.files)
    files.push_back(json::object{{"path", f.path}, {"contents", f.contents}});
  json::object command{
      {"argv", StringsJson(c.argv)}, {"port", c.port}, {"files", files}, {"source", c.source}};
  if (!c.folder.empty()) command["folder"] = c.folder;
  if (!c.auxiliary.empty()) {
    json::array auxiliary;
    for (const auto& a : c.auxiliary) {
      json::object aux{{"argv", StringsJson(a.argv)}, {"env", StringMapJson(a.env)}};
      // Only when set, so the ids of commands without one are unchanged.
      if (!a.env_from.empty()) aux["env_from"] = StringMapJson(a.env_from);
      auxiliary.push_back(std::move(aux));
    }
    command["auxiliary"] = std::move(auxiliary);
  }
  // Only when set, so the ids of commands without a router are unchanged.
  if (!c.router.argv.empty()) {
    json::object router{{"argv", StringsJson(c.router.argv)},
                        {"env", StringMapJson(c.router.env)},
                        {"port", c.router.port}};
    if (!c.router.env_from.empty()) router["env_from"] = StringMapJson(c.router.env_from);
    command["router"] = std::move(router);
  }
  (*serve)["command"] = std::move(command);
}

json::object ToJsonAllFields(const Point& p) {
  const ServeSpec& s = p.serve;
  json::object spec{{"method", SpecMethodName(s.spec.method)},
                    {"draft_model", s.spec.draft_model},
                    {"num_speculative_tokens", s.spec.num_speculative_tokens},
                    {"acceptance", AcceptanceName(s.spec.acceptance)},
                    {"synthetic_acceptance_length", s.spec.synthetic_acceptance_length},
                    {"golden_table", s.spec.golden_table},
                    {"golden_model", s.spec.golden_model},
                    {"golden_thinking", s.spec.golden_thinking},
                    {"extra", StringMapJson(s.spec.extra)}};
  json::object serve{{"engine", s.engine},
                     {"image", s.image},
                     {"model", s.model},
                     {"served_model_name", s.served_model_name},
                     {"precision", s.precision},
                     {"hardware", s.hardware},
                     {"tp", s.tp},
                     {"pp", s.pp},
                     {"ep", s.ep},
                     {"dp", s.dp},
                     {"dp_attn", s.dp_attn},
                     {"dcp_size", s.dcp_size},
                     {"pcp_size", s.pcp_size},
                     {"max_model_len", s.max_model_len},
                     {"kv_cache_dtype", s.kv_cache_dtype},
                     {"spec", spec},
                     {"extra_args", StringsJson(s.extra_args)},
                     {"env", StringMapJson(s.env)},
                     {"readiness_timeout_s", s.readiness_timeout_s},
                     {"sim_options", StringMapJson(s.sim_options)},
                     {"framework", s.framework},
                     {"multinode", s.multinode},
                     {"disagg", s.disagg},
                     {"prefill", WorkerJson(s.prefill)},
                     {"decode", WorkerJson(s.decode)},
                     {"router_name", s.router_name},
                     {"router_version", s.router_version},
                     {"kv_p2p_transfer", s.kv_p2p_transfer},
                     {"kv_offloading", s.kv_offloading},
                     {"kv_offload_backend", s.kv_offload_backend},
                     {"kv_offload_backend_version", s.kv_offload_backend_version},
                     {"total_cpu_dram_gb", s.total_cpu_dram_gb}};
  AddLaunchFields(s, &serve);
  // Written only when set, as the launch fields are.
  auto warmups_per_conc = [&](json::object* load) {
    if (p.load.warmups_per_concurrency > 0)
      (*load)["warmups_per_concurrency"] = p.load.warmups_per_concurrency;
  };
  // Only when set, so the identity of every point that is not a rehearsal is unchanged.
  if (!s.stands_in_for.empty()) serve["stands_in_for"] = s.stands_in_for;
  // Topology settings only when set, so single-node points keep their identity.
  if (s.gpus_per_node != 0) serve["gpus_per_node"] = s.gpus_per_node;
  if (!s.router_policy.empty()) serve["router_policy"] = s.router_policy;
  const LoadSpec& l = p.load;
  json::object load{{"scenario", l.scenario},
                    {"endpoint", l.endpoint},
                    {"dataset", l.dataset},
                    {"dataset_path", l.dataset_path},
                    {"isl", l.isl},
                    {"osl", l.osl},
                    {"random_range_ratio", l.random_range_ratio},
                    {"concurrency", l.concurrency},
                    {"num_prompts", l.num_prompts},
                    {"request_rate_per_s", l.request_rate_per_s},
                    {"num_warmups", l.num_warmups},
                    {"ignore_eos", l.ignore_eos},
                    {"duration_s", l.duration_s},
                    {"repetitions", l.repetitions},
                    {"backend", l.backend},
                    {"extra_args", StringsJson(l.extra_args)}};
  warmups_per_conc(&load);
  // Only for a search, so every other point keeps its identity.
  if (l.search.enabled()) {
    const SloSearchSpec& q = l.search;
    json::object search{{"vary", q.vary}, {"slo", StringsJson(q.slos)}};
    if (q.min) search["min"] = *q.min;
    if (q.max) search["max"] = *q.max;
    if (q.step) search["step"] = *q.step;
    if (q.resolution) search["resolution"] = *q.resolution;
    if (q.repeats) search["repeats"] = *q.repeats;
    if (q.max_probes) search["max_probes"] = *q.max_probes;
    if (l.prompts_per_concurrency > 0)
      search["prompts_per_concurrency"] = l.prompts_per_concurrency;
    load["search"] = std::move(search);
  }
  // Only for a prefix pool, so every other point keeps its identity.
  if (l.dataset == "prefix_repetition") {
    load["prefix_pool"] = json::object{{"prefix_len", l.prefix_len},
                                       {"num_prefixes", l.num_prefixes},
                                       {"reuse_ratio", l.prefix_reuse_ratio}};
  }
  json::array evals;
  for (const auto& e : p.evals)
    evals.push_back(json::object{{"name", e.name},
                                 {"num_fewshot", e.num_fewshot},
                                 {"model_args", StringMapJson(e.model_args)}});
  return {{"point_id", p.point_id},
          {"session_id", p.session_id},
          {"recipe", p.recipe},
          {"source_file", p.source_file},
          {"source_format", p.source_format},
          {"runner", p.runner},
          {"model_prefix", p.model_prefix},
          {"exp_name", p.exp_name},
          {"serve", serve},
          {"load", load},
          {"run_eval", p.run_eval},
          {"eval_tasks", StringsJson(p.eval_tasks)},
          {"eval_only", p.eval_only},
          {"evals", evals},
          {"nightly", p.nightly},
          {"blocked", p.blocked},
          {"blocked_reason", p.blocked_reason},
          {"blocked_link", p.blocked_link}};
}

json::object ToJson(const Point& p) {
  json::object o = ToJsonAllFields(p);
  if (!p.env_not_secret.empty()) o["env_not_secret"] = StringsJson(p.env_not_secret);
  return o;
}

// Reads one JSON object field by field; whatever is left unread is an error.
class Reader {
 public:
  Reader(const json::value& v, std::string path, std::vector<std::string>* errors)
      : path_(std::move(path)), errors_(errors) {
    if (!v.is_object()) {
      errors_->push_back(path_ + ": expected an object");
      return;
    }
    obj_ = &v.get_object();
  }
  ~Reader() {
    if (!obj_) return;
    for (const auto& kv : *obj_)
      if (!read_.count(std::string(kv.key())))
        errors_->push_back(fmt::format("{}.{}: unknown field", path_, std::string(kv.key())));
  }
  bool Has(const char* key) const { return obj_ != nullptr && obj_->contains(key); }
  const json::value* Get(const char* key) {
    read_.insert(key);
    if (!obj_) return nullptr;
    const json::value* v = obj_->if_contains(key);
    if (!v) errors_->push_back(fmt::format("{}.{}: missing", path_, key));
    return v;
  }
  // As Get, for a field that may be absent.
  const json::value* Optional(const char* key) {
    read_.insert(key);
    return obj_ ? obj_->if_contains(key) : nullptr;
  }
  // A field written only when set (stands_in_for): absent means empty.
  void OptionalStr(const char* key, std::string* out) {
    if (Optional(key)) Str(key, out);
  }
  void OptionalInt(const char* key, int* out) {
    if (Optional(key)) Int(key, out);
  }
  void Str(const char* key, std::string* out) {
    if (auto* v = Get(key)) {
      if (v->is_string())
        *out = std::string(v->get_string());
      else
        Bad(key, "a string");
    }
  }
  void Int(const char* key, int* out) {
    if (auto* v = Get(key)) {
      if (v->is_int64())
        *out = static_cast<int>(v->get_int64());
      else
        Bad(key, "an integer");
    }
  }
  void Double(const char* key, double* out) {
    if (auto* v = Get(key)) {
      if (v->is_number())
        *out = v->to_number<double>();
      else
        Bad(key, "a number");
    }
  }
  void Bool(const char* key, bool* out) {
    if (auto* v = Get(key)) {
      if (v->is_bool())
        *out = v->get_bool();
      else
        Bad(key, "true or false");
    }
  }
  void Strings(const char* key, std::vector<std::string>* out) {
    if (auto* v = Get(key)) {
      if (!v->is_array()) return Bad(key, "a list of strings");
      for (const auto& s : v->get_array()) {
        if (!s.is_string()) return Bad(key, "a list of strings");
        out->push_back(std::string(s.get_string()));
      }
    }
  }
  void StringMap(const char* key, std::map<std::string, std::string>* out) {
    if (auto* v = Get(key)) {
      if (!v->is_object()) return Bad(key, "an object of strings");
      for (const auto& kv : v->get_object()) {
        if (!kv.value().is_string()) return Bad(key, "an object of strings");
        (*out)[std::string(kv.key())] = std::string(kv.value().get_string());
      }
    }
  }
  std::string PathOf(const char* key) const { return path_ + "." + key; }
  void Bad(const char* key, const char* what) {
    errors_->push_back(fmt::format("{}.{}: expected {}", path_, key, what));
  }

 private:
  const json::object* obj_ = nullptr;
  std::string path_;
  std::vector<std::string>* errors_;
  std::set<std::string> read_;
};

void ReadLaunchFields(Reader& sr, ServeSpec* s, std::vector<std::string>* errs) {
  if (sr.Optional("env_from")) sr.StringMap("env_from", &s->env_from);
  if (const json::value* v = sr.Optional("prepare")) {
    bool ok = v->is_array();
    if (ok) {
      for (const auto& step : v->get_array()) {
        ok = ok && step.is_array();
        if (!ok) break;
        std::vector<std::string> argv;
        for (const auto& a : step.get_array()) {
          ok = ok && a.is_string();
          if (ok) argv.push_back(std::string(a.get_string()));
        }
        s->prepare.push_back(std::move(argv));
      }
    }
    if (!ok) sr.Bad("prepare", "a list of lists of strings");
  }
  if (const json::value* v = sr.Optional("command")) {
    Reader cr(*v, sr.PathOf("command"), errs);
    VerbatimCommand& c = s->command;
    cr.Strings("argv", &c.argv);
    cr.Int("port", &c.port);
    cr.Str("source", &c.source);
    if (cr.Optional("folder")) cr.Str("folder", &c.folder);
    if (const json::value* files = cr.Get("files")) {
      if (!files->is_array()) {
        cr.Bad("files", "a list");
      } else {
        for (size_t i = 0; i < files->get_array().size(); ++i) {
          CommandFile f;
          Reader fr(files->get_array()[i], fmt::format("{}[{}]", cr.PathOf("files"), i), errs);
          fr.Str("path", &f.path);
          fr.Str("contents", &f.contents);
          c.files.push_back(std::move(f));
        }
      }
    }
    if (const json::value* auxiliary = cr.Optional("auxiliary")) {
      if (!auxiliary->is_array()) {
        cr.Bad("auxiliary", "a list");
      } else {
        for (size_t i = 0; i < auxiliary->get_array().size(); ++i) {
          AuxiliaryCommand a;
          Reader ar(auxiliary->get_array()[i], fmt::format("{}[{}]", cr.PathOf("auxiliary"), i),
                    errs);
          ar.Strings("argv", &a.argv);
          ar.StringMap("env", &a.env);
          if (ar.Optional("env_from")) ar.StringMap("env_from", &a.env_from);
          c.auxiliary.push_back(std::move(a));
        }
      }
    }
    if (const json::value* router = cr.Optional("router")) {
      Reader rr(*router, cr.PathOf("router"), errs);
      rr.Strings("argv", &c.router.argv);
      rr.StringMap("env", &c.router.env);
      if (rr.Optional("env_from")) rr.StringMap("env_from", &c.router.env_from);
      rr.Int("port", &c.router.port);
    }
  }
}

void ReadWorker(Reader& parent, const char* key, WorkerSpec* w, std::vector<std::string>* errs) {
  const json::value* v = parent.Get(key);
  if (!v) return;
  Reader r(*v, parent.PathOf(key), errs);
  r.Int("num_workers", &w->num_workers);
  r.Int("tp", &w->tp);
  r.Int("pp", &w->pp);
  r.Int("ep", &w->ep);
  r.Bool("dp_attn", &w->dp_attn);
  r.Int("dcp_size", &w->dcp_size);
  r.Int("pcp_size", &w->pcp_size);
  r.Str("hardware", &w->hardware);
  r.Strings("additional_settings", &w->additional_settings);
  r.OptionalInt("nodes", &w->nodes);
}

template <typename E>
bool ParseEnum(const std::string& s, E* out, E first, E last, const char* (*name)(E)) {
  for (int i = static_cast<int>(first); i <= static_cast<int>(last); ++i) {
    if (s == name(static_cast<E>(i))) {
      *out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

std::string HashWithout(json::object o, std::initializer_list<const char*> top,
                        std::initializer_list<const char*> in_load) {
  for (const char* k : top) o.erase(k);
  for (const char* k : in_load) o["load"].as_object().erase(k);
  return Sha256Hex(CanonicalJson(o));
}

}  // namespace

std::string PointToJson(const Point& point) { return CanonicalJson(ToJson(point)); }

void AssignIds(Point* point) {
  json::object o = ToJson(*point);
  point->point_id = HashWithout(o, {"point_id", "session_id", "source_file", "env_not_secret"}, {});
  point->session_id = HashWithout(o,
                                  {"point_id", "session_id", "source_file", "exp_name", "run_eval",
                                   "eval_tasks", "evals", "eval_only", "env_not_secret"},
                                  {"concurrency", "num_prompts"});
}

Point WithSecretsRedacted(const Point& point) {
  Point out = point;
  for (auto& [name, value] : out.serve.env) {
    bool shown = std::find(point.env_not_secret.begin(), point.env_not_secret.end(), name) !=
                 point.env_not_secret.end();
    if (!shown && !IsHubSnapshotWord(value)) value = kRedactedValue;
  }
  // An auxiliary server's and the router's environment are the server's too: redacted by
  // the same names.
  std::vector<std::map<std::string, std::string>*> others = {&out.serve.command.router.env};
  for (auto& aux : out.serve.command.auxiliary) others.push_back(&aux.env);
  for (auto* env : others) {
    for (auto& [name, value] : *env) {
      bool shown = std::find(point.env_not_secret.begin(), point.env_not_secret.end(), name) !=
                   point.env_not_secret.end();
      if (!shown && !IsHubSnapshotWord(value)) value = kRedactedValue;
    }
  }
  return out;
}

StatusOr<Point> PointFromJson(std::string_view text) {
  json::value v;
  try {
    v = json::parse(text);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("point JSON does not parse: ") + e.what());
  }
  std::vector<std::string> errs;
  Point p;
  {
    Reader r(v, "point", &errs);
    r.Str("point_id", &p.point_id);
    r.Str("session_id", &p.session_id);
    r.Str("recipe", &p.recipe);
    r.Str("source_file", &p.source_file);
    r.Str("source_format", &p.source_format);
    r.Str("runner", &p.runner);
    r.Str("model_prefix", &p.model_prefix);
    r.Str("exp_name", &p.exp_name);
    r.Bool("run_eval", &p.run_eval);
    r.Strings("eval_tasks", &p.eval_tasks);
    r.Bool("eval_only", &p.eval_only);
    r.Bool("nightly", &p.nightly);
    r.Bool("blocked", &p.blocked);
    r.Str("blocked_reason", &p.blocked_reason);
    r.Str("blocked_link", &p.blocked_link);
    if (r.Has("env_not_secret"))
      r.Strings("env_not_secret", &p.env_not_secret);  // absent when empty
    if (const json::value* evals = r.Get("evals")) {
      if (!evals->is_array()) {
        r.Bad("evals", "a list");
      } else {
        for (size_t i = 0; i < evals->get_array().size(); ++i) {
          EvalTask t;
          Reader er(evals->get_array()[i], fmt::format("point.evals[{}]", i), &errs);
          er.Str("name", &t.name);
          er.Int("num_fewshot", &t.num_fewshot);
          er.StringMap("model_args", &t.model_args);
          p.evals.push_back(std::move(t));
        }
      }
    }
    if (const json::value* sv = r.Get("serve")) {
      ServeSpec& s = p.serve;
      Reader sr(*sv, "point.serve", &errs);
      sr.Str("engine", &s.engine);
      sr.Str("image", &s.image);
      sr.Str("model", &s.model);
      sr.Str("served_model_name", &s.served_model_name);
      sr.Str("precision", &s.precision);
      sr.Str("hardware", &s.hardware);
      sr.Int("tp", &s.tp);
      sr.Int("pp", &s.pp);
      sr.Int("ep", &s.ep);
      sr.Int("dp", &s.dp);
      sr.Bool("dp_attn", &s.dp_attn);
      sr.Int("dcp_size", &s.dcp_size);
      sr.Int("pcp_size", &s.pcp_size);
      sr.Int("max_model_len", &s.max_model_len);
      sr.Str("kv_cache_dtype", &s.kv_cache_dtype);
      sr.Strings("extra_args", &s.extra_args);
      sr.StringMap("env", &s.env);
      sr.Double("readiness_timeout_s", &s.readiness_timeout_s);
      sr.StringMap("sim_options", &s.sim_options);
      sr.OptionalStr("stands_in_for", &s.stands_in_for);
      sr.Str("framework", &s.framework);
      sr.Bool("multinode", &s.multinode);
      sr.Bool("disagg", &s.disagg);
      ReadWorker(sr, "prefill", &s.prefill, &errs);
      ReadWorker(sr, "decode", &s.decode, &errs);
      sr.Str("router_name", &s.router_name);
      sr.Str("router_version", &s.router_version);
      sr.Str("kv_p2p_transfer", &s.kv_p2p_transfer);
      sr.Str("kv_offloading", &s.kv_offloading);
      sr.Str("kv_offload_backend", &s.kv_offload_backend);
      sr.Str("kv_offload_backend_version", &s.kv_offload_backend_version);
      sr.Int("total_cpu_dram_gb", &s.total_cpu_dram_gb);
      ReadLaunchFields(sr, &s, &errs);
      sr.OptionalInt("gpus_per_node", &s.gpus_per_node);
      sr.OptionalStr("router_policy", &s.router_policy);
      if (const json::value* spv = sr.Get("spec")) {
        Reader spr(*spv, "point.serve.spec", &errs);
        std::string method, acceptance;
        spr.Str("method", &method);
        if (!ParseEnum(method, &s.spec.method, SpecMethod::kNone, SpecMethod::kNgram,
                       SpecMethodName))
          errs.push_back("point.serve.spec.method: unknown method '" + method + "'");
        spr.Str("acceptance", &acceptance);
        if (!ParseEnum(acceptance, &s.spec.acceptance, AcceptanceMode::kReal,
                       AcceptanceMode::kSyntheticGolden, AcceptanceName))
          errs.push_back("point.serve.spec.acceptance: unknown mode '" + acceptance + "'");
        spr.Str("draft_model", &s.spec.draft_model);
        spr.Int("num_speculative_tokens", &s.spec.num_speculative_tokens);
        spr.Double("synthetic_acceptance_length", &s.spec.synthetic_acceptance_length);
        spr.Str("golden_table", &s.spec.golden_table);
        spr.Str("golden_model", &s.spec.golden_model);
        spr.Bool("golden_thinking", &s.spec.golden_thinking);
        spr.StringMap("extra", &s.spec.extra);
      }
    }
    if (const json::value* lv = r.Get("load")) {
      LoadSpec& l = p.load;
      Reader lr(*lv, "point.load", &errs);
      lr.Str("scenario", &l.scenario);
      lr.Str("endpoint", &l.endpoint);
      lr.Str("dataset", &l.dataset);
      lr.Str("dataset_path", &l.dataset_path);
      lr.Int("isl", &l.isl);
      lr.Int("osl", &l.osl);
      lr.Double("random_range_ratio", &l.random_range_ratio);
      lr.Int("concurrency", &l.concurrency);
      lr.Int("num_prompts", &l.num_prompts);
      lr.Double("request_rate_per_s", &l.request_rate_per_s);
      lr.Int("num_warmups", &l.num_warmups);
      lr.Bool("ignore_eos", &l.ignore_eos);
      lr.Int("duration_s", &l.duration_s);
      lr.Int("repetitions", &l.repetitions);
      lr.Str("backend", &l.backend);
      lr.Strings("extra_args", &l.extra_args);
      if (lr.Optional("warmups_per_concurrency"))
        lr.Int("warmups_per_concurrency", &l.warmups_per_concurrency);
      if (const json::value* search = lr.Optional("search")) {
        SloSearchSpec& q = l.search;
        Reader qr(*search, "point.load.search", &errs);
        qr.Str("vary", &q.vary);
        qr.Strings("slo", &q.slos);
        auto optional_double = [&](const char* key, std::optional<double>* out) {
          if (!qr.Optional(key)) return;
          double v = 0;
          qr.Double(key, &v);
          *out = v;
        };
        auto optional_int = [&](const char* key, std::optional<int>* out) {
          if (!qr.Optional(key)) return;
          int v = 0;
          qr.Int(key, &v);
          *out = v;
        };
        optional_double("min", &q.min);
        optional_double("max", &q.max);
        optional_int("step", &q.step);
        optional_double("resolution", &q.resolution);
        optional_int("repeats", &q.repeats);
        optional_int("max_probes", &q.max_probes);
        if (qr.Optional("prompts_per_concurrency"))
          qr.Int("prompts_per_concurrency", &l.prompts_per_concurrency);
      }
      if (const json::value* pool = lr.Optional("prefix_pool")) {
        Reader pr(*pool, "point.load.prefix_pool", &errs);
        pr.Int("prefix_len", &l.prefix_len);
        pr.Int("num_prefixes", &l.num_prefixes);
        pr.Double("reuse_ratio", &l.prefix_reuse_ratio);
      }
    }
  }
  if (!errs.empty()) {
    std::string msg = "invalid point JSON:";
    for (const auto& e : errs) msg += "\n  " + e;
    return Status::InvalidArgument(msg);
  }
  return p;
}

std::vector<ServeSession> GroupSessions(const std::vector<Point>& points) {
  std::vector<ServeSession> sessions;
  std::map<std::string, size_t> index;
  for (const auto& p : points) {
    auto [it, inserted] = index.emplace(p.session_id, sessions.size());
    if (inserted) sessions.push_back({p.session_id, {}});
    sessions[it->second].points.push_back(p);
  }
  for (auto& s : sessions)
    std::stable_sort(s.points.begin(), s.points.end(), [](const Point& a, const Point& b) {
      return a.load.concurrency < b.load.concurrency;
    });
  return sessions;
}

}  // namespace servebench::recipe
