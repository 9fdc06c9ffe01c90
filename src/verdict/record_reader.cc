#include "verdict/record_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json/parse.hpp>
#include <filesystem>
#include <optional>

#include "common/atomic_file.h"
#include "verdict/robust_stats.h"

namespace servebench::verdict {
namespace {

namespace json = boost::json;

std::string Str(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  if (it == o.end() || !it->value().is_string()) return "";
  return std::string(it->value().as_string());
}

const json::object* Obj(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it != o.end() && it->value().is_object() ? &it->value().as_object() : nullptr;
}

std::optional<double> Num(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  if (it == o.end()) return std::nullopt;
  const json::value& v = it->value();
  if (v.is_double()) return v.as_double();
  if (v.is_int64()) return static_cast<double>(v.as_int64());
  if (v.is_uint64()) return static_cast<double>(v.as_uint64());
  return std::nullopt;
}

// The judged metrics of one vllm-bench-compatible summary.
std::map<std::string, double> SummaryMetrics(const json::object& summary, double gpus) {
  std::map<std::string, double> m;
  auto total = Num(summary, "total_token_throughput");
  auto output = Num(summary, "output_throughput");
  if (total) m["tput_per_gpu"] = *total / gpus;
  if (output) m["output_tput_per_gpu"] = *output / gpus;
  if (total && output) m["input_tput_per_gpu"] = (*total - *output) / gpus;
  for (const char* stat : {"median", "p99"}) {
    for (const char* what : {"ttft", "tpot", "itl", "e2el"}) {
      std::string key = fmt::format("{}_{}_ms", stat, what);
      if (auto v = Num(summary, key)) m[key] = *v;
    }
  }
  if (auto tpot = Num(summary, "median_tpot_ms"); tpot && *tpot > 0)
    m["median_intvty"] = 1000 / *tpot;
  if (const json::object* sb = Obj(summary, "servebench")) {
    if (auto mem = Num(*sb, "peak_memory_gb")) m["peak_memory_gb"] = *mem;
  }
  return m;
}

// evals.tasks: [{task, accuracy|value, n, floor?, items?: {doc_id: bool}}] or an
// object keyed by task name with the same fields; or lm-eval's results JSON.
std::vector<AccuracyResult> ReadAccuracy(const json::object& evals) {
  std::vector<AccuracyResult> out;
  auto read_one = [&](const json::object& t, std::string name) {
    AccuracyResult a;
    a.task = name.empty() ? Str(t, "task") : std::move(name);
    auto value = Num(t, "accuracy");
    if (!value) value = Num(t, "value");
    if (a.task.empty() || !value) return;
    a.value = *value;
    a.n = static_cast<long>(Num(t, "n").value_or(0));
    a.floor = Num(t, "floor").value_or(-1);
    if (const json::object* items = Obj(t, "items")) {
      for (const auto& kv : *items) {
        if (kv.value().is_bool())
          a.items[std::string(kv.key())] = kv.value().as_bool();
        else if (kv.value().is_int64())
          a.items[std::string(kv.key())] = kv.value().as_int64() != 0;
      }
    }
    out.push_back(std::move(a));
  };
  // lm-eval's results JSON (docs/eval.md) embedded in evals, as is or under a key
  // (run/ writes evals.gsm8k = the results JSON): results.<task> with
  // "exact_match,flexible-extract" (else strict-match, else acc,none) and
  // n-samples.<task>.effective. No per-item results there: the unpaired test.
  auto read_lm_eval = [&](const json::object& doc) {
    const json::object* results = Obj(doc, "results");
    if (results == nullptr) return;
    const json::object* n_samples = Obj(doc, "n-samples");
    for (const auto& kv : *results) {
      if (!kv.value().is_object()) continue;
      const json::object& t = kv.value().as_object();
      std::optional<double> value;
      for (const char* key :
           {"exact_match,flexible-extract", "exact_match,strict-match", "acc,none"}) {
        if (!value) value = Num(t, key);
      }
      if (!value) continue;
      AccuracyResult a;
      a.task = std::string(kv.key());
      a.value = *value;
      if (n_samples != nullptr) {
        if (const json::object* n = Obj(*n_samples, kv.key()))
          a.n = static_cast<long>(Num(*n, "effective").value_or(0));
      }
      out.push_back(std::move(a));
    }
  };
  read_lm_eval(evals);
  for (const auto& kv : evals) {
    if (kv.value().is_object() && kv.key() != "tasks") read_lm_eval(kv.value().as_object());
  }
  auto it = evals.find("tasks");
  if (it == evals.end()) return out;
  if (it->value().is_array()) {
    for (const json::value& v : it->value().as_array()) {
      if (v.is_object()) read_one(v.as_object(), "");
    }
  } else if (it->value().is_object()) {
    for (const auto& kv : it->value().as_object()) {
      if (kv.value().is_object()) read_one(kv.value().as_object(), std::string(kv.key()));
    }
  }
  return out;
}

// "YYYY-MM-DD".
bool IsDate(std::string_view d) {
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (d[i] < '0' || d[i] > '9') return false;
  }
  return true;
}

std::string Label(const json::object& r) {
  std::string label = fmt::format("{} {} {} {}", Str(r, "recipe"), Str(r, "model"),
                                  Str(r, "hardware"), Str(r, "engine"));
  auto isl = Num(r, "isl"), osl = Num(r, "osl"), conc = Num(r, "concurrency");
  if (isl && osl) label += fmt::format(" {:g}/{:g}", *isl, *osl);
  if (conc) label += fmt::format(" c{:g}", *conc);
  return label;
}

// Everything that identifies the curve: the record's identity minus concurrency.
std::string CurveId(const json::object& r) {
  if (!Num(r, "concurrency")) return "";
  std::string id;
  for (const char* k :
       {"recipe", "engine", "model", "precision", "hardware", "runner", "spec_method"}) {
    id += Str(r, k) + "|";
  }
  for (const char* k : {"isl", "osl", "tp", "ep", "num_gpus"}) {
    id += fmt::format("{:g}|", Num(r, k).value_or(0));
  }
  auto dp = r.find("dp_attn");
  id += dp != r.end() && dp->value().is_bool() && dp->value().as_bool() ? "dp" : "nodp";
  return id;
}

}  // namespace

Status HistoryBuilder::Add(const json::object& r) {
  std::string series_id = Str(r, "series_id");
  std::string record_id = Str(r, "record_id");
  if (series_id.empty()) {
    return Status::InvalidArgument(fmt::format(
        "record '{}': series_id is missing; every record needs one (docs/record.md)", record_id));
  }
  std::string status = Str(r, "status");
  if (status == "skipped") return Status::Ok();
  Observation o;
  if (const json::object* b = Obj(r, "build")) {
    o.build = {Str(*b, "date"), Str(*b, "image"), Str(*b, "commit")};
  }
  if (o.build.image.empty()) o.build.image = Str(r, "image");
  if (o.build.date.empty()) {
    if (const json::object* p = Obj(r, "provenance"))
      o.build.date = Str(*p, "started_at").substr(0, 10);
  }
  if (!IsDate(o.build.date)) {
    return Status::InvalidArgument(fmt::format(
        "record '{}': no night: build.date and provenance.started_at are both missing or not "
        "YYYY-MM-DD...; nightly records carry build.date",
        record_id));
  }
  auto blocked = r.find("blocked");
  bool is_blocked = status == "blocked" || (blocked != r.end() && blocked->value().is_bool() &&
                                            blocked->value().as_bool());
  if (is_blocked) {
    o.status = NightStatus::kBlocked;
    o.reason = Str(r, "blocked_reason");
    if (std::string link = Str(r, "blocked_link"); !link.empty()) o.reason += " (" + link + ")";
    if (status == "failed") o.reason += "; failed: " + Str(r, "failure_class");
  } else if (status == "failed") {
    o.status = NightStatus::kFailed;
    o.reason = Str(r, "failure_class");
    if (std::string why = Str(r, "failure_reason"); !why.empty()) o.reason += ": " + why;
  } else if (status == "invalid") {
    o.status = NightStatus::kInvalid;
    o.reason = Str(r, "failure_reason");
    if (o.reason.empty()) o.reason = Str(r, "failure_class");
    if (o.reason.empty()) o.reason = "invalid run";
  } else if (status != "ok") {
    return Status::InvalidArgument(
        fmt::format("record '{}': status = '{}': must be ok, failed, invalid, blocked or skipped",
                    record_id, status));
  }
  double gpus = Num(r, "num_gpus").value_or(0);
  if (gpus <= 0) gpus = Num(r, "tp").value_or(1);
  if (gpus <= 0) gpus = 1;
  if (const json::object* summary = Obj(r, "summary")) {
    o.metrics = SummaryMetrics(*summary, gpus);
    if (o.status == NightStatus::kOk && Num(*summary, "failed").value_or(0) > 0) {
      o.status = NightStatus::kInvalid;
      o.reason = fmt::format("failed_requests: {:g} requests failed", *Num(*summary, "failed"));
    }
    if (const json::object* sb = Obj(*summary, "servebench")) {
      // run/ keeps every repetition's whole summary under servebench.repetitions.
      auto raw = sb->find("repetitions");
      if (raw == sb->end()) raw = sb->find("raw_runs");
      if (raw != sb->end() && raw->value().is_array()) {
        for (const json::value& run : raw->value().as_array()) {
          if (!run.is_object()) continue;
          for (const auto& [k, v] : SummaryMetrics(run.as_object(), gpus))
            o.raw_runs[k].push_back(v);
        }
      }
    }
  }
  if (const json::object* evals = Obj(r, "evals")) o.accuracy = ReadAccuracy(*evals);
  Entry& e = series_[series_id];
  if (e.meta.series_id.empty()) {
    e.meta.series_id = series_id;
    e.meta.label = Label(r);
    e.meta.curve_id = CurveId(r);
    std::string label = Label(r);
    e.meta.curve_label = label.substr(0, label.rfind(" c"));
    e.meta.concurrency = static_cast<int>(Num(r, "concurrency").value_or(0));
  }
  e.by_date[o.build.date].push_back(std::move(o));
  ++records_;
  return Status::Ok();
}

std::vector<SeriesHistory> HistoryBuilder::Finish() const {
  std::vector<SeriesHistory> out;
  for (const auto& [id, e] : series_) {
    SeriesHistory h = e.meta;
    for (const auto& [date, obs] : e.by_date) {
      std::vector<const Observation*> ok;
      for (const Observation& o : obs) {
        if (o.status == NightStatus::kOk) ok.push_back(&o);
      }
      if (ok.empty()) {
        // No passing record: blocked wins (known), then failed, then invalid.
        const Observation* pick = &obs.front();
        for (NightStatus want :
             {NightStatus::kInvalid, NightStatus::kFailed, NightStatus::kBlocked}) {
          for (const Observation& o : obs) {
            if (o.status == want) pick = &o;
          }
        }
        h.nights.push_back(*pick);
        continue;
      }
      if (ok.size() == 1) {
        h.nights.push_back(*ok.front());
        continue;
      }
      Observation merged = *ok.back();
      merged.metrics.clear();
      merged.raw_runs.clear();
      std::map<std::string, std::vector<double>> values;
      for (const Observation* o : ok) {
        for (const auto& [k, v] : o->metrics) {
          values[k].push_back(v);
          auto raw = o->raw_runs.find(k);
          if (raw != o->raw_runs.end() && !raw->second.empty()) {
            merged.raw_runs[k].insert(merged.raw_runs[k].end(), raw->second.begin(),
                                      raw->second.end());
          } else {
            merged.raw_runs[k].push_back(v);
          }
        }
      }
      for (auto& [k, v] : values) merged.metrics[k] = Median(v);
      h.nights.push_back(std::move(merged));
    }
    out.push_back(std::move(h));
  }
  return out;
}

StatusOr<std::vector<json::object>> ReadRecordDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::NotFound(
        fmt::format("--records {}: not a folder; give the folder that holds "
                    "the record JSON files (e.g. <out>/records)",
                    dir));
  }
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".json")
      files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<json::object> out;
  for (const std::string& f : files) {
    SB_ASSIGN_OR_RETURN(std::string text, ReadFile(f));
    boost::system::error_code jec;
    json::value v = json::parse(text, jec);
    if (jec) {
      return Status::InvalidArgument(
          fmt::format("{}: not valid JSON ({}); a record file must hold "
                      "one JSON object (docs/record.md)",
                      f, jec.message()));
    }
    if (!v.is_object()) continue;
    const json::object& o = v.as_object();
    if (!o.contains("record_id") || !o.contains("series_id")) continue;
    out.push_back(o);
  }
  return out;
}

}  // namespace servebench::verdict
