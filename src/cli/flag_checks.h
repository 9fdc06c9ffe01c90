// Flags and checks that several commands share, so each is defined once: --db (with
// its SERVEBENCH_DB fallback) and the folders results are written to. Every check
// runs right after the command line is parsed, before any engine, socket or file is
// touched, and fails with InvalidArgument naming the flag, the value and the fix.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "common/status.h"
#include "record/record.h"

namespace servebench::cli {

// Adds --db to `app`: the results store (a SQLite path, sqlite:PATH or a
// postgresql:// URL). When the flag is not given, $SERVEBENCH_DB is used, else the
// value `*db` already holds ("servebench.db" for commands that write, "" for those
// that can read --records instead).
CLI::Option* AddDbFlag(CLI::App* app, std::string* db, const std::string& help);

// Adds --build-image, --build-commit and --build-date: the build under test, carried
// on every record (`regress` compares builds). `run`, `nightly` and `search`.
void AddBuildFlags(CLI::App* app, record::Build* build);

// A store that is only read: the form of the URL, and for SQLite that the file
// exists (reading never creates a database where there was none, as a typo would).
Status CheckStoreToRead(const std::string& db);

// A store that is written: the form of the URL, and for SQLite that the file's
// folder exists, unless that folder is inside `created_folder` (run's --out, which
// run creates first). "" (no store) passes.
Status CheckStoreToWrite(const std::string& db, const std::string& created_folder = "");

// A file that is written at the end of a command (a result, a report): its folder
// must exist and be a folder, so nothing measured is lost to a typo found late.
Status CheckOutputFile(const std::string& flag, const std::string& path);

// An output folder the command creates (run's --out): not empty, not an existing
// file, and its nearest existing parent is a folder.
Status CheckOutputFolder(const std::string& flag, const std::string& path);

}  // namespace servebench::cli
