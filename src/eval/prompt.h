// gsm8k prompts as lm-evaluation-harness builds them. For document d with shots
// s1..sk (chosen by FewshotSampler), the text is
//   doc_to_text(s1) + " " + s1.answer + "\n\n" + ... + doc_to_text(d)
// where doc_to_text is "Question: {q}\nAnswer:" (lm-eval) or
// "Question: {q}\nEnd your response with the answer on the last line, formatted
// as: #### [number]\nAnswer:" (InferenceX). On the chat endpoint the same text is
// the content of one user message (fewshot_as_multiturn off).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eval/dataset.h"
#include "eval/eval_settings.h"
#include "eval/python_random.h"

namespace servebench::eval {

// The stop sequences sent with every request (the task's `until`).
std::vector<std::string> StopSequences(Protocol protocol);

// doc_to_text for one document.
std::string DocToText(Protocol protocol, const GsmDoc& doc);

// Draws shots as lm-eval's default ContextSampler does: one shared
// random.Random(seed), `sample(train, k)` per test document in document order
// (k + 1 when the train and test sets are the same file, dropping the document
// itself). Not thread-safe; build all prompts up front.
class FewshotSampler {
 public:
  FewshotSampler(const std::vector<GsmDoc>* train, uint64_t seed, bool same_split);
  std::vector<const GsmDoc*> Shots(const GsmDoc& doc, uint32_t num_fewshot);

 private:
  const std::vector<GsmDoc>* train_;
  PythonRandom rnd_;
  bool same_split_;
};

// The full prompt for `doc` given its shots.
std::string BuildPrompt(Protocol protocol, const std::vector<const GsmDoc*>& shots,
                        const GsmDoc& doc);

}  // namespace servebench::eval
