#include "verdict/record_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "record/labels.h"
#include "verdict/robust_stats.h"

namespace servebench::verdict {
namespace {

using record::RecordStatus;

// "YYYY-MM-DD".
bool IsDate(std::string_view d) {
  if (d.size() != 10 || d[4] != '-' || d[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (d[i] < '0' || d[i] > '9') return false;
  }
  return true;
}

// Every headline metric the run produced, by its name.
std::map<std::string, double> Metrics(const metrics::Headline& h) {
  std::map<std::string, double> m;
  for (const metrics::HeadlineMetric& metric : metrics::HeadlineMetrics()) {
    if (std::optional<double> v = h.*metric.field) m[std::string(metric.name)] = *v;
  }
  return m;
}

// Everything that identifies the curve: the record's identity minus concurrency.
std::string CurveId(const record::Record& r) {
  if (!r.concurrency) return "";
  const record::Deployment& d = r.deployment;
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", r.recipe, r.engine, r.model,
                     r.precision, r.hardware, r.runner, recipe::SpecMethodName(d.spec_method),
                     r.isl.value_or(0), r.osl.value_or(0), d.tp, d.ep, d.num_gpus,
                     d.dp_attn ? "dp" : "nodp");
}

}  // namespace

Status HistoryBuilder::Add(const record::Record& r) {
  if (r.series_id.empty()) {
    return Status::InvalidArgument(
        fmt::format("record '{}': series_id is missing; every record needs one (record/README.md)",
                    r.record_id));
  }
  if (r.status == RecordStatus::kSkipped) return Status::Ok();
  Observation o;
  o.build = r.build;
  if (o.build.image.empty()) o.build.image = r.image;
  o.build.date = r.Night();
  if (!IsDate(o.build.date)) {
    return Status::InvalidArgument(fmt::format(
        "record '{}': no night: build.date and provenance.started_at are both missing or not "
        "YYYY-MM-DD...; nightly records carry build.date",
        r.record_id));
  }
  const std::string failure = r.failure_class.name();
  if (r.status == RecordStatus::kBlocked || r.blocked) {
    o.status = NightStatus::kBlocked;
    o.reason = r.blocked_reason;
    if (!r.blocked_link.empty()) o.reason += " (" + r.blocked_link + ")";
    if (r.status == RecordStatus::kFailed) o.reason += "; failed: " + failure;
  } else if (r.status == RecordStatus::kFailed) {
    o.status = NightStatus::kFailed;
    o.reason = failure;
    if (!r.failure_reason.empty()) o.reason += ": " + r.failure_reason;
  } else if (r.status == RecordStatus::kInvalid) {
    o.status = NightStatus::kInvalid;
    o.reason = r.failure_reason;
    if (o.reason.empty()) o.reason = failure;
    if (o.reason.empty()) o.reason = "invalid run";
  }
  if (r.headline) {
    o.metrics = Metrics(*r.headline);
    if (o.status == NightStatus::kOk && r.headline->failed > 0) {
      o.status = NightStatus::kInvalid;
      o.reason = fmt::format("failed_requests: {} requests failed", r.headline->failed);
    }
    for (const metrics::Headline& run : r.repetitions) {
      for (const auto& [k, v] : Metrics(run)) o.raw_runs[k].push_back(v);
    }
  }
  o.accuracy = r.accuracy;
  Entry& e = series_[r.series_id];
  if (e.meta.series_id.empty()) {
    e.meta.series_id = r.series_id;
    e.meta.label = record::SeriesLabel(r);
    e.meta.curve_id = CurveId(r);
    e.meta.curve_label = record::CurveLabel(r);
    e.meta.concurrency = static_cast<int>(r.concurrency.value_or(0));
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

}  // namespace servebench::verdict
