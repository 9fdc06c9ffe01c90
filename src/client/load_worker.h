// LoadWorker: one event-loop thread of the load generator. It owns its
// io_context, its connections, its slice of the arrival schedule and the records
// of the requests it ran; nothing on its hot path is shared with other workers
// except the closed-loop job counter (one atomic increment per request) and
// relaxed progress counters. Create, Run() on its own thread, then read records().
//
// Connection reuse (HTTP/1.1 keep-alive). A connection whose response did not say
// `Connection: close` goes back to the worker's pool. Some servers close it anyway
// (llama.cpp's llama-server closes after every streamed response), so a pooled
// connection is checked before reuse (Transport::IdleConnectionUnusable), and a
// request on a pooled connection that ends before any byte of its response arrived
// (the close raced the reuse) is re-sent once on a new connection: counted in
// reconnects() and in the record's `reconnects`, and a failure only if it fails
// there too. Its t_sent is the re-send; the lost attempt shows as issue delay.
// Once a server has been seen doing this, the worker stops offering it streamed
// connections for reuse (it closes them itself) and keeps a connected spare per
// request in flight, opened while the request streams, so the next request's
// connect is off its path instead of in its issue delay.
//
// Paced sends (WorkerConfig::paced_sends, an open-loop schedule): the arrivals are
// sent by a SendPacer thread (send_pacer.h), not by this event loop, so a request
// leaves on time while the loop parses other streams. The worker lends the pacer its
// idle connections (a pool under pool_mu_); at each due time the pacer writes the
// pre-built request bytes on one of them (Transport::TryWriteNow), stamps t_sent, and
// posts the connection to the event loop, which writes what the socket did not take,
// reads the response and returns the connection to the pool. With no idle
// connection, or on TLS, the arrival is posted to the loop and sent as without a
// pacer (its issue delay then includes the connect).
#pragma once

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "client/lag_histogram.h"
#include "client/lane_schedule.h"
#include "client/send_pacer.h"
#include "metrics/request_record.h"

namespace servebench::client {

class LiveReplies;

// One request to send. `request` holds the complete HTTP bytes; the worker frees
// them once written.
struct Job {
  int64_t index = 0;
  bool warmup = false;
  int64_t offset_ns = 0;  // open loop: arrival offset from the phase start
  std::string request;
  int64_t client_prompt_tokens = 0;
  int64_t max_tokens = 0;
};

// Live counters for the progress line, summed over workers by the reader.
struct Progress {
  std::atomic<int64_t> done{0}, failed{0}, tokens{0}, events{0}, max_issue_delay_ns{0};
  // Reads that delivered data, and those of them the kernel stamped (WorkerConfig::
  // kernel_rx_timestamps); counted once per request, when it ends.
  std::atomic<int64_t> reads{0}, kernel_stamped_reads{0};
  // Completed requests with a first token, and the sum of their times from schedule
  // to first token (queueing included): what the saturation stop rule watches.
  std::atomic<int64_t> ttft_count{0}, ttft_sum_ns{0};
};

// Start line shared by the workers of one phase: each worker connects, then
// counts down `ready`; the coordinator then stores the phase start time in
// `start_ns` (monotonic ns) and notifies.
struct PhaseStart {
  std::atomic<int> not_ready{0};
  std::atomic<int64_t> start_ns{0};
};

struct WorkerConfig {
  boost::asio::ip::tcp::resolver::results_type endpoints;
  boost::asio::ssl::context* tls = nullptr;  // null for http://
  std::string host;                          // TLS SNI and verification
  bool keep_text = false;
  // Stamp events with the kernel's receive time of the read that delivered them
  // (plain TCP; transport.h) instead of the time the read returned.
  bool kernel_rx_timestamps = true;
  double request_timeout_s = 0;  // 0 = no deadline
  bool closed_loop = true;
  // Closed loop: requests this worker keeps in flight. Open loop: the cap on
  // requests in flight (0 = none); arrivals beyond it wait in a FIFO.
  int64_t slots = 0;
  // Closed loop with a concurrency schedule (stages or a ramp): (offset ns from the
  // start, this worker's slots from then on), by offset, the first at 0; empty =
  // `slots` throughout. A step up starts requests at once (due at the step's offset);
  // a step down retires slots as their requests end.
  std::vector<std::pair<int64_t, int64_t>> slot_steps;
  int64_t preconnect = 0;  // connections opened before the start
  // Open loop with no cap on plain TCP: a SendPacer thread sends the arrivals (the
  // class comment). RunPhase sets it for a trace's fixed schedule and a request rate.
  bool paced_sends = false;
  // Duration bound (BenchSettings::duration_s), from the phase start; 0 = none. At
  // start + duration_ns the worker stops issuing (open loop: `my_jobs` holds only
  // arrivals before it, all dispatched by then; closed loop: a slot released at or
  // after it starts nothing) and cuts what still waits for a slot; at
  // start + duration_ns + grace_ns it cuts what is still in flight (kCutAtEnd).
  int64_t duration_ns = 0;
  int64_t grace_ns = 0;
  std::vector<Job>* jobs = nullptr;          // all jobs of the phase
  std::atomic<int64_t>* next_job = nullptr;  // closed loop: next index to take
  std::vector<size_t> my_jobs;               // open loop: this worker's jobs, by time
  // Closed-loop trace replay: which job may start when (lane_schedule.h); then the
  // phase runs on this one worker and `closed_loop`, `my_jobs` are unused.
  LaneSchedule* lanes = nullptr;
  // With `lanes`, live assistant turns (live_replies.h): each released job's request is
  // rebuilt with the replies of the turns before it, and each ended job hands its reply
  // over (`keep_text` must then be on). Null: the jobs' requests are sent as built.
  LiveReplies* live = nullptr;
  PhaseStart* start = nullptr;
  const std::atomic<bool>* cancel = nullptr;
  // A stop rule fired (stop_rules.h; polled with `cancel`): the issue window ends
  // then, as at the duration's end: nothing more is issued, what waits for a slot is
  // cut, what is in flight gets grace_ns and is cut after it. `stop_reason` (set
  // before `stop`) is written into those records' errors.
  const std::atomic<bool>* stop = nullptr;
  const std::string* stop_reason = nullptr;
  Progress* progress = nullptr;
};

class LoadWorker {
 public:
  explicit LoadWorker(WorkerConfig config);
  ~LoadWorker();
  LoadWorker(const LoadWorker&) = delete;
  LoadWorker& operator=(const LoadWorker&) = delete;

  // Connects, waits for the phase start, runs every job; returns when all are
  // done or the run is cancelled. Never throws.
  void Run();

  std::deque<metrics::RequestRecord>& records() { return records_; }
  int64_t connections_opened() const { return connections_opened_; }
  // Requests re-sent on a new connection because the pooled one had been closed.
  int64_t reconnects() const { return reconnects_; }
  // Pooled connections found closed by the server before reuse, and dropped.
  int64_t stale_connections() const { return stale_connections_; }
  // Per kernel-stamped read: read time minus the kernel's receive time.
  const LagHistogram& receive_lag() const { return receive_lag_; }
  // Paced sends: whether the pacing thread ran at a real-time priority (send_pacer.h);
  // nullopt when this worker did not pace. Read after the run.
  std::optional<bool> pacer_realtime() const { return pacer_realtime_; }
  bool cancelled() const { return cancelled_; }

 private:
  struct Conn;
  Conn* NewConn();
  Conn* AcquireConn();
  void Connect(Conn* c, bool then_send);
  void StartJob(Job* job, int64_t t_scheduled, int64_t t_slot_free);
  void Send(Conn* c);
  // Send's parts: resets the connection's response state for its request; stamps
  // t_sent (and the progress line's max issue delay); arms the request deadline from
  // t_sent; writes the request from byte `offset` on.
  void BeginResponse(Conn* c);
  void StampSent(Conn* c, int64_t t_sent_ns);
  void ArmDeadline(Conn* c);
  void WriteFrom(Conn* c, size_t offset);
  // An idle connection goes back to the pool (the pacer's, when pacing); PopIdle
  // takes one off it (null when empty).
  void ReturnIdle(Conn* c);
  Conn* PopIdle();
  // ---- Paced sends ----
  struct PacedWrite {
    Conn* conn = nullptr;  // null: no idle connection was there; the loop sends it
    Job* job = nullptr;
    int64_t t_scheduled_ns = 0, t_sent_ns = 0;
    size_t written = 0;  // bytes the pacer's write put on the socket
    boost::system::error_code error;
  };
  void StartPacer();
  // Pacer thread: takes an idle, usable connection for the next arrival.
  void PreparePaced();
  // Pacer thread: writes the arrival and posts OnPacedWrite.
  void FirePaced(size_t item, int64_t due_ns);
  // Event loop: the request the pacer wrote (or could not) becomes this loop's.
  void OnPacedWrite(const PacedWrite& w);
  // Ends the pacing and joins its thread; next_arrival_ is then the arrivals it took.
  void StopPacer();
  // With the pacer: keeps a few connected spares in its pool.
  void KeepPacedSpares();
  void Read(Conn* c);
  void OnRead(Conn* c, uint64_t serial, const boost::system::error_code& ec, size_t n);
  void Complete(Conn* c);
  void Fail(Conn* c, metrics::FailureKind kind, std::string message);
  // The request on pooled connection `stale` got no response byte before the
  // connection ended: moves it to a new connection and sends it again.
  void Resend(Conn* stale);
  // True when `error` on `c` is the stale-pool race rather than the request's
  // failure: net::IsStaleConnection, the rule net::HttpClient applies too.
  static bool IsStaleReuse(const Conn* c, const boost::system::error_code& error);
  // With server_closes_streams_: opens a spare connection unless there is one per
  // request in flight already (connected in the pool or connecting).
  void KeepSpares();
  void Finish(Conn* c, bool reusable);
  void Dispatch(Job* job);
  void OnArrivalTimer();
  // Lanes: starts every released job, and arms the timer for the next release.
  void PumpLanes();
  // Starts what the slot freed at `slot_free_ns` (monotonic) lets start.
  void ScheduleNext(int64_t slot_free_ns);
  void CheckDone();
  void PollCancel();
  // The duration bound: stop issuing; then, after the grace period, cut.
  void OnDurationEnd();
  // Closed loop with slot_steps: applies the steps due by now and arms the next.
  void OnSlotStep();
  // A stop rule fired: the issue window ends now (WorkerConfig::stop).
  void OnStop();
  // Why issuing ended, for the records it cuts: the duration's end or the stop rule.
  std::string IssueEndText() const;
  void OnGraceEnd();
  // Whether a request released at `released_ns` (monotonic) may still start.
  bool MayIssue(int64_t released_ns) const;
  void Shutdown();

  WorkerConfig cfg_;
  boost::asio::io_context io_{1};
  boost::asio::steady_timer arrival_timer_{io_};
  boost::asio::steady_timer cancel_timer_{io_};
  boost::asio::steady_timer duration_timer_{io_};  // end of the issue window, then of grace
  boost::asio::steady_timer step_timer_{io_};      // next concurrency step (slot_steps)
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<Conn*> idle_;
  std::deque<metrics::RequestRecord> records_;    // stable addresses for in-flight decoders
  std::deque<std::pair<Job*, int64_t>> pending_;  // open loop over the cap: (job, t_scheduled)
  LagHistogram receive_lag_;
  size_t next_arrival_ = 0;
  size_t next_step_ = 0;      // slot_steps not applied yet
  int64_t target_slots_ = 0;  // slot_steps: this worker's slots now
  int64_t in_flight_ = 0;
  int64_t start_ns_ = 0;
  int64_t connections_opened_ = 0;
  int64_t reconnects_ = 0;
  int64_t stale_connections_ = 0;
  std::optional<bool> pacer_realtime_;
  bool server_closes_streams_ = false;  // a pooled connection was found closed by it
  int64_t preconnecting_ = 0;           // connections being opened for the pool
  uint64_t serial_ = 0;
  bool cancelled_ = false;
  bool issuing_ended_ = false;  // the duration bound passed: nothing more starts
  bool stopped_ = false;        // ...because a stop rule fired (WorkerConfig::stop)
  bool shut_down_ = false;
  bool grace_over_ = false;  // OnGraceEnd ran: a request handed over later is cut

  // Paced sends. While pacing_, the pacer owns next_arrival_; requests it posted and
  // this loop has not yet taken up are paced_posted_ - paced_handled_ (CheckDone
  // waits for them).
  bool pacing_ = false;
  std::mutex pool_mu_;
  std::vector<Conn*> pacer_pool_;  // GUARDED_BY(pool_mu_): idle connections lent to it
  Conn* paced_conn_ = nullptr;     // pacer thread: the connection for its next arrival
  std::atomic<int64_t> paced_posted_{0};
  int64_t paced_handled_ = 0;
  // Last: destroyed (and so stopped) before the connections and the io_context.
  std::unique_ptr<SendPacer> pacer_;
};

}  // namespace servebench::client
