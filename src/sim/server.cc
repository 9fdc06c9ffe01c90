// SimServerImpl: routes HTTP requests to the engine and the admin endpoints, and
// decides the per-request faults. The one place that knows every part of sim/.
#include <fmt/format.h>

#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <unordered_map>

#include "common/clock.h"
#include "common/log.h"
#include "common/version.h"
#include "sim/answer_oracle.h"
#include "sim/catalogue.h"
#include "sim/engine.h"
#include "sim/event_loop.h"
#include "sim/generation_stream.h"
#include "sim/http_server.h"
#include "sim/openai_request.h"
#include "sim/pd_worker.h"
#include "sim/perf_model.h"
#include "sim/power_model.h"
#include "sim/resolved_config.h"
#include "sim/sim.h"
#include "sim/step_profiler.h"
#include "sim/tokenizer.h"
#include "trace/hash_mix.h"

namespace servebench::sim {
namespace json = boost::json;
namespace {

// A deterministic uniform [0, 1) draw for (seed, stream, index).
double Draw(uint64_t seed, uint64_t stream, uint64_t index) {
  return static_cast<double>(trace::MixInto(seed, stream * 0x100000001B3ull + index) >> 11) /
         9007199254740992.0;
}

// Whether --fault-exit-at-startup ends this start: always, or with --fault-exit-once
// only while its marker file is absent (this start creates it).
bool ExitsThisStart(const FaultSettings& f) {
  if (f.exit_once_marker.empty()) return true;
  std::error_code ec;
  if (std::filesystem::exists(f.exit_once_marker, ec)) return false;
  std::FILE* marker = std::fopen(f.exit_once_marker.c_str(), "w");
  if (marker != nullptr) std::fclose(marker);
  return true;
}

class SimServerImpl final : public SimServer, public HttpServer::Handler {
 public:
  explicit SimServerImpl(const SimSettings& s) : settings_(s) {}

  Status Init();
  int port() const override { return http_->port(); }
  std::string Describe() const override;
  Status Run() override;
  void Stop() override { loop_->Stop(); }

  void OnRequest(ConnId conn, HttpRequest& request) override;
  void OnConnectionLost(ConnId conn) override;

 private:
  void HandleGeneration(ConnId conn, const HttpRequest& request, Endpoint endpoint);
  // Prefill worker, request with kv_transfer_params.do_remote_decode: compute the
  // prompt and answer with where its KV is (pd_worker.h).
  void HandlePrefillHandoff(ConnId conn, GenerationRequest req, EngineRequest er, uint64_t n,
                            Endpoint endpoint);
  // Decode worker: when the KV of request `n` will have arrived over the link.
  int64_t KvArrivalNs(const KvTransferParams& params, int prompt_tokens);
  void HandleTokenize(ConnId conn, const HttpRequest& request);
  void HandleDetokenize(ConnId conn, const HttpRequest& request);
  void SendError(ConnId conn, const ApiError& e) {
    http_->Respond(conn, e.status, "application/json", ErrorBody(e));
  }
  bool Ready() const {
    return settings_.faults.ready_after_s <= 0 ||
           MonotonicNowNs() - start_ns_ >=
               static_cast<int64_t>(settings_.faults.ready_after_s * 1e9);
  }
  std::optional<ApiError> CheckModel(const std::string& model) const;
  // POST /start_profile, /stop_profile (step_profiler.h).
  void HandleProfile(ConnId conn, bool start);

  SimSettings settings_;
  ResolvedConfig config_;
  const Model* model_ = nullptr;
  const Hardware* hardware_ = nullptr;
  std::unique_ptr<Tokenizer> tokenizer_;
  MonotonicClock clock_;
  std::unique_ptr<EventLoop> loop_;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<PowerModel> power_;  // board power of the simulated GPUs (power_model.h)
  std::unique_ptr<AnswerOracle> oracle_;
  std::unique_ptr<StepProfiler> profiler_;  // null without a profile dir
  // Keyed by request number, not ConnId: a keep-alive connection carries many
  // requests, and a finished stream is deleted after its last call returns, when
  // the next request on the same connection may already have its own stream.
  std::unordered_map<uint64_t, std::unique_ptr<GenerationStream>> streams_;
  std::unordered_map<ConnId, uint64_t> stream_of_conn_;  // the connection's live stream
  std::unordered_map<uint64_t, std::unique_ptr<PrefillHandoff>> handoffs_;  // prefill role
  std::unique_ptr<KvLink> kv_link_;                                         // decode role
  PdMetrics pd_metrics_;
  StreamContext stream_ctx_{};
  std::string served_name_;
  int max_model_len_ = 0;
  int64_t start_ns_ = 0;
  uint64_t generation_requests_ = 0;
  std::string build_id_;
};

Status SimServerImpl::Init() {
  SB_RETURN_IF_ERROR(Validate(settings_));
  if (!settings_.faults.exit_at_startup.empty() && ExitsThisStart(settings_.faults)) {
    return Status::Cancelled(settings_.faults.exit_at_startup);
  }
  SB_ASSIGN_OR_RETURN(config_, Resolve(settings_));
  model_ = &config_.model;
  hardware_ = &config_.hardware;
  served_name_ = config_.served_name;
  max_model_len_ = config_.max_model_len;
  tokenizer_ = std::make_unique<Tokenizer>(static_cast<uint32_t>(model_->vocab));

  if (settings_.answer_mode != "off") {
    AnswerOracleSettings oracle;
    oracle.error_rate = settings_.answer_error_rate;
    oracle.seed = settings_.seed;
    if (settings_.answer_mode == "file") oracle.answers_path = settings_.answer_file;
    auto created = AnswerOracle::Create(oracle);
    if (!created.ok())
      return created.status().WithContext("--answer-mode " + settings_.answer_mode);
    oracle_ = std::move(created).value();
  }

  SB_ASSIGN_OR_RETURN(loop_, EventLoop::Create());
  SB_ASSIGN_OR_RETURN(http_, HttpServer::Listen(loop_.get(), settings_.host, settings_.port, this));

  HttpServer* http = http_.get();
  SB_ASSIGN_OR_RETURN(
      engine_, Engine::Create(loop_.get(), &clock_, *config_.perf, config_.scheduler,
                              config_.engine, [http] { return http->total_pending_bytes(); }));

  power_ = std::make_unique<PowerModel>(*hardware_, config_.catalogue.power_model,
                                        engine_->perf().gpus(), settings_.time_scale,
                                        clock_.NowNs(), settings_.power_average_s);
  if (!settings_.gpu_indices.empty() &&
      static_cast<int>(settings_.gpu_indices.size()) != power_->gpus()) {
    return Status::InvalidArgument(
        fmt::format("--gpus lists {} GPU(s); the engine runs on {} (TP x DP)",
                    settings_.gpu_indices.size(), power_->gpus()));
  }
  power_->SetIdentity(settings_.gpu_indices, settings_.node_index);
  engine_->SetStepObserver(
      [p = power_.get()](int64_t start, int64_t end, const StepBreakdown& step) {
        p->OnStep(start, end, step);
      });

  if (!settings_.profile_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(settings_.profile_dir, ec);
    if (ec || !std::filesystem::is_directory(settings_.profile_dir)) {
      return Status::InvalidArgument(
          fmt::format("--profile-dir (or VLLM_TORCH_PROFILER_DIR) {}: cannot create it: {}",
                      settings_.profile_dir, ec ? ec.message() : "not a directory"));
    }
    profiler_ = std::make_unique<StepProfiler>(settings_.profile_dir);
    engine_->SetStepTracer(
        [p = profiler_.get()](int64_t start, int64_t end, const StepShape& shape) {
          p->OnStep(start, end, shape);
        });
  }

  stream_ctx_.http = http_.get();
  stream_ctx_.loop = loop_.get();
  stream_ctx_.engine = engine_.get();
  stream_ctx_.tokenizer = tokenizer_.get();
  stream_ctx_.model_name = served_name_;
  stream_ctx_.stream_interval = settings_.stream_interval;
  stream_ctx_.send_time_field = settings_.send_time_field;
  stream_ctx_.reasoning_tokens = settings_.reasoning_tokens;
  stream_ctx_.sim_time_stamps = settings_.time_scale != 1.0;
  build_id_ = fmt::format("sim-{}-slowdown{:.2f}", kGitRevision, settings_.build_slowdown);
  SB_RETURN_IF_ERROR(Validate(settings_.role));
  kv_link_ =
      std::make_unique<KvLink>(settings_.role.kv_link_gb_per_s, settings_.role.kv_link_latency_us);
  start_ns_ = MonotonicNowNs();
  return Status::Ok();
}

Status SimServerImpl::Run() {
  // The supervisor and tests read these lines (docs/simulator.md, "Startup lines").
  std::printf("servebench sim: %s\n", Describe().c_str());
  std::printf("servebench sim: listening on http://%s:%d (port %d)\n", settings_.host.c_str(),
              port(), port());
  std::fflush(stdout);
  auto ready_line = [] {
    std::printf("servebench sim: ready (Application startup complete.)\n");
    std::fflush(stdout);
  };
  if (settings_.faults.ready_after_s > 0) {
    loop_->RunAt(start_ns_ + static_cast<int64_t>(settings_.faults.ready_after_s * 1e9),
                 ready_line);
  } else {
    ready_line();
  }
  return loop_->Run();
}

std::string SimServerImpl::Describe() const {
  const PerfModel& p = engine_->perf();
  std::string spec = "off";
  if (settings_.spec.num_speculative_tokens > 0) {
    spec =
        fmt::format("{} k={} target AL {:.2f}", settings_.spec.method,
                    settings_.spec.num_speculative_tokens, config_.engine.target_acceptance_length);
  }
  return fmt::format(
      "model {} ({}) served as '{}'; hardware {} x {} (TP {}, DP {}, EP {}); engine profile {}; "
      "weights {} {:.1f} "
      "GB/GPU; "
      "KV cache {} tokens ({:.1f} GB/GPU, kv dtype {}); max_model_len {}; max_num_seqs {}; "
      "max_num_batched_tokens {}; speculative decoding {}; time scale {}; build slowdown {}",
      model_->name, model_->hf_name, served_name_, p.gpus(), hardware_->name,
      settings_.tensor_parallel_size, settings_.data_parallel_size,
      settings_.enable_expert_parallel ? "on" : "off", p.engine().name, p.settings().precision,
      p.WeightBytesPerGpu() / 1e9, p.KvCapacityTokens(), p.KvBudgetBytesPerGpu() / 1e9,
      settings_.kv_cache_dtype, max_model_len_, settings_.max_num_seqs,
      settings_.max_num_batched_tokens, spec, settings_.time_scale, settings_.build_slowdown);
}

std::optional<ApiError> SimServerImpl::CheckModel(const std::string& model) const {
  if (model.empty() || model == served_name_) return std::nullopt;
  ApiError e;
  e.status = 404;
  e.type = "NotFoundError";
  e.message = fmt::format("The model `{}` does not exist.", model);
  e.param = "model";
  return e;
}

void SimServerImpl::OnRequest(ConnId conn, HttpRequest& request) {
  std::string_view path = request.target;
  if (size_t q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);
  const bool get = request.method == "GET", post = request.method == "POST";
  auto method_not_allowed = [&] {
    ApiError e;
    e.status = 405;
    e.type = "MethodNotAllowed";
    e.message = fmt::format("{} is not allowed on {}", request.method, path);
    SendError(conn, e);
  };
  if (!settings_.api_key.empty() && path.starts_with("/v1") &&
      request.authorization != "Bearer " + settings_.api_key) {
    return http_->Respond(conn, 401, "application/json",
                          R"({"error":"Unauthorized"})");  // vLLM's body
  }
  if (path == "/health" || path == "/ping") {
    if (!get) return method_not_allowed();
    if (!Ready()) {
      ApiError e;
      e.status = 503;
      e.type = "ServiceUnavailableError";
      e.message = "Loading model (simulated --fault-ready-after-s)";
      return SendError(conn, e);
    }
    return http_->Respond(conn, 200, "application/json", "");
  }
  if (path == "/version") {
    if (!get) return method_not_allowed();
    std::string body = fmt::format(
        "{{\"version\":\"{}\",\"engine\":\"servebench-sim\",\"git_revision\":\"{}\",\"build_id\":"
        "\"{}\","
        "\"build_slowdown\":{}}}",
        kVersion, kGitRevision, build_id_, settings_.build_slowdown);
    return http_->Respond(conn, 200, "application/json", body);
  }
  if (path == "/metrics") {
    if (!get) return method_not_allowed();
    std::string text = engine_->metrics().Render(served_name_);
    if (settings_.role.role == SimRole::kPrefill || settings_.role.role == SimRole::kDecode)
      text += pd_metrics_.Render(served_name_);
    text += power_->RenderDcgm(clock_.NowNs());
    return http_->Respond(conn, 200, "text/plain; version=0.0.4; charset=utf-8", text);
  }
  if (path == "/v1/models") {
    if (!get) return method_not_allowed();
    std::string body = "{\"object\":\"list\",\"data\":[{\"id\":";
    AppendJsonString(&body, served_name_);
    fmt::format_to(std::back_inserter(body),
                   ",\"object\":\"model\",\"created\":{},\"owned_by\":\"servebench-sim\",\"root\":",
                   RealtimeNowNs() / 1000000000);
    AppendJsonString(&body, model_->hf_name);
    fmt::format_to(std::back_inserter(body),
                   ",\"parent\":null,\"max_model_len\":{},\"permission\":[]}}]}}", max_model_len_);
    return http_->Respond(conn, 200, "application/json", body);
  }
  if (path == "/reset_prefix_cache") {
    // vLLM's: empties the prefix cache; its hit and query counters keep counting.
    if (!post) return method_not_allowed();
    engine_->ResetPrefixCache();
    return http_->Respond(conn, 200, "application/json", "");
  }
  if ((path == "/start_profile" || path == "/stop_profile") && profiler_) {
    if (!post) return method_not_allowed();
    return HandleProfile(conn, path == "/start_profile");
  }
  bool generation = path == "/v1/completions" || path == "/v1/chat/completions";
  if (generation || path == "/tokenize" || path == "/detokenize") {
    if (!post) return method_not_allowed();
    if (!Ready()) {
      ApiError e;
      e.status = 503;
      e.type = "ServiceUnavailableError";
      e.message = "the server is not ready yet";
      return SendError(conn, e);
    }
    if (path == "/tokenize") return HandleTokenize(conn, request);
    if (path == "/detokenize") return HandleDetokenize(conn, request);
    return HandleGeneration(conn, request,
                            path == "/v1/completions" ? Endpoint::kCompletions : Endpoint::kChat);
  }
  ApiError e;
  e.status = 404;
  e.type = "NotFoundError";
  e.message = fmt::format(
      "no route for {} {} (serves /v1/completions, /v1/chat/completions, /v1/models, /health, "
      "/version, /metrics, /tokenize, /detokenize, /reset_prefix_cache{})",
      request.method, path, profiler_ ? ", /start_profile, /stop_profile" : "");
  SendError(conn, e);
}

void SimServerImpl::HandleProfile(ConnId conn, bool start) {
  Status done = Status::Ok();
  std::string body;
  if (start) {
    done = profiler_->Start();
  } else {
    StatusOr<std::string> path = profiler_->Stop();
    done = path.status();
    if (path.ok()) {
      body = "{\"trace\":";
      AppendJsonString(&body, *path);
      body += "}";
      std::printf("servebench sim: profile trace written to %s\n", path->c_str());
      std::fflush(stdout);
    }
  }
  if (!done.ok()) {
    ApiError e;
    e.status = done.code() == StatusCode::kFailedPrecondition ? 400 : 500;
    e.type = e.status == 400 ? "BadRequestError" : "InternalServerError";
    e.message = done.message();
    return SendError(conn, e);
  }
  http_->Respond(conn, 200, "application/json", body);
}

void SimServerImpl::HandleGeneration(ConnId conn, const HttpRequest& request, Endpoint endpoint) {
  const FaultSettings& f = settings_.faults;
  ++generation_requests_;
  if (f.crash_after_requests >= 0 &&
      generation_requests_ > static_cast<uint64_t>(f.crash_after_requests)) {
    std::fprintf(
        stderr,
        "servebench sim: simulated crash after %d requests (--fault-crash-after-requests)\n",
        f.crash_after_requests);
    std::fflush(stderr);
    std::_Exit(f.exit_code);
  }
  GenerationRequest req;
  if (auto e = ParseGenerationRequest(request.body, endpoint, *tokenizer_, &req))
    return SendError(conn, *e);
  if (auto e = CheckModel(req.model)) return SendError(conn, *e);
  if (req.max_tokens < 0)
    req.max_tokens = endpoint == Endpoint::kCompletions ? 16 : max_model_len_ - req.prompt_tokens;
  if (req.prompt_tokens + std::max(0, req.max_tokens) > max_model_len_ || req.max_tokens <= 0) {
    ApiError e;
    e.message = fmt::format(
        "This model's maximum context length is {} tokens. However, you requested {} tokens ({} in "
        "the messages, "
        "{} in the completion). Please reduce the length of the messages or completion.",
        max_model_len_, req.prompt_tokens + std::max(0, req.max_tokens), req.prompt_tokens,
        req.max_tokens);
    e.param = "max_tokens";
    return SendError(conn, e);
  }
  if (settings_.max_waiting_requests > 0 && engine_->waiting() >= settings_.max_waiting_requests) {
    ApiError e;
    e.status = 429;
    e.type = "TooManyRequests";
    e.message = fmt::format(
        "the server is overloaded: {} requests are waiting (--max-waiting-requests {}); retry "
        "later",
        engine_->waiting(), settings_.max_waiting_requests);
    return SendError(conn, e);
  }
  uint64_t n = generation_requests_;
  if (f.http_500_rate > 0 && Draw(settings_.seed, 1, n) < f.http_500_rate) {
    ApiError e;
    e.status = 500;
    e.type = "InternalServerError";
    e.message = "simulated internal error (--fault-http-500-rate)";
    return SendError(conn, e);
  }
  StreamFaults sf;
  if (f.disconnect_after_tokens >= 0 && Draw(settings_.seed, 2, n) < f.disconnect_rate) {
    sf.disconnect_after_tokens = f.disconnect_after_tokens;
  }
  if (f.stall_ms > 0 && Draw(settings_.seed, 3, n) < f.stall_rate) {
    sf.stall_ms = f.stall_ms;
    sf.stall_after_tokens = f.stall_after_tokens;
  }
  if (f.malformed_sse_rate > 0 && Draw(settings_.seed, 4, n) < f.malformed_sse_rate) {
    sf.malformed_after_tokens = f.malformed_after_tokens;
  }

  std::string answer;
  if (oracle_) {
    if (auto a = oracle_->Answer(req.prompt_text)) answer = *a;
  }
  uint64_t text_seed =
      trace::Mix64(settings_.seed ^ (req.seed ? trace::Mix64(*req.seed) : req.content_hash));
  TextSource text(tokenizer_.get(), text_seed, answer);
  EngineRequest er;
  er.prompt_tokens = req.prompt_tokens;
  er.max_tokens = req.max_tokens;
  er.min_tokens = req.min_tokens;
  er.ignore_eos = req.ignore_eos;
  if (settings_.enable_prefix_caching) er.prompt_ids = std::move(req.prompt_ids);
  if (text.answer_tokens() > 0) {
    er.eos_at = text.answer_tokens();
  } else if (settings_.eos_after_mean_tokens > 0) {
    er.eos_at = 1 + static_cast<int>(trace::Mix64(text_seed) %
                                     (2 * static_cast<uint64_t>(settings_.eos_after_mean_tokens)));
  }
  std::string id = fmt::format("{}-{:016x}", endpoint == Endpoint::kChat ? "chatcmpl" : "cmpl",
                               trace::Mix64(settings_.seed + n));
  const SimRole role = settings_.role.role;
  if (role == SimRole::kPrefill && req.kv_transfer && req.kv_transfer->do_remote_decode) {
    return HandlePrefillHandoff(conn, std::move(req), er, n, endpoint);
  }
  // A decode worker pulls the prompt's KV before it decodes (pd_worker.h).
  int64_t kv_arrival_ns = 0;
  if (role == SimRole::kDecode && req.kv_transfer && req.kv_transfer->do_remote_prefill) {
    kv_arrival_ns = KvArrivalNs(*req.kv_transfer, req.prompt_tokens);
    er.kv_preloaded = true;
  }
  auto stream = std::make_unique<GenerationStream>(
      stream_ctx_, conn, std::move(req), std::move(id), std::move(text), sf, [this, conn, n] {
        auto it = stream_of_conn_.find(conn);
        if (it != stream_of_conn_.end() && it->second == n) {
          stream_of_conn_.erase(it);
        }
        // Delete after the current call returns.
        loop_->Post([this, n] { streams_.erase(n); });
      });
  GenerationStream* raw = stream.get();
  streams_[n] = std::move(stream);
  stream_of_conn_[conn] = n;
  er.sink = raw;
  if (kv_arrival_ns == 0) {
    raw->Start(engine_->Submit(er));
    return;
  }
  loop_->RunAt(kv_arrival_ns, [this, n, er] {
    auto it = streams_.find(n);
    if (it == streams_.end()) return;  // the client left during the transfer
    it->second->Start(engine_->Submit(er));
  });
}

int64_t SimServerImpl::KvArrivalNs(const KvTransferParams& params, int prompt_tokens) {
  const PerfModel& perf = engine_->perf();
  // One decode GPU pulls its shard of the prompt's KV; one prefill GPU sends its own.
  const int64_t decode_bytes = perf.KvBytesPerGpu(std::max(1, prompt_tokens));
  const int64_t prefill_bytes = params.kv_bytes_per_gpu;
  const int64_t now = MonotonicNowNs();
  const double scale = settings_.time_scale;
  // The link's clock is the engine's simulated clock (the session's shared one).
  const double sim_now_s = scale > 0 ? *engine_->SimulatedNsOfWall(now) / 1e9 : 0;
  const double done_s = kv_link_->Reserve(sim_now_s, decode_bytes, prefill_bytes);
  pd_metrics_.xfer_time_seconds.Observe(kv_link_->TransferSeconds(decode_bytes, prefill_bytes));
  pd_metrics_.bytes_transferred.Observe(static_cast<double>(decode_bytes));
  if (scale <= 0) return now + 1;  // as fast as possible: the next loop iteration
  return std::max(now + 1, engine_->WallNsOfSimulated(static_cast<int64_t>(done_s * 1e9)));
}

void SimServerImpl::HandlePrefillHandoff(ConnId conn, GenerationRequest req, EngineRequest er,
                                         uint64_t n, Endpoint endpoint) {
  KvTransferParams kv;
  kv.remote_engine_id = fmt::format("sim-prefill-{}", port());
  kv.remote_host = settings_.host;
  kv.remote_port = port();
  kv.prompt_tokens = req.prompt_tokens;
  kv.kv_bytes_per_gpu = engine_->perf().KvBytesPerGpu(std::max(1, req.prompt_tokens));
  kv.prefill_tp = settings_.tensor_parallel_size;
  kv.kv_connector = settings_.role.kv_connector;
  std::string id = fmt::format("{}-{:016x}", endpoint == Endpoint::kChat ? "chatcmpl" : "cmpl",
                               trace::Mix64(settings_.seed + n));
  auto handoff =
      std::make_unique<PrefillHandoff>(http_.get(), conn, std::move(id), served_name_, endpoint,
                                       req.prompt_tokens, kv, [this, conn, n] {
                                         ++pd_metrics_.kv_handoffs;
                                         auto it = stream_of_conn_.find(conn);
                                         if (it != stream_of_conn_.end() && it->second == n)
                                           stream_of_conn_.erase(it);
                                         loop_->Post([this, n] { handoffs_.erase(n); });
                                       });
  PrefillHandoff* raw = handoff.get();
  handoffs_[n] = std::move(handoff);
  stream_of_conn_[conn] = n;
  // Prefill only: the step that completes the prompt samples the one token.
  er.max_tokens = 1;
  er.min_tokens = 0;
  er.ignore_eos = true;
  er.sink = raw;
  raw->Start(engine_.get(), engine_->Submit(er));
}

void SimServerImpl::OnConnectionLost(ConnId conn) {
  auto it = stream_of_conn_.find(conn);
  if (it == stream_of_conn_.end()) return;
  auto s = streams_.find(it->second);
  if (s != streams_.end()) s->second->ConnectionLost();
  auto h = handoffs_.find(it->second);
  if (h != handoffs_.end()) h->second->ConnectionLost();
}

void SimServerImpl::HandleTokenize(ConnId conn, const HttpRequest& request) {
  boost::system::error_code ec;
  json::value root = json::parse(request.body, ec);
  ApiError e;
  if (ec || !root.is_object()) {
    e.message = "malformed JSON body: expected an object with 'prompt' (or 'messages')";
    return SendError(conn, e);
  }
  const json::object& o = root.as_object();
  for (const auto& kv : o) {
    std::string_view k = kv.key();
    if (k != "model" && k != "prompt" && k != "messages" && k != "add_special_tokens" &&
        k != "return_token_strs" && k != "add_generation_prompt" && k != "continue_final_message" &&
        k != "chat_template" && k != "chat_template_kwargs" && k != "tools" &&
        k != "mm_processor_kwargs") {
      e.message = fmt::format("unknown field '{}' for /tokenize", k);
      e.param = std::string(k);
      return SendError(conn, e);
    }
  }
  if (auto it = o.find("model"); it != o.end() && it->value().is_string()) {
    if (auto err = CheckModel(std::string(it->value().as_string()))) return SendError(conn, *err);
  }
  std::vector<uint32_t> ids;
  if (auto it = o.find("prompt"); it != o.end() && it->value().is_string()) {
    ids = tokenizer_->Encode(it->value().as_string());
  } else if (auto m = o.find("messages"); m != o.end()) {
    GenerationRequest req;
    std::string wrapped = "{\"messages\":" + json::serialize(m->value()) + "}";
    if (auto err = ParseGenerationRequest(wrapped, Endpoint::kChat, *tokenizer_, &req))
      return SendError(conn, *err);
    // The ids a chat request with these messages is keyed by (template tokens
    // included), so a client can see where the template ends and its content begins.
    ids = std::move(req.prompt_ids);
  } else {
    e.message = "'prompt' (a string) or 'messages' is required";
    e.param = "prompt";
    return SendError(conn, e);
  }
  std::string body =
      fmt::format("{{\"count\":{},\"max_model_len\":{},\"tokens\":[", ids.size(), max_model_len_);
  for (size_t i = 0; i < ids.size(); ++i)
    fmt::format_to(std::back_inserter(body), "{}{}", i ? "," : "", ids[i]);
  body += "],\"token_strs\":null}";
  http_->Respond(conn, 200, "application/json", body);
}

void SimServerImpl::HandleDetokenize(ConnId conn, const HttpRequest& request) {
  boost::system::error_code ec;
  json::value root = json::parse(request.body, ec);
  ApiError e;
  if (ec || !root.is_object()) {
    e.message = "malformed JSON body: expected an object with 'tokens'";
    return SendError(conn, e);
  }
  const json::object& o = root.as_object();
  for (const auto& kv : o) {
    if (kv.key() != "model" && kv.key() != "tokens") {
      e.message = fmt::format("unknown field '{}' for /detokenize", std::string_view(kv.key()));
      return SendError(conn, e);
    }
  }
  if (auto it = o.find("model"); it != o.end() && it->value().is_string()) {
    if (auto err = CheckModel(std::string(it->value().as_string()))) return SendError(conn, *err);
  }
  auto t = o.find("tokens");
  if (t == o.end() || !t->value().is_array()) {
    e.message = "'tokens' (a list of token ids) is required";
    e.param = "tokens";
    return SendError(conn, e);
  }
  std::vector<uint32_t> ids;
  for (const auto& v : t->value().as_array()) {
    if (!v.is_int64() || v.as_int64() < 0 || v.as_int64() >= tokenizer_->vocab_size()) {
      e.message = fmt::format("'tokens' holds {}: each must be an integer in [0, {})",
                              json::serialize(v), tokenizer_->vocab_size());
      e.param = "tokens";
      return SendError(conn, e);
    }
    ids.push_back(static_cast<uint32_t>(v.as_int64()));
  }
  std::string body = "{\"prompt\":";
  AppendJsonString(&body, tokenizer_->Decode(ids));
  body += "}";
  http_->Respond(conn, 200, "application/json", body);
}

}  // namespace

StatusOr<std::unique_ptr<SimServer>> SimServer::Create(const SimSettings& settings) {
  auto server = std::make_unique<SimServerImpl>(settings);
  SB_RETURN_IF_ERROR(server->Init());
  return std::unique_ptr<SimServer>(std::move(server));
}

}  // namespace servebench::sim
