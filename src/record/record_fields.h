// The Record's JSON form, field by field, in the order it is written: the one list
// the codec (record_json.cc) writes and reads, and record/README.md's field table is
// generated from (record_doc.cc). Internal to record/.
//
// A visitor V has, for every field type T used below,
//   void operator()(std::string_view key, T& member, const FieldInfo& info);
// and for a nested object
//   template <class M, class Fn> void Object(std::string_view key, M& member,
//                                            const FieldInfo& info, Fn visit_members);
// R is Record or const Record (the writer visits a const one).
#pragma once

#include <string_view>

#include "record/record.h"

namespace servebench::record::internal {

enum class Need { kOptional, kRequired };
// What a text field must look like.
enum class TextRule {
  kAny,
  kId,   // [A-Za-z0-9._-], at most 256 bytes: names files and URLs
  kUtc,  // "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM:SS[.fraction]Z": text order is time order
};

struct FieldInfo {
  std::string_view doc;  // one line for people
  Need need = Need::kOptional;
  TextRule rule = TextRule::kAny;
  int since = 1;  // the schema version that added the field
};

inline constexpr Need kRequired = Need::kRequired;

template <class V, class B>
void VisitBuild(V& v, B& b) {
  v("image", b.image, {"engine image of the build under test"});
  v("commit", b.commit, {"engine commit, e.g. vLLM's git sha"});
  v("date", b.date, {"the night, YYYY-MM-DD (UTC)", Need::kOptional, TextRule::kUtc});
}

template <class V, class P>
void VisitProvenance(V& v, P& p) {
  v("servebench_version", p.servebench_version, {"servebench that wrote the record"});
  v("git_revision", p.git_revision, {"its git revision"});
  v("host", p.host, {"machine that ran the client"});
  v("engine_version", p.engine_version, {"from the engine's GET /version, \"\" when unknown"});
  v("started_at", p.started_at, {"RFC 3339 UTC", kRequired, TextRule::kUtc});
  v("ended_at", p.ended_at, {"RFC 3339 UTC, \"\" when unknown", Need::kOptional, TextRule::kUtc});
}

template <class V, class A>
void VisitArtifacts(V& v, A& a) {
  v("engine_log", a.engine_log, {"the engine's output"});
  v("requests", a.requests, {"per-request JSONL of the load run"});
  v("gpu_metrics", a.gpu_metrics,
    {"GPU power samples as InferenceX's gpu_metrics.csv (docs/power.md)", Need::kOptional,
     TextRule::kAny, 2});
  v("inferencex_result", a.inferencex_result,
    {"InferenceX's result file of the point: a multinode point's vllm-bench JSON, an "
     "agentic point's aggregate (docs/agentic.md)",
     Need::kOptional, TextRule::kAny, 2});
  v("profile", a.profile,
    {"servebench run --profile: the folder the engine's profiler wrote the session's traces "
     "into; for a serve session of several processes its root, one folder per engine process "
     "below it (docs/run.md)",
     Need::kOptional, TextRule::kAny, 2});
  v("server_metrics", a.server_metrics,
    {"the engine's /metrics scraped every --metrics-interval-s over the measured phase, one JSON "
     "line per scrape: KV usage over time (docs/agentic.md)",
     Need::kOptional, TextRule::kAny, 2});
}

template <class V, class R>
void VisitRecord(V& v, R& r) {
  // ---- Identity ----
  v("record_id", r.record_id,
    {"sha256(point_id + \"/\" + run_id): one record per point per invocation", kRequired,
     TextRule::kId});
  v("run_id", r.run_id, {"one per servebench invocation", kRequired, TextRule::kId});
  v("point_id", r.point_id,
    {"sha256 of the point's canonical JSON (recipe/point.h)", kRequired, TextRule::kId});
  v("session_id", r.session_id,
    {"points that share one live server", Need::kOptional, TextRule::kId});
  v("series_id", r.series_id,
    {"sha256 of the point without the build: what regress follows night to night", Need::kOptional,
     TextRule::kId});
  v("recipe", r.recipe, {"recipe (config key, workload) name", kRequired});
  v("source_file", r.source_file, {"the recipe file"});
  v("source_format", r.source_format, {"native, inferencex or nightly"});
  // ---- What ran ----
  v("engine", r.engine, {"vllm, sglang, trtllm, llamacpp, sim, ...", kRequired});
  v("image", r.image, {"engine container image as the recipe gave it"});
  v("model", r.model, {"model path or hub name", kRequired});
  v("precision", r.precision, {"fp8, fp4, bf16, ..."});
  v("hardware", r.hardware, {"GPU SKU label (h200, mi355x, ...)"});
  v("runner", r.runner, {"runner label"});
  v("isl", r.isl, {"input tokens per request"});
  v("osl", r.osl, {"output tokens per request"});
  v("concurrency", r.concurrency, {"requests in flight at most; null without a load run"});
  v("tp", r.deployment.tp, {"tensor parallel size"});
  v("pp", r.deployment.pp, {"pipeline parallel size", Need::kOptional, TextRule::kAny, 2});
  v("pcp_size", r.deployment.pcp_size,
    {"prefill context parallel size", Need::kOptional, TextRule::kAny, 2});
  v("ep", r.deployment.ep, {"expert parallel size"});
  v("dp_attn", r.deployment.dp_attn, {"attention data parallel"});
  v("spec_method", r.deployment.spec_method,
    {"speculative decoding: none, mtp, eagle, eagle3, draft_model, ngram"});
  v("num_speculative_tokens", r.deployment.num_speculative_tokens,
    {"draft length (0 without speculative decoding)", Need::kOptional, TextRule::kAny, 2});
  v("disagg", r.deployment.disagg,
    {"prefill and decode on separate workers", Need::kOptional, TextRule::kAny, 2});
  v("num_gpus", r.deployment.num_gpus,
    {"GPUs behind the server: tp x pp x pcp on one node, P + D multinode (metrics.md 6)"});
  v("prefill_gpus", r.deployment.prefill_gpus,
    {"multinode: prefill GPUs P (0 on one node)", Need::kOptional, TextRule::kAny, 2});
  v("decode_gpus", r.deployment.decode_gpus,
    {"multinode: decode GPUs D (0 = aggregated)", Need::kOptional, TextRule::kAny, 2});
  v("topology", r.deployment.topology,
    {"serve session of several processes: its roles, e.g. 1P×TP2 2D×TP2; \"\" for one server",
     Need::kOptional, TextRule::kAny, 2});
  v("simulated", r.simulated, {"engine sim: every number is a simulated-time number"});
  v("stands_in_for", r.stands_in_for,
    {"run --engine sim: the engine the simulated point stands in for (\"\" otherwise)",
     Need::kOptional, TextRule::kAny, 2});
  v("time_scale", r.time_scale,
    {"engine sim: wall seconds per simulated second; the numbers are simulated time whatever "
     "it is (null for real engines)",
     Need::kOptional, TextRule::kAny, 2});
  // ---- What happened ----
  v("status", r.status, {"ok, failed, invalid, blocked or skipped", kRequired});
  v("failure_class", r.failure_class,
    {"why it failed (common/failure_class.h grammar); \"\" when ok"});
  v("failure_reason", r.failure_reason, {"one line for people"});
  v("interrupted", r.interrupted, {"stopped by the user mid-point; the partial result is kept"});
  v("invalid_reasons", r.invalid_reasons, {"validity codes broken (metrics.md 8)"});
  v("blocked", r.blocked, {"the recipe is known to fail"});
  v("blocked_reason", r.blocked_reason, {"why it is blocked"});
  v("blocked_link", r.blocked_link, {"issue tracking the block"});
  v("unblocked", r.unblocked, {"blocked, yet it passed"});
  v.Object("build", r.build, {"the build under test"},
           [](auto& inner, auto& b) { VisitBuild(inner, b); });
  v.Object("provenance", r.provenance, {"who measured, where and when", kRequired},
           [](auto& inner, auto& p) { VisitProvenance(inner, p); });
  v("point", r.point, {"the whole Point as JSON (recipe/point_json), or null"});
  // ---- What was measured ----
  v("headline", r.headline,
    {"the headline metrics (metrics/headline.h), or null without a completed load run",
     Need::kOptional, TextRule::kAny, 2});
  v("repetitions", r.repetitions,
    {"each repetition's headline when the point ran more than once", Need::kOptional,
     TextRule::kAny, 2});
  v("accuracy", r.accuracy,
    {"per eval task: task, value, n, floor, items", Need::kOptional, TextRule::kAny, 2});
  v("role_metrics", r.role_metrics,
    {"per role of a serve session: each metric of its /metrics over the run (counters as "
     "deltas, gauges at the end), summed over the role's processes (disagg.md 6)",
     Need::kOptional, TextRule::kAny, 2});
  v("summary", r.summary,
    {"the vllm-bench-compatible result JSON of the load run (metrics/), or null"});
  v("evals", r.evals, {"eval results and gate verdicts as written by eval/, or null"});
  v.Object("artifacts", r.artifacts, {"files written beside the record"},
           [](auto& inner, auto& a) { VisitArtifacts(inner, a); });
}

}  // namespace servebench::record::internal
