#include "client/live_replies.h"

#include <utility>

#include "common/json_string.h"

namespace servebench::client {

LiveReplies::LiveReplies(const TraceWorkload& workload, std::vector<Prompt> prompts,
                         const LaneSchedule& lanes, RequestTemplate tmpl, bool ignore_eos,
                         bool keep_text)
    : workload_(workload),
      prompts_(std::move(prompts)),
      lanes_(lanes),
      tmpl_(std::move(tmpl)),
      ignore_eos_(ignore_eos),
      keep_text_(keep_text),
      reply_(prompts_.size()),
      ended_ok_(prompts_.size(), 0) {}

void LiveReplies::OnEnd(size_t job, metrics::RequestRecord* record) {
  if (job >= reply_.size()) return;
  ended_ok_[job] = record->ok() ? 1 : 0;
  if (record->ok()) reply_[job] = record->generated_text;
  if (!keep_text_) std::string().swap(record->generated_text);
}

std::string LiveReplies::Messages(size_t job) const {
  const TraceWorkload::Ref& ref = workload_.refs[job];
  const trace::TraceTurn& turn = workload_.turn(job);
  std::string out = "[";
  for (const trace::LivePiece& piece : turn.live_messages) {
    if (out.size() > 1) out += ',';
    if (!piece.is_reply()) {
      out += piece.message_json;
      continue;
    }
    const size_t from = lanes_.JobIndex(ref.tree, static_cast<size_t>(piece.reply_conversation),
                                        static_cast<size_t>(piece.reply_turn));
    out += R"({"role":"assistant","content":)";
    AppendJsonString(&out, reply_[from]);
    out += '}';
  }
  out += ']';
  return out;
}

void LiveReplies::Prepare(Job* j) {
  const size_t job = static_cast<size_t>(j->index);
  if (job >= prompts_.size()) return;
  const trace::TraceTurn& turn = workload_.turn(job);
  const TraceWorkload::Ref& ref = workload_.refs[job];
  bool any_reply = false;
  for (const trace::LivePiece& piece : turn.live_messages) {
    if (!piece.is_reply()) continue;
    any_reply = true;
    ++threaded_;
    const size_t from = lanes_.JobIndex(ref.tree, static_cast<size_t>(piece.reply_conversation),
                                        static_cast<size_t>(piece.reply_turn));
    if (ended_ok_[from] == 0) ++missing_;
  }
  if (!any_reply) return;
  Prompt p = prompts_[job];
  p.messages_json = Messages(job);
  j->request = BuildRequest(tmpl_, p, ignore_eos_);
}

}  // namespace servebench::client
