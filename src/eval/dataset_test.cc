#include "eval/dataset.h"

#include <gtest/gtest.h>

#include <fstream>

#include "eval/extraction.h"
#include "eval/synthetic.h"
#include "sim/answer_oracle.h"

namespace servebench::eval {
namespace {

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(DatasetTest, MalformedLineIsNamedByFileAndLine) {
  std::string path = WriteTemp("bad.jsonl",
                               "{\"question\": \"q\", \"answer\": \"#### 1\"}\n\n"
                               "{\"question\": \"q2\", \"answer\": \"#### 2\"\n");
  auto docs = LoadGsmJsonl(path);
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.status().message().find(path + ":3:"), std::string::npos)
      << docs.status().message();
}

TEST(DatasetTest, AnswerWithoutHashesIsRejected) {
  std::string path = WriteTemp("nohash.jsonl", "{\"question\": \"q\", \"answer\": \"42\"}\n");
  auto docs = LoadGsmJsonl(path);
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.status().message().find(":1:"), std::string::npos);
}

TEST(DatasetTest, MissingFileIsAnError) { EXPECT_FALSE(LoadGsmJsonl("/nonexistent/x.jsonl").ok()); }

TEST(DatasetTest, SyntheticRoundTripsThroughJsonl) {
  auto docs = MakeSyntheticGsm(3, 20);
  auto loaded = LoadGsmJsonl(WriteTemp("synthetic.jsonl", GsmJsonl(docs)));
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(*loaded, docs);
}

TEST(SyntheticTest, SameSeedSameDocsOtherSeedOtherDocs) {
  EXPECT_EQ(MakeSyntheticGsm(11, 50), MakeSyntheticGsm(11, 50));
  EXPECT_NE(MakeSyntheticGsm(11, 50), MakeSyntheticGsm(12, 50));
}

TEST(SyntheticTest, ErrorFreeOracleAnswersEveryQuestionRight) {
  auto oracle = sim::AnswerOracle::Create({});
  ASSERT_TRUE(oracle.ok());
  for (const GsmDoc& doc : MakeSyntheticGsm(5, 500)) {
    auto response = (*oracle)->Answer("Question: " + doc.question + "\nAnswer:");
    ASSERT_TRUE(response.has_value()) << doc.question;
    EXPECT_TRUE(ExactMatch(ExtractStrict(*response, StrictSelect::kFirst), doc.answer))
        << doc.question << "\n"
        << *response << "\nvs\n"
        << doc.answer;
    EXPECT_TRUE(ExactMatch(ExtractFlexible(*response), doc.answer));
  }
}

}  // namespace
}  // namespace servebench::eval
