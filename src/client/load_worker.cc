#include "client/load_worker.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string_view>
#include <utility>

#include "client/live_replies.h"
#include "client/openai_stream.h"
#include "client/sse_parser.h"
#include "common/clock.h"
#include "net/http_response_parser.h"
#include "net/retry_policy.h"
#include "net/transport.h"

namespace servebench::client {

namespace asio = boost::asio;
using metrics::FailureKind;
using metrics::RequestRecord;
using net::DescribeConnectError;
using net::HttpResponseParser;
using net::Transport;

namespace {
// Read buffers start small (10,000 idle streams must fit in memory) and double
// when a read fills them, up to kMaxReadBuffer.
constexpr size_t kInitialReadBuffer = 4 * 1024;
constexpr size_t kMaxReadBuffer = 256 * 1024;
constexpr size_t kMaxErrorBody = 2048;
constexpr auto kCancelPoll = std::chrono::milliseconds(10);
// Connected spares kept in the pacer's pool, so a burst of arrivals finds a
// connection instead of a connect on its path.
constexpr size_t kPacedSpares = 4;

// Frees a large prompt's bytes once they can no longer be needed.
void FreeRequest(Job* job) {
  if (job != nullptr) std::string().swap(job->request);
}

std::chrono::steady_clock::time_point AtNs(int64_t monotonic_ns) {
  // steady_clock is CLOCK_MONOTONIC on Linux: the same clock as MonotonicNowNs().
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(monotonic_ns));
}
}  // namespace

// One connection and the request on it (at most one: no pipelining).
struct LoadWorker::Conn {
  Conn(LoadWorker* w, asio::io_context& io)
      : transport(io, w->cfg_.tls, w->cfg_.host, w->cfg_.kernel_rx_timestamps),
        deadline(io),
        http([this](std::string_view b) { OnBody(b); }),
        sse([this](std::string_view, std::string_view data, int64_t t) { OnEvent(data, t); }) {}

  void OnBody(std::string_view bytes) {
    if (http.status() != 200) {
      if (error_body.size() < kMaxErrorBody) error_body.append(bytes.substr(0, kMaxErrorBody));
      return;
    }
    if (stream_failed) return;
    Status s = sse.Feed(bytes, read_t_ns);
    if (!s.ok()) {
      stream_failed = true;
      rec->failure = FailureKind::kMalformed;
      rec->error = s.message();
    }
  }
  void OnEvent(std::string_view data, int64_t t) {
    if (stream_failed) return;
    if (!decoder->OnData(data, t)) stream_failed = true;
  }

  Transport transport;
  asio::steady_timer deadline;
  HttpResponseParser http;
  SseParser sse;
  std::optional<StreamDecoder> decoder;
  // The read buffer, grown by doubling without zeroing or copying: a read overwrites
  // it, and the parsers copy what must outlive the read that filled it.
  std::unique_ptr<char[]> buf = std::make_unique_for_overwrite<char[]>(kInitialReadBuffer);
  size_t buf_size = kInitialReadBuffer;
  std::string error_body;
  RequestRecord* rec = nullptr;
  Job* job = nullptr;
  int64_t read_t_ns = 0;                        // the stamp of the current read's events
  int64_t reads = 0, kernel_stamped_reads = 0;  // of the current request
  uint64_t serial = 0;                          // which request the pending callbacks belong to
  int64_t response_bytes = 0;                   // of the current request's response
  // The current request came from the pool (the connection was not opened for it).
  bool pooled = false;
  bool connected = false, connecting = false, dead = false, writing = false;
  bool stream_failed = false;
};

LoadWorker::LoadWorker(WorkerConfig config) : cfg_(std::move(config)) {}
LoadWorker::~LoadWorker() {
  if (pacer_) pacer_->Stop();
}

LoadWorker::Conn* LoadWorker::NewConn() {
  conns_.push_back(std::make_unique<Conn>(this, io_));
  ++connections_opened_;
  return conns_.back().get();
}

void LoadWorker::ReturnIdle(Conn* c) {
  if (!cfg_.paced_sends) return idle_.push_back(c);
  std::lock_guard<std::mutex> lock(pool_mu_);
  pacer_pool_.push_back(c);
}

LoadWorker::Conn* LoadWorker::PopIdle() {
  std::vector<Conn*>* pool = &idle_;
  std::unique_lock<std::mutex> lock(pool_mu_, std::defer_lock);
  if (cfg_.paced_sends) {
    lock.lock();
    pool = &pacer_pool_;
  }
  if (pool->empty()) return nullptr;
  Conn* c = pool->back();
  pool->pop_back();
  return c;
}

LoadWorker::Conn* LoadWorker::AcquireConn() {
  while (Conn* c = PopIdle()) {
    if (c->dead) continue;
    if (c->connected && c->transport.IdleConnectionUnusable()) {
      ++stale_connections_;
      server_closes_streams_ = true;
      c->transport.Close();
      c->dead = true;
      continue;
    }
    return c;
  }
  return NewConn();
}

bool LoadWorker::IsStaleReuse(const Conn* c, const boost::system::error_code& error) {
  return net::IsStaleConnection(c->pooled, static_cast<uint64_t>(c->response_bytes), error);
}

void LoadWorker::Resend(Conn* stale) {
  RequestRecord* r = stale->rec;
  Job* job = stale->job;
  ++reconnects_;
  ++r->reconnects;
  server_closes_streams_ = true;
  stale->deadline.cancel();
  stale->transport.Close();
  stale->dead = true;
  stale->rec = nullptr;
  stale->job = nullptr;
  stale->decoder.reset();
  ++stale->serial;  // its pending callbacks now belong to nobody
  Conn* c = NewConn();
  c->rec = r;
  c->job = job;
  c->serial = ++serial_;
  c->pooled = false;
  Connect(c, /*then_send=*/true);
}

void LoadWorker::KeepSpares() {
  int64_t spares = preconnecting_;
  for (const Conn* c : idle_) spares += c->connected && !c->dead ? 1 : 0;
  if (cfg_.paced_sends) {
    std::lock_guard<std::mutex> lock(pool_mu_);
    spares += static_cast<int64_t>(pacer_pool_.size());  // connected, none dead
  }
  for (; spares < in_flight_; ++spares) Connect(NewConn(), /*then_send=*/false);
}

void LoadWorker::Connect(Conn* c, bool then_send) {
  c->connecting = true;
  if (!then_send) ++preconnecting_;
  uint64_t serial = c->serial;
  c->transport.AsyncConnect(cfg_.endpoints,
                            [this, c, then_send, serial](const boost::system::error_code& ec) {
                              c->connecting = false;
                              if (!then_send) {  // preconnect
                                --preconnecting_;
                                if (ec) {
                                  c->dead = true;
                                } else {
                                  c->connected = true;
                                  ReturnIdle(c);
                                }
                                return;
                              }
                              if (c->serial != serial || c->rec == nullptr) return;
                              if (ec)
                                return Fail(c, FailureKind::kConnect, DescribeConnectError(ec));
                              c->connected = true;
                              Send(c);
                            });
}

void LoadWorker::StartJob(Job* job, int64_t t_scheduled, int64_t t_slot_free) {
  RequestRecord& r = records_.emplace_back();
  r.index = job->index;
  r.warmup = job->warmup;
  r.t_scheduled_ns = t_scheduled;
  r.t_slot_free_ns = t_slot_free;
  r.client_prompt_tokens = job->client_prompt_tokens;
  r.max_tokens = job->max_tokens;
  ++in_flight_;
  Conn* c = AcquireConn();
  c->rec = &r;
  c->job = job;
  c->serial = ++serial_;
  c->pooled = c->connected;
  if (c->connected) {
    Send(c);
  } else {
    Connect(c, /*then_send=*/true);
  }
  if (server_closes_streams_) KeepSpares();
}

void LoadWorker::Send(Conn* c) {
  BeginResponse(c);
  StampSent(c, MonotonicNowNs());
  ArmDeadline(c);
  WriteFrom(c, 0);
  Read(c);
}

void LoadWorker::BeginResponse(Conn* c) {
  c->reads = c->kernel_stamped_reads = 0;
  c->response_bytes = 0;
  c->http.Reset();
  c->sse.Reset();
  c->error_body.clear();
  c->stream_failed = false;
  c->decoder.emplace(c->rec, cfg_.keep_text);
  c->rec->events.reserve(static_cast<size_t>(std::clamp<int64_t>(c->rec->max_tokens + 4, 8, 4096)));
}

void LoadWorker::StampSent(Conn* c, int64_t t_sent_ns) {
  c->rec->t_sent_ns = t_sent_ns;
  int64_t lag = t_sent_ns - std::max(c->rec->t_scheduled_ns, c->rec->t_slot_free_ns);
  if (lag > cfg_.progress->max_issue_delay_ns.load(std::memory_order_relaxed)) {
    cfg_.progress->max_issue_delay_ns.store(lag, std::memory_order_relaxed);
  }
}

void LoadWorker::ArmDeadline(Conn* c) {
  if (cfg_.request_timeout_s <= 0) return;
  uint64_t serial = c->serial;
  // From the send, not from when this loop took the request up.
  c->deadline.expires_at(AtNs(c->rec->t_sent_ns) +
                         std::chrono::duration_cast<std::chrono::nanoseconds>(
                             std::chrono::duration<double>(cfg_.request_timeout_s)));
  c->deadline.async_wait([this, c, serial](const boost::system::error_code& ec) {
    if (ec || c->serial != serial || c->rec == nullptr) return;
    Fail(c, FailureKind::kTimeout,
         fmt::format("no complete response within the {} s request deadline",
                     cfg_.request_timeout_s));
  });
}

void LoadWorker::WriteFrom(Conn* c, size_t offset) {
  uint64_t serial = c->serial;
  c->writing = true;
  c->transport.AsyncWriteAll(std::string_view(c->job->request).substr(offset),
                             [this, c, serial](const boost::system::error_code& ec, size_t) {
                               c->writing = false;
                               if (c->serial != serial || c->rec == nullptr) return;
                               if (ec) {
                                 if (IsStaleReuse(c, ec)) return Resend(c);
                                 return Fail(c, FailureKind::kWrite, "write: " + ec.message());
                               }
                               if (c->response_bytes > 0) FreeRequest(c->job);
                             });
}

void LoadWorker::Read(Conn* c) {
  uint64_t serial = c->serial;
  c->transport.AsyncReadSome(c->buf.get(), c->buf_size,
                             [this, c, serial](const boost::system::error_code& ec, size_t n) {
                               OnRead(c, serial, ec, n);
                             });
}

void LoadWorker::OnRead(Conn* c, uint64_t serial, const boost::system::error_code& ec, size_t n) {
  // The event time is this read's, taken by the transport before any parsing: the
  // kernel's receive time when it has one, else the time the read returned.
  int64_t rx = c->transport.last_receive_ns();
  c->read_t_ns = rx >= 0 ? rx : c->transport.last_read_ns();
  if (c->serial != serial || c->rec == nullptr) return;
  if (n > 0) {
    ++c->reads;
    // The request bytes are kept until the server answers, for a re-send (above).
    if (c->response_bytes == 0 && !c->writing) FreeRequest(c->job);
    c->response_bytes += static_cast<int64_t>(n);
    if (rx >= 0) {
      ++c->kernel_stamped_reads;
      receive_lag_.Record(c->transport.last_read_ns() - rx);
    }
    Status s = c->http.Feed(std::string_view(c->buf.get(), n));
    if (!s.ok()) return Fail(c, FailureKind::kMalformed, "bad HTTP response: " + s.message());
    if (c->stream_failed && c->rec->failure != FailureKind::kNone &&
        c->rec->failure != FailureKind::kStreamError) {
      return Fail(c, c->rec->failure, c->rec->error);
    }
    if (c->http.complete()) return Complete(c);
    if (n == c->buf_size && c->buf_size < kMaxReadBuffer) {
      c->buf_size *= 2;
      c->buf = std::make_unique_for_overwrite<char[]>(c->buf_size);
    }
  }
  if (ec) {
    if (ec == asio::error::operation_aborted) return;
    if (IsStaleReuse(c, ec)) return Resend(c);
    c->http.OnEof();
    if (c->http.complete() || (c->decoder && c->decoder->saw_done())) {
      c->dead = true;  // the server closed: do not reuse
      return Complete(c);
    }
    return Fail(
        c, FailureKind::kRead,
        fmt::format("connection {} after {} stream events, before the stream ended",
                    ec == asio::error::eof ? "closed by the server" : "failed: " + ec.message(),
                    c->rec->events.size()));
  }
  Read(c);
}

void LoadWorker::Complete(Conn* c) {
  RequestRecord* r = c->rec;
  r->http_status = c->http.status();
  if (r->http_status != 200) {
    r->failure = FailureKind::kHttpStatus;
    r->error = fmt::format("HTTP {}: {}", r->http_status, c->error_body.substr(0, 300));
  } else {
    c->decoder->OnEnd();
  }
  // The response ended when the read that completed it says (its kernel receive
  // time, like its events), not when this thread got round to it.
  r->t_done_ns = c->read_t_ns;
  c->deadline.cancel();
  // A streamed response's connection is not reused once the server is known to
  // close those (the class comment); its non-streamed error replies keep theirs.
  bool reusable = !c->dead && !c->http.connection_close() && !c->writing &&
                  !(server_closes_streams_ && r->http_status == 200);
  if (!reusable) {
    c->transport.Close();
    c->dead = true;
  }
  Finish(c, reusable);
}

void LoadWorker::Fail(Conn* c, FailureKind kind, std::string message) {
  RequestRecord* r = c->rec;
  if (r == nullptr) return;
  r->failure = kind;
  r->error = std::move(message);
  r->http_status = c->http.status();
  r->t_done_ns = MonotonicNowNs();
  if (c->decoder) c->decoder->OnEnd();  // k sources; keeps the failure set above
  c->deadline.cancel();
  c->transport.Close();
  c->dead = true;
  Finish(c, /*reusable=*/false);
}

void LoadWorker::Finish(Conn* c, bool reusable) {
  RequestRecord* r = c->rec;
  Progress& p = *cfg_.progress;
  if (r->ok()) {
    p.done.fetch_add(1, std::memory_order_relaxed);
    if (r->t_first_token_ns >= 0 && r->t_scheduled_ns >= 0) {
      p.ttft_count.fetch_add(1, std::memory_order_relaxed);
      p.ttft_sum_ns.fetch_add(r->t_first_token_ns - r->t_scheduled_ns, std::memory_order_relaxed);
    }
    int64_t tokens = 0;
    for (const metrics::StreamEvent& e : r->events) tokens += e.k;
    p.tokens.fetch_add(tokens, std::memory_order_relaxed);
  } else {
    p.failed.fetch_add(1, std::memory_order_relaxed);
  }
  p.events.fetch_add(static_cast<int64_t>(r->events.size()), std::memory_order_relaxed);
  p.reads.fetch_add(c->reads, std::memory_order_relaxed);
  p.kernel_stamped_reads.fetch_add(c->kernel_stamped_reads, std::memory_order_relaxed);
  if (!c->writing) FreeRequest(c->job);
  const Job* job = c->job;
  c->rec = nullptr;
  c->job = nullptr;
  c->decoder.reset();
  ++c->serial;
  --in_flight_;
  if (reusable) ReturnIdle(c);
  if (cfg_.lanes != nullptr) {
    // What this request's end releases (its conversation's next turn, a join, the
    // lane's next tree) is due from its end on.
    if (cfg_.live != nullptr) cfg_.live->OnEnd(static_cast<size_t>(job->index), r);
    cfg_.lanes->Done(static_cast<size_t>(job->index), r->t_done_ns);
    return PumpLanes();
  }
  // The slot came free when the request ended: a closed-loop successor is due then,
  // so any delay of this thread in noticing shows in its issue_delay.
  ScheduleNext(r->t_done_ns);
}

void LoadWorker::Dispatch(Job* job) {
  int64_t t_scheduled = start_ns_ + job->offset_ns;
  if (cfg_.slots > 0 && in_flight_ >= cfg_.slots) {
    pending_.emplace_back(job, t_scheduled);
    return;
  }
  StartJob(job, t_scheduled, -1);
}

void LoadWorker::OnArrivalTimer() {
  if (cancelled_) return;
  int64_t now = MonotonicNowNs();
  std::vector<Job>& jobs = *cfg_.jobs;
  while (next_arrival_ < cfg_.my_jobs.size()) {
    Job* job = &jobs[cfg_.my_jobs[next_arrival_]];
    if (start_ns_ + job->offset_ns > now) break;
    ++next_arrival_;
    Dispatch(job);
  }
  if (next_arrival_ < cfg_.my_jobs.size()) {
    Job* job = &jobs[cfg_.my_jobs[next_arrival_]];
    arrival_timer_.expires_at(AtNs(start_ns_ + job->offset_ns));
    arrival_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) OnArrivalTimer();
    });
  }
  CheckDone();
}

void LoadWorker::StartPacer() {
  std::vector<int64_t> due;
  due.reserve(cfg_.my_jobs.size());
  for (size_t i : cfg_.my_jobs) due.push_back(start_ns_ + (*cfg_.jobs)[i].offset_ns);
  pacer_ = std::make_unique<SendPacer>(
      std::move(due), [this](size_t) { PreparePaced(); },
      [this](size_t item, int64_t due_ns) { FirePaced(item, due_ns); },
      // Posted after every arrival's hand-off, so it runs after them.
      [this] {
        asio::post(io_, [this] {
          StopPacer();
          CheckDone();
        });
      });
  pacing_ = true;
  pacer_->Start();
}

void LoadWorker::PreparePaced() {
  while (paced_conn_ == nullptr) {
    Conn* c = nullptr;
    {
      std::lock_guard<std::mutex> lock(pool_mu_);
      if (pacer_pool_.empty()) return;  // FirePaced leaves the arrival to the loop
      c = pacer_pool_.back();
      pacer_pool_.pop_back();
    }
    // Checked here, before the due time, not at it. Only the loop may close it.
    if (c->transport.IdleConnectionUnusable()) {
      asio::post(io_, [this, c] {
        ++stale_connections_;
        server_closes_streams_ = true;
        c->transport.Close();
        c->dead = true;
      });
      continue;
    }
    paced_conn_ = c;
  }
}

void LoadWorker::FirePaced(size_t item, int64_t due_ns) {
  PacedWrite w;
  w.job = &(*cfg_.jobs)[cfg_.my_jobs[item]];
  w.t_scheduled_ns = due_ns;
  w.conn = std::exchange(paced_conn_, nullptr);
  if (w.conn != nullptr) {
    // t_sent is the write's start, as in Send(): the request leaves now.
    w.t_sent_ns = MonotonicNowNs();
    w.written = w.conn->transport.TryWriteNow(w.job->request, &w.error);
  }
  paced_posted_.fetch_add(1, std::memory_order_release);
  asio::post(io_, [this, w] { OnPacedWrite(w); });
}

void LoadWorker::OnPacedWrite(const PacedWrite& w) {
  ++paced_handled_;
  if (w.conn == nullptr) {
    // No idle connection was lent: sent from here, late by its connect.
    if (!cancelled_) StartJob(w.job, w.t_scheduled_ns, -1);
  } else {
    RequestRecord& r = records_.emplace_back();
    r.index = w.job->index;
    r.warmup = w.job->warmup;
    r.t_scheduled_ns = w.t_scheduled_ns;
    r.t_slot_free_ns = -1;
    r.client_prompt_tokens = w.job->client_prompt_tokens;
    r.max_tokens = w.job->max_tokens;
    ++in_flight_;
    Conn* c = w.conn;
    c->rec = &r;
    c->job = w.job;
    c->serial = ++serial_;
    c->pooled = true;  // connected before this request: the stale-reuse race applies
    BeginResponse(c);
    StampSent(c, w.t_sent_ns);
    if (cancelled_) {
      Fail(c, FailureKind::kCancelled, "the run was interrupted");
    } else if (w.error) {
      if (IsStaleReuse(c, w.error)) {
        Resend(c);
      } else {
        Fail(c, FailureKind::kWrite, "write: " + w.error.message());
      }
    } else {
      ArmDeadline(c);
      if (w.written < w.job->request.size()) WriteFrom(c, w.written);
      Read(c);
    }
  }
  if (grace_over_) OnGraceEnd();  // handed over after the grace period's cut
  if (server_closes_streams_) {
    KeepSpares();
  } else {
    KeepPacedSpares();
  }
  CheckDone();
}

void LoadWorker::KeepPacedSpares() {
  if (shut_down_ || cancelled_ || issuing_ended_) return;
  size_t pooled = 0;
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    pooled = pacer_pool_.size();
  }
  for (size_t n = pooled + static_cast<size_t>(preconnecting_); n < kPacedSpares; ++n) {
    Connect(NewConn(), /*then_send=*/false);
  }
}

void LoadWorker::StopPacer() {
  if (!pacing_) return;
  pacer_->Stop();
  next_arrival_ = pacer_->taken();
  pacer_realtime_ = pacer_->realtime();
  pacing_ = false;
  // A connection it had taken for an arrival it will not send goes back.
  if (paced_conn_ != nullptr) ReturnIdle(std::exchange(paced_conn_, nullptr));
}

bool LoadWorker::MayIssue(int64_t released_ns) const {
  if (cancelled_ || issuing_ended_) return false;
  return cfg_.duration_ns <= 0 || released_ns < start_ns_ + cfg_.duration_ns;
}

void LoadWorker::PumpLanes() {
  if (cancelled_ || issuing_ended_) return CheckDone();
  std::vector<std::pair<size_t, int64_t>> ready;
  const int64_t next = cfg_.lanes->TakeReady(MonotonicNowNs(), &ready);
  // The release time is the request's t_scheduled: lateness shows as issue delay. A
  // release at or after the duration's end starts nothing.
  for (const auto& [index, release_ns] : ready) {
    if (!MayIssue(release_ns)) continue;
    Job* job = &(*cfg_.jobs)[index];
    if (cfg_.live != nullptr) cfg_.live->Prepare(job);
    StartJob(job, release_ns, -1);
  }
  if (next >= 0 && MayIssue(next)) {
    arrival_timer_.expires_at(AtNs(next));
    arrival_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) PumpLanes();
    });
  }
  CheckDone();
}

void LoadWorker::ScheduleNext(int64_t slot_free_ns) {
  if (cancelled_ || issuing_ended_) return CheckDone();
  if (cfg_.closed_loop) {
    // A slot released at or after the duration's end starts nothing (the release time,
    // not the time this thread noticed it, decides: a late thread changes no load).
    if (!MayIssue(slot_free_ns)) return CheckDone();
    // A concurrency step down: this slot is retired, not refilled.
    if (!cfg_.slot_steps.empty() && in_flight_ >= target_slots_) return CheckDone();
    int64_t i = cfg_.next_job->fetch_add(1, std::memory_order_relaxed);
    // The slot's release is the request's t_scheduled (metrics.md).
    if (i < static_cast<int64_t>(cfg_.jobs->size())) {
      StartJob(&(*cfg_.jobs)[static_cast<size_t>(i)], slot_free_ns, -1);
    }
  } else if (!pending_.empty() && (cfg_.slots == 0 || in_flight_ < cfg_.slots)) {
    auto [job, t_scheduled] = pending_.front();
    pending_.pop_front();
    StartJob(job, t_scheduled, std::max(slot_free_ns, t_scheduled));
  }
  CheckDone();
}

void LoadWorker::CheckDone() {
  if (in_flight_ > 0) return;
  // The pacer may still send, or has handed over requests not yet taken up here.
  if (pacing_ || paced_handled_ < paced_posted_.load(std::memory_order_acquire)) return;
  // A concurrency schedule at 0 slots for now still has steps to come.
  if (!cancelled_ && !issuing_ended_ && next_step_ < cfg_.slot_steps.size()) return;
  bool all_started = false;
  if (cancelled_ || issuing_ended_) {
    all_started = true;
  } else if (cfg_.lanes != nullptr) {
    all_started = cfg_.lanes->finished();
  } else if (cfg_.closed_loop) {
    all_started =
        cfg_.next_job->load(std::memory_order_relaxed) >= static_cast<int64_t>(cfg_.jobs->size());
  } else {
    all_started = next_arrival_ >= cfg_.my_jobs.size() && pending_.empty();
  }
  if (all_started) Shutdown();
}

void LoadWorker::PollCancel() {
  if (shut_down_) return;
  if (cfg_.cancel != nullptr && cfg_.cancel->load()) {
    cancelled_ = true;
    StopPacer();
    pending_.clear();
    arrival_timer_.cancel();
    for (auto& c : conns_) {
      if (c->rec != nullptr) Fail(c.get(), FailureKind::kCancelled, "the run was interrupted");
    }
    CheckDone();
    return;
  }
  if (cfg_.stop != nullptr && !issuing_ended_ && cfg_.stop->load()) OnStop();
  if (shut_down_) return;
  cancel_timer_.expires_after(kCancelPoll);
  cancel_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) PollCancel();
  });
}

std::string LoadWorker::IssueEndText() const {
  if (stopped_) return "the run was stopped (" + *cfg_.stop_reason + ")";
  return fmt::format("the {} s duration ended", static_cast<double>(cfg_.duration_ns) / 1e9);
}

void LoadWorker::OnStop() {
  if (shut_down_ || cancelled_ || issuing_ended_) return;
  stopped_ = true;
  StopPacer();
  // Arrivals not yet due were never offered: they are dropped, not cut. Then the issue
  // window ends now, exactly as at the duration's end.
  if (!cfg_.closed_loop) cfg_.my_jobs.resize(next_arrival_);
  cfg_.duration_ns = std::max<int64_t>(MonotonicNowNs() - start_ns_, 1);
  OnDurationEnd();
}

void LoadWorker::OnDurationEnd() {
  if (shut_down_ || cancelled_) return;
  // Every arrival of `my_jobs` is before the end (RunBench keeps only those): any the
  // arrival timer has not reached yet is due now, late by this thread, not by design.
  std::vector<Job>& jobs = *cfg_.jobs;
  StopPacer();
  while (!cfg_.closed_loop && next_arrival_ < cfg_.my_jobs.size()) {
    Dispatch(&jobs[cfg_.my_jobs[next_arrival_++]]);
  }
  issuing_ended_ = true;
  arrival_timer_.cancel();
  // Open loop with a cap: arrivals still waiting for a slot were offered in the window
  // and never served; they are recorded, unsent, as cut.
  int64_t now = MonotonicNowNs();
  for (const auto& [job, t_scheduled] : pending_) {
    RequestRecord& r = records_.emplace_back();
    r.index = job->index;
    r.warmup = job->warmup;
    r.t_scheduled_ns = t_scheduled;
    r.client_prompt_tokens = job->client_prompt_tokens;
    r.max_tokens = job->max_tokens;
    r.t_done_ns = now;
    r.failure = FailureKind::kCutAtEnd;
    r.error = "still waiting for a concurrency slot when " + IssueEndText() + "; never sent";
    cfg_.progress->failed.fetch_add(1, std::memory_order_relaxed);
  }
  pending_.clear();
  // Requests the pacer handed over and this loop has not taken up are in flight too.
  if (in_flight_ == 0 && paced_handled_ == paced_posted_.load()) return CheckDone();
  if (cfg_.grace_ns <= 0) return OnGraceEnd();
  duration_timer_.expires_at(AtNs(start_ns_ + cfg_.duration_ns + cfg_.grace_ns));
  duration_timer_.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) OnGraceEnd();
  });
}

void LoadWorker::OnSlotStep() {
  if (shut_down_ || cancelled_ || issuing_ended_) return CheckDone();
  int64_t now = MonotonicNowNs();
  int64_t due = start_ns_;
  while (next_step_ < cfg_.slot_steps.size() &&
         start_ns_ + cfg_.slot_steps[next_step_].first <= now) {
    due = start_ns_ + cfg_.slot_steps[next_step_].first;
    target_slots_ = cfg_.slot_steps[next_step_].second;
    ++next_step_;
  }
  // A step up: the new slots are due at the step (its time, not this thread's, is their
  // t_scheduled: a late thread shows as issue delay).
  while (in_flight_ < target_slots_ && MayIssue(due)) {
    int64_t i = cfg_.next_job->fetch_add(1, std::memory_order_relaxed);
    if (i >= static_cast<int64_t>(cfg_.jobs->size())) break;
    StartJob(&(*cfg_.jobs)[static_cast<size_t>(i)], due, -1);
  }
  if (next_step_ < cfg_.slot_steps.size()) {
    step_timer_.expires_at(AtNs(start_ns_ + cfg_.slot_steps[next_step_].first));
    step_timer_.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) OnSlotStep();
    });
  }
  CheckDone();
}

void LoadWorker::OnGraceEnd() {
  if (shut_down_) return;
  grace_over_ = true;
  std::string why = fmt::format("still in flight {} s after {} (--grace-period); cut",
                                static_cast<double>(cfg_.grace_ns) / 1e9, IssueEndText());
  for (auto& c : conns_) {
    if (c->rec != nullptr) Fail(c.get(), FailureKind::kCutAtEnd, why);
  }
  CheckDone();
}

void LoadWorker::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  StopPacer();  // before the connections it may hold are closed
  arrival_timer_.cancel();
  cancel_timer_.cancel();
  duration_timer_.cancel();
  step_timer_.cancel();
  for (auto& c : conns_) {
    c->deadline.cancel();
    c->transport.Close();
  }
}

void LoadWorker::Run() {
  try {
    // Connect before the start so the first wave does not pay for handshakes.
    for (int64_t i = 0; i < cfg_.preconnect; ++i) Connect(NewConn(), /*then_send=*/false);
    io_.run();
    io_.restart();
    cfg_.start->not_ready.fetch_sub(1);
    cfg_.start->not_ready.notify_all();
    cfg_.start->start_ns.wait(0);
    start_ns_ = cfg_.start->start_ns.load();
    PollCancel();
    if (cfg_.duration_ns > 0) {
      duration_timer_.expires_at(AtNs(start_ns_ + cfg_.duration_ns));
      duration_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) OnDurationEnd();
      });
    }
    if (cfg_.lanes != nullptr) {
      cfg_.lanes->Start(start_ns_);
      arrival_timer_.expires_at(AtNs(start_ns_));
      arrival_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) PumpLanes();
      });
    } else if (cfg_.closed_loop && !cfg_.slot_steps.empty()) {
      step_timer_.expires_at(AtNs(start_ns_));
      step_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) OnSlotStep();
      });
    } else if (cfg_.closed_loop) {
      auto timer = std::make_shared<asio::steady_timer>(io_, AtNs(start_ns_));
      timer->async_wait([this, timer](const boost::system::error_code&) {
        int64_t slots = std::max<int64_t>(cfg_.slots, 1);
        for (int64_t s = 0; s < slots && !cancelled_; ++s) {
          int64_t i = cfg_.next_job->fetch_add(1, std::memory_order_relaxed);
          if (i >= static_cast<int64_t>(cfg_.jobs->size())) break;
          StartJob(&(*cfg_.jobs)[static_cast<size_t>(i)], start_ns_, -1);
        }
        CheckDone();
      });
    } else if (cfg_.paced_sends) {
      StartPacer();
    } else {
      arrival_timer_.expires_at(AtNs(start_ns_));
      arrival_timer_.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) OnArrivalTimer();
      });
    }
    io_.run();
  } catch (const std::exception& e) {
    // Asio reports only resource exhaustion this way; record it on what was in flight.
    StopPacer();
    for (auto& c : conns_) {
      if (c->rec != nullptr) {
        c->rec->failure = FailureKind::kRead;
        c->rec->error = std::string("client event loop failed: ") + e.what();
        c->rec->t_done_ns = MonotonicNowNs();
      }
    }
  }
}

}  // namespace servebench::client
