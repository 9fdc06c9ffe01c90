#include "cli/flag_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iterator>

#include "store/store.h"

namespace servebench::cli {
namespace {

namespace fs = std::filesystem;

// True if `path` is `folder` or below it (lexically, after normalising both).
bool IsInside(const fs::path& path, const fs::path& folder) {
  fs::path p = fs::absolute(path).lexically_normal();
  fs::path f = fs::absolute(folder).lexically_normal();
  auto [f_end, p_it] = std::mismatch(f.begin(), f.end(), p.begin(), p.end());
  if (f_end == f.end()) return true;
  // A trailing separator leaves an empty last element in `f`.
  return std::next(f_end) == f.end() && f_end->empty();
}

}  // namespace

CLI::Option* AddDbFlag(CLI::App* app, std::string* db, const std::string& help) {
  return app
      ->add_option("--db", *db,
                   help + " (default: $" + store::kStoreUrlEnv + ", else " +
                       (db->empty() ? "none" : *db) + ")")
      ->envname(store::kStoreUrlEnv);
}

void AddBuildFlags(CLI::App* app, record::Build* build) {
  app->add_option("--build-image", build->image, "the engine image under test (recorded)");
  app->add_option("--build-commit", build->commit, "the engine commit under test (recorded)");
  app->add_option("--build-date", build->date, "the night, YYYY-MM-DD (default: today, UTC)");
}

Status CheckStoreToRead(const std::string& db) {
  SB_RETURN_IF_ERROR(store::CheckStoreUrl(db));
  std::string file = store::SqlitePathOf(db);
  if (db.empty() || file.empty()) return Status::Ok();
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    return Status::NotFound(
        fmt::format("--db {}: no such database file; give the --db that `servebench run` or "
                    "`servebench ingest` wrote to (or set ${})",
                    db, store::kStoreUrlEnv));
  }
  if (fs::is_directory(file, ec)) {
    return Status::InvalidArgument(fmt::format("--db {}: is a folder, not a database file", db));
  }
  return Status::Ok();
}

Status CheckStoreToWrite(const std::string& db, const std::string& created_folder) {
  SB_RETURN_IF_ERROR(store::CheckStoreUrl(db));
  std::string file = store::SqlitePathOf(db);
  if (db.empty() || file.empty()) return Status::Ok();
  std::error_code ec;
  if (fs::is_directory(file, ec)) {
    return Status::InvalidArgument(fmt::format(
        "--db {}: is a folder; give a database file inside it, e.g. {}/servebench.db", db, file));
  }
  fs::path folder = fs::path(file).parent_path();
  if (folder.empty() || fs::is_directory(folder, ec)) return Status::Ok();
  if (!created_folder.empty() && IsInside(folder, created_folder)) return Status::Ok();
  if (fs::exists(folder, ec)) {
    return Status::InvalidArgument(fmt::format("--db {}: {} is not a folder", db, folder.string()));
  }
  return Status::InvalidArgument(fmt::format(
      "--db {}: folder {} does not exist; create it first (servebench creates a store's "
      "folder only inside --out)",
      db, folder.string()));
}

Status CheckOutputFile(const std::string& flag, const std::string& path) {
  if (path.empty() || path == "-") return Status::Ok();
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return Status::InvalidArgument(fmt::format("{} {}: is a folder; give a file name", flag, path));
  }
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty() || fs::is_directory(folder, ec)) return Status::Ok();
  return Status::InvalidArgument(
      fmt::format("{} {}: folder {} does not exist; create it first so the result is not lost "
                  "after the run",
                  flag, path, folder.string()));
}

Status CheckOutputFolder(const std::string& flag, const std::string& path) {
  if (path.empty()) return Status::InvalidArgument(flag + " is empty: give a folder");
  std::error_code ec;
  fs::path p = fs::absolute(path, ec).lexically_normal();
  if (fs::exists(p, ec) && !fs::is_directory(p, ec)) {
    return Status::InvalidArgument(fmt::format("{} {}: is a file, not a folder", flag, path));
  }
  for (fs::path up = p; !up.empty(); up = up.parent_path()) {
    if (fs::exists(up, ec)) {
      if (!fs::is_directory(up, ec)) {
        return Status::InvalidArgument(fmt::format(
            "{} {}: {} is a file, so the folder cannot be created", flag, path, up.string()));
      }
      break;
    }
    if (up == up.parent_path()) break;
  }
  return Status::Ok();
}

}  // namespace servebench::cli
