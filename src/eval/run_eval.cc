// RunEval: prompts built up front (the few-shot sampler is sequential, as in
// lm-eval), then num_concurrent workers take documents from a shared atomic
// index. Each document's SampleResult is written by exactly one worker; the
// vector is read only after every worker has joined.
#include <fmt/format.h>

#include <boost/json.hpp>
#include <chrono>
#include <thread>

#include "common/log.h"
#include "common/progress_line.h"
#include "common/sha256.h"
#include "common/time_format.h"
#include "eval/eval.h"
#include "eval/extraction.h"
#include "eval/prompt.h"
#include "net/http_client.h"
#include "net/retry_policy.h"
#include "net/server_probe.h"
#include "net/url.h"

namespace servebench::eval {
namespace {

namespace json = boost::json;

std::string RequestBody(const EvalSettings& s, const std::string& prompt) {
  json::object body;
  body["model"] = s.model;
  if (s.endpoint == Endpoint::kCompletions) {
    body["prompt"] = prompt;
  } else {
    body["messages"] = json::array{json::object{{"role", "user"}, {"content", prompt}}};
  }
  body["max_tokens"] = s.max_tokens;
  body["temperature"] = 0;
  if (s.protocol == Protocol::kInferenceX) body["top_p"] = 1;
  json::array stop;
  // The chat API takes at most four stop sequences (lm-eval sends the first 4).
  for (const std::string& seq : StopSequences(s.protocol)) {
    if (s.endpoint == Endpoint::kChat && stop.size() == 4) break;
    stop.push_back(json::string(seq));
  }
  body["stop"] = std::move(stop);
  body["seed"] = s.request_seed;
  return json::serialize(body);
}

// The generated text of a 200 reply.
StatusOr<std::string> ReplyText(const EvalSettings& s, std::string_view reply) {
  boost::system::error_code ec;
  json::value value = json::parse(reply, ec);
  const json::object* root = ec ? nullptr : value.if_object();
  const json::value* choices = root ? root->if_contains("choices") : nullptr;
  if (choices == nullptr || !choices->is_array() || choices->as_array().empty() ||
      !choices->as_array()[0].is_object()) {
    return Status::Unavailable(
        fmt::format("reply has no choices[0]: {}", std::string(reply.substr(0, 200))));
  }
  const json::object& choice = choices->as_array()[0].as_object();
  if (s.endpoint == Endpoint::kCompletions) {
    const json::value* text = choice.if_contains("text");
    if (text && text->is_string()) return std::string(text->as_string());
    return Status::Unavailable("reply choices[0].text is missing");
  }
  const json::value* message = choice.if_contains("message");
  if (message == nullptr || !message->is_object()) {
    return Status::Unavailable("reply choices[0].message is missing");
  }
  const json::object& m = message->as_object();
  std::string content;
  if (const json::value* c = m.if_contains("content"); c && c->is_string()) {
    content = std::string(c->as_string());
  }
  // InferenceX's sitecustomize patch: reasoning models may put everything in
  // reasoning_content and leave content empty.
  if (content.empty() && s.protocol == Protocol::kInferenceX) {
    if (const json::value* r = m.if_contains("reasoning_content"); r && r->is_string()) {
      content = std::string(r->as_string());
    }
  }
  return content;
}

std::string ProtocolHash(const EvalSettings& s) {
  json::object identity;
  identity["task"] = s.task;
  identity["task_version"] = "3.0";
  identity["protocol"] = ProtocolName(s.protocol);
  identity["endpoint"] = EndpointName(s.endpoint);
  identity["doc_to_text"] = DocToText(s.protocol, GsmDoc{"{{question}}", ""});
  json::array stops;
  for (const auto& stop : StopSequences(s.protocol)) stops.push_back(json::string(stop));
  identity["until"] = std::move(stops);
  identity["num_fewshot"] = s.num_fewshot;
  identity["fewshot_seed"] = s.fewshot_seed;
  identity["max_tokens"] = s.max_tokens;
  identity["scorer"] = "servebench-eval-1";
  return Sha256Hex(json::serialize(identity));
}

// The server's base URL; a trailing "/v1" is dropped (the request paths carry it).
StatusOr<net::Url> EvalBaseUrl(const std::string& text) {
  StatusOr<net::Url> url = net::ParseUrl(text);
  if (!url.ok()) return Status::InvalidArgument("--base-url " + url.status().message());
  if (url->path.ends_with("/v1")) url->path.resize(url->path.size() - 3);
  return url;
}

net::FetchSettings FetchSettingsOf(const EvalSettings& s) {
  net::FetchSettings fetch;
  fetch.max_retries = s.max_retries;
  fetch.timeout_ms = s.timeout_ms;
  fetch.retry_backoff_ms = s.retry_backoff_ms;
  // A timed-out question is tried twice at most: a third deadline would only mean a
  // hung server waited out again (eval_settings.h).
  fetch.max_timeout_retries = 1;
  fetch.keep_alive = s.keep_alive;
  fetch.tls = s.tls;
  return fetch;
}

// The body of a 2xx reply, or why there is none. A status that is not retryable
// says the request itself is wrong (InvalidArgument); the rest is the server's.
StatusOr<std::string> ReplyBody(const std::string& path, StatusOr<net::HttpReply> reply) {
  if (!reply.ok()) return reply.status();
  if (reply->ok()) return std::move(reply->body);
  return Status(net::IsRetryableStatus(reply->status) ? StatusCode::kUnavailable
                                                      : StatusCode::kInvalidArgument,
                fmt::format("POST {} answered HTTP {} (after {} attempts): {}", path, reply->status,
                            reply->attempts, reply->body.substr(0, 300)));
}

}  // namespace

void ScoreSample(Protocol protocol, const GsmDoc& doc, SampleResult& sample) {
  StrictSelect select = protocol == Protocol::kLmEval ? StrictSelect::kFirst : StrictSelect::kLast;
  sample.strict_answer = ExtractStrict(sample.response, select);
  sample.flexible_answer = ExtractFlexible(sample.response);
  sample.strict_correct = ExactMatch(sample.strict_answer, doc.answer);
  sample.flexible_correct = ExactMatch(sample.flexible_answer, doc.answer);
  sample.state = SampleResult::State::kScored;
}

StatusOr<EvalResult> RunEval(const EvalSettings& settings, const std::atomic<bool>* cancel) {
  SB_RETURN_IF_ERROR(Validate(settings));
  SB_ASSIGN_OR_RETURN(net::Url base_url, EvalBaseUrl(settings.base_url));
  // Every worker's client is made the same way: the first one checks the settings
  // and the TLS files before any document is sent.
  const net::FetchSettings fetch = FetchSettingsOf(settings);
  SB_RETURN_IF_ERROR(net::HttpClient::Create(base_url, fetch).status());
  SB_ASSIGN_OR_RETURN(std::vector<GsmDoc> all_docs, LoadGsmJsonl(settings.data_path));
  std::vector<GsmDoc> train;
  if (settings.num_fewshot > 0) {
    SB_ASSIGN_OR_RETURN(train, LoadGsmJsonl(settings.fewshot_data_path));
  }

  EvalResult result;
  result.settings = settings;
  result.n_original = all_docs.size();
  result.date_utc = Rfc3339Now();
  result.protocol_hash = ProtocolHash(settings);
  size_t count =
      settings.limit > 0 ? std::min<size_t>(settings.limit, all_docs.size()) : all_docs.size();
  result.docs.assign(all_docs.begin(), all_docs.begin() + static_cast<ptrdiff_t>(count));
  result.samples.resize(count);

  // The same probe as `servebench bench`: a server that accepts connections and never
  // answers fails here in seconds, not after timeout_ms x attempts per question.
  SB_RETURN_IF_ERROR(net::ProbeServer(base_url.ToString(), settings.tls));

  FewshotSampler sampler(&train, settings.fewshot_seed,
                         settings.fewshot_data_path == settings.data_path);
  for (size_t i = 0; i < count; ++i) {
    result.samples[i].prompt = BuildPrompt(
        settings.protocol, sampler.Shots(result.docs[i], settings.num_fewshot), result.docs[i]);
  }

  const std::string path =
      settings.endpoint == Endpoint::kCompletions ? "/v1/completions" : "/v1/chat/completions";
  std::atomic<size_t> next{0};
  std::atomic<size_t> failures_logged{0};
  constexpr size_t kMaxFailureLogs = 5;  // the rest are in samples.jsonl
  size_t n_workers = std::min<size_t>(settings.num_concurrent, std::max<size_t>(count, 1));
  // Progress and the stop rule, updated by the workers.
  std::atomic<size_t> done{0}, failed{0}, right{0};
  std::atomic<size_t> timeouts_in_a_row{0};
  std::atomic<bool> stop{false};
  auto should_stop = [&] { return stop.load() || (cancel != nullptr && cancel->load()); };
  auto start = std::chrono::steady_clock::now();
  auto worker = [&] {
    // Created once above already, so this cannot fail.
    net::HttpClient client = net::HttpClient::Create(base_url, fetch).value();
    for (;;) {
      if (should_stop()) return;
      size_t i = next.fetch_add(1);
      if (i >= count) return;
      SampleResult& sample = result.samples[i];
      auto sent = std::chrono::steady_clock::now();
      StatusOr<std::string> reply =
          ReplyBody(path, client.Post(path, RequestBody(settings, sample.prompt), cancel));
      sample.attempts = client.last_attempts();
      sample.latency_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - sent)
              .count();
      if (!reply.ok() && reply.status().code() == StatusCode::kCancelled) return;  // not run
      if (!reply.ok() && reply.status().code() == StatusCode::kDeadlineExceeded) {
        if (timeouts_in_a_row.fetch_add(1) + 1 >= n_workers) stop.store(true);
      } else {
        timeouts_in_a_row.store(0);
      }
      StatusOr<std::string> text = reply.ok() ? ReplyText(settings, *reply) : reply;
      done.fetch_add(1);
      if (!text.ok()) {
        sample.state = SampleResult::State::kFailed;
        sample.error = text.status().ToString();
        failed.fetch_add(1);
        size_t logged = failures_logged.fetch_add(1);
        if (logged < kMaxFailureLogs) {
          Log(LogLevel::kWarning, "eval: doc {} failed: {}", i, sample.error);
        } else if (logged == kMaxFailureLogs) {
          Log(LogLevel::kWarning, "eval: more failures; each is in samples.jsonl (status failed)");
        }
        continue;
      }
      sample.response = std::move(text).value();
      ScoreSample(settings.protocol, result.docs[i], sample);
      if (sample.flexible_correct) right.fetch_add(1);
    }
  };
  auto progress_text = [&] {
    size_t d = done.load(), f = failed.load(), scored = d - std::min(d, f);
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::string accuracy =
        scored > 0 ? fmt::format("{:.3f}", static_cast<double>(right.load()) / scored) : "-";
    std::string eta =
        d > 0 && d < count ? ", ETA " + FormatDuration(elapsed / d * (count - d)) : "";
    return fmt::format("{}/{} questions, accuracy so far {} (flexible-extract), {} failed, {}{}", d,
                       count, accuracy, f, FormatDuration(elapsed), eta);
  };
  ProgressLine progress("servebench eval: ", settings.progress);
  std::vector<std::thread> workers;
  workers.reserve(n_workers);
  for (size_t w = 0; w < n_workers; ++w) workers.emplace_back(worker);
  std::atomic<bool> finished{false};
  std::thread progress_thread;
  if (settings.progress) {
    progress_thread = std::thread([&] {
      while (!finished.load()) {
        progress.Update(progress_text());
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    });
  }
  for (auto& t : workers) t.join();
  finished.store(true);
  if (progress_thread.joinable()) {
    progress_thread.join();
    progress.Finish(progress_text());
  }
  if (stop.load()) {
    result.stopped_reason = fmt::format(
        "the server stopped answering: {} requests in a row got no reply within {} ms; the "
        "questions not yet sent were not run",
        timeouts_in_a_row.load(), settings.timeout_ms);
    Log(LogLevel::kError, "eval: {}", result.stopped_reason);
  }
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.interrupted = cancel != nullptr && cancel->load();
  Summarize(result);
  return result;
}

}  // namespace servebench::eval
