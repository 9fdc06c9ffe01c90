// `servebench sim --reasoning-tokens` and tool calls through real HTTP on loopback:
// the reasoning delta, the tool-call deltas' shape (the first names the call), the
// non-streaming message, and the 400s of bad `tools` / `tool_choice`.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "sim/testing/sim_process.h"

namespace servebench::sim {
namespace {
namespace json = boost::json;
using testing::Http;
using testing::HttpResponse;
using testing::SimProcess;

const std::vector<std::string> kReasoning3 = {"--time-scale",       "0", "--seed", "7",
                                              "--reasoning-tokens", "3"};
constexpr const char* kTools =
    R"("tools":[{"type":"function","function":{"name":"lookup","parameters":{}}}])";

std::vector<json::object> Deltas(const HttpResponse& r) {
  std::vector<json::object> out;
  for (const auto& e : r.data_events) {
    if (e == "[DONE]") continue;
    json::value v = json::parse(e);
    const auto& choices = v.at("choices").as_array();
    if (!choices.empty()) out.push_back(choices[0].at("delta").as_object());
  }
  return out;
}

TEST(SimChannelsHttpTest, FirstTokensStreamAsReasoningThenContent) {
  SimProcess sim(kReasoning3);
  ASSERT_GT(sim.port(), 0) << sim.output();
  HttpResponse r =
      Http(sim.port(), "POST", "/v1/chat/completions",
           R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":5,"stream":true})");
  ASSERT_EQ(r.status, 200) << r.body;
  std::vector<json::object> d = Deltas(r);
  ASSERT_EQ(d.size(), 6u);  // role, 3 reasoning, 2 content
  EXPECT_TRUE(d[0].contains("role"));
  for (int i = 1; i <= 3; ++i) {
    EXPECT_TRUE(d[i].contains("reasoning_content")) << json::serialize(d[i]);
    EXPECT_FALSE(d[i].contains("content")) << json::serialize(d[i]);
  }
  for (int i = 4; i <= 5; ++i) {
    EXPECT_TRUE(d[i].contains("content")) << json::serialize(d[i]);
    EXPECT_FALSE(d[i].contains("reasoning_content"));
  }
}

TEST(SimChannelsHttpTest, RequiredToolChoiceStreamsOneCallNamedOnce) {
  SimProcess sim({"--time-scale", "0", "--seed", "7"});
  ASSERT_GT(sim.port(), 0) << sim.output();
  std::string body = std::string(R"({"messages":[{"role":"user","content":"hi"}],)") + kTools +
                     R"(,"tool_choice":"required","max_tokens":4,"stream":true})";
  HttpResponse r = Http(sim.port(), "POST", "/v1/chat/completions", body);
  ASSERT_EQ(r.status, 200) << r.body;
  std::vector<json::object> d = Deltas(r);
  ASSERT_EQ(d.size(), 5u);  // role + 4 tokens
  std::string args;
  for (size_t i = 1; i < d.size(); ++i) {
    const json::object& call = d[i].at("tool_calls").at(0).as_object();
    EXPECT_EQ(call.at("index").as_int64(), 0);
    EXPECT_EQ(call.contains("id"), i == 1);
    if (i == 1) {
      EXPECT_EQ(call.at("function").at("name").as_string(), "lookup");
    }
    args += std::string(call.at("function").at("arguments").as_string());
  }
  EXPECT_TRUE(args.starts_with("{\"query\": \"")) << args;
  boost::system::error_code ec;
  (void)json::parse(args, ec);
  EXPECT_TRUE(ec) << "max_tokens cut the call, yet its arguments parse: " << args;
}

TEST(SimChannelsHttpTest, NonStreamingMessageHasReasoningAndTheNamedCall) {
  SimProcess sim(kReasoning3);
  ASSERT_GT(sim.port(), 0) << sim.output();
  std::string body =
      std::string(R"({"messages":[{"role":"user","content":"hi"}],)") + kTools +
      R"(,"tool_choice":{"type":"function","function":{"name":"lookup"}},"max_tokens":6})";
  HttpResponse r = Http(sim.port(), "POST", "/v1/chat/completions", body);
  ASSERT_EQ(r.status, 200) << r.body;
  json::value v = json::parse(r.body);
  const json::object& msg = v.at("choices").at(0).at("message").as_object();
  EXPECT_FALSE(msg.at("reasoning_content").as_string().empty());
  EXPECT_EQ(msg.at("tool_calls").at(0).at("function").at("name").as_string(), "lookup");
  EXPECT_EQ(v.at("usage").at("completion_tokens").as_int64(), 6);
}

TEST(SimChannelsHttpTest, BadToolsAndToolChoiceAre400) {
  SimProcess sim({"--time-scale", "0"});
  ASSERT_GT(sim.port(), 0) << sim.output();
  const std::string msgs = R"({"messages":[{"role":"user","content":"hi"}],)";
  for (const std::string& rest :
       {std::string(R"("tools":[{"type":"function"}]})"),
        std::string(kTools) + R"(,"tool_choice":{"type":"function","function":{"name":"x"}}})",
        std::string(R"("tool_choice":"required"})"),
        std::string(kTools) + R"(,"tool_choice":7})"}) {
    HttpResponse r = Http(sim.port(), "POST", "/v1/chat/completions", msgs + rest);
    EXPECT_EQ(r.status, 400) << rest << " -> " << r.body;
    EXPECT_NE(r.body.find("tool"), std::string::npos) << r.body;
  }
}

}  // namespace
}  // namespace servebench::sim
