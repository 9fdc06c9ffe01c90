// InferenceX's eval selection (inferencex-formats.md §5 "Eval selection"):
// mark_eval_entries, mark_all_eval_entries and the --evals-only filter, with the
// same grouping keys, tie-breaks (first row wins) and key placement.
#include <algorithm>
#include <map>
#include <set>

#include "recipe/canonical_json.h"
#include "recipe/expand_internal.h"

namespace servebench::recipe {
namespace {

constexpr int kMinEvalConc = 16;

bool IsAgentic(const boost::json::object& row) {
  auto* s = row.if_contains("scenario-type");
  return s != nullptr && s->is_string() && s->get_string() == "agentic-coding";
}

bool Is8k1k(const boost::json::object& row) {
  auto* isl = row.if_contains("isl");
  auto* osl = row.if_contains("osl");
  return isl && osl && isl->is_int64() && osl->is_int64() && isl->get_int64() == 8192 &&
         osl->get_int64() == 1024;
}

std::vector<int64_t> Concs(const boost::json::object& row) {
  const auto& c = row.at("conc");
  std::vector<int64_t> out;
  if (c.is_array())
    for (const auto& v : c.get_array()) out.push_back(v.as_int64());
  else
    out.push_back(c.as_int64());
  return out;
}

std::vector<int64_t> EligibleConcs(const boost::json::object& row) {
  std::vector<int64_t> out;
  for (auto c : Concs(row))
    if (c >= kMinEvalConc) out.push_back(c);
  std::sort(out.begin(), out.end());
  return out;
}

// A multinode row's identity apart from concurrency and eval fields.
std::string ParallelismKey(const boost::json::object& row) {
  boost::json::object copy = row;
  for (const char* k : {"conc", "run-eval", "eval-only", "eval-conc", "eval-all-concs", "exp-name"})
    copy.erase(k);
  return CanonicalJson(copy);
}

std::string SingleNodeKey(const boost::json::object& row) {
  boost::json::array key;
  for (const char* k :
       {"model", "runner", "framework", "precision", "isl", "osl", "spec-decoding", "dp-attn"})
    key.push_back(row.at(k));
  return CanonicalJson(key);
}

void MarkEvalEntries(RowSet* set, bool include_agentic) {
  auto& rows = set->rows;
  std::set<size_t> marked;
  std::map<size_t, int64_t> eval_conc;
  // Single-node fixed 8k1k: per group, every row at the highest and the median conc.
  std::vector<std::string> sn_order;
  std::map<std::string, std::vector<size_t>> sn_groups;
  // Multinode fixed 8k1k: per topology, the row with the highest eligible conc.
  std::vector<std::string> mn_order;
  std::map<std::string, std::vector<std::pair<size_t, int64_t>>> mn_groups;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    if (!Is8k1k(row)) continue;
    auto eligible = EligibleConcs(row);
    if (eligible.empty()) continue;
    if (row.contains("tp")) {
      std::string key = SingleNodeKey(row);
      if (!sn_groups.count(key)) sn_order.push_back(key);
      sn_groups[key].push_back(i);
    } else if (row.contains("prefill")) {
      std::string key = ParallelismKey(row);
      if (!mn_groups.count(key)) mn_order.push_back(key);
      mn_groups[key].emplace_back(i, eligible.back());
    }
  }
  for (const auto& key : sn_order) {
    const auto& members = sn_groups[key];
    std::set<int64_t> distinct;
    for (size_t i : members) distinct.insert(rows[i].at("conc").as_int64());
    std::vector<int64_t> v(distinct.begin(), distinct.end());
    int64_t median = v[v.size() / 2], highest = v.back();
    for (size_t i : members) {
      int64_t c = rows[i].at("conc").as_int64();
      if (c == median || c == highest) marked.insert(i);
    }
  }
  auto pick_best = [&](const std::vector<std::pair<size_t, int64_t>>& members) {
    auto best = members.front();
    for (const auto& m : members)
      if (m.second > best.second) best = m;  // first maximum wins, as Python's max()
    marked.insert(best.first);
    eval_conc[best.first] = best.second;
  };
  for (const auto& key : mn_order) pick_best(mn_groups[key]);
  if (include_agentic) {
    std::vector<std::string> sn_a_order, mn_a_order;
    std::map<std::string, std::vector<std::pair<size_t, int64_t>>> sn_a, mn_a;
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& row = rows[i];
      if (!IsAgentic(row)) continue;
      if (row.contains("prefill")) {
        auto eligible = EligibleConcs(row);
        if (eligible.empty()) continue;
        std::string key = ParallelismKey(row);
        if (!mn_a.count(key)) mn_a_order.push_back(key);
        mn_a[key].emplace_back(i, eligible.back());
        continue;
      }
      auto concs = Concs(row);
      int64_t c = *std::max_element(concs.begin(), concs.end());
      boost::json::array k;
      for (const char* f : {"model", "runner", "framework", "precision"}) k.push_back(row.at(f));
      std::string key = CanonicalJson(k);
      if (!sn_a.count(key)) sn_a_order.push_back(key);
      sn_a[key].emplace_back(i, c);
    }
    for (const auto& key : sn_a_order) {
      const auto& members = sn_a[key];
      auto best = members.front();
      for (const auto& m : members)
        if (m.second > best.second) best = m;
      marked.insert(best.first);
    }
    for (const auto& key : mn_a_order) pick_best(mn_a[key]);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i]["run-eval"] = marked.count(i) > 0;
    if (auto it = eval_conc.find(i); it != eval_conc.end()) rows[i]["eval-conc"] = it->second;
  }
}

boost::json::array SortedUnion(const boost::json::object& a_row, const std::vector<int64_t>& b) {
  std::set<int64_t> all(b.begin(), b.end());
  for (auto c : Concs(a_row)) all.insert(c);
  boost::json::array out;
  for (auto c : all) out.push_back(c);
  return out;
}

void MarkAllEvalEntries(RowSet* set) {
  RowSet out;
  std::map<std::string, size_t> mn_index, mn_agentic_index;
  for (size_t i = 0; i < set->rows.size(); ++i) {
    auto& row = set->rows[i];
    const auto& origin = set->origins[i];
    if (IsAgentic(row)) {
      if (!row.contains("prefill")) {
        row["run-eval"] = true;
        out.rows.push_back(std::move(row));
        out.origins.push_back(origin);
        continue;
      }
      auto concs = Concs(row);
      std::string key = ParallelismKey(row);
      if (auto it = mn_agentic_index.find(key); it != mn_agentic_index.end()) {
        auto& existing = out.rows[it->second];
        auto merged = SortedUnion(existing, concs);
        existing["eval-conc"] = merged.back();
        existing["conc"] = std::move(merged);
        continue;
      }
      std::set<int64_t> unique(concs.begin(), concs.end());
      boost::json::array sorted;
      for (auto c : unique) sorted.push_back(c);
      row["conc"] = sorted;
      row["run-eval"] = true;
      row["eval-conc"] = *unique.rbegin();
      mn_agentic_index[key] = out.rows.size();
      out.rows.push_back(std::move(row));
      out.origins.push_back(origin);
      continue;
    }
    if (!Is8k1k(row)) {
      out.rows.push_back(std::move(row));
      out.origins.push_back(origin);
      continue;
    }
    if (row.contains("prefill")) {
      auto concs = Concs(row);
      std::string key = ParallelismKey(row);
      if (auto it = mn_index.find(key); it != mn_index.end()) {
        auto& existing = out.rows[it->second];
        existing["conc"] = SortedUnion(existing, concs);
        continue;
      }
      std::set<int64_t> unique(concs.begin(), concs.end());
      boost::json::array sorted;
      for (auto c : unique) sorted.push_back(c);
      row["conc"] = sorted;
      row["run-eval"] = true;
      row["eval-all-concs"] = true;
      row.erase("eval-conc");
      mn_index[key] = out.rows.size();
      out.rows.push_back(std::move(row));
      out.origins.push_back(origin);
      continue;
    }
    row["run-eval"] = true;
    out.rows.push_back(std::move(row));
    out.origins.push_back(origin);
  }
  *set = std::move(out);
}

}  // namespace

void ApplyEvalSelection(EvalSelection selection, RowSet* set) {
  if (selection == EvalSelection::kNone) return;
  bool all = selection == EvalSelection::kAll || selection == EvalSelection::kOnlyAll;
  bool only = selection != EvalSelection::kDefault;
  MarkEvalEntries(set, only);
  if (all) MarkAllEvalEntries(set);
  if (!only) return;
  RowSet kept;
  for (size_t i = 0; i < set->rows.size(); ++i) {
    auto* e = set->rows[i].if_contains("run-eval");
    if (e == nullptr || !e->is_bool() || !e->get_bool()) continue;
    set->rows[i]["eval-only"] = true;
    kept.rows.push_back(std::move(set->rows[i]));
    kept.origins.push_back(set->origins[i]);
  }
  *set = std::move(kept);
}

}  // namespace servebench::recipe
