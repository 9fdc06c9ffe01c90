// SPEED-Bench and Spec-Bench files in their published shapes (conversation_dataset.h),
// and the prompts MakePrompts makes of them. The files are written per test; the
// shipped samples (data/speed_bench/, data/spec_bench/) are loaded as they ship.
#include "client/conversation_dataset.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "client/dataset.h"

namespace servebench::client {
namespace {

namespace fs = std::filesystem;

class ConversationDatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("sb_conversations_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

constexpr const char* kQualitative =
    R"({"question_id": "a", "category": "coding", "messages": [{"role": "user", "content": "write a sort"}]}
{"question_id": "b", "category": "math", "messages": [{"role": "user", "content": "add 2 and 2"}, {"role": "user", "content": "now times 3"}]}

{"question_id": "c", "category": "coding", "messages": [{"role": "user", "content": "fix this bug"}]}
)";

TEST_F(ConversationDatasetTest, AFolderMeansItsSubsetFileAndEveryTurnIsKept) {
  Write("qualitative.jsonl", kQualitative);
  auto rows = LoadSpeedBench(dir_.string(), "qualitative", "");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[1].category, "math");
  EXPECT_EQ((*rows)[1].question_id, "b");
  EXPECT_EQ((*rows)[1].turns, (std::vector<std::string>{"add 2 and 2", "now times 3"}));
  EXPECT_EQ((*rows)[2].line, 4u) << "blank lines count in the line numbers";
}

TEST_F(ConversationDatasetTest, CategoryFilterKeepsOnlyThatCategory) {
  std::string file = Write("qualitative.jsonl", kQualitative);
  auto rows = LoadSpeedBench(file, "qualitative", "coding");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  for (const ConversationRow& r : *rows) EXPECT_EQ(r.category, "coding");
  auto none = LoadSpeedBench(file, "qualitative", "writing");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no row of category 'writing' (the file has coding, "
                                         "math)"),
            std::string::npos)
      << none.status().message();
}

TEST_F(ConversationDatasetTest, RawHubTurnsAreReadAndTheirPlaceholderIsRefusedWithItsLine) {
  Write("throughput_1k.jsonl",
        R"({"category": "mixed", "turns": ["one"]}
{"category": "low_entropy", "turns": ["FULL BENCHMARK DATA SHOULD BE FETCHED FROM THE SOURCE USING SPECDEC_BENCH\n\n{article}"]}
)");
  auto rows = LoadSpeedBench(dir_.string(), "throughput_1k", "");
  ASSERT_FALSE(rows.ok());
  const std::string m(rows.status().message());
  EXPECT_NE(m.find("throughput_1k.jsonl:2: "), std::string::npos) << m;
  EXPECT_NE(m.find("prepare.py"), std::string::npos) << m;
}

TEST_F(ConversationDatasetTest, ARowOfAnotherSubsetIsAnErrorAtItsLine) {
  // The qualitative file passed as throughput_2k: its categories are not entropy buckets.
  std::string file = Write("q.jsonl", kQualitative);
  auto rows = LoadSpeedBench(file, "throughput_2k", "");
  ASSERT_FALSE(rows.ok());
  const std::string m(rows.status().message());
  EXPECT_NE(m.find("q.jsonl:1: category 'coding' is not one of the throughput_2k subset's "
                   "categories (high_entropy, low_entropy, mixed)"),
            std::string::npos)
      << m;
}

TEST_F(ConversationDatasetTest, MalformedRowsNameFileLineAndWhatIsWrong) {
  std::string file = Write("bad.jsonl",
                           "{\"category\": \"qa\", \"turns\": [\"ok\"]}\n"
                           "{\"category\": \"qa\", \"turns\": \"not a list\"}\n");
  auto rows = LoadSpecBench(file, "");
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("bad.jsonl:2: \"turns\" must be a list of strings"),
            std::string::npos)
      << rows.status().message();
  std::string no_category = Write("nocat.jsonl", "{\"turns\": [\"hi\"]}\n");
  auto r2 = LoadSpecBench(no_category, "");
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("nocat.jsonl:1: the row needs a string \"category\""),
            std::string::npos)
      << r2.status().message();
}

TEST(ConversationSelectionTest, UnknownSubsetOrCategoryNamesWhatIsAllowed) {
  Status subset = ValidateSpeedBenchSelection("throughput_4k", "");
  ASSERT_FALSE(subset.ok());
  EXPECT_NE(subset.message().find("qualitative, throughput_1k, throughput_2k, throughput_8k, "
                                  "throughput_16k, throughput_32k"),
            std::string::npos)
      << subset.message();
  Status category = ValidateSpeedBenchSelection("qualitative", "mixed");
  ASSERT_FALSE(category.ok());
  EXPECT_NE(category.message().find("--speed-bench-category 'mixed'"), std::string::npos);
  EXPECT_TRUE(ValidateSpeedBenchSelection("throughput_32k", "mixed").ok());
}

TEST(ConversationSampleTest, ShippedSamplesLoadWithEveryCategory) {
  const fs::path root = fs::path(SERVEBENCH_SOURCE_DIR) / "data";
  auto q = LoadSpeedBench((root / "speed_bench").string(), "qualitative", "");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  std::map<std::string, int> per;
  for (const ConversationRow& r : *q) ++per[r.category];
  EXPECT_EQ(per.size(), SpeedBenchCategories("qualitative").size());
  auto t = LoadSpeedBench((root / "speed_bench").string(), "throughput_1k", "");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  auto s = LoadSpecBench((root / "spec_bench" / "question.jsonl").string(), "");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->size(), SpecBenchCategories().size());
}

TEST_F(ConversationDatasetTest, PromptsAreFirstTurnsWithTheirCategoryAndTheOutputLength) {
  Write("qualitative.jsonl", kQualitative);
  BenchSettings s;
  s.model = "m";
  s.dataset_name = "speed_bench";
  s.dataset_path = dir_.string();
  s.speed_bench_output_len = 77;
  s.num_prompts = 5;  // more than the file's 3 rows: they are reused cyclically
  s.num_warmups = 1;
  auto set = MakePrompts(s, /*chat=*/true, {});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  ASSERT_EQ(set->measured.size(), 5u);
  ASSERT_EQ(set->warmups.size(), 1u);
  EXPECT_EQ(set->conversation_rows, 3);
  EXPECT_EQ(set->multi_turn_rows, 1);
  const std::map<std::string, std::string> category_of_text = {
      {"write a sort", "coding"}, {"add 2 and 2", "math"}, {"fix this bug", "coding"}};
  for (const Prompt& p : set->measured) {
    ASSERT_TRUE(category_of_text.count(p.text)) << "a first turn, never a follow-up: " << p.text;
    EXPECT_EQ(p.category, category_of_text.at(p.text));
    EXPECT_EQ(p.max_tokens, 77);
    EXPECT_TRUE(p.token_ids.empty());
  }
  EXPECT_NE(set->note.find("1 of 3 rows had follow-up turns"), std::string::npos) << set->note;
}

}  // namespace
}  // namespace servebench::client
