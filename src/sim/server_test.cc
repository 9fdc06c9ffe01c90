// Integration tests of `servebench sim` through real HTTP on loopback: SSE
// validity, exact usage, request validation, stop strings, stream interval.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>

#include "sim/testing/sim_process.h"
#include "sim/tokenizer.h"

namespace servebench::sim {
namespace {
namespace json = boost::json;
using testing::Http;
using testing::HttpResponse;
using testing::SimProcess;

const std::vector<std::string> kFast = {"--time-scale", "0", "--seed", "7"};

// Parses every event but [DONE]; fails the test on malformed JSON.
std::vector<json::object> Events(const HttpResponse& r) {
  std::vector<json::object> out;
  for (const auto& e : r.data_events) {
    if (e == "[DONE]") continue;
    boost::system::error_code ec;
    json::value v = json::parse(e, ec);
    EXPECT_FALSE(ec) << "malformed SSE data: " << e;
    if (!ec) out.push_back(v.as_object());
  }
  return out;
}

std::string EventText(const json::object& ev) {
  const auto& choices = ev.at("choices").as_array();
  if (choices.empty()) return "";
  const auto& c = choices[0].as_object();
  if (c.contains("text")) return std::string(c.at("text").as_string());
  const auto& d = c.at("delta").as_object();
  return d.contains("content") ? std::string(d.at("content").as_string()) : "";
}

TEST(SimServerTest, AdminEndpointsAnswer) {
  SimProcess sim(kFast);
  ASSERT_GT(sim.port(), 0) << sim.output();
  EXPECT_EQ(Http(sim.port(), "GET", "/health").status, 200);
  HttpResponse models = Http(sim.port(), "GET", "/v1/models");
  ASSERT_EQ(models.status, 200);
  EXPECT_EQ(json::parse(models.body).at("data").at(0).at("id").as_string(),
            "meta-llama/Llama-3.1-8B-Instruct");
  HttpResponse version = Http(sim.port(), "GET", "/version");
  ASSERT_EQ(version.status, 200);
  EXPECT_NE(version.body.find("\"build_id\""), std::string::npos);
  HttpResponse metrics = Http(sim.port(), "GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("vllm:num_requests_running{"), std::string::npos);
  EXPECT_NE(metrics.body.find("vllm:time_to_first_token_seconds_bucket{"), std::string::npos);
}

TEST(SimServerTest, StreamingCompletionIsValidSseWithExactUsage) {
  SimProcess sim(kFast);
  Tokenizer tok;
  std::string prompt = "The quick brown fox jumps over the lazy dog, twice.";
  HttpResponse r = Http(sim.port(), "POST", "/v1/completions",
                        R"({"prompt":")" + prompt +
                            R"(","max_tokens":37,"ignore_eos":true,"stream":true,)"
                            R"("stream_options":{"include_usage":true}})");
  ASSERT_EQ(r.status, 200);
  ASSERT_TRUE(r.complete);
  EXPECT_NE(r.headers.find("text/event-stream"), std::string::npos);
  ASSERT_FALSE(r.data_events.empty());
  EXPECT_EQ(r.data_events.back(), "[DONE]");
  auto events = Events(r);
  ASSERT_GE(events.size(), 2u);
  std::string text;
  for (size_t i = 0; i + 1 < events.size(); ++i) text += EventText(events[i]);
  EXPECT_EQ(tok.Count(text), 37u) << text;
  const auto& last_content = events[events.size() - 2].at("choices").at(0).as_object();
  EXPECT_EQ(last_content.at("finish_reason").as_string(), "length");
  const auto& usage = events.back().at("usage").as_object();
  EXPECT_TRUE(events.back().at("choices").as_array().empty());
  EXPECT_EQ(usage.at("completion_tokens").as_int64(), 37);
  EXPECT_EQ(usage.at("prompt_tokens").as_int64(), static_cast<int64_t>(tok.Count(prompt)));
  EXPECT_EQ(usage.at("total_tokens").as_int64(), 37 + static_cast<int64_t>(tok.Count(prompt)));
  EXPECT_EQ(events[0].at("object").as_string(), "text_completion");
}

TEST(SimServerTest, ChatStreamStartsWithRoleAndCarriesContent) {
  SimProcess sim(kFast);
  HttpResponse r = Http(
      sim.port(), "POST", "/v1/chat/completions",
      R"({"messages":[{"role":"user","content":"hello there"}],"max_tokens":5,"ignore_eos":true,)"
      R"("stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}})");
  ASSERT_EQ(r.status, 200);
  auto events = Events(r);
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events[0].at("object").as_string(), "chat.completion.chunk");
  EXPECT_EQ(events[0].at("choices").at(0).at("delta").at("role").as_string(), "assistant");
  int64_t last_completion = 0, content_events = 0;
  for (const auto& ev : events) {
    ASSERT_TRUE(ev.contains("usage")) << "continuous_usage_stats puts usage on every chunk";
    int64_t c = ev.at("usage").at("completion_tokens").as_int64();
    EXPECT_GE(c, last_completion);
    last_completion = c;
    if (!EventText(ev).empty()) ++content_events;
  }
  EXPECT_EQ(last_completion, 5);
  EXPECT_EQ(content_events, 5);
  EXPECT_EQ(r.data_events.back(), "[DONE]");
}

TEST(SimServerTest, IgnoreEosGivesExactlyMaxTokensOnBothEndpoints) {
  SimProcess sim({"--time-scale", "0", "--eos-after-mean-tokens", "3"});
  for (const char* path : {"/v1/completions", "/v1/chat/completions"}) {
    std::string body =
        std::string(path) == "/v1/completions"
            ? R"({"prompt":"hi","max_tokens":200,"ignore_eos":true})"
            : R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":200,"ignore_eos":true})";
    HttpResponse r = Http(sim.port(), "POST", path, body);
    ASSERT_EQ(r.status, 200) << r.body;
    json::value v = json::parse(r.body);
    EXPECT_EQ(v.at("usage").at("completion_tokens").as_int64(), 200) << path;
    EXPECT_EQ(v.at("choices").at(0).at("finish_reason").as_string(), "length");
  }
  // Without ignore_eos the same server stops early (EOS within 1..6 tokens).
  HttpResponse r =
      Http(sim.port(), "POST", "/v1/completions", R"({"prompt":"hi","max_tokens":200})");
  json::value v = json::parse(r.body);
  EXPECT_LE(v.at("usage").at("completion_tokens").as_int64(), 6);
  EXPECT_EQ(v.at("choices").at(0).at("finish_reason").as_string(), "stop");
}

TEST(SimServerTest, TokenIdPromptIsAcceptedAndCounted) {
  SimProcess sim(kFast);
  std::string ids;
  for (int i = 0; i < 100; ++i) ids += (i ? "," : "") + std::to_string(1000 + i);
  HttpResponse r =
      Http(sim.port(), "POST", "/v1/completions", R"({"prompt":[)" + ids + R"(],"max_tokens":4})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body).at("usage").at("prompt_tokens").as_int64(), 100);
  HttpResponse nested =
      Http(sim.port(), "POST", "/v1/completions", R"({"prompt":[[1,2,3]],"max_tokens":1})");
  ASSERT_EQ(nested.status, 200) << nested.body;
  EXPECT_EQ(json::parse(nested.body).at("usage").at("prompt_tokens").as_int64(), 3);
}

TEST(SimServerTest, SameRequestGivesSameTextAndStopStringCutsIt) {
  SimProcess sim(kFast);
  const std::string body = R"({"prompt":"determinism","max_tokens":30,"ignore_eos":true)";
  HttpResponse a = Http(sim.port(), "POST", "/v1/completions", body + "}");
  HttpResponse b = Http(sim.port(), "POST", "/v1/completions", body + "}");
  std::string text = std::string(json::parse(a.body).at("choices").at(0).at("text").as_string());
  EXPECT_EQ(text, std::string(json::parse(b.body).at("choices").at(0).at("text").as_string()));
  Tokenizer tok;
  auto pieces = tok.Pieces(text);
  ASSERT_EQ(pieces.size(), 30u);
  std::string stop(pieces[10]);
  std::string expected;
  for (int i = 0; i < 10; ++i) expected += std::string(pieces[i]);
  if (expected.find(stop) != std::string::npos) GTEST_SKIP() << "stop word occurs earlier";
  for (bool stream : {false, true}) {
    HttpResponse c =
        Http(sim.port(), "POST", "/v1/completions",
             body + R"(,"stop":[")" + stop + R"("],"stream":)" + (stream ? "true" : "false") + "}");
    std::string got;
    std::string finish, stop_reason;
    if (stream) {
      for (const auto& ev : Events(c)) {
        got += EventText(ev);
        const auto& ch = ev.at("choices").at(0).as_object();
        if (ch.at("finish_reason").is_string()) {
          finish = std::string(ch.at("finish_reason").as_string());
          stop_reason = std::string(ch.at("stop_reason").as_string());
        }
      }
    } else {
      json::value v = json::parse(c.body);
      got = std::string(v.at("choices").at(0).at("text").as_string());
      finish = std::string(v.at("choices").at(0).at("finish_reason").as_string());
      stop_reason = std::string(v.at("choices").at(0).at("stop_reason").as_string());
    }
    EXPECT_EQ(got, expected) << "stream=" << stream;
    EXPECT_EQ(finish, "stop");
    EXPECT_EQ(stop_reason, stop);
  }
}

TEST(SimServerTest, StreamIntervalGroupsTokensPerEvent) {
  SimProcess sim({"--time-scale", "0", "--stream-interval", "4"});
  HttpResponse r = Http(sim.port(), "POST", "/v1/completions",
                        R"({"prompt":"x","max_tokens":18,"ignore_eos":true,"stream":true,)"
                        R"("stream_options":{"continuous_usage_stats":true}})");
  auto events = Events(r);
  std::vector<int64_t> per_event;
  int64_t last = 0;
  for (const auto& ev : events) {
    int64_t c = ev.at("usage").at("completion_tokens").as_int64();
    per_event.push_back(c - last);
    last = c;
  }
  // First token alone, then groups of 4, the remainder at the end: 1,4,4,4,4,1.
  EXPECT_EQ(per_event, (std::vector<int64_t>{1, 4, 4, 4, 4, 1}));
}

TEST(SimServerTest, BadRequestsGet4xxJsonErrorsAndServerKeepsServing) {
  SimProcess sim({"--time-scale", "0", "--max-model-len", "64"});
  struct Case {
    const char* method;
    const char* path;
    const char* body;
    int status;
  } cases[] = {
      {"POST", "/v1/completions", "{not json", 400},
      {"POST", "/v1/completions", R"({"prompt":"a","max_tokens":4,"frobnicate":1})", 400},
      {"POST", "/v1/completions", R"({"prompt":"a","max_tokens":100})", 400},  // > max-model-len
      {"POST", "/v1/completions", R"({"model":"no-such-model","prompt":"a"})", 404},
      {"POST", "/v1/completions", R"({"prompt":"a","n":2})", 400},
      {"POST", "/v1/completions", R"({"max_tokens":3})", 400},
      {"POST", "/v1/completions", R"({"prompt":"a","max_tokens":-3})", 400},
      {"POST", "/v1/chat/completions", R"({"messages":"hi"})", 400},
      {"POST", "/v1/completions",
       R"({"prompt":"a","stream":false,"stream_options":{"include_usage":true}})", 400},
      {"GET", "/v1/completions", "", 405},
      {"GET", "/v2/nothing", "", 404},
  };
  for (const auto& c : cases) {
    HttpResponse r = Http(sim.port(), c.method, c.path, c.body);
    EXPECT_EQ(r.status, c.status) << c.path << " " << c.body << " -> " << r.body;
    boost::system::error_code ec;
    json::value v = json::parse(r.body, ec);
    ASSERT_FALSE(ec) << r.body;
    EXPECT_TRUE(v.at("error").at("message").is_string());
    EXPECT_EQ(v.at("error").at("code").as_int64(), c.status);
  }
  HttpResponse ok = Http(sim.port(), "POST", "/v1/completions", R"({"prompt":"a","max_tokens":3})");
  EXPECT_EQ(ok.status, 200);
}

TEST(SimServerTest, OverloadGets429) {
  SimProcess sim({"--time-scale", "1", "--max-num-seqs", "1", "--max-waiting-requests", "1"});
  const std::string slow = R"({"prompt":"a","max_tokens":2000,"ignore_eos":true,"stream":true})";
  int a = testing::SendOnly(sim.port(), "POST", "/v1/completions", slow);
  // Let the first request be admitted before the second arrives.
  testing::HttpResponse probe = Http(sim.port(), "GET", "/health");
  ASSERT_EQ(probe.status, 200);
  int b = testing::SendOnly(sim.port(), "POST", "/v1/completions", slow);
  HttpResponse metrics;
  for (int i = 0; i < 50; ++i) {  // until the second one is waiting
    metrics = Http(sim.port(), "GET", "/metrics");
    if (metrics.body.find("vllm:num_requests_waiting{engine=\"0\",model_name=\"meta-llama/"
                          "Llama-3.1-8B-Instruct\"} 1") != std::string::npos)
      break;
  }
  HttpResponse third =
      Http(sim.port(), "POST", "/v1/completions", R"({"prompt":"a","max_tokens":2})");
  EXPECT_EQ(third.status, 429) << third.body;
  close(a);
  close(b);
}

TEST(SimServerTest, TokenizeAndDetokenizeAgreeWithUsage) {
  SimProcess sim(kFast);
  HttpResponse t =
      Http(sim.port(), "POST", "/tokenize", R"({"prompt":"Hello, world! 12345 tokens"})");
  ASSERT_EQ(t.status, 200) << t.body;
  json::value v = json::parse(t.body);
  Tokenizer tok;
  EXPECT_EQ(v.at("count").as_int64(),
            static_cast<int64_t>(tok.Count("Hello, world! 12345 tokens")));
  EXPECT_EQ(v.at("tokens").as_array().size(), static_cast<size_t>(v.at("count").as_int64()));
  HttpResponse d = Http(sim.port(), "POST", "/detokenize", R"({"tokens":[5,6000,70000]})");
  ASSERT_EQ(d.status, 200) << d.body;
  std::string text(json::parse(d.body).at("prompt").as_string());
  EXPECT_EQ(tok.Count(text), 3u) << text;
  EXPECT_EQ(Http(sim.port(), "POST", "/detokenize", R"({"tokens":[-1]})").status, 400);
}

// /tokenize of messages answers the ids the chat request is keyed by (template
// included), so a client sees where the template ends and its content begins.
TEST(SimServerTest, TokenizeOfMessagesListsTheChatPromptsOwnIds) {
  SimProcess sim(kFast);
  auto ids = [&](const char* content) {
    HttpResponse t =
        Http(sim.port(), "POST", "/tokenize",
             fmt::format(R"({{"messages":[{{"role":"user","content":"{}"}}]}})", content));
    EXPECT_EQ(t.status, 200) << t.body;
    std::vector<int64_t> out;
    const json::value answer = json::parse(t.body);
    for (const json::value& id : answer.at("tokens").as_array()) {
      out.push_back(id.to_number<int64_t>());
    }
    return out;
  };
  const std::vector<int64_t> a = ids(" the cat"), b = ids(" a dog");
  ASSERT_EQ(a.size(), 4u + 2 + 3);  // 4 before the content, 3 after (the assistant header)
  EXPECT_EQ(std::vector<int64_t>(a.begin(), a.begin() + 4),
            std::vector<int64_t>(b.begin(), b.begin() + 4));
  EXPECT_NE(a[4], b[4]);
  EXPECT_EQ(std::vector<int64_t>(a.end() - 3, a.end()), (std::vector<int64_t>{1, 4, 2}));
  HttpResponse r = Http(sim.port(), "POST", "/v1/chat/completions",
                        R"({"messages":[{"role":"user","content":" the cat"}],"max_tokens":1})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body).at("usage").at("prompt_tokens").to_number<int64_t>(),
            static_cast<int64_t>(a.size()))
      << r.body;
}

TEST(SimServerTest, SendTimeFieldIsMonotonicNanoseconds) {
  SimProcess sim({"--time-scale", "0", "--send-time-field"});
  HttpResponse r = Http(sim.port(), "POST", "/v1/completions",
                        R"({"prompt":"a","max_tokens":5,"ignore_eos":true,"stream":true})");
  int64_t last = 0;
  for (const auto& ev : Events(r)) {
    ASSERT_TRUE(ev.contains("servebench_send_ns"));
    int64_t t = ev.at("servebench_send_ns").as_int64();
    EXPECT_GE(t, last);
    last = t;
  }
  EXPECT_GT(last, 0);
  SimProcess plain(kFast);
  HttpResponse p = Http(plain.port(), "POST", "/v1/completions",
                        R"({"prompt":"a","max_tokens":2,"stream":true})");
  EXPECT_EQ(p.body.find("servebench_send_ns"), std::string::npos) << "off by default";
}

}  // namespace
}  // namespace servebench::sim

namespace servebench::sim {
namespace {

// Several requests, streaming and not, one after another on one keep-alive connection.
TEST(SimServerTest, KeepAliveConnectionServesManyRequests) {
  SimProcess sim(kFast);
  int fd =
      testing::SendOnly(sim.port(), "POST", "/v1/completions", R"({"prompt":"a","max_tokens":3})");
  ASSERT_GE(fd, 0);
  auto send_more = [fd](const std::string& body) {
    std::string req = "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n" + body;
    ASSERT_EQ(write(fd, req.data(), req.size()), static_cast<ssize_t>(req.size()));
  };
  // Pipelined: three more requests before reading anything.
  send_more(R"({"prompt":"b","max_tokens":4})");
  send_more(R"({"prompt":"c","max_tokens":5,"stream":true})");
  send_more(R"({"prompt":"d","max_tokens":6})");
  std::string all;
  char buf[65536];
  for (int i = 0; i < 200 && std::count(all.begin(), all.end(), 'H') >= 0; ++i) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) {
      if (all.find("\"completion_tokens\":6") != std::string::npos) break;
      continue;
    }
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    all.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  EXPECT_NE(all.find("\"completion_tokens\":3"), std::string::npos);
  EXPECT_NE(all.find("\"completion_tokens\":4"), std::string::npos);
  EXPECT_NE(all.find("data: [DONE]"), std::string::npos);
  EXPECT_NE(all.find("\"completion_tokens\":6"), std::string::npos) << all;
  EXPECT_EQ(Http(sim.port(), "GET", "/health").status, 200) << "still alive";
}

}  // namespace
}  // namespace servebench::sim
