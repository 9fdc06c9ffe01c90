// Point identity: canonical JSON round trip, point_id / session_id, sessions.
#include <gtest/gtest.h>

#include "common/sha256.h"
#include "recipe/canonical_json.h"
#include "recipe/matrix_output.h"
#include "recipe/recipe.h"

namespace servebench::recipe {
namespace {

// What record::ConfigLabel is to `servebench matrix` (recipe/ cannot include record/).
std::string TestLabel(const ServeSpec& serve) { return "label-tp" + std::to_string(serve.tp); }

const std::string kRoot = std::string(SERVEBENCH_SOURCE_DIR) + "/";

Plan Quickstart() {
  Diagnostics d;
  RecipeSet set = LoadRecipes({kRoot + "examples/quickstart.yaml"}, &d);
  return *ExpandRecipes(set, MatrixFilters{});
}

TEST(PointJsonTest, RoundTripKeepsEveryFieldAndTheIds) {
  for (const auto& p : Quickstart().points) {
    std::string json = PointToJson(p);
    auto back = PointFromJson(json);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(PointToJson(*back), json);
    Point copy = *back;
    AssignIds(&copy);
    EXPECT_EQ(copy.point_id, p.point_id);
    EXPECT_EQ(copy.session_id, p.session_id);
  }
}

TEST(PointJsonTest, CanonicalJsonHasSortedKeysAndNoWhitespace) {
  std::string json = PointToJson(Quickstart().points[0]);
  EXPECT_EQ(json.find(' '), std::string::npos);  // no value in the quickstart has a space
  auto v = boost::json::parse(json);
  EXPECT_EQ(CanonicalJson(v), json);
  EXPECT_LT(json.find("\"blocked\""), json.find("\"eval_only\""));
}

TEST(PointJsonTest, PointIdIsTheHashOfTheCanonicalJsonWithoutIds) {
  Point p = Quickstart().points[0];
  boost::json::object o = boost::json::parse(PointToJson(p)).as_object();
  o.erase("point_id");
  o.erase("session_id");
  o.erase("source_file");
  EXPECT_EQ(p.point_id, Sha256Hex(CanonicalJson(o)));
  EXPECT_EQ(p.point_id.size(), 64u);
}

TEST(PointJsonTest, OnlyConcurrencyDifferencesShareASession) {
  Plan plan = Quickstart();
  Point a = plan.points[0], b = plan.points[1];
  EXPECT_NE(a.point_id, b.point_id);
  EXPECT_EQ(a.session_id, b.session_id);
  Point c = a;
  c.serve.tp = 4;
  AssignIds(&c);
  EXPECT_NE(c.session_id, a.session_id);
  Point d = a;
  d.load.osl = 64;
  AssignIds(&d);
  EXPECT_NE(d.session_id, a.session_id);
}

TEST(PointJsonTest, SessionsRunInAscendingConcurrency) {
  Plan plan = Quickstart();
  std::vector<Point> reversed(plan.points.rbegin(), plan.points.rend());
  auto sessions = GroupSessions(reversed);
  ASSERT_EQ(sessions.size(), 4u);
  for (const auto& s : sessions)
    for (size_t i = 1; i < s.points.size(); ++i)
      EXPECT_LT(s.points[i - 1].load.concurrency, s.points[i].load.concurrency);
}

TEST(PointJsonTest, UnknownFieldsAndBadJsonAreErrors) {
  std::string json = PointToJson(Quickstart().points[0]);
  std::string extra = json;
  extra.insert(1, "\"colour\":\"red\",");
  auto r = PointFromJson(extra);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("point.colour: unknown field"), std::string::npos);
  EXPECT_FALSE(PointFromJson("{").ok());
  EXPECT_FALSE(PointFromJson("[]").ok());
}

TEST(PointJsonTest, VerbatimCommandFieldsRoundTripAndAreAbsentWhenUnset) {
  Point p = Quickstart().points[0];
  std::string before = PointToJson(p);
  EXPECT_EQ(before.find("\"command\""), std::string::npos);
  EXPECT_EQ(before.find("\"env_from\""), std::string::npos);
  EXPECT_EQ(before.find("\"prepare\""), std::string::npos);
  p.serve.command.argv = {"vllm", "serve", "m", "--max-num-seqs", "8"};
  p.serve.command.port = 8888;
  p.serve.command.files = {{"cfg.yml", "a: 1\n"}};
  p.serve.command.source = "inferencex:benchmarks/single_node/fixed_seq_len/m_fp8_h200.sh";
  p.serve.env_from = {{"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES"}};
  p.serve.prepare = {{"hf", "download", "org/draft"}};
  AssignIds(&p);
  std::string json = PointToJson(p);
  auto back = PointFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(PointToJson(*back), json);
  EXPECT_EQ(back->serve.command.files.at(0).contents, "a: 1\n");
  EXPECT_EQ(back->serve.prepare.at(0).at(2), "org/draft");
  // The command is part of what starts the server: another command, another session.
  Point q = p;
  q.serve.command.argv.back() = "16";
  AssignIds(&q);
  EXPECT_NE(q.session_id, p.session_id);
}

TEST(MatrixOutputTest, FormatsAgreeOnTheSweep) {
  Plan plan = Quickstart();
  std::string jsonl = RenderMatrix(plan, MatrixFormat::kJsonl, {}, TestLabel);
  EXPECT_EQ(std::count(jsonl.begin(), jsonl.end(), '\n'), 28);
  auto github = boost::json::parse(RenderMatrix(plan, MatrixFormat::kGithub, {}, TestLabel));
  EXPECT_EQ(github.at("include").as_array().size(), 28u);
  auto bk = boost::json::parse(RenderMatrix(plan, MatrixFormat::kBuildkite, {"q.yaml"}, TestLabel));
  const auto& steps = bk.at("steps").as_array();
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_NE(
      std::string(steps[0].at("command").as_string()).find("servebench run 'q.yaml' --session "),
      std::string::npos);
  // The step label is the recipe, the caller's configuration label and the concurrencies.
  std::string label(steps[0].at("label").as_string());
  EXPECT_NE(label.find(" label-tp"), std::string::npos) << label;
  EXPECT_NE(label.find(" conc "), std::string::npos) << label;
  std::string table = RenderMatrix(plan, MatrixFormat::kTable, {}, TestLabel);
  EXPECT_NE(table.find("28 points, 4 serve sessions"), std::string::npos) << table;
  EXPECT_NE(table.find("spec=eagle3x3 AL=2.5"), std::string::npos);
}

TEST(MatrixOutputTest, ConcurrencyFilterAndEvalsOnlyOnNative) {
  Diagnostics d;
  RecipeSet set = LoadRecipes({kRoot + "examples/minimaxm3-mi355x-mtp.yaml"}, &d);
  MatrixFilters f;
  f.conc = {64};
  f.seq_lens = {"8k1k"};
  auto plan = ExpandRecipes(set, f);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->points.size(), 3u);  // tp8, tp8/ep8, tp4 reach 64 at 8k1k
  f = {};
  f.evals = EvalSelection::kOnly;
  plan = ExpandRecipes(set, f);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->points.size(), 9u);  // the highest concurrency of each session
  for (const auto& p : plan->points) EXPECT_TRUE(p.eval_only && p.run_eval);
  f = {};
  f.config_keys = {"nope*"};
  EXPECT_FALSE(ExpandRecipes(set, f).ok());
  f = {};
  f.seq_lens = {"8kx1k"};
  EXPECT_FALSE(ExpandRecipes(set, f).ok());
}

}  // namespace
}  // namespace servebench::recipe
