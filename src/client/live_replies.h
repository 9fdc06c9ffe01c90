// LiveReplies: live assistant turns of a text-trace replay (--assistant-turns live;
// docs/agentic.md, "Live assistant turns"). Each later turn of a dag_jsonl or
// multi_turn conversation carries the server's actual replies to the earlier turns in
// its history (TraceTurn::live_messages says where), instead of the recorded text:
// vLLM's multi_turn sends the server's answers, AIPerf's dag_jsonl default
// (`deltas_without_responses`) threads them in.
//
// It works inside the closed-loop lanes (lane_schedule.h), which release a turn only
// after its conversation's previous turn (and, for a fork, the forking parent turn)
// has ended, so every reply a turn needs is in by its release. The load worker hands
// each ended request to OnEnd and, at release, has Prepare rebuild the request's bytes
// from the replies; the build is on the issue path, so its cost shows in issue delay.
// A reply whose request failed is threaded as an empty assistant message and counted
// (missing_replies()).
// Not thread-safe: the lanes' one worker thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/dataset.h"
#include "client/lane_schedule.h"
#include "client/load_worker.h"
#include "client/request_builder.h"
#include "client/trace_replay.h"
#include "metrics/request_record.h"

namespace servebench::client {

class LiveReplies {
 public:
  // `workload` and `lanes` must outlive this object. `prompts` are the measured prompts
  // in `lanes`' job order (trace_replay.h), their messages_json pre-canned; kept here, as
  // the run frees its own copy once the jobs are built.
  LiveReplies(const TraceWorkload& workload, std::vector<Prompt> prompts, const LaneSchedule& lanes,
              RequestTemplate tmpl, bool ignore_eos, bool keep_text);

  // Job `job` ended: keeps its reply (the record's generated text when it succeeded,
  // else nothing). Clears the record's text unless the run keeps it (`keep_text`: the
  // worker keeps every reply's text for this, --save-generated-text or not).
  void OnEnd(size_t job, metrics::RequestRecord* record);

  // Rewrites `j`'s request so its history holds the live replies. A turn with no live
  // pieces (a conversation's first turn, message_array_with_responses) is left as is.
  void Prepare(Job* j);

  // The message array of job `job` with the replies in so far (exposed for tests).
  std::string Messages(size_t job) const;

  int64_t threaded_replies() const { return threaded_; }  // replies put into requests
  int64_t missing_replies() const { return missing_; }    // ...of them empty: failed turns

 private:
  const TraceWorkload& workload_;
  std::vector<Prompt> prompts_;
  const LaneSchedule& lanes_;
  RequestTemplate tmpl_;
  bool ignore_eos_;
  bool keep_text_;
  std::vector<std::string> reply_;  // per job: the server's reply text
  std::vector<uint8_t> ended_ok_;   // per job: ended with a reply
  int64_t threaded_ = 0, missing_ = 0;
};

}  // namespace servebench::client
