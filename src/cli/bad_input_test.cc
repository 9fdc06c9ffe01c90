// Bad flag values and impossible sizes are refused at the door: exit 1 (a value that
// is not allowed) or 64 (a command line that cannot be read), a message naming the
// flag, and nothing started or written. One test per report of issue 13 ("Why").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "net/testing/fake_openai_server.h"

namespace servebench::cli::testing {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;

class BadInputTest : public CliTest {};

// ---- bench: --host/--port are honoured or refused, never silently ignored ----

TEST_F(BadInputTest, BenchHostAndPortAreTheServerBenchmarked) {
  net::testing::FakeOpenAiServer server;
  ShellResult r =
      Servebench("bench --model m --host 127.0.0.1 --port " + std::to_string(server.port()) +
                 " --num-prompts 3 --random-input-len 8 --random-output-len 2 "
                 "--no-metrics-scrape --issue-delay-limit-ms 1000");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // The liveness probe and the three requests.
  EXPECT_EQ(server.requests(), 4) << "the requests went to --host/--port";
}

TEST_F(BadInputTest, BenchPortOutOfRangeIsRefused) {
  ShellResult r = Servebench("bench --model m --port 99999");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--port 99999: must be 1 .. 65535"));
}

TEST_F(BadInputTest, BenchBaseUrlWithPortIsAConflictNotAGuess) {
  ShellResult r = Servebench("bench --model m --base-url http://127.0.0.1:1 --port 8001");
  EXPECT_EQ(r.exit_code, 64) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--base-url excludes --port"));
}

TEST_F(BadInputTest, BenchPortThatIsNotANumberIsAMalformedCommandLine) {
  ShellResult r = Servebench("bench --model m --port eighty");
  EXPECT_EQ(r.exit_code, 64) << r.output;
}

// ---- impossible sizes: refused before any connection, never std::bad_alloc ----

TEST_F(BadInputTest, BenchImpossibleSizesAreRefusedWithTheLimit) {
  for (const std::string& flags :
       {std::string("--num-prompts 2000000000"), std::string("--random-input-len 2000000000"),
        std::string("--num-prompts 1000000 --random-input-len 4096"),
        std::string("--max-concurrency 1000000000")}) {
    // Port 1: nothing listens; a refusal must come before any connection is tried.
    ShellResult r = Servebench("bench --model m --port 1 " + flags);
    EXPECT_EQ(r.exit_code, 1) << flags << "\n" << r.output;
    EXPECT_THAT(r.output, AnyOf(HasSubstr("must be"), HasSubstr("at most"))) << flags;
    EXPECT_THAT(r.output, Not(HasSubstr("not reachable"))) << flags;
  }
}

// ---- load shapes, stop rules and length mixtures (issue 19): what and where ----

TEST_F(BadInputTest, BenchLoadShapeValuesAreRefusedNamingTheFlagAndThePart) {
  struct Case {
    std::string flags, says;
  };
  for (const Case& c : std::vector<Case>{
           {"--stage 20@", "--stage '20@': RATE@SECONDS or concurrency=C@SECONDS"},
           {"--stage concurrency=0@5", "--stage 'concurrency=0@5': RATE@SECONDS"},
           {"--stage concurrency=4@5 --stage 10@5",
            "--stage 2: a run's stages are all rates or all concurrency=C"},
           {"--stage concurrency=4@5 --max-concurrency 8", "--stage concurrency=C with"},
           {"--concurrency-ramp-duration 10", "--concurrency-ramp-duration needs a closed loop"},
           {"--stage 0@10", "--stage 1 (0@10): rate must be > 0"},
           {"--stage 10@5 --stage 0.01@10", "--stage 2 (0.01@10): schedules no request"},
           {"--stage 10@5 --request-rate 3", "--stage with --request-rate"},
           {"--ramp-up-strategy cubic", "--ramp-up-strategy 'cubic': linear or exponential"},
           {"--ramp-up-strategy linear --ramp-up-start-rps 0 --ramp-up-end-rps 5",
            "--ramp-up-start-rps / --ramp-up-end-rps 0"},
           {"--ramp-up-end-rps 9", "--ramp-up-end-rps without --ramp-up-strategy"},
           {"--max-error-rate 1.5", "--max-error-rate 1.5: must be a fraction"},
           {"--saturation-factor 3", "--saturation-factor without --detect-saturation"},
           {"--detect-saturation --saturation-factor 0.5", "--saturation-factor 0.5: must be"},
           {"--detect-saturation --saturation-window 0", "--saturation-window 0: must be > 0"},
           {"--grace-period 5", "--grace-period without --duration"},
           {"--sequence-distribution '64,32:70;256|x,128:30'",
            "component 2 '256|x,128:30': ISL is not N or N|SD"},
           {"--sequence-distribution '64,32'", "component 1 '64,32': no ':WEIGHT'"},
           {"--sequence-distribution '64,0:1'", "component 1: OSL 0: must be 1"},
           {"--sequence-distribution '64,32:-1'", "component 1: weight -1: must be"},
           {"--dataset-name sharegpt --dataset-path x.json --sequence-distribution '64,32:1'",
            "--sequence-distribution with --dataset-name sharegpt"}}) {
    // Port 1: nothing listens; a refusal must come before any connection is tried.
    ShellResult r = Servebench("bench --model m --port 1 " + c.flags);
    EXPECT_EQ(r.exit_code, 1) << c.flags << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.says)) << c.flags;
    EXPECT_THAT(r.output, Not(HasSubstr("not reachable"))) << c.flags;
  }
}

TEST_F(BadInputTest, BenchPrefixPoolValuesAreRefusedNamingTheFlagBeforeAnyConnection) {
  struct Case {
    std::string flags, says;
  };
  const std::string pool = "--dataset-name prefix_repetition ";
  for (const Case& c : std::vector<Case>{
           {"--prefix-repetition-num-prefixes 4",
            "--prefix-repetition-num-prefixes without --dataset-name prefix_repetition"},
           {pool + "--num-prompts 5 --prefix-repetition-num-prefixes 10",
            "--prefix-repetition-num-prefixes 10 with 5 measured prompts"},
           {pool + "--num-prompts 20 --prefix-repetition-num-prefixes 4 "
                   "--prefix-repetition-reuse-ratio 0.1",
            "2 prompts share the pool, fewer than its prefixes"},
           {pool + "--prefix-repetition-reuse-ratio 1.5",
            "--prefix-repetition-reuse-ratio 1.5: must be in [0, 1]"},
           {pool + "--prefix-repetition-suffix-len 0", "--prefix-repetition-suffix-len 0: must be"},
           {pool + "--prefix-repetition-prefix-len 0", "--prefix-repetition-prefix-len 0: must be"},
           {pool + "--random-prefix-len 8",
            "--dataset-name prefix_repetition with --random-prefix-len 8"}}) {
    ShellResult r = Servebench("bench --model m --port 1 " + c.flags);
    EXPECT_EQ(r.exit_code, 1) << c.flags << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.says)) << c.flags;
    EXPECT_THAT(r.output, Not(HasSubstr("not reachable"))) << c.flags;
  }
}

TEST_F(BadInputTest, RecipeConcurrencyRangeBeyondTheLimitIsARecipeError) {
  std::string recipe = SimRecipe("recipe.yaml", "", "{start: 1, end: 1000000000}");
  ShellResult v = Servebench("validate " + recipe);
  EXPECT_EQ(v.exit_code, 1) << v.output;
  EXPECT_THAT(v.output, HasSubstr("recipe.yaml:"));
  EXPECT_THAT(v.output, HasSubstr("is 1000000000; must be 1 .. 25000"));
  ShellResult r = Servebench("run " + recipe + RunFlags());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(NoEngineStarted());
}

// ---- run checks its own flags first ----

TEST_F(BadInputTest, RunFlagValuesAreRefusedBeforeAnyEngineStarts) {
  std::string recipe = SimRecipe();
  const std::pair<std::string, std::string> cases[] = {
      {"--request-timeout -5", "--request-timeout -5: must be > 0"},
      {"--build-date yesterday", "--build-date 'yesterday': not a real calendar date"},
      {"--build-date 2026-13-45", "--build-date '2026-13-45': not a real calendar date"},
      {"--build-date 2026-02-30", "not a real calendar date"},
      {"--run-id a/b", "--run-id 'a/b': must be 1-128 characters"},
      {"--issue-delay-limit-ms -1", "--issue-delay-limit-ms -1: must be a number > 0"},
      {"--prompts-per-concurrency 0", "--prompts-per-concurrency 0: must be 1 .."},
      {"--container lxc", "--container 'lxc'"},
      {"--idle-power-s -1", "--idle-power-s -1: seconds of idle power sampling"},
      {"--power-sample-period 0", "--power-sample-period 0: must be between 0.01 and 60"},
      {"--gpu-telemetry bogus", "--gpu-telemetry 'bogus': one of auto, nvml"},
      {"--gpu-ids 0,MIG-abc", "--gpu-ids MIG-abc: a MIG instance has no power of its own"},
      // A named source this machine lacks: refused before the engine starts.
      {"--gpu-telemetry nvml --nvml-library /nonexistent/libnvidia-ml.so.1",
       "--gpu-telemetry nvml: cannot be used here: /nonexistent/libnvidia-ml.so.1"},
  };
  for (const auto& [flag, message] : cases) {
    ShellResult r = Servebench("run " + recipe + " --out " + Path("out") + " --db " +
                               Path("out/sb.db") + " " + flag);
    EXPECT_EQ(r.exit_code, 1) << flag << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(message)) << flag;
    EXPECT_TRUE(NoEngineStarted()) << flag;
    EXPECT_FALSE(fs::exists(Path("out/records"))) << flag;
  }
}

TEST_F(BadInputTest, NightlyAndRegressRefuseImpossibleDates) {
  std::string recipe = SimRecipe("recipe.yaml", "    nightly: true\n");
  ShellResult n = Servebench("nightly " + recipe + RunFlags() + " --build-date 2026-13-45");
  EXPECT_EQ(n.exit_code, 1) << n.output;
  EXPECT_TRUE(NoEngineStarted());
  fs::create_directories(Path("records"));
  ShellResult r = Servebench("regress --records " + Path("records") + " --date 2026-02-30");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--date '2026-02-30': not a real calendar date"));
}

// ---- --db: one fallback (SERVEBENCH_DB) for every command, known schemes only ----

TEST_F(BadInputTest, RunStoresIntoServebenchDbFromTheEnvironment) {
  std::string recipe = SimRecipe();
  ShellResult r =
      Servebench("run " + recipe + " --out " + Path("out") + " --issue-delay-limit-ms 200",
                 "SERVEBENCH_DB=" + Path("from-env.db"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(Path("from-env.db"))) << r.output;
  EXPECT_FALSE(fs::exists(Path("servebench.db"))) << "no stray store in the working folder";
  // regress and results read it from the same variable, with no --db.
  ShellResult reg = Servebench("regress --format json", "SERVEBENCH_DB=" + Path("from-env.db"));
  EXPECT_NE(reg.exit_code, 1) << reg.output;
  EXPECT_NE(reg.exit_code, 64) << reg.output;
  ShellResult list = Servebench("results list", "SERVEBENCH_DB=" + Path("from-env.db"));
  EXPECT_EQ(list.exit_code, 0) << list.output;
  EXPECT_THAT(list.output, HasSubstr("1 record in sqlite:" + Path("from-env.db")));
}

TEST_F(BadInputTest, UnknownDbSchemesAreRefusedAndCreateNothing) {
  std::string recipe = SimRecipe();
  for (const std::string& db : {std::string("mysql://u@h/db"), std::string("postgre://u@h/db")}) {
    ShellResult r = Servebench("run " + recipe + " --out " + Path("out") + " --db " + db);
    EXPECT_EQ(r.exit_code, 1) << db << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("is not a store servebench can open")) << db;
    EXPECT_TRUE(NoEngineStarted());
    ShellResult i = Servebench("ingest --db " + db + " " + Path("out"));
    EXPECT_EQ(i.exit_code, 1) << i.output;
  }
  EXPECT_THAT(Servebench("results list --db postgre://u@h/db").output,
              HasSubstr("did you mean postgresql://?"));
  EXPECT_EQ(TopLevel(), (std::set<std::string>{"recipe.yaml"})) << "nothing like ./mysql:/";
}

TEST_F(BadInputTest, DbInAMissingFolderOutsideOutIsRefused) {
  std::string recipe = SimRecipe();
  ShellResult r = Servebench("run " + recipe + " --out " + Path("out") + " --db " +
                             Path("no/such/folder/sb.db"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("folder " + Path("no/such/folder") + " does not exist"));
  EXPECT_FALSE(fs::exists(Path("no")));
  EXPECT_TRUE(NoEngineStarted());
}

// ---- other flag values named in the issue ----

TEST_F(BadInputTest, ResultsLimitMinusOneIsABadValueNotADatabaseError) {
  Write("empty.db", "");
  ShellResult r = Servebench("results list --db " + Path("empty.db") + " --limit -1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--limit -1: must be 0 (all) .."));
  EXPECT_THAT(r.output, Not(HasSubstr("datatype")));
}

TEST_F(BadInputTest, ApiKeyEnvNamingAnUnsetVariableIsAnError) {
  ShellResult r = Servebench("bench --model m --port 1 --api-key-env SERVEBENCH_DOOR_UNSET_KEY",
                             "env -u SERVEBENCH_DOOR_UNSET_KEY");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--api-key-env SERVEBENCH_DOOR_UNSET_KEY: the variable "
                                  "SERVEBENCH_DOOR_UNSET_KEY is not set"));
}

TEST_F(BadInputTest, JsonForPeopleWritesDecimalsNotExponents) {
  // A stored record with 0.0 and 0.01 in it, shown by `results show`.
  Write("out/records/r1.json",
        R"({"schema_version": 1, "record_id": "r1", "run_id": "run", "point_id": "p", )"
        R"("series_id": "s", "recipe": "x", "engine": "sim", "model": "m", "hardware": "h200", )"
        R"("concurrency": 1, "status": "ok", )"
        R"("build": {"date": "2026-11-29"}, "provenance": {"started_at": "2026-11-29T00:00:00Z"},)"
        R"( "summary": {"zero": 0.0, "hundredth": 0.01}})");
  ASSERT_EQ(Servebench("ingest --db " + Path("s.db") + " " + Path("out")).exit_code, 0);
  ShellResult r = Servebench("results show r1 --db " + Path("s.db"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("\"hundredth\": 0.01"));
  EXPECT_THAT(r.output, HasSubstr("\"zero\": 0"));
  EXPECT_THAT(r.output, Not(HasSubstr("E-2")));
  EXPECT_THAT(r.output, Not(HasSubstr("0E0")));
}

TEST_F(BadInputTest, EveryHelpEndsWithTheExitCodeTable) {
  for (const char* command : {"validate", "matrix", "run", "nightly", "bench", "eval", "sim",
                              "results list", "ingest", "regress", "dashboard"}) {
    ShellResult r = Servebench(std::string(command) + " --help");
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_THAT(r.output, HasSubstr("Exit codes (the same for every servebench command)"))
        << command;
    EXPECT_THAT(r.output, HasSubstr("64   the command line cannot be read")) << command;
  }
}

}  // namespace
}  // namespace servebench::cli::testing
