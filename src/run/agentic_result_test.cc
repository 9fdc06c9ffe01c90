#include "run/agentic_result.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "common/testing/files.h"
#include "common/testing/shell.h"
#include "recipe/point.h"

namespace servebench::run {
namespace {
namespace json = boost::json;

// The hand-made replay: two trees of a Weka-style trace, A (root A with subagent
// A::sa:1) and B, one warm-up and one failure. Times in ms from a monotonic base of
// 10 s; every success ends 10 ms after its last token.
//   name  sent  ttft  e2el  out   in     ITL = (e2el − ttft)/(out − 1)
//   A0     100    50  1050   11  1000    100 ms
//   A1    1200   100  1000   21  2000     45 ms
//   A2    2300    60   860    9  2600    100 ms
//   S0    1300    30   330    4   500    100 ms      (A::sa:1)
//   S1    1750    40   440    5   700    100 ms      (A::sa:1)
//   B0     200   200  2200   41  3000     50 ms
//   B1    2500     —     —    —  3100    HTTP 500, done at 2600
//   B2    2700    20    20    1  3200      —
//   B3    2800    80   480    9  3300     50 ms
//   B4    3400    70   570   11  3400     50 ms
// The clock anchor maps monotonic ns m to Unix ns m − 0.5e9 + 1.7e18.
constexpr int64_t kBaseNs = 10'000'000'000;
constexpr int64_t kAnchorRealtime = 1'700'000'000'000'000'000;
constexpr int64_t kAnchorMonotonic = 500'000'000;

int64_t Ns(double ms) { return kBaseNs + static_cast<int64_t>(std::llround(ms * 1e6)); }

json::object Success(int index, const char* tree, const char* conv, int turn, double sent,
                     double ttft, double e2el, int out, int in) {
  return json::object{{"index", index},
                      {"warmup", false},
                      {"ok", true},
                      {"t_scheduled_ns", Ns(sent)},
                      {"t_sent_ns", Ns(sent)},
                      {"t_first_token_ns", Ns(sent + ttft)},
                      {"t_last_token_ns", Ns(sent + e2el)},
                      {"t_done_ns", Ns(sent + e2el + 10)},
                      {"output_tokens", out},
                      {"prompt_tokens", in},
                      {"max_tokens", out},
                      {"http_status", 200},
                      {"failure", "none"},
                      {"error", ""},
                      {"events", json::array()},
                      {"tree", tree},
                      {"conversation", conv},
                      {"turn_index", turn}};
}

std::string WriteRequests(const std::string& dir) {
  std::vector<json::object> lines;
  json::object warmup = Success(0, "", "", 0, 0, 10, 20, 2, 50);
  warmup["warmup"] = true;
  warmup.erase("tree");
  warmup.erase("conversation");
  warmup.erase("turn_index");
  lines.push_back(warmup);
  lines.push_back(Success(0, "A", "A", 0, 100, 50, 1050, 11, 1000));
  lines.push_back(Success(1, "A", "A", 1, 1200, 100, 1000, 21, 2000));
  lines.push_back(Success(2, "A", "A", 2, 2300, 60, 860, 9, 2600));
  lines.push_back(Success(3, "A", "A::sa:1", 0, 1300, 30, 330, 4, 500));
  lines.push_back(Success(4, "A", "A::sa:1", 1, 1750, 40, 440, 5, 700));
  lines.push_back(Success(5, "B", "B", 0, 200, 200, 2200, 41, 3000));
  json::object failed = Success(6, "B", "B", 1, 2500, 0, 0, 0, 3100);
  failed["ok"] = false;
  failed["t_first_token_ns"] = -1;
  failed["t_last_token_ns"] = -1;
  failed["t_done_ns"] = Ns(2600);
  failed["http_status"] = 500;
  failed["failure"] = "http_status";
  failed["error"] = "HTTP 500: boom";
  lines.push_back(failed);
  lines.push_back(Success(7, "B", "B", 2, 2700, 20, 20, 1, 3200));
  lines.push_back(Success(8, "B", "B", 3, 2800, 80, 480, 9, 3300));
  lines.push_back(Success(9, "B", "B", 4, 3400, 70, 570, 11, 3400));
  const std::string path = dir + "/requests.jsonl";
  std::ofstream out(path);
  for (const json::object& l : lines) out << json::serialize(l) << "\n";
  return path;
}

recipe::Point AgenticPoint() {
  recipe::Point p;
  p.point_id = "p1";
  p.exp_name = "minimaxm3_agentic";
  p.runner = "h200";
  p.model_prefix = "minimaxm3";
  p.serve.engine = "vllm";
  p.serve.framework = "vllm";
  p.serve.model = "MiniMaxAI/MiniMax-M3";
  p.serve.image = "vllm/vllm-openai:v0.20.0";
  p.serve.precision = "fp8";
  p.serve.tp = 2;
  p.serve.pcp_size = 2;
  p.serve.ep = 4;
  p.serve.spec.method = recipe::SpecMethod::kMtp;
  p.serve.kv_offloading = "dram";
  p.serve.kv_offload_backend = "vllm-simple";
  p.serve.total_cpu_dram_gb = 512;
  p.load.scenario = "agentic-coding";
  p.load.concurrency = 4;
  return p;
}

LoadOutcome Load(const std::string& requests_path) {
  LoadOutcome load;
  load.completed = true;
  load.valid = true;
  load.requests_path = requests_path;
  load.summary = json::object{
      {"servebench",
       {{"run",
         {{"anchor_realtime_ns", kAnchorRealtime}, {"anchor_monotonic_ns", kAnchorMonotonic}}},
        {"prefix_cache", {{"expected", {{"block_fraction", 0.4}}}}},
        {"trace", {{"format", "weka_trace"}, {"path", "t.jsonl"}, {"trees", 2}, {"turns", 10}}}}}};
  return load;
}

json::value ReadJson(const std::string& path) {
  return json::parse(testing::ReadFileOrEmpty(path));
}

double Num(const json::value& root, std::initializer_list<const char*> keys) {
  const json::value* v = &root;
  for (const char* k : keys) {
    const json::object* o = v->if_object();
    if (o == nullptr || !o->contains(k)) {
      ADD_FAILURE() << "missing key " << k;
      return NAN;
    }
    v = &o->at(k);
  }
  if (!v->is_number()) {
    ADD_FAILURE() << "not a number: " << json::serialize(*v);
    return NAN;
  }
  return v->to_number<double>();
}

constexpr double kRound = 5.01e-6;  // the aggregate's 5-decimal rounding

// Three /metrics scrapes of a vLLM engine with a CPU offload tier, 1 s apart, over the
// measured phase (metrics/scrape_series.h's file). Over the phase: 1,000 prompt tokens
// queried, 400 GPU hits, 300 CPU-tier hits (of 600 asked past the GPU), 300 computed;
// GPU KV usage peaks at 0.8, the CPU tier's at 0.5; 2 MB offloaded in 0.04 s.
// One sample of a scrape line: [name, labels, value].
std::string Sample(const std::string& name, double value, const std::string& labels) {
  return fmt::format("[\"{}\",{},{}]", name, labels, value);
}

// requests.server_metrics.jsonl in `dir` (metrics/scrape_series.h's lines): scrape i
// one second after scrape i-1, holding `scrapes[i]`'s samples. Returns its path.
std::string WriteScrapeLines(const std::string& dir,
                             const std::vector<std::vector<std::string>>& scrapes) {
  std::string text;
  for (size_t i = 0; i < scrapes.size(); ++i) {
    std::string joined;
    for (const std::string& x : scrapes[i]) joined += (joined.empty() ? "" : ",") + x;
    text += fmt::format("{{\"unix_ns\":{},\"kv_usage\":{{}},\"samples\":[{}]}}\n",
                        kAnchorRealtime + static_cast<int64_t>(i) * 1'000'000'000, joined);
  }
  const std::string path = dir + "/requests.server_metrics.jsonl";
  std::ofstream(path) << text;
  return path;
}

std::string WriteScrapes(const std::string& dir) {
  struct At {
    double queries, hits, ext_queries, ext_hits, usage, cpu_usage, prompt, generation, bytes, time;
  };
  const std::vector<At> at = {{100, 0, 100, 0, 0.2, 0.0, 100, 10, 0, 0},
                              {600, 200, 400, 200, 0.8, 0.25, 600, 60, 1e6, 0.02},
                              {1100, 400, 700, 300, 0.5, 0.5, 1100, 110, 2e6, 0.04}};
  const std::string labels = "{\"engine\":\"0\",\"model_name\":\"m\"}";
  std::vector<std::vector<std::string>> scrapes;
  for (const At& a : at) {
    auto src = [&](const char* source) {
      return fmt::format("{{\"engine\":\"0\",\"model_name\":\"m\",\"source\":\"{}\"}}", source);
    };
    std::vector<std::string> samples = {
        Sample("vllm:kv_cache_usage_perc", a.usage, labels),
        Sample("vllm:cpu_kv_cache_usage_perc", a.cpu_usage, labels),
        Sample("vllm:prompt_tokens_total", a.prompt, labels),
        Sample("vllm:generation_tokens_total", a.generation, labels),
        Sample("vllm:prefix_cache_queries_total", a.queries, labels),
        Sample("vllm:prefix_cache_hits_total", a.hits, labels),
        Sample("vllm:external_prefix_cache_queries_total", a.ext_queries, labels),
        Sample("vllm:external_prefix_cache_hits_total", a.ext_hits, labels),
        Sample("vllm:prompt_tokens_by_source_total", a.hits, src("local_cache_hit")),
        Sample("vllm:prompt_tokens_by_source_total", a.ext_hits, src("external_kv_transfer")),
        Sample("vllm:prompt_tokens_by_source_total", a.queries - a.hits - a.ext_hits,
               src("local_compute")),
        Sample("vllm:kv_offload_bytes_gpu_to_cpu_total", a.bytes, labels),
        Sample("vllm:kv_offload_time_gpu_to_cpu_total", a.time, labels)};
    scrapes.push_back(std::move(samples));
  }
  return WriteScrapeLines(dir, scrapes);
}

// The same phase as an SGLang engine with HiCache exports it: of 1,000 prompt tokens
// 400 cached on the device, 300 in the host tier, 300 computed; token usage peaking at
// 0.8; a pool of 50,000 tokens; the host tier 25 of 100 tokens used at most.
std::string WriteSglangScrapes(const std::string& dir) {
  struct At {
    double prompt, generation, device, host, usage, host_used;
  };
  const std::vector<At> at = {
      {100, 10, 0, 0, 0.2, 0}, {600, 60, 200, 200, 0.8, 25}, {1100, 110, 400, 300, 0.5, 10}};
  const std::string labels = "{\"model_name\":\"m\",\"tp_rank\":\"0\"}";
  auto with = [](const char* key, const char* value) {
    return fmt::format("{{\"model_name\":\"m\",\"tp_rank\":\"0\",\"{}\":\"{}\"}}", key, value);
  };
  std::vector<std::vector<std::string>> scrapes;
  for (const At& a : at) {
    std::vector<std::string> samples = {
        Sample("sglang:prompt_tokens_total", a.prompt, labels),
        Sample("sglang:generation_tokens_total", a.generation, labels),
        Sample("sglang:cached_tokens_total", a.device, with("cache_source", "device")),
        Sample("sglang:cached_tokens_total", a.host, with("cache_source", "host")),
        Sample("sglang:realtime_tokens_total", a.prompt - a.device - a.host,
               with("mode", "prefill_compute")),
        Sample("sglang:token_usage", a.usage, labels),
        Sample("sglang:max_total_num_tokens", 50000, labels),
        Sample("sglang:hicache_host_used_tokens", a.host_used, labels),
        Sample("sglang:hicache_host_total_tokens", 100, labels)};
    scrapes.push_back(std::move(samples));
  }
  return WriteScrapeLines(dir, scrapes);
}

// The same phase from ATOM's workers (atom: names) and an Atomesh router's copy of
// one of them (atom_ names): of 1,000 prompt tokens 400 found in the prefix cache, 100
// of them loaded by LMCache; KV usage peaking at 0.8.
std::string WriteAtomScrapes(const std::string& dir) {
  struct At {
    double prompt, generation, cached, full, lmcache, usage;
  };
  const std::vector<At> at = {
      {100, 10, 0, 100, 0, 0.2}, {600, 60, 200, 600, 50, 0.8}, {1100, 110, 400, 1100, 100, 0.5}};
  const std::string labels = R"({"model_name":"m"})";
  std::vector<std::vector<std::string>> scrapes;
  for (const At& a : at) {
    scrapes.push_back({Sample("atom:prompt_tokens_total", a.prompt, labels),
                       Sample("atom:generation_tokens_total", a.generation, labels),
                       Sample("atom:prefix_cache_cached_tokens_total", a.cached, labels),
                       Sample("atom:prefix_cache_full_tokens_total", a.full, labels),
                       Sample("atom_lmcache_loaded_tokens_total", a.lmcache, labels),
                       Sample("atom:kv_cache_usage_ratio", a.usage, labels)});
  }
  return WriteScrapeLines(dir, scrapes);
}

// The same phase behind a Dynamo frontend: vLLM's worker metrics (WriteScrapes') and
// the frontend's histograms of input and cached tokens per request (their _sum and
// _count: 1,000 input tokens of which 500 cached, over 10 requests), its output-token
// counter and the router's gauges.
std::string WriteDynamoScrapes(const std::string& dir) {
  WriteScrapes(dir);
  std::vector<std::vector<std::string>> scrapes;
  std::ifstream in(dir + "/requests.server_metrics.jsonl");
  const std::string frontend = R"({"dynamo_component":"frontend","model":"m"})";
  int i = 0;
  for (std::string line; std::getline(in, line); ++i) {
    const json::value v = json::parse(line);
    std::vector<std::string> samples;
    for (const json::value& x : v.at("samples").as_array()) samples.push_back(json::serialize(x));
    const double input = 100.0 + 450 * i, cached = 250.0 * i, requests = 1 + 4.5 * i;
    samples.push_back(Sample("dynamo_frontend_input_sequence_tokens_sum", input, frontend));
    samples.push_back(Sample("dynamo_frontend_input_sequence_tokens_count", requests, frontend));
    samples.push_back(Sample("dynamo_frontend_cached_tokens_sum", cached, frontend));
    samples.push_back(Sample("dynamo_frontend_cached_tokens_count", requests, frontend));
    samples.push_back(Sample("dynamo_frontend_output_tokens_total", 10.0 + 45 * i, frontend));
    samples.push_back(Sample("dynamo_component_router_kv_hit_rate", 0.4 + 0.1 * i, frontend));
    samples.push_back(
        Sample("dynamo_component_router_shared_cache_hit_rate", 30.0 + 10 * i, frontend));
    scrapes.push_back(std::move(samples));
  }
  return WriteScrapeLines(dir, scrapes);
}

// An engine log stating KV capacities as vLLM does (two engine cores) and as SGLang
// does (one rank of dp_size=2) (run/engine_log_kv.h): each adapter reads its own.
std::string WriteEngineLog(const std::string& dir) {
  const std::string path = dir + "/engine.log";
  std::ofstream(path) << "(EngineCore_DP0 pid=11) INFO GPU KV cache size: 61,440 tokens\n"
                         "(EngineCore_DP1 pid=12) INFO GPU KV cache size: 61,440 tokens\n"
                         "server_args=ServerArgs(tp_size=2, dp_size=2)\n"
                         "[DP0 TP0 EP0] max_total_num_tokens=45000, chunked_prefill_size=8192\n";
  return path;
}

// The engines whose /metrics names an adapter of InferenceX reads.
enum class Engine { kVllm, kSglang, kAtom, kDynamo };

// The agentic point served by `engine`.
recipe::Point AgenticPointOn(Engine engine) {
  recipe::Point p = AgenticPoint();
  if (engine == Engine::kSglang) {
    p.serve.engine = "sglang";
    p.serve.framework = "sglang";
    p.serve.image = "lmsysorg/sglang:v0.5.9";
    p.serve.kv_offload_backend = "hicache";
  } else if (engine == Engine::kAtom) {
    p.serve.engine = "atom";
    p.serve.framework = "atom";
    p.serve.image = "rocm/atom:latest";
    p.serve.kv_offload_backend = "lmcache";
  } else if (engine == Engine::kDynamo) {
    p.serve.framework = "dynamo-vllm";
    p.serve.image = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.0";
  }
  return p;
}
recipe::Point SglangAgenticPoint() { return AgenticPointOn(Engine::kSglang); }

LoadOutcome LoadWithScrapes(const std::string& dir, Engine engine = Engine::kVllm) {
  LoadOutcome load = Load(WriteRequests(dir));
  load.server_metrics_path = engine == Engine::kSglang   ? WriteSglangScrapes(dir)
                             : engine == Engine::kAtom   ? WriteAtomScrapes(dir)
                             : engine == Engine::kDynamo ? WriteDynamoScrapes(dir)
                                                         : WriteScrapes(dir);
  load.summary["servebench"].as_object()["run"].as_object()["metrics_url"] =
      "http://127.0.0.1:8000/metrics";
  return load;
}

TEST(AgenticResultTest, ScrapesBecomeAiperfsExportAndFillTheServerMetricsBlock) {
  const std::string dir = testing::FreshTestDir("agentic_scrapes");
  auto written = WriteAgenticResult(dir, AgenticPoint(), "h200-node-7", LoadWithScrapes(dir));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  const json::value exported = ReadJson(written->aiperf_dir + "/server_metrics_export.json");
  const json::value& hits = exported.at("metrics").at("vllm:prefix_cache_hits");
  EXPECT_EQ(hits.at("type").as_string(), "counter");
  EXPECT_EQ(hits.at("series").at(0).at("endpoint_url").as_string(),
            "http://127.0.0.1:8000/metrics");
  EXPECT_DOUBLE_EQ(hits.at("series").at(0).at("stats").at("total").as_double(), 400);
  EXPECT_DOUBLE_EQ(hits.at("series").at(0).at("stats").at("rate").as_double(), 200);
  const json::value& usage = exported.at("metrics").at("vllm:kv_cache_usage_perc");
  EXPECT_EQ(usage.at("type").as_string(), "gauge");
  EXPECT_DOUBLE_EQ(usage.at("series").at(0).at("stats").at("max").as_double(), 0.8);
  EXPECT_DOUBLE_EQ(usage.at("series").at(0).at("stats").at("avg").as_double(), 0.5);

  const json::value agg = ReadJson(written->aggregate_path);
  const json::value& sm = agg.at("server_metrics");
  EXPECT_TRUE(sm.at("present").as_bool());
  EXPECT_EQ(sm.at("adapter").as_string(), "vllm");
  // By source over the phase: 400 GPU, 300 CPU tier, 300 computed, of 1,000.
  EXPECT_NEAR(Num(sm, {"cache", "gpu_cache_hit_rate"}), 0.4, kRound);
  EXPECT_NEAR(Num(sm, {"cache", "cpu_cache_hit_rate"}), 0.3, kRound);
  EXPECT_NEAR(Num(sm, {"cache", "overall_cache_hit_rate"}), 0.7, kRound);
  EXPECT_NEAR(Num(sm, {"cache", "prefix_cache_hits"}), 400, kRound);
  EXPECT_NEAR(Num(sm, {"cache", "external_prefix_cache_queries"}), 600, kRound);
  EXPECT_NEAR(Num(sm, {"kv_cache", "gpu_usage_pct"}), 0.8, kRound);
  EXPECT_NEAR(Num(sm, {"kv_cache", "cpu_usage_pct"}), 0.5, kRound);
  EXPECT_NEAR(Num(sm, {"kv_offload", "bytes_gpu_to_cpu"}), 2e6, kRound);
  EXPECT_NEAR(Num(sm, {"kv_offload", "bandwidth_gpu_to_cpu_bytes_per_second"}), 5e7, 1);
  EXPECT_NEAR(Num(sm, {"tokens", "prompt_total"}), 1000, kRound);
  EXPECT_NEAR(Num(sm, {"tokens", "prompt_by_source", "computed"}), 300, kRound);
  EXPECT_FALSE(agg.as_object().contains("warnings"));  // InferenceX writes none then
}

// An SGLang engine's metrics are read as InferenceX's SGLang adapter reads them: cached
// tokens by source over the prompt tokens, token usage, the pool, the HiCache host tier.
TEST(AgenticResultTest, SglangScrapesFillTheServerMetricsBlockAsInferenceXsSglangAdapter) {
  const std::string dir = testing::FreshTestDir("agentic_sglang_scrapes");
  auto written = WriteAgenticResult(dir, SglangAgenticPoint(), "h200-node-7",
                                    LoadWithScrapes(dir, Engine::kSglang));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  const json::value exported = ReadJson(written->aiperf_dir + "/server_metrics_export.json");
  EXPECT_EQ(exported.at("metrics").at("sglang:cached_tokens").at("type").as_string(), "counter");
  const json::value agg = ReadJson(written->aggregate_path);
  const json::value& sm = agg.at("server_metrics");
  EXPECT_TRUE(sm.at("present").as_bool());
  EXPECT_EQ(sm.at("adapter").as_string(), "sglang");
  EXPECT_NEAR(Num(sm, {"cache", "gpu_cache_hit_rate"}), 0.4, kRound);
  EXPECT_NEAR(Num(sm, {"cache", "cpu_cache_hit_rate"}), 0.3, kRound);
  EXPECT_NEAR(Num(sm, {"cache", "external_cache_hit_rate"}), 0.3, kRound);
  EXPECT_NEAR(Num(sm, {"cache", "overall_cache_hit_rate"}), 0.7, kRound);
  EXPECT_NEAR(Num(sm, {"cache", "cached_tokens_by_source", "device"}), 400, kRound);
  EXPECT_NEAR(Num(sm, {"kv_cache", "gpu_usage_pct"}), 0.8, kRound);
  EXPECT_NEAR(Num(sm, {"kv_cache", "gpu_total_tokens"}), 50000, kRound);
  EXPECT_NEAR(Num(sm, {"kv_cache", "cpu_usage_pct"}), 0.25, kRound);
  EXPECT_NEAR(Num(sm, {"tokens", "prompt_total"}), 1000, kRound);
  EXPECT_NEAR(Num(sm, {"tokens", "prompt_by_source", "computed"}), 300, kRound);
  EXPECT_TRUE(sm.at("kv_offload").at("bytes_gpu_to_cpu").is_null());
  EXPECT_TRUE(sm.at("sources").as_array().empty());
}

// vLLM's KV capacity is read from its log (vLLM's /metrics do not export it) and the
// log is put where InferenceX's aggregator looks for it; SGLang's log, when it states
// one, is preferred to its gauge, as InferenceX prefers it.
TEST(AgenticResultTest, TheKvCapacityComesFromTheEnginesLog) {
  const std::string dir = testing::FreshTestDir("agentic_vllm_log");
  auto written = WriteAgenticResult(dir, AgenticPoint(), "h200-node-7", LoadWithScrapes(dir),
                                    WriteEngineLog(dir));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  const json::value agg = ReadJson(written->aggregate_path);
  EXPECT_EQ(agg.at("kv_cache_pool_tokens").as_int64(), 122880);
  EXPECT_EQ(agg.at("server_metrics").at("kv_cache").at("gpu_total_tokens").as_int64(), 122880);
  const std::filesystem::path result_dir = std::filesystem::path(written->aiperf_dir).parent_path();
  EXPECT_TRUE(std::filesystem::exists(result_dir / "server.log"));
  // SGLang's adapter reads SGLang's line: one rank of dp_size=2, not the gauge's 50,000.
  const std::string sglang_dir = testing::FreshTestDir("agentic_sglang_log");
  auto sglang =
      WriteAgenticResult(sglang_dir, SglangAgenticPoint(), "h200-node-7",
                         LoadWithScrapes(sglang_dir, Engine::kSglang), WriteEngineLog(sglang_dir));
  ASSERT_TRUE(sglang.ok()) << sglang.status().ToString();
  EXPECT_EQ(ReadJson(sglang->aggregate_path).at("kv_cache_pool_tokens").as_int64(), 90000);
  // Without a log, the gauge's.
  const std::string gauge_dir = testing::FreshTestDir("agentic_sglang_gauge");
  auto gauge = WriteAgenticResult(gauge_dir, SglangAgenticPoint(), "h200-node-7",
                                  LoadWithScrapes(gauge_dir, Engine::kSglang));
  ASSERT_TRUE(gauge.ok()) << gauge.status().ToString();
  EXPECT_EQ(ReadJson(gauge->aggregate_path).at("kv_cache_pool_tokens").as_int64(), 50000);
}

// ATOM's metrics (both spellings) as InferenceX's ATOM adapter reads them.
TEST(AgenticResultTest, AtomScrapesFillTheServerMetricsBlockAsInferenceXsAtomAdapter) {
  const std::string dir = testing::FreshTestDir("agentic_atom_scrapes");
  auto written = WriteAgenticResult(dir, AgenticPointOn(Engine::kAtom), "h200-node-7",
                                    LoadWithScrapes(dir, Engine::kAtom));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  const json::value agg = ReadJson(written->aggregate_path);
  const json::value& sm = agg.at("server_metrics");
  EXPECT_EQ(sm.at("adapter").as_string(), "atom");
  EXPECT_NEAR(Num(sm, {"cache", "gpu_cache_hit_rate"}), 0.4, kRound);
  EXPECT_NEAR(Num(sm, {"cache", "external_cache_hit_rate"}), 0.1, kRound);
  EXPECT_NEAR(Num(sm, {"cache", "overall_cache_hit_rate"}), 0.4, kRound);  // LMCache inside
  EXPECT_NEAR(Num(sm, {"cache", "prefix_cache_queries"}), 1000, kRound);
  EXPECT_NEAR(Num(sm, {"kv_cache", "gpu_usage_pct"}), 0.8, kRound);
  EXPECT_NEAR(Num(sm, {"tokens", "prompt_total"}), 1000, kRound);
  EXPECT_NEAR(Num(sm, {"tokens", "generation_total"}), 100, kRound);
}

// Behind a Dynamo frontend: vLLM's block with the frontend's totals, and its histograms
// exported as AIPerf exports them (stats of their _sum and _count).
TEST(AgenticResultTest, DynamoScrapesFillTheServerMetricsBlockAsInferenceXsDynamoAdapter) {
  const std::string dir = testing::FreshTestDir("agentic_dynamo_scrapes");
  auto written = WriteAgenticResult(dir, AgenticPointOn(Engine::kDynamo), "h200-node-7",
                                    LoadWithScrapes(dir, Engine::kDynamo));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  const json::value exported = ReadJson(written->aiperf_dir + "/server_metrics_export.json");
  const json::value& input = exported.at("metrics").at("dynamo_frontend_input_sequence_tokens");
  EXPECT_EQ(input.at("type").as_string(), "histogram");
  const json::value& stats = input.at("series").at(0).at("stats");
  EXPECT_EQ(stats.at("count").as_int64(), 9);
  EXPECT_DOUBLE_EQ(stats.at("sum").to_number<double>(), 900);
  EXPECT_DOUBLE_EQ(stats.at("avg").to_number<double>(), 100);
  EXPECT_DOUBLE_EQ(stats.at("sum_rate").to_number<double>(), 450);
  EXPECT_FALSE(
      exported.at("metrics").as_object().contains("dynamo_frontend_input_sequence_tokens_sum"));
  const json::value agg = ReadJson(written->aggregate_path);
  const json::value& sm = agg.at("server_metrics");
  EXPECT_EQ(sm.at("adapter").as_string(), "dynamo-vllm");
  EXPECT_NEAR(Num(sm, {"tokens", "prompt_total"}), 900, kRound);  // the frontend's, first
  EXPECT_NEAR(Num(sm, {"tokens", "generation_total"}), 90, kRound);
  EXPECT_NEAR(Num(sm, {"cache", "gpu_cache_hit_rate"}), 0.4, kRound);  // the workers'
  EXPECT_NEAR(Num(sm, {"cache", "frontend_cache_hit_rate"}), 500.0 / 900, kRound);
  EXPECT_NEAR(Num(sm, {"cache", "router_kv_hit_rate"}), 0.5, kRound);
  EXPECT_NEAR(Num(sm, {"cache", "router_shared_cache_hit_rate"}), 0.4, kRound);
  EXPECT_NEAR(Num(sm, {"cache", "frontend_input_tokens"}), 900, kRound);
}

TEST(AgenticResultTest, AggregateHoldsInferenceXsNumbersOfTheRecords) {
  const std::string dir = testing::FreshTestDir("agentic");
  auto written = WriteAgenticResult(dir, AgenticPoint(), "h200-node-7", Load(WriteRequests(dir)));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  const std::string name =
      "minimaxm3_agentic_fp8_vllm_tp2-pp1-dcp1-pcp2-ep4-dpafalse_disagg-false_spec-mtp_conc4_"
      "h200-node-7";
  EXPECT_EQ(written->aggregate_path, dir + "/inferencex/" + name + ".json");
  EXPECT_EQ(written->aiperf_dir, dir + "/inferencex/agentic_" + name + "/aiperf_artifacts");
  const json::value agg = ReadJson(written->aggregate_path);
  const json::value m = agg.at("request_metrics");

  // TTFT s, sorted: .02 .03 .04 .05 .06 .07 .08 .1 .2 (n = 9, rank h = 8·P/100).
  EXPECT_NEAR(Num(m, {"latency", "ttft", "mean"}), 0.65 / 9, kRound);
  EXPECT_NEAR(Num(m, {"latency", "ttft", "p50"}), 0.06, kRound);                     // h = 4
  EXPECT_NEAR(Num(m, {"latency", "ttft", "p75"}), 0.08, kRound);                     // h = 6
  EXPECT_NEAR(Num(m, {"latency", "ttft", "p90"}), 0.1 + 0.2 * (0.2 - 0.1), kRound);  // h = 7.2
  EXPECT_NEAR(Num(m, {"latency", "ttft", "p95"}), 0.1 + 0.6 * (0.2 - 0.1), kRound);  // h = 7.6
  {
    const std::vector<double> t = {.02, .03, .04, .05, .06, .07, .08, .1, .2};
    double sq = 0;
    for (double x : t) sq += (x - 0.65 / 9) * (x - 0.65 / 9);
    EXPECT_NEAR(Num(m, {"latency", "ttft", "std"}), std::sqrt(sq / 9), kRound);  // population
  }
  // E2EL s, sorted: .02 .33 .44 .48 .57 .86 1 1.05 2.2.
  EXPECT_NEAR(Num(m, {"latency", "e2el", "mean"}), 6.95 / 9, kRound);
  EXPECT_NEAR(Num(m, {"latency", "e2el", "p50"}), 0.57, kRound);
  EXPECT_TRUE(m.at("latency").at("e2el").at("p75").is_int64()) << "1.0 is written as 1";
  EXPECT_NEAR(Num(m, {"latency", "e2el", "p90"}), 1.05 + 0.2 * (2.2 - 1.05), kRound);
  EXPECT_NEAR(Num(m, {"latency", "e2el", "p95"}), 1.05 + 0.6 * (2.2 - 1.05), kRound);
  // ITL s (B2 has one token, no ITL), sorted: .045 .05 .05 .05 .1 .1 .1 .1 (n = 8, h = 7·P).
  EXPECT_NEAR(Num(m, {"latency", "itl", "mean"}), 0.595 / 8, kRound);
  EXPECT_NEAR(Num(m, {"latency", "itl", "p50"}), 0.05 + 0.5 * 0.05, kRound);  // h = 3.5
  EXPECT_NEAR(Num(m, {"latency", "itl", "p90"}), 0.1, kRound);
  EXPECT_NEAR(Num(m, {"latency", "tpot", "p50"}), 0.075, kRound) << "tpot is itl";
  // Interactivity: 1 / each ITL statistic; std over per-request 1/ITL
  // (10, 10, 10, 10, 20, 20, 20, 22.2…): mean m = 122.2…/8.
  EXPECT_NEAR(Num(m, {"latency", "intvty", "p50"}), 1 / 0.075, kRound);
  EXPECT_NEAR(Num(m, {"latency", "intvty", "p90"}), 10, kRound);
  {
    const std::vector<double> inv = {10, 10, 10, 10, 20, 20, 20, 1 / 0.045};
    double mean = 0, sq = 0;
    for (double x : inv) mean += x / 8;
    for (double x : inv) sq += (x - mean) * (x - mean);
    EXPECT_NEAR(Num(m, {"latency", "intvty", "std"}), std::sqrt(sq / 8), kRound);
  }
  // E2E-normalised interactivity: r = E2EL/out, sorted .02 .04762 .05182 .05333 .05366
  // .0825 .088 .09545 .09556; its median is B0's 2.2/41, and the block holds 1 / it.
  EXPECT_NEAR(Num(m, {"latency", "e2e_norm_intvty", "p50"}), 41 / 2.2, kRound);
  EXPECT_TRUE(m.at("latency").at("full_response_itl").as_object().empty());

  // Completions (s after the first): 0 .48 1.04 1.05 1.25 1.57 2.01 2.13 2.82 → windows
  // [0, 1) holds 2, [1, 2) holds 4; the next would end past the last completion.
  EXPECT_EQ(Num(m, {"qps", "samples"}), 2);
  EXPECT_EQ(Num(m, {"qps", "mean"}), 3);
  EXPECT_NEAR(Num(m, {"qps", "p75"}), 3.5, kRound);
  EXPECT_NEAR(Num(m, {"qps", "p90"}), 3.8, kRound);
  EXPECT_EQ(Num(m, {"qps", "std"}), 1);

  // Tokens: in 19,700 and out 112 over 3.88 s (A0 sent at 100 ms, B4 done at 3,980 ms);
  // per GPU ÷ tp 2 × pp 1 × pcp 2 = 4 (ep does not count).
  EXPECT_NEAR(Num(m, {"throughput", "duration_seconds"}), 3.88, kRound);
  EXPECT_NEAR(Num(m, {"throughput", "input", "tokens_per_second"}), 19700 / 3.88, kRound);
  EXPECT_NEAR(Num(m, {"throughput", "output", "tokens_per_second"}), 112 / 3.88, kRound);
  EXPECT_NEAR(Num(m, {"throughput", "total", "tokens_per_second"}), 19812 / 3.88, kRound);
  EXPECT_NEAR(Num(m, {"throughput", "per_gpu", "total_tput_tps"}), 19812 / 3.88 / 4, kRound);
  EXPECT_NEAR(Num(m, {"throughput", "per_gpu", "output_tput_tps"}), 112 / 3.88 / 4, kRound);
  EXPECT_NEAR(Num(m, {"tokens", "input", "p50"}), 2600, kRound);
  EXPECT_NEAR(Num(m, {"tokens", "output_actual", "mean"}), 112.0 / 9, kRound);
  EXPECT_TRUE(m.at("tokens").at("output_expected").as_object().empty());
  EXPECT_NEAR(Num(m, {"cache", "theoretical_cache_hit_rate"}), 0.4, kRound);

  // Accounting: 11 records, 9 profiled, the warm-up and the failure dropped.
  EXPECT_EQ(Num(agg, {"num_requests_total"}), 11);
  EXPECT_EQ(Num(agg, {"num_requests_successful"}), 9);
  const json::object& acc = agg.at("request_accounting").as_object();
  EXPECT_EQ(acc.at("records_dropped_total").as_int64(), 2);
  EXPECT_EQ(acc.at("records_warmup_dropped").as_int64(), 1);
  EXPECT_EQ(acc.at("records_error_dropped").as_int64(), 1);
  EXPECT_EQ(json::serialize(acc.at("error_categories")), R"({"http_status":1})");

  // Identity and what servebench does not have.
  EXPECT_EQ(agg.at("scenario_type").as_string(), "agentic-coding");
  EXPECT_EQ(agg.at("spec_decoding").as_string(), "mtp");
  EXPECT_EQ(agg.at("dp_attention").as_string(), "false");
  EXPECT_EQ(json::serialize(agg.at("kv_offload_backend")), R"({"name":"vllm-simple"})");
  EXPECT_EQ(agg.at("allocated_cpu_dram_gb").as_int64(), 512);
  EXPECT_FALSE(agg.at("server_metrics").at("present").as_bool());
  EXPECT_EQ(agg.at("server_metrics").at("tokens").at("prompt_total").as_int64(), 19700);
  EXPECT_TRUE(agg.at("kv_cache_pool_tokens").is_null());
}

TEST(AgenticResultTest, AiperfFilesCarryTheCountsAndOneLinePerRequest) {
  const std::string dir = testing::FreshTestDir("agentic");
  auto written = WriteAgenticResult(dir, AgenticPoint(), "n", Load(WriteRequests(dir)));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  const json::value aiperf = ReadJson(written->aiperf_dir + "/profile_export_aiperf.json");
  EXPECT_EQ(Num(aiperf, {"request_count", "avg"}), 9);
  EXPECT_EQ(Num(aiperf, {"error_request_count", "avg"}), 1);
  EXPECT_EQ(Num(aiperf, {"completed_request_count", "avg"}), 10) << "warm-ups are not counted";
  EXPECT_NEAR(Num(aiperf, {"theoretical_prefix_cache_hit", "avg"}), 40, 1e-9);
  EXPECT_EQ(aiperf.at("metadata").at("dataset").at("format").as_string(), "weka_trace");
  EXPECT_TRUE(aiperf.at("metadata").at("submission_valid").as_bool());

  std::ifstream in(written->aiperf_dir + "/profile_export.jsonl");
  std::vector<json::value> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(json::parse(l));
  ASSERT_EQ(lines.size(), 11u);
  EXPECT_EQ(lines[0].at("metadata").at("benchmark_phase").as_string(), "warmup");
  const json::value& s0 = lines[4];  // S0: the subagent's first turn
  EXPECT_EQ(s0.at("metadata").at("conversation_id").as_string(), "A::sa:1");
  EXPECT_EQ(s0.at("metadata").at("turn_index").as_int64(), 0);
  EXPECT_EQ(s0.at("metadata").at("benchmark_phase").as_string(), "profiling");
  EXPECT_EQ(s0.at("metadata").at("request_start_ns").as_int64(),
            kBaseNs + 1300'000'000 - kAnchorMonotonic + kAnchorRealtime);
  EXPECT_NEAR(Num(s0, {"metrics", "time_to_first_token", "value"}), 30, 1e-9);
  EXPECT_EQ(s0.at("metrics").at("time_to_first_token").at("unit").as_string(), "ms");
  EXPECT_NEAR(Num(s0, {"metrics", "request_latency", "value"}), 330, 1e-9);
  EXPECT_NEAR(Num(s0, {"metrics", "inter_token_latency", "value"}), 100, 1e-9);
  EXPECT_EQ(Num(s0, {"metrics", "input_sequence_length", "value"}), 500);
  EXPECT_TRUE(s0.at("error").is_null());
  const json::value& b1 = lines[7];
  EXPECT_EQ(b1.at("error").at("type").as_string(), "http_status");
  EXPECT_EQ(b1.at("error").at("code").as_int64(), 500);
  EXPECT_TRUE(lines[8].at("metrics").as_object().contains("request_latency"));
  EXPECT_FALSE(lines[8].at("metrics").as_object().contains("inter_token_latency"))
      << "one output token has no ITL";
}

TEST(AgenticResultTest, SimulatedClockRecordsKeepTheirStamps) {
  const std::string dir = testing::FreshTestDir("agentic");
  LoadOutcome load = Load(WriteRequests(dir));
  load.summary["servebench"].as_object()["run"].as_object()["clock"] = "simulated";
  auto written = WriteAgenticResult(dir, AgenticPoint(), "n", load);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  std::ifstream in(written->aiperf_dir + "/profile_export.jsonl");
  std::string first_turn;
  std::getline(in, first_turn);  // the warm-up
  std::getline(in, first_turn);  // A0
  EXPECT_EQ(json::parse(first_turn).at("metadata").at("request_start_ns").as_int64(),
            kBaseNs + 100'000'000)
      << "a simulated clock has no Unix time: the anchor does not apply";
}

TEST(AgenticResultTest, RoundsAsInferenceXDoes) {
  EXPECT_EQ(json::serialize(RoundFloats(json::value(2.0000001))), "2");
  EXPECT_DOUBLE_EQ(RoundFloats(json::value(0.123456789)).as_double(), 0.12346);
  EXPECT_DOUBLE_EQ(RoundFloats(json::value(1.5)).as_double(), 1.5);
  EXPECT_TRUE(RoundFloats(json::value(0.0)).is_double()) << "below 1 stays a float";
  EXPECT_TRUE(RoundFloats(json::value(-3.0)).is_int64());
  EXPECT_EQ(RoundFloats(json::value(int64_t{7})).as_int64(), 7);
}

TEST(AgenticResultTest, BadRecordNamesItsLineAndField) {
  const std::string dir = testing::FreshTestDir("agentic");
  const std::string path = dir + "/requests.jsonl";
  std::ofstream(path) << R"({"warmup":false,"ok":true,"t_sent_ns":1})"
                      << "\n";
  auto written = WriteAgenticResult(dir, AgenticPoint(), "n", Load(path));
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.status().message().find("requests.jsonl:1:"), std::string::npos)
      << written.status().message();
  EXPECT_NE(written.status().message().find("t_first_token_ns"), std::string::npos);
}

TEST(AgenticResultTest, RefusesWhatItCannotWrite) {
  LoadOutcome no_records = Load("");
  EXPECT_FALSE(WriteAgenticResult("/tmp", AgenticPoint(), "n", no_records).ok());
  recipe::Point none_with_backend = AgenticPoint();
  none_with_backend.serve.kv_offloading = "none";
  const std::string dir = testing::FreshTestDir("agentic");
  auto r = WriteAgenticResult(dir, none_with_backend, "n", Load(WriteRequests(dir)));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("kv_offload_backend"), std::string::npos);
  recipe::Point multinode = AgenticPoint();
  multinode.serve.multinode = true;
  EXPECT_FALSE(WriteAgenticResult(dir, multinode, "n", Load(WriteRequests(dir))).ok());
}

// Every number of `ours` equals `theirs` within the rounding, every other value equals;
// mismatches are named by their path.
void ExpectSameJson(const json::value& ours, const json::value& theirs, const std::string& path) {
  if (ours.is_number() && theirs.is_number()) {
    EXPECT_NEAR(ours.to_number<double>(), theirs.to_number<double>(), 1.01e-5) << path;
    return;
  }
  if (ours.is_object() && theirs.is_object()) {
    for (const auto& kv : theirs.as_object()) {
      const json::value* mine = ours.as_object().if_contains(kv.key());
      if (mine == nullptr) {
        ADD_FAILURE() << path << "." << kv.key() << " is missing from servebench's aggregate";
        continue;
      }
      ExpectSameJson(*mine, kv.value(), path + "." + std::string(kv.key()));
    }
    for (const auto& kv : ours.as_object()) {
      EXPECT_TRUE(theirs.as_object().contains(kv.key()))
          << path << "." << kv.key() << " is not in InferenceX's aggregate";
    }
    return;
  }
  EXPECT_EQ(json::serialize(ours), json::serialize(theirs)) << path;
}

// One engine's artifacts through InferenceX's validator and aggregator.
void ExpectInferenceXAgrees(const char* root, Engine engine) {
  const std::string dir =
      testing::FreshTestDir("agentic_ix_" + std::to_string(static_cast<int>(engine)));
  const recipe::Point point = AgenticPointOn(engine);
  // With the engine's /metrics scrapes: InferenceX's adapter for them reads the export;
  // and with its log, where vLLM states its KV capacity (copied beside the artifacts).
  auto written = WriteAgenticResult(dir, point, "h200-node-7", LoadWithScrapes(dir, engine),
                                    WriteEngineLog(dir));
  ASSERT_TRUE(written.ok()) << written.status().ToString();

  const testing::ShellResult validated =
      testing::RunShell("cd '" + std::string(root) +
                        "' && python3 utils/agentic/validation/validate_agentic_result.py '" +
                        written->aiperf_dir + "' --failed-request-threshold 0.10");
  EXPECT_EQ(validated.exit_code, 0) << validated.output;
  std::cout << "validate_agentic_result.py: " << validated.output;

  const std::string result_dir = std::filesystem::path(written->aiperf_dir).parent_path().string();
  const std::string name = AgenticResultName(point, "h200-node-7");
  // The job environment of the point (reference/agentic.md §1.1), as the workflow
  // exports it; HF_HUB_CACHE names no folder, so no trace metadata is read.
  const std::string env =
      "RESULT_FILENAME='" + name + "' RESULT_DIR='" + result_dir + "' AGENTIC_OUTPUT_DIR='" + dir +
      "/ix' HF_HUB_CACHE='" + dir + "/no-hf' RUNNER_TYPE=h200 CONC=4 IMAGE=" + point.serve.image +
      " MODEL=MiniMaxAI/MiniMax-M3 MODEL_PREFIX=minimaxm3 FRAMEWORK=" + point.serve.framework +
      " PRECISION=fp8 SPEC_DECODING=mtp DISAGG=false IS_MULTINODE=false TP=2 "
      "PP_SIZE=1 DCP_SIZE=1 PCP_SIZE=2 EP_SIZE=4 DP_ATTENTION=false KV_OFFLOADING=dram "
      "KV_OFFLOAD_BACKEND=" +
      point.serve.kv_offload_backend + " KV_OFFLOAD_BACKEND_METADATA='{\"name\":\"" +
      point.serve.kv_offload_backend + "\"}' TOTAL_CPU_DRAM_GB=512";
  const testing::ShellResult aggregated =
      testing::RunShell("cd '" + std::string(root) + "' && env " + env +
                        " python3 -m utils.agentic.aggregation.process_agentic_result");
  ASSERT_EQ(aggregated.exit_code, 0) << aggregated.output;
  std::cout << "process_agentic_result.py: " << aggregated.output;

  const json::value theirs = ReadJson(dir + "/ix/" + name + ".json");
  const json::value ours = ReadJson(written->aggregate_path);
  ExpectSameJson(ours, theirs, "$");
  // The headline numbers, side by side in the log.
  for (const auto& keys : std::vector<std::vector<const char*>>{
           {"request_metrics", "latency", "ttft", "p50"},
           {"request_metrics", "latency", "ttft", "p90"},
           {"request_metrics", "latency", "e2el", "p50"},
           {"request_metrics", "latency", "e2el", "p90"},
           {"request_metrics", "latency", "itl", "p50"},
           {"request_metrics", "latency", "itl", "p90"},
           {"request_metrics", "latency", "e2e_norm_intvty", "p90"},
           {"request_metrics", "qps", "mean"},
           {"request_metrics", "throughput", "total", "tokens_per_second"},
           {"request_metrics", "throughput", "per_gpu", "total_tput_tps"},
           {"request_metrics", "cache", "theoretical_cache_hit_rate"},
           {"num_requests_successful"},
           {"num_requests_total"}}) {
    const json::value* a = &ours;
    const json::value* b = &theirs;
    std::string label;
    for (const char* k : keys) {
      a = &a->at(k);
      b = &b->at(k);
      label += std::string(label.empty() ? "" : ".") + k;
    }
    std::cout << "  " << label << ": servebench " << json::serialize(*a) << ", InferenceX "
              << json::serialize(*b) << "\n";
  }
}

// InferenceX's own tools over the artifacts: its validator accepts them, and its
// aggregator (with the environment benchmark_lib.sh gives it) computes the same
// aggregate. Needs a work tree of SemiAnalysisAI/InferenceX (never in this repository).
TEST(AgenticResultInferenceXTest, ValidatorAcceptsAndAggregatorAgrees) {
  const char* root = std::getenv("SERVEBENCH_INFERENCEX_ROOT");
  if (root == nullptr || !std::filesystem::exists(std::string(root) + "/utils/agentic")) {
    GTEST_SKIP() << "SERVEBENCH_INFERENCEX_ROOT does not name an InferenceX checkout with "
                    "utils/agentic (e.g. git worktree add /tmp/inferencex of "
                    "SemiAnalysisAI/InferenceX): InferenceX's validator and aggregator not run";
  }
  for (const Engine engine : {Engine::kVllm, Engine::kSglang, Engine::kAtom, Engine::kDynamo}) {
    SCOPED_TRACE(engine == Engine::kSglang ? "SGLang's metrics, InferenceX's sglang adapter"
                 : engine == Engine::kAtom ? "ATOM's metrics, InferenceX's atom adapter"
                 : engine == Engine::kDynamo
                     ? "a Dynamo frontend's and vLLM's metrics, InferenceX's dynamo-vllm adapter"
                     : "vLLM's metrics, InferenceX's vllm adapter");
    ExpectInferenceXAgrees(root, engine);
  }
}

}  // namespace
}  // namespace servebench::run
