#include "sim/router.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <cstdio>
#include <random>
#include <unordered_map>

#include "common/clock.h"
#include "common/version.h"
#include "sim/event_loop.h"
#include "sim/http_server.h"
#include "sim/openai_request.h"
#include "sim/upstream_call.h"

namespace servebench::sim {
namespace json = boost::json;
namespace {

// The router's log lines: stderr, one per event, flushed (the supervisor's log).
template <typename... Args>
void LogLine(fmt::format_string<Args...> f, Args&&... args) {
  std::string line = fmt::format(f, std::forward<Args>(args)...);
  std::fprintf(stderr, "servebench sim router: %s\n", line.c_str());
  std::fflush(stderr);
}

struct Worker {
  std::string url, host;
  int port = 0;
  bool healthy = false;
  uint64_t routed = 0;
  std::unique_ptr<UpstreamCall> poll;
};

enum class Pool { kPrefill, kDecode, kWorker };

class SimRouterImpl final : public SimServer, public HttpServer::Handler {
 public:
  explicit SimRouterImpl(const SimSettings& s) : settings_(s), role_(s.role), rng_(s.seed) {}

  Status Init();
  int port() const override { return http_->port(); }
  std::string Describe() const override;
  Status Run() override;
  void Stop() override { loop_->Stop(); }
  void OnRequest(ConnId conn, HttpRequest& request) override;
  void OnConnectionLost(ConnId conn) override;

 private:
  // One client request in flight.
  struct Flow {
    uint64_t id = 0;
    ConnId conn = 0;
    std::string path;
    json::object body;
    bool stream = false;
    std::unique_ptr<UpstreamCall> call;  // the upstream call in flight
    std::string buffer;                  // a non-streamed upstream body
    int status = 0;
    std::string content_type;
    bool relaying = false;  // the client's stream has begun
    std::string decode_url;
    int retries = 0;  // upstreams that refused before answering (each then out of rotation)
    int64_t arrival_mono_ns = 0;  // when the client's request arrived here
  };

  void PollHealth();
  Worker* Pick(Pool pool);
  std::vector<Worker>& Workers(Pool pool) {
    return pool == Pool::kPrefill ? prefill_ : pool == Pool::kDecode ? decode_ : workers_;
  }
  bool Disaggregated() const { return !prefill_.empty(); }
  void HandleGeneration(ConnId conn, const HttpRequest& request);
  void SendPrefill(Flow* flow);
  void OnPrefillDone(Flow* flow, Worker* worker, bool complete, const std::string& error);
  // Sends `body` to `worker` and relays its response to the client.
  void Relay(Flow* flow, Worker* worker, const std::string& body, bool decode);
  void Reply(ConnId conn, int status, const std::string& type, const std::string& message);
  void End(Flow* flow);  // forgets the flow after the current call returns
  void ProxyModels(ConnId conn);
  std::string Metrics() const;

  SimSettings settings_;
  RoleSettings role_;
  std::mt19937_64 rng_;
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<HttpServer> http_;
  std::vector<Worker> prefill_, decode_, workers_;
  size_t next_[3] = {0, 0, 0};
  std::unordered_map<uint64_t, std::unique_ptr<Flow>> flows_;
  std::unordered_map<ConnId, uint64_t> flow_of_conn_;
  uint64_t next_flow_ = 1;
  std::unordered_map<uint64_t, std::unique_ptr<UpstreamCall>> side_calls_;  // /v1/models
  uint64_t requests_total_ = 0, errors_total_ = 0;
};

Status SimRouterImpl::Init() {
  SB_RETURN_IF_ERROR(Validate(role_));
  for (auto [pool, urls] : {std::pair{Pool::kPrefill, &role_.prefill_urls},
                            std::pair{Pool::kDecode, &role_.decode_urls},
                            std::pair{Pool::kWorker, &role_.worker_urls}}) {
    for (const auto& url : *urls) {
      Worker w;
      w.url = url;
      if (!ParseHttpUrl(url, &w.host, &w.port))
        return Status::InvalidArgument(
            fmt::format("worker URL '{}': expected http://host:port", url));
      Workers(pool).push_back(std::move(w));
    }
  }
  SB_ASSIGN_OR_RETURN(loop_, EventLoop::Create());
  SB_ASSIGN_OR_RETURN(http_, HttpServer::Listen(loop_.get(), settings_.host, settings_.port, this));
  PollHealth();
  return Status::Ok();
}

std::string SimRouterImpl::Describe() const {
  if (Disaggregated()) {
    return fmt::format("router (disaggregated, policy {}) over {} prefill and {} decode worker(s)",
                       role_.policy, prefill_.size(), decode_.size());
  }
  return fmt::format("router (policy {}) over {} worker(s)", role_.policy, workers_.size());
}

Status SimRouterImpl::Run() {
  std::printf("servebench sim: %s\n", Describe().c_str());
  std::printf("servebench sim: listening on http://%s:%d (port %d)\n", settings_.host.c_str(),
              port(), port());
  std::fflush(stdout);
  return loop_->Run();
}

void SimRouterImpl::PollHealth() {
  for (Pool pool : {Pool::kPrefill, Pool::kDecode, Pool::kWorker}) {
    for (Worker& w : Workers(pool)) {
      if (w.poll) continue;
      Worker* wp = &w;
      auto status = std::make_shared<int>(0);
      w.poll = UpstreamCall::Start(
          loop_.get(), w.host, w.port, "GET", "/health", "",
          {[status](int s, const std::string&) { *status = s; }, nullptr,
           [this, wp, status](bool complete, const std::string& error) {
             const bool healthy = complete && *status == 200;
             if (wp->healthy && !healthy)
               LogLine("worker {} is unhealthy ({})", wp->url,
                       error.empty() ? fmt::format("/health {}", *status) : error);
             wp->healthy = healthy;
             loop_->Post([wp] { wp->poll.reset(); });
           }});
    }
  }
  loop_->RunAt(MonotonicNowNs() + int64_t{role_.health_poll_ms} * 1'000'000,
               [this] { PollHealth(); });
}

Worker* SimRouterImpl::Pick(Pool pool) {
  std::vector<Worker>& ws = Workers(pool);
  std::vector<Worker*> healthy;
  for (Worker& w : ws)
    if (w.healthy) healthy.push_back(&w);
  if (healthy.empty()) return nullptr;
  if (role_.policy == "random") {
    return healthy[std::uniform_int_distribution<size_t>(0, healthy.size() - 1)(rng_)];
  }
  size_t& next = next_[static_cast<int>(pool)];
  return healthy[next++ % healthy.size()];
}

void SimRouterImpl::Reply(ConnId conn, int status, const std::string& type,
                          const std::string& message) {
  ApiError e;
  e.status = status;
  e.type = type;
  e.message = message;
  http_->Respond(conn, status, "application/json", ErrorBody(e));
}

void SimRouterImpl::OnRequest(ConnId conn, HttpRequest& request) {
  std::string_view path = request.target;
  if (size_t q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);
  if (path == "/health" || path == "/readiness") {
    size_t up = 0, all = 0;
    std::string missing;
    for (Pool pool : {Pool::kPrefill, Pool::kDecode, Pool::kWorker}) {
      for (const Worker& w : Workers(pool)) {
        ++all;
        up += w.healthy;
        if (!w.healthy) missing += (missing.empty() ? "" : ", ") + w.url;
      }
    }
    if (up == all) return http_->Respond(conn, 200, "application/json", "");
    return Reply(conn, 503, "ServiceUnavailableError",
                 fmt::format("{} of {} workers healthy; waiting for {}", up, all, missing));
  }
  if (path == "/version") {
    return http_->Respond(
        conn, 200, "application/json",
        fmt::format(R"({{"version":"{}","engine":"servebench-sim-router","git_revision":"{}"}})",
                    kVersion, kGitRevision));
  }
  if (path == "/metrics") {
    return http_->Respond(conn, 200, "text/plain; version=0.0.4; charset=utf-8", Metrics());
  }
  if (path == "/v1/models") return ProxyModels(conn);
  if (path == "/v1/completions" || path == "/v1/chat/completions") {
    if (request.method != "POST") return Reply(conn, 405, "MethodNotAllowed", "use POST");
    return HandleGeneration(conn, request);
  }
  Reply(conn, 404, "NotFoundError",
        fmt::format("no route for {} {} (the router serves /v1/completions, "
                    "/v1/chat/completions, /v1/models, /health, /version, /metrics)",
                    request.method, path));
}

void SimRouterImpl::HandleGeneration(ConnId conn, const HttpRequest& request) {
  ++requests_total_;
  boost::system::error_code ec;
  json::value v = json::parse(request.body, ec);
  if (ec || !v.is_object()) {
    ++errors_total_;
    return Reply(conn, 400, "BadRequestError", "malformed JSON body: expected an object");
  }
  auto flow = std::make_unique<Flow>();
  flow->id = next_flow_++;
  flow->conn = conn;
  flow->arrival_mono_ns = MonotonicNowNs();
  flow->path = std::string(request.target);
  flow->body = std::move(v.as_object());
  if (const auto* s = flow->body.if_contains("stream"); s && s->is_bool())
    flow->stream = s->as_bool();
  Flow* raw = flow.get();
  flows_[raw->id] = std::move(flow);
  flow_of_conn_[conn] = raw->id;
  if (Disaggregated()) return SendPrefill(raw);
  Worker* w = Pick(Pool::kWorker);
  if (w == nullptr) {
    ++errors_total_;
    LogLine("No available workers (all circuits open or unhealthy)");
    Reply(conn, 503, "ServiceUnavailableError", "No available workers");
    return End(raw);
  }
  ++w->routed;
  Relay(raw, w, json::serialize(raw->body), /*decode=*/false);
}

void SimRouterImpl::SendPrefill(Flow* flow) {
  Worker* w = Pick(Pool::kPrefill);
  if (w == nullptr) {
    ++errors_total_;
    LogLine("No available prefill workers (all circuits open or unhealthy)");
    Reply(flow->conn, 503, "ServiceUnavailableError", "No available prefill workers");
    return End(flow);
  }
  ++w->routed;
  // vLLM's proxy: prefill only (one token, no stream), keep the KV for a remote decode.
  json::object p = flow->body;
  p["max_tokens"] = 1;
  p.erase("max_completion_tokens");
  p.erase("min_tokens");
  p["stream"] = false;
  p.erase("stream_options");
  p["kv_transfer_params"] = json::object{{"do_remote_decode", true}, {"do_remote_prefill", false}};
  auto status = std::make_shared<int>(0);
  flow->buffer.clear();
  // A retry starts here from the previous call's last callback: delete that one later.
  if (flow->call) loop_->Post([done = flow->call.release()] { delete done; });
  flow->call =
      UpstreamCall::Start(loop_.get(), w->host, w->port, "POST", flow->path, json::serialize(p),
                          {[status](int s, const std::string&) { *status = s; },
                           [flow](std::string_view data) { flow->buffer.append(data); },
                           [this, flow, w, status](bool complete, const std::string& error) {
                             flow->status = *status;
                             OnPrefillDone(flow, w, complete, error);
                           }});
}

void SimRouterImpl::OnPrefillDone(Flow* flow, Worker* worker, bool complete,
                                  const std::string& error) {
  if (!complete) {
    ++errors_total_;
    LogLine("Prefill request to {} failed: {}", worker->url, error);
    // A circuit breaker: the worker is out of rotation until its /health answers
    // again; the request is retried on another prefill worker (or gets 503).
    worker->healthy = false;
    if (flow->retries++ < static_cast<int>(prefill_.size())) {
      if (flow->call) loop_->Post([done = flow->call.release()] { delete done; });
      return SendPrefill(flow);
    }
    Reply(flow->conn, 502, "BadGatewayError",
          fmt::format("prefill worker {}: {}", worker->url, error));
    return End(flow);
  }
  if (flow->status != 200) {
    // The worker's own error (a bad request, an overload) goes to the client as it is.
    http_->Respond(flow->conn, flow->status, "application/json", flow->buffer);
    return End(flow);
  }
  boost::system::error_code ec;
  json::value v = json::parse(flow->buffer, ec);
  const json::value* kv =
      !ec && v.is_object() ? v.as_object().if_contains("kv_transfer_params") : nullptr;
  if (kv == nullptr || !kv->is_object()) {
    ++errors_total_;
    LogLine("prefill worker {} answered without kv_transfer_params", worker->url);
    Reply(flow->conn, 502, "BadGatewayError",
          fmt::format("prefill worker {} answered without kv_transfer_params", worker->url));
    return End(flow);
  }
  Worker* d = Pick(Pool::kDecode);
  if (d == nullptr) {
    ++errors_total_;
    LogLine("No available decode workers (all circuits open or unhealthy)");
    Reply(flow->conn, 503, "ServiceUnavailableError", "No available decode workers");
    return End(flow);
  }
  ++d->routed;
  // The decode worker stamps the session's arrival (kv_transfer.h).
  json::object params = kv->as_object();
  params["session_arrival_mono_ns"] = flow->arrival_mono_ns;
  flow->body["kv_transfer_params"] = std::move(params);
  Relay(flow, d, json::serialize(flow->body), /*decode=*/true);
}

void SimRouterImpl::Relay(Flow* flow, Worker* worker, const std::string& body, bool decode) {
  // Called from the prefill call's last callback: that call is deleted once it returns.
  if (flow->call) loop_->Post([done = flow->call.release()] { delete done; });
  flow->buffer.clear();
  flow->relaying = false;
  flow->decode_url = worker->url;
  const ConnId conn = flow->conn;
  flow->call = UpstreamCall::Start(
      loop_.get(), worker->host, worker->port, "POST", flow->path, body,
      {[this, flow, conn](int status, const std::string& content_type) {
         flow->status = status;
         flow->content_type = content_type.empty() ? "application/json" : content_type;
         if (flow->stream && status == 200) {
           http_->BeginStream(conn, 200, flow->content_type);
           flow->relaying = true;
         }
       },
       [this, flow, conn](std::string_view data) {
         if (flow->relaying)
           http_->WriteChunk(conn, data);
         else
           flow->buffer.append(data);
       },
       [this, flow, conn, decode, worker](bool complete, const std::string& error) {
         if (!complete && flow->status == 0 && !flow->relaying) {
           // Refused before answering: out of rotation, and the request goes to another.
           ++errors_total_;
           LogLine("Request to {} worker {} failed: {}", decode ? "decode" : "aggregated",
                   worker->url, error);
           worker->healthy = false;
           Worker* next = Pick(decode ? Pool::kDecode : Pool::kWorker);
           if (next != nullptr && flow->retries++ < 4) {
             ++next->routed;
             const std::string again = json::serialize(flow->body);
             return Relay(flow, next, again, decode);
           }
           LogLine("No available {} workers (all circuits open or unhealthy)",
                   decode ? "decode" : "aggregated");
           Reply(conn, 503, "ServiceUnavailableError",
                 fmt::format("No available {} workers", decode ? "decode" : "aggregated"));
           return End(flow);
         }
         if (complete) {
           if (flow->relaying)
             http_->EndStream(conn);
           else
             http_->Respond(conn, flow->status, flow->content_type, flow->buffer);
         } else {
           ++errors_total_;
           if (decode) {
             LogLine("Stream error from decode server {}: error decoding response body ({})",
                     flow->decode_url, error);
           } else {
             LogLine("Stream error from worker {}: error decoding response body ({})",
                     flow->decode_url, error);
           }
           if (flow->relaying)
             http_->Abort(conn);  // the client sees the stream break, as the worker's did
           else
             Reply(conn, 502, "BadGatewayError", fmt::format("{}: {}", flow->decode_url, error));
         }
         End(flow);
       }});
}

void SimRouterImpl::End(Flow* flow) {
  const uint64_t id = flow->id;
  const ConnId conn = flow->conn;
  loop_->Post([this, id, conn] {
    auto it = flow_of_conn_.find(conn);
    if (it != flow_of_conn_.end() && it->second == id) flow_of_conn_.erase(it);
    flows_.erase(id);
  });
}

void SimRouterImpl::OnConnectionLost(ConnId conn) {
  auto it = flow_of_conn_.find(conn);
  if (it == flow_of_conn_.end()) return;
  auto f = flows_.find(it->second);
  if (f != flows_.end()) {
    // Closing the upstream connection aborts it at the worker. Not at once: the client's
    // connection may be lost from inside that call's own callback (a broken decode
    // stream aborts the client's), which must return before the call is deleted.
    if (f->second->call) loop_->Post([done = f->second->call.release()] { delete done; });
    End(f->second.get());
  }
}

void SimRouterImpl::ProxyModels(ConnId conn) {
  Worker* w = Disaggregated() ? Pick(Pool::kDecode) : Pick(Pool::kWorker);
  if (w == nullptr) return Reply(conn, 503, "ServiceUnavailableError", "no healthy worker");
  auto status = std::make_shared<int>(0);
  auto body = std::make_shared<std::string>();
  const uint64_t id = next_flow_++;
  side_calls_[id] = UpstreamCall::Start(
      loop_.get(), w->host, w->port, "GET", "/v1/models", "",
      {[status](int s, const std::string&) { *status = s; },
       [body](std::string_view d) { body->append(d); },
       [this, conn, status, body, w, id](bool complete, const std::string& error) {
         if (complete)
           http_->Respond(conn, *status, "application/json", *body);
         else
           Reply(conn, 502, "BadGatewayError", fmt::format("{}: {}", w->url, error));
         loop_->Post([this, id] { side_calls_.erase(id); });
       }});
}

std::string SimRouterImpl::Metrics() const {
  std::string out;
  out += "# HELP sgl_router_pd_requests_total Requests the router received.\n";
  out += "# TYPE sgl_router_pd_requests_total counter\n";
  out += fmt::format("sgl_router_pd_requests_total{{route=\"generate\"}} {}\n", requests_total_);
  out += "# HELP sgl_router_pd_errors_total Requests the router could not route or relay.\n";
  out += "# TYPE sgl_router_pd_errors_total counter\n";
  out += fmt::format("sgl_router_pd_errors_total {}\n", errors_total_);
  auto per_worker = [&](const char* name, const std::vector<Worker>& ws) {
    if (ws.empty()) return;
    out += fmt::format("# TYPE {} counter\n", name);
    for (const Worker& w : ws)
      out += fmt::format("{}{{worker=\"{}\"}} {}\n", name, w.url, w.routed);
  };
  per_worker("sgl_router_pd_prefill_requests_total", prefill_);
  per_worker("sgl_router_pd_decode_requests_total", decode_);
  per_worker("sgl_router_requests_total", workers_);
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<SimServer>> CreateSimRouter(const SimSettings& settings) {
  if (settings.role.role != SimRole::kRouter)
    return Status::Internal("CreateSimRouter: --role is not router");
  auto router = std::make_unique<SimRouterImpl>(settings);
  SB_RETURN_IF_ERROR(router->Init());
  return std::unique_ptr<SimServer>(std::move(router));
}

}  // namespace servebench::sim
