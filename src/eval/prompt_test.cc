#include "eval/prompt.h"

#include <gtest/gtest.h>

#include "eval/python_random.h"

namespace servebench::eval {
namespace {

// Expected values printed by CPython 3: random.Random(1234).sample(range(7473), 5)
// twice in a row (gsm8k's train split has 7,473 items), and friends.
TEST(PythonRandomTest, SampleMatchesCPythonOnGsm8kTrainSize) {
  PythonRandom rnd(1234);
  EXPECT_EQ(rnd.Sample(7473, 5), (std::vector<size_t>{6374, 3610, 957, 61, 742}));
  EXPECT_EQ(rnd.Sample(7473, 5), (std::vector<size_t>{7462, 6610, 4769, 286, 5501}));
}

TEST(PythonRandomTest, PoolBasedSampleMatchesCPython) {
  PythonRandom rnd(1234);
  EXPECT_EQ(rnd.Sample(10, 5), (std::vector<size_t>{7, 1, 0, 9, 4}));
  EXPECT_EQ(rnd.Sample(20, 8), (std::vector<size_t>{1, 2, 3, 11, 7, 0, 14, 12}));
}

TEST(PythonRandomTest, SeedsAndRawBitsMatchCPython) {
  PythonRandom zero(0);
  EXPECT_EQ(zero.GetRandBits(32), 3626764237u);
  EXPECT_EQ(zero.GetRandBits(32), 1654615998u);
  PythonRandom big((uint64_t{1} << 40) + 5);  // a two-word key
  EXPECT_EQ(big.Sample(100, 3), (std::vector<size_t>{64, 66, 34}));
}

TEST(PromptTest, LmEvalLayoutIsShotsThenQuestion) {
  GsmDoc shot{"What is 1+1?", "1+1=2\n#### 2"};
  GsmDoc doc{"What is 2+3?", "#### 5"};
  EXPECT_EQ(BuildPrompt(Protocol::kLmEval, {&shot}, doc),
            "Question: What is 1+1?\nAnswer: 1+1=2\n#### 2\n\nQuestion: What is 2+3?\nAnswer:");
  EXPECT_EQ(BuildPrompt(Protocol::kInferenceX, {}, doc),
            "Question: What is 2+3?\nEnd your response with the answer on the last line, "
            "formatted as: #### [number]\nAnswer:");
}

TEST(PromptTest, StopsDifferByProtocol) {
  EXPECT_EQ(StopSequences(Protocol::kLmEval),
            (std::vector<std::string>{"Question:", "</s>", "<|im_end|>"}));
  EXPECT_EQ(StopSequences(Protocol::kInferenceX), (std::vector<std::string>{"</s>", "<|im_end|>"}));
}

TEST(FewshotSamplerTest, DrawsSharedSequenceAcrossDocumentsInOrder) {
  std::vector<GsmDoc> train;
  for (int i = 0; i < 7473; ++i) train.push_back({"q" + std::to_string(i), "#### 1"});
  FewshotSampler sampler(&train, 1234, false);
  GsmDoc doc{"test", "#### 1"};
  auto first = sampler.Shots(doc, 5);
  auto second = sampler.Shots(doc, 5);
  ASSERT_EQ(first.size(), 5u);
  EXPECT_EQ(first[0]->question, "q6374");
  EXPECT_EQ(first[4]->question, "q742");
  EXPECT_EQ(second[0]->question, "q7462");
}

TEST(FewshotSamplerTest, SameSplitDrawsOneExtraAndDropsTheDocument) {
  std::vector<GsmDoc> docs;
  for (int i = 0; i < 10; ++i) docs.push_back({"q" + std::to_string(i), "#### 1"});
  FewshotSampler sampler(&docs, 1234, true);
  // random.Random(1234).sample(range(10), 6) begins 7, 1, 0, 9, 4: doc q1 is dropped.
  auto shots = sampler.Shots(docs[1], 5);
  ASSERT_EQ(shots.size(), 5u);
  for (const GsmDoc* shot : shots) EXPECT_NE(shot->question, "q1");
  EXPECT_EQ(shots[0]->question, "q7");
  EXPECT_EQ(shots[1]->question, "q0");
}

}  // namespace
}  // namespace servebench::eval
