#include "eval/prompt.h"

#include <algorithm>

namespace servebench::eval {

std::vector<std::string> StopSequences(Protocol protocol) {
  if (protocol == Protocol::kLmEval) return {"Question:", "</s>", "<|im_end|>"};
  return {"</s>", "<|im_end|>"};
}

std::string DocToText(Protocol protocol, const GsmDoc& doc) {
  if (protocol == Protocol::kLmEval) return "Question: " + doc.question + "\nAnswer:";
  return "Question: " + doc.question +
         "\nEnd your response with the answer on the last line, formatted as: #### "
         "[number]\nAnswer:";
}

FewshotSampler::FewshotSampler(const std::vector<GsmDoc>* train, uint64_t seed, bool same_split)
    : train_(train), rnd_(seed), same_split_(same_split) {}

std::vector<const GsmDoc*> FewshotSampler::Shots(const GsmDoc& doc, uint32_t num_fewshot) {
  std::vector<const GsmDoc*> shots;
  if (num_fewshot == 0 || train_ == nullptr || train_->empty()) return shots;
  size_t draw = std::min<size_t>(num_fewshot + (same_split_ ? 1 : 0), train_->size());
  for (size_t index : rnd_.Sample(train_->size(), draw)) {
    const GsmDoc& shot = (*train_)[index];
    if (shot == doc) continue;  // lm-eval: [x for x in fewshotex if x != doc]
    if (shots.size() < num_fewshot) shots.push_back(&shot);
  }
  return shots;
}

std::string BuildPrompt(Protocol protocol, const std::vector<const GsmDoc*>& shots,
                        const GsmDoc& doc) {
  std::string prompt;
  for (const GsmDoc* shot : shots) {
    prompt += DocToText(protocol, *shot);
    prompt += ' ';  // target_delimiter
    prompt += shot->answer;
    prompt += "\n\n";  // fewshot_delimiter
  }
  prompt += DocToText(protocol, doc);
  return prompt;
}

}  // namespace servebench::eval
