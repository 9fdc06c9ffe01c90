#include "sim/answer_oracle.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace servebench::sim {
namespace {

constexpr std::string_view kShot =
    "Question: Ava has 3 apples. She buys 2 more apples. How many apples does Ava have now?\n"
    "Answer: 3 + 2 = <<3+2=5>>5\n#### 5\n\n";

std::unique_ptr<AnswerOracle> Make(AnswerOracleSettings settings) {
  auto oracle = AnswerOracle::Create(settings);
  EXPECT_TRUE(oracle.ok()) << oracle.status().ToString();
  return std::move(oracle).value();
}

TEST(AnswerOracleTest, AnswersTheLastQuestionOfAFewShotPrompt) {
  auto oracle = Make({});
  std::string prompt = std::string(kShot) +
                       "Question: Ben has 10 stamps. He gives away 4 stamps. He buys 3 boxes "
                       "with 5 stamps in each box. How many stamps does Ben have now?\nAnswer:";
  auto answer = oracle->Answer(prompt);
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->ends_with("The answer is 21.\n#### 21")) << *answer;
}

TEST(AnswerOracleTest, InferenceXInstructionLineIsNotPartOfTheQuestion) {
  auto oracle = Make({});
  auto answer = oracle->Answer(
      "Question: Emma has 7 books. She buys 1 more books. How many books does Emma have now?\n"
      "End your response with the answer on the last line, formatted as: #### [number]\nAnswer:");
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->ends_with("#### 8"));
}

TEST(AnswerOracleTest, UnknownQuestionGetsNoAnswer) {
  auto oracle = Make({});
  EXPECT_FALSE(oracle->Answer("Tell me a story").has_value());
  EXPECT_FALSE(oracle->Answer("Question: What is the capital of France?\nAnswer:").has_value());
}

TEST(AnswerOracleTest, WrongAnswersFollowTheSeededHashExactly) {
  AnswerOracleSettings settings{.error_rate = 0.5, .seed = 7, .answers_path = ""};
  auto oracle = Make(settings);
  int wrong = 0;
  for (int a = 2; a < 202; ++a) {
    std::string question = "Ava has " + std::to_string(a) +
                           " apples. She buys 1 more apples. How many apples does Ava have now?";
    auto answer = oracle->Answer("Question: " + question + "\nAnswer:");
    ASSERT_TRUE(answer.has_value());
    bool is_right = answer->ends_with("#### " + std::to_string(a + 1));
    EXPECT_EQ(!is_right, OracleAnswersWrong(7, 0.5, question)) << question;
    wrong += is_right ? 0 : 1;
  }
  EXPECT_GT(wrong, 60);  // about half of 200
  EXPECT_LT(wrong, 140);
}

TEST(AnswerOracleTest, ErrorRateZeroAndOneAreExact) {
  EXPECT_FALSE(OracleAnswersWrong(1, 0.0, "anything"));
  EXPECT_TRUE(OracleAnswersWrong(1, 1.0, "anything"));
}

TEST(AnswerOracleTest, RejectsErrorRateOutsideUnitInterval) {
  EXPECT_FALSE(AnswerOracle::Create({.error_rate = 1.5, .seed = 0, .answers_path = ""}).ok());
}

TEST(AnswerOracleTest, FileModeAnswersFromJsonlAndNamesBadLines) {
  std::string path = ::testing::TempDir() + "/oracle_answers.jsonl";
  {
    std::ofstream out(path);
    out << R"({"question": "What is 2+2?", "response": "It is 4.\n#### 4"})"
        << "\n\n";
  }
  auto oracle = Make({.error_rate = 0, .seed = 0, .answers_path = path});
  EXPECT_EQ(oracle->Answer("Question: What is 2+2?\nAnswer:"), "It is 4.\n#### 4");
  EXPECT_FALSE(oracle->Answer("Question: What is 3+3?\nAnswer:").has_value());
  {
    std::ofstream out(path, std::ios::app);
    out << "{\"question\": 1}\n";
  }
  auto bad = AnswerOracle::Create({.error_rate = 0, .seed = 0, .answers_path = path});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find(path + ":3:"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace servebench::sim
