#include "cli/judge_night.h"

#include <fmt/format.h>

#include <cstdio>
#include <set>
#include <sstream>

#include "cli/command_line.h"
#include "cli/record_sources.h"
#include "common/atomic_file.h"
#include "common/exit_codes.h"
#include "recipe/recipe.h"
#include "record/record_builder.h"
#include "verdict/verdict.h"

namespace servebench::cli {
namespace {

// A file of expected series ids: one per line; blank lines and '#' comments skipped.
Status ReadExpected(const std::string& path, std::set<std::string>& out) {
  SB_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    size_t b = line.find_first_not_of(" \t\r"), e = line.find_last_not_of(" \t\r");
    if (b == std::string::npos) continue;
    std::string id = line.substr(b, e - b + 1);
    if (id.find_first_of(" \t") != std::string::npos) {
      return Status::InvalidArgument(fmt::format(
          "{}: '{}' is not a series id; the file lists one series_id per line", path, id));
    }
    out.insert(id);
  }
  return Status::Ok();
}

// Recipe files: every point they expand to is expected tonight (nightly points only,
// when any point is marked nightly), as the series id `servebench run` records.
Status ReadExpectedRecipes(const std::vector<std::string>& paths, std::set<std::string>& out) {
  recipe::Diagnostics diagnostics;
  recipe::RecipeSet set = recipe::LoadRecipes(paths, &diagnostics);
  if (!diagnostics.ok()) return Status::InvalidArgument(diagnostics.ToString());
  SB_ASSIGN_OR_RETURN(recipe::Plan plan, recipe::ExpandRecipes(set, recipe::MatrixFilters{}));
  bool any_nightly = false;
  for (const auto& p : plan.points) any_nightly = any_nightly || p.nightly;
  for (const auto& p : plan.points) {
    if (!any_nightly || p.nightly) out.insert(record::SeriesId(p));
  }
  return Status::Ok();
}

bool IsRecipeFile(const std::string& path) {
  return path.ends_with(".yaml") || path.ends_with(".yml");
}

}  // namespace

int JudgeNight(const JudgeRequest& q) {
  auto fail = [&](int code, const std::string& message) {
    std::fprintf(stderr, "servebench %s: %s\n", q.command.c_str(), message.c_str());
    return code;
  };
  StatusOr<LoadedRecords> loaded = LoadRecords(q.db, q.record_dirs);
  if (!loaded.ok()) {
    // A missing folder or file, or a record that does not read, is bad input; a store
    // that cannot be reached is not.
    StatusCode c = loaded.status().code();
    bool bad = c == StatusCode::kInvalidArgument || c == StatusCode::kNotFound;
    return fail(bad ? kExitInvalidInput : kExitRunFailed, loaded.status().message());
  }
  verdict::HistoryBuilder builder;
  for (const record::Record& r : loaded->records) {
    if (Status st = builder.Add(r); !st.ok()) return fail(kExitInvalidInput, st.message());
  }
  std::set<std::string> expected;
  std::vector<std::string> expected_recipes;
  for (const std::string& f : q.expected_files) {
    if (IsRecipeFile(f)) {
      expected_recipes.push_back(f);
      continue;
    }
    if (Status st = ReadExpected(f, expected); !st.ok()) {
      return fail(kExitInvalidInput, "--expected " + st.message());
    }
  }
  if (!expected_recipes.empty()) {
    if (Status st = ReadExpectedRecipes(expected_recipes, expected); !st.ok()) {
      return fail(kExitInvalidInput, "--expected: " + st.message());
    }
  }
  verdict::VerdictSettings settings;
  settings.require_build_identity = q.require_build_identity;
  StatusOr<verdict::Report> report = verdict::Judge(builder.Finish(), expected, q.date, settings);
  if (!report.ok()) return fail(ExitCodeFor(report.status()), report.status().message());
  std::string text = q.format == "junit"  ? verdict::RenderJunit(*report)
                     : q.format == "json" ? verdict::RenderJson(*report)
                                          : verdict::RenderMarkdown(*report);
  if (q.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    if (Status st = WriteFileAtomically(q.output, text); !st.ok()) {
      return fail(kExitRunFailed, st.message());
    }
    std::fprintf(stderr, "servebench %s: %s: %zu series, %zu regression(s), %zu missing -> %s\n",
                 q.command.c_str(), report->date.c_str(), report->verdicts.size(),
                 report->Count(verdict::Verdict::kRegression),
                 report->Count(verdict::Verdict::kMissing), q.output.c_str());
  }
  return report->ExitCode();
}

}  // namespace servebench::cli
