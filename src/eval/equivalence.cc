// Greedy output equivalence (shared reference evals.md §5, layer L3), and the
// readers that take per-document correctness and responses from samples JSONL.
#include <fmt/format.h>

#include <algorithm>

#include "common/jsonl.h"
#include "eval/gates.h"

namespace servebench::eval {
namespace {

namespace json = boost::json;

// Each line of a samples.jsonl (SamplesJsonl) as a JSON object.
Status ForEachSample(const std::string& path, const JsonlLine& on_line) {
  return ForEachJsonlObject(path, "samples JSONL expected", on_line);
}

bool IsFailed(const json::object& o) {
  const json::value* sb = o.if_contains("servebench");
  if (sb == nullptr || !sb->is_object()) return false;
  const json::value* status = sb->as_object().if_contains("status");
  return status != nullptr && status->is_string() && status->as_string() != "ok";
}

StatusOr<size_t> DocId(const json::object& o) {
  const json::value* id = o.if_contains("doc_id");
  if (id == nullptr || !id->is_number()) return Status::InvalidArgument("no numeric \"doc_id\"");
  return static_cast<size_t>(id->to_number<int64_t>());
}

}  // namespace

StatusOr<std::map<size_t, bool>> CorrectnessFromSamples(const std::string& path,
                                                        std::string_view filter) {
  std::map<size_t, bool> correct;
  SB_RETURN_IF_ERROR(ForEachSample(path, [&](size_t, const json::object& o) -> Status {
    const json::value* f = o.if_contains("filter");
    if (f == nullptr || !f->is_string() || f->as_string() != filter || IsFailed(o)) {
      return Status::Ok();
    }
    SB_ASSIGN_OR_RETURN(size_t doc_id, DocId(o));
    const json::value* em = o.if_contains("exact_match");
    if (em == nullptr || !em->is_number()) {
      return Status::InvalidArgument("no numeric \"exact_match\"");
    }
    correct[doc_id] = em->to_number<double>() > 0.5;
    return Status::Ok();
  }));
  if (correct.empty()) {
    return Status::InvalidArgument(
        fmt::format("{}: no scored samples for filter '{}'", path, filter));
  }
  return correct;
}

StatusOr<std::map<size_t, std::string>> ResponsesFromSamples(const std::string& path) {
  std::map<size_t, std::string> responses;
  SB_RETURN_IF_ERROR(ForEachSample(path, [&](size_t, const json::object& o) -> Status {
    if (IsFailed(o)) return Status::Ok();
    SB_ASSIGN_OR_RETURN(size_t doc_id, DocId(o));
    // resps is [[text]] (one request, one generation) in lm-eval's samples.
    const json::value* resps = o.if_contains("resps");
    const json::array* outer = resps ? resps->if_array() : nullptr;
    const json::array* inner = outer && !outer->empty() ? (*outer)[0].if_array() : nullptr;
    if (inner == nullptr || inner->empty() || !(*inner)[0].is_string()) {
      return Status::InvalidArgument("\"resps\" is not [[text]]");
    }
    responses[doc_id] = std::string((*inner)[0].as_string());
    return Status::Ok();
  }));
  return responses;
}

size_t FirstDivergence(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size());
  return static_cast<size_t>(std::mismatch(a.begin(), a.begin() + n, b.begin()).first - a.begin());
}

EquivalenceReport EquivalenceGate(const std::map<size_t, std::string>& reference,
                                  const std::map<size_t, std::string>& candidate,
                                  double threshold) {
  EquivalenceReport report;
  report.threshold = threshold;
  for (const auto& [doc_id, ref] : reference) {
    auto it = candidate.find(doc_id);
    if (it == candidate.end()) continue;
    const std::string& cand = it->second;
    ++report.n;
    EquivalenceItem item{doc_id, ref == cand, cand.starts_with(ref), FirstDivergence(ref, cand)};
    report.identical += item.identical ? 1 : 0;
    report.matched += item.matched ? 1 : 0;
    if (!item.identical) report.divergent.push_back(item);
  }
  if (report.n == 0) {
    report.verdict = Verdict::kInvalid;
    return report;
  }
  report.matched_fraction = static_cast<double>(report.matched) / static_cast<double>(report.n);
  // vLLM's floor is strict: matches > int(0.66 * n).
  size_t vllm_floor =
      static_cast<size_t>(report.warn_floor_fraction * static_cast<double>(report.n));
  if (report.matched_fraction >= threshold) {
    report.verdict = Verdict::kPass;
  } else if (report.matched > vllm_floor) {
    report.verdict = Verdict::kWarn;
  } else {
    report.verdict = Verdict::kFail;
  }
  return report;
}

json::object ToJson(const EquivalenceReport& report) {
  json::object o;
  o["gate"] = "equivalence";
  o["verdict"] = VerdictName(report.verdict);
  o["unit"] = "text";  // byte offsets; token ids are not collected yet
  o["n"] = report.n;
  o["identical"] = report.identical;
  o["matched"] = report.matched;
  o["identical_fraction"] =
      report.n ? static_cast<double>(report.identical) / static_cast<double>(report.n) : 0.0;
  o["matched_fraction"] = report.matched_fraction;
  o["threshold"] = report.threshold;
  o["warn_floor_fraction"] = report.warn_floor_fraction;
  json::array divergent;
  for (const EquivalenceItem& item : report.divergent) {
    divergent.push_back(json::object{{"doc_id", item.doc_id},
                                     {"matched", item.matched},
                                     {"first_divergence_byte", item.first_divergence}});
  }
  o["divergent"] = std::move(divergent);
  return o;
}

}  // namespace servebench::eval
