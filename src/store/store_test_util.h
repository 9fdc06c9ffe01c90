// Helpers shared by the store tests: valid records to ingest and temporary folders.
#pragma once

#include <unistd.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace servebench::store::testutil {

// A valid record (docs/record.md) numbered `i`: ids derive from i, concurrency is
// 1 << (i % 7), status ok, started at 2026-11-29T20:<i % 60>:00Z.
inline boost::json::object MakeRecord(int i) {
  std::string n = std::to_string(i);
  char started[32];
  std::snprintf(started, sizeof started, "2026-11-29T20:%02d:00Z", i % 60);
  return boost::json::object{
      {"schema_version", 1},
      {"record_id", "rec-" + n},
      {"run_id", "run-1"},
      {"point_id", "point-" + n},
      {"session_id", "session-1"},
      {"series_id", "series-" + n},
      {"recipe", "quickstart-sim"},
      {"engine", "sim"},
      {"model", "sim/llama-8b"},
      {"precision", "fp8"},
      {"hardware", "sim-h100"},
      {"concurrency", 1 << (i % 7)},
      {"status", "ok"},
      {"failure_class", ""},
      {"build", {{"image", "sim:1"}, {"commit", "abc"}, {"date", "2026-11-29"}}},
      {"provenance",
       {{"servebench_version", "0.1.0"}, {"started_at", started}, {"ended_at", started}}},
      {"point", {{"concurrency", 1 << (i % 7)}}},
      {"summary", {{"output_throughput", 1234.5 + i}, {"median_ttft_ms", 12.0}}},
      {"evals", nullptr},
      {"artifacts", {{"engine_log", "out/logs/engine.log"}}},
  };
}

// A fresh folder under TMPDIR (or /tmp), removed when the object goes away.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/sbstore-XXXXXX";
    path_ = ::mkdtemp(pattern.data()) != nullptr ? pattern : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace servebench::store::testutil
