#include "client/send_pacer.h"

#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "common/clock.h"

namespace servebench::client {
namespace {

// What the pacer's callbacks saw, in order, from its thread.
struct Trace {
  std::mutex mu;
  std::vector<std::string> calls;
  std::vector<int64_t> fired_at_ns, fired_due_ns;
};

TEST(SendPacerTest, PreparesThenFiresEachItemInOrderNeverBeforeItsDueTime) {
  const int64_t now = MonotonicNowNs();
  const std::vector<int64_t> due = {now + 1'000'000, now + 1'000'000, now + 3'000'000,
                                    now + 4'000'000};
  Trace t;
  std::promise<void> finished;
  SendPacer pacer(
      due,
      [&](size_t i) {
        std::lock_guard<std::mutex> lock(t.mu);
        t.calls.push_back("prepare " + std::to_string(i));
      },
      [&](size_t i, int64_t due_ns) {
        const int64_t at = MonotonicNowNs();
        std::lock_guard<std::mutex> lock(t.mu);
        t.calls.push_back("fire " + std::to_string(i));
        t.fired_at_ns.push_back(at);
        t.fired_due_ns.push_back(due_ns);
      },
      [&] { finished.set_value(); });
  pacer.Start();
  finished.get_future().wait();
  pacer.Stop();
  EXPECT_EQ(t.calls, (std::vector<std::string>{"prepare 0", "fire 0", "prepare 1", "fire 1",
                                               "prepare 2", "fire 2", "prepare 3", "fire 3"}));
  EXPECT_EQ(t.fired_due_ns, due);
  for (size_t i = 0; i < due.size(); ++i) EXPECT_GE(t.fired_at_ns[i], due[i]) << i;
  EXPECT_EQ(pacer.taken(), due.size());
}

TEST(SendPacerTest, ItemsAlreadyDueAreAllFired) {
  const int64_t past = MonotonicNowNs() - 1'000'000'000;
  std::vector<size_t> fired;
  std::promise<void> finished;
  SendPacer pacer(
      {past, past + 1, past + 2}, [](size_t) {}, [&](size_t i, int64_t) { fired.push_back(i); },
      [&] { finished.set_value(); });
  pacer.Start();
  finished.get_future().wait();
  pacer.Stop();
  EXPECT_EQ(fired, (std::vector<size_t>{0, 1, 2}));
}

TEST(SendPacerTest, StopCutsAWaitShortAndTakenCountsOnlyWhatWasFired) {
  const int64_t now = MonotonicNowNs();
  std::promise<void> first_fired;
  std::vector<size_t> prepared, fired;
  bool done = false;
  // The second item is due in an hour: only Stop() can end the wait for it.
  SendPacer pacer(
      {now - 1, now + 3'600'000'000'000}, [&](size_t i) { prepared.push_back(i); },
      [&](size_t i, int64_t) {
        fired.push_back(i);
        if (i == 0) first_fired.set_value();
      },
      [&] { done = true; });
  pacer.Start();
  first_fired.get_future().wait();
  pacer.Stop();
  EXPECT_EQ(pacer.taken(), 1u);
  EXPECT_EQ(prepared, (std::vector<size_t>{0}));
  EXPECT_EQ(fired, (std::vector<size_t>{0}));
  EXPECT_FALSE(done);
  pacer.Stop();  // idempotent
}

}  // namespace
}  // namespace servebench::client
