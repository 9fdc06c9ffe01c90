// End-to-end checks of `servebench ingest` and `servebench results` on a SQLite
// store (runs the real binary; the PostgreSQL path is in store/postgres/).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/testing/shell.h"

namespace {

using Result = servebench::testing::ShellResult;
using servebench::testing::RunServebench;

// A valid record as the first release wrote it (schema 1), as JSON text.
std::string Record(const std::string& id, const std::string& engine, const std::string& status,
                   int concurrency, const std::string& started_at) {
  return R"({"schema_version": 1, "record_id": ")" + id +
         R"(", "run_id": "run-1", "point_id": "p-)" + id + R"(", "series_id": "s-)" + id +
         R"(", "recipe": "quickstart-sim", "engine": ")" + engine +
         R"(", "model": "sim/llama-8b", "hardware": "sim-h100", "concurrency": )" +
         std::to_string(concurrency) + R"(, "status": ")" + status +
         R"(", "build": {"date": "2026-11-29"}, "provenance": {"started_at": ")" + started_at +
         R"("}, "num_gpus": 2, "summary": {"output_throughput": 1000.0, "total_token_throughput": 3001.0,
         "median_ttft_ms": 20.5, "servebench": {"power": {"power_valid": 1, "avg_power_w": 412.34,
         "joules_per_output_token": 0.27487}}}})";
}

class ResultsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "sbcli-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    db_ = dir_ + "/results.db";
    Write("out/records/aaa111.json", Record("aaa111", "sim", "ok", 1, "2026-11-29T20:00:00Z"));
    Write("out/records/bbb222.json", Record("bbb222", "vllm", "failed", 4, "2026-11-29T21:00:00Z"));
    Write("out/records/ccc333.json", Record("ccc333", "sim", "ok", 8, "2026-11-30T09:00:00Z"));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& rel, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(dir_ + "/" + rel).parent_path());
    std::ofstream(dir_ + "/" + rel) << text;
  }
  std::string Db() const { return " --db " + db_ + " "; }

  std::string dir_;
  std::string db_;
};

TEST_F(ResultsCliTest, IngestTwiceReportsEachFileAndStoresOneRowEach) {
  Result first = RunServebench("ingest" + Db() + dir_ + "/out");
  EXPECT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("inserted         " + dir_ + "/out/records/aaa111.json"),
            std::string::npos)
      << first.output;
  EXPECT_NE(first.output.find("3 inserted, 0 already present, 0 invalid"), std::string::npos)
      << first.output;
  Result second = RunServebench("ingest" + Db() + dir_ + "/out");
  EXPECT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("already-present  " + dir_ + "/out/records/bbb222.json"),
            std::string::npos)
      << second.output;
  EXPECT_NE(second.output.find("0 inserted, 3 already present, 0 invalid"), std::string::npos)
      << second.output;
  Result list = RunServebench("results list" + Db());
  EXPECT_EQ(list.exit_code, 0) << list.output;
  EXPECT_NE(list.output.find("3 records in sqlite:" + db_), std::string::npos) << list.output;
}

TEST_F(ResultsCliTest, IngestNamesInvalidFilesAndFieldsAndExitsOne) {
  Write("out/records/broken.json", "{\"record_id\": ");
  Write("out/records/nostatus.json",
        R"({"schema_version": 1, "record_id": "nostatus", "run_id": "r", "point_id": "p",
            "recipe": "x", "engine": "sim", "model": "m", "provenance": {"started_at": "2026-11-29"}})");
  Result r = RunServebench("ingest -q" + Db() + dir_ + "/out");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("invalid          " + dir_ + "/out/records/broken.json: not valid JSON"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(dir_ + "/out/records/nostatus.json: status: missing"), std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("inserted         "), std::string::npos) << "-q prints only problems";
  EXPECT_NE(r.output.find("3 inserted, 0 already present, 2 invalid"), std::string::npos)
      << r.output;
}

TEST_F(ResultsCliTest, ListFiltersByEngineStatusAndTime) {
  ASSERT_EQ(RunServebench("ingest -q" + Db() + dir_ + "/out").exit_code, 0);
  Result sim = RunServebench("results list --engine sim" + Db());
  EXPECT_NE(sim.output.find("aaa111"), std::string::npos) << sim.output;
  EXPECT_NE(sim.output.find("ccc333"), std::string::npos) << sim.output;
  EXPECT_EQ(sim.output.find("bbb222"), std::string::npos) << sim.output;
  // tput_per_gpu: 3001 total tok/s over 2 GPUs, printed as every report prints it.
  EXPECT_NE(sim.output.find("tput_per_gpu"), std::string::npos) << sim.output;
  EXPECT_NE(sim.output.find("1500.5"), std::string::npos) << sim.output;
  // The power columns: W per GPU and J per output token (docs/power.md).
  EXPECT_NE(sim.output.find("avg_power_w joules_per_output_token"), std::string::npos)
      << sim.output;
  EXPECT_NE(sim.output.find("            412                  0.2749"), std::string::npos)
      << sim.output;
  Result failed = RunServebench("results list --status failed" + Db());
  EXPECT_NE(failed.output.find("1 record in"), std::string::npos) << failed.output;
  Result window =
      RunServebench("results list --since 2026-11-29T20:30:00Z --until 2026-11-30" + Db());
  EXPECT_NE(window.output.find("bbb222"), std::string::npos) << window.output;
  EXPECT_NE(window.output.find("1 record in"), std::string::npos) << window.output;
  Result bad = RunServebench("results list --since yesterday" + Db());
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("--since 'yesterday': give a real UTC date"), std::string::npos)
      << bad.output;
}

TEST_F(ResultsCliTest, ListNamesEachConfigurationSoSessionsOfOneRecipeDiffer) {
  std::string wide = Record("ddd444", "vllm", "ok", 8, "2026-11-30T10:00:00Z");
  wide.insert(1, R"("tp": 8, "ep": 8, "dp_attn": true, )");
  std::string spec = Record("eee555", "vllm", "ok", 8, "2026-11-30T11:00:00Z");
  spec.insert(1, R"("tp": 1, "spec_method": "eagle3", )");
  Write("more/records/ddd444.json", wide);
  Write("more/records/eee555.json", spec);
  ASSERT_EQ(RunServebench("ingest -q" + Db() + dir_ + "/more").exit_code, 0);
  Result list = RunServebench("results list --engine vllm --status ok" + Db());
  EXPECT_THAT(list.output, ::testing::HasSubstr("config"));
  EXPECT_THAT(list.output, ::testing::HasSubstr("tp8 ep8 dpa"));
  EXPECT_THAT(list.output, ::testing::HasSubstr("tp1 eagle3"));
}

TEST_F(ResultsCliTest, ShowPrintsTheWholeRecordByIdOrPrefix) {
  ASSERT_EQ(RunServebench("ingest -q" + Db() + dir_ + "/out").exit_code, 0);
  Result show = RunServebench("results show bbb" + Db());
  EXPECT_EQ(show.exit_code, 0) << show.output;
  EXPECT_NE(show.output.find("\"record_id\": \"bbb222\""), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("\"median_ttft_ms\": "), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("\"tput_per_gpu\": 1500.5"), std::string::npos) << show.output;
  Result missing = RunServebench("results show zzz" + Db());
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_NE(missing.output.find("no record with id (or id prefix) \"zzz\""), std::string::npos);
}

TEST_F(ResultsCliTest, ShowRoleMetricsTabulatesEachRoleOfASessionPoint) {
  // A point of a serve session of several processes (schema 2: role_metrics).
  Write("pd/records/fff666.json",
        R"({"schema_version": 2, "record_id": "fff666", "run_id": "run-2", "point_id": "p-fff",
        "series_id": "s-fff", "recipe": "pd", "engine": "sim", "model": "sim/llama-8b",
        "hardware": "sim-h100", "concurrency": 2, "status": "ok", "build": {"date": "2026-11-30"},
        "provenance": {"started_at": "2026-11-30T12:00:00Z"}, "num_gpus": 6,
        "role_metrics": {"router": {"sgl_router_pd_requests_total": 8},
                         "prefill": {"servebench:kv_handoffs_total": 8},
                         "decode": {"vllm:generation_tokens_total": 256,
                                    "vllm:nixl_bytes_transferred_sum": 268435456}},
        "summary": {"output_throughput": 1000.0, "total_token_throughput": 3001.0}})");
  ASSERT_EQ(RunServebench("ingest -q" + Db() + dir_ + "/pd").exit_code, 0);
  Result show = RunServebench("results show fff --role-metrics" + Db());
  EXPECT_EQ(show.exit_code, 0) << show.output;
  EXPECT_THAT(show.output, ::testing::HasSubstr("record fff666"));
  // Workers in start order, then the router; one row per metric.
  EXPECT_THAT(show.output,
              ::testing::HasSubstr("| role    | metric                          | value     |\n"
                                   "| ------- | ------------------------------- | --------- |\n"
                                   "| prefill | servebench:kv_handoffs_total    | 8         |\n"
                                   "| decode  | vllm:generation_tokens_total    | 256       |\n"
                                   "| decode  | vllm:nixl_bytes_transferred_sum | 268435456 |\n"
                                   "| router  | sgl_router_pd_requests_total    | 8         |\n"));
  // A single server's record has none: said, exit 1.
  ASSERT_EQ(RunServebench("ingest -q" + Db() + dir_ + "/out").exit_code, 0);
  Result single = RunServebench("results show aaa111 --role-metrics" + Db());
  EXPECT_EQ(single.exit_code, 1) << single.output;
  EXPECT_THAT(single.output, ::testing::HasSubstr("record aaa111 has no role metrics"));
}

TEST_F(ResultsCliTest, ExportCsvAndJson) {
  ASSERT_EQ(RunServebench("ingest -q" + Db() + dir_ + "/out").exit_code, 0);
  Result csv = RunServebench("results export --format csv --engine sim" + Db());
  EXPECT_EQ(csv.exit_code, 0) << csv.output;
  EXPECT_TRUE(csv.output.starts_with("record_id,run_id,point_id,")) << csv.output;
  EXPECT_NE(csv.output.find("\naaa111,run-1,p-aaa111,"), std::string::npos) << csv.output;
  EXPECT_EQ(csv.output.find("bbb222"), std::string::npos) << csv.output;
  Result json = RunServebench("results export --format json -o " + dir_ + "/all.json" + Db());
  EXPECT_EQ(json.exit_code, 0) << json.output;
  std::ifstream in(dir_ + "/all.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(text.starts_with("[\n{")) << text;
  EXPECT_NE(text.find("\"record_id\":\"ccc333\""), std::string::npos) << text;
  // A choice outside its set is a value that is not allowed (1), not a malformed line.
  EXPECT_EQ(RunServebench("results export --format xml" + Db()).exit_code, 1);
}

TEST_F(ResultsCliTest, EnvironmentDatabaseReplacesTheDefault) {
  ASSERT_EQ(RunServebench("ingest -q" + Db() + dir_ + "/out").exit_code, 0);
  Result r = RunServebench("results list --status failed", "SERVEBENCH_DB=" + db_);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 record in sqlite:" + db_), std::string::npos) << r.output;
}

TEST_F(ResultsCliTest, ReadingAMissingDatabaseDoesNotCreateOne) {
  Result r = RunServebench("results list --db " + dir_ + "/typo.db");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no such database file"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/typo.db"));
}

}  // namespace
