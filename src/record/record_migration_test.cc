// Record files written by servebench 0.1.0 (schema 1, testdata/release-0.1.0/) read as
// current Records, with what that release did not carry derived as the current
// writer derives it.
#include <gtest/gtest.h>

#include <filesystem>

#include "record/record_files.h"
#include "record/record_json.h"

namespace servebench::record {
namespace {

const std::string kFixture =
    std::string(SERVEBENCH_SOURCE_DIR) + "/src/record/testdata/release-0.1.0/records";

double Number(const boost::json::object& o, std::string_view key) {
  return o.at(key).to_number<double>();
}

TEST(RecordMigrationTest, EveryRecordOfTheFirstReleaseReads) {
  StatusOr<std::vector<Record>> records = ReadRecordFolder(kFixture);
  ASSERT_TRUE(records.ok()) << records.status().message();
  ASSERT_EQ(records->size(), 35u);
  size_t ok = 0, blocked = 0, repeated = 0, with_accuracy = 0, with_al = 0;
  for (const Record& r : *records) {
    // Written once more by this release and read back: the same record.
    StatusOr<Record> again = FromJsonText(ToJsonText(r));
    ASSERT_TRUE(again.ok()) << r.record_id << ": " << again.status().message();
    EXPECT_EQ(*again, r) << r.record_id;
    if (r.status == RecordStatus::kBlocked) {
      ++blocked;
      EXPECT_EQ(r.failure_class.name(), "server.spec.eagle3_unsupported");
      EXPECT_FALSE(r.headline.has_value());
      continue;
    }
    ASSERT_EQ(r.status, RecordStatus::kOk) << r.record_id;
    ++ok;
    ASSERT_TRUE(r.headline && r.summary) << r.record_id;
    // The headline is what that release's summary says, per GPU as InferenceX counts.
    double gpus = r.deployment.tp;
    EXPECT_EQ(r.deployment.num_gpus, r.deployment.tp);
    EXPECT_DOUBLE_EQ(*r.headline->tput_per_gpu,
                     Number(*r.summary, "total_token_throughput") / gpus);
    EXPECT_DOUBLE_EQ(*r.headline->output_tput_per_gpu,
                     Number(*r.summary, "output_throughput") / gpus);
    EXPECT_DOUBLE_EQ(*r.headline->median_intvty, 1000 / Number(*r.summary, "median_tpot_ms"));
    EXPECT_EQ(r.headline->completed, 24);
    if (!r.repetitions.empty()) {
      ++repeated;
      EXPECT_EQ(r.repetitions.size(), 3u);
    }
    if (!r.accuracy.empty()) {
      ++with_accuracy;
      EXPECT_EQ(r.accuracy[0].task, "gsm8k");
      EXPECT_GT(r.accuracy[0].value, 0.8);
    }
    if (r.deployment.spec_method == recipe::SpecMethod::kEagle3) {
      ++with_al;
      EXPECT_EQ(r.deployment.num_speculative_tokens, 3) << "taken from the embedded point";
      ASSERT_TRUE(r.headline->acceptance_length.has_value());
      EXPECT_GT(*r.headline->acceptance_length, 1.0);
    }
  }
  EXPECT_EQ(ok, 28u);
  EXPECT_EQ(blocked, 7u);
  EXPECT_EQ(repeated, 7u) << "one point a night ran three times";
  EXPECT_EQ(with_accuracy, 21u) << "the highest concurrency of each session ran gsm8k";
  EXPECT_EQ(with_al, 7u);
}

}  // namespace
}  // namespace servebench::record
