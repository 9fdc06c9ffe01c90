// Helpers shared by the store tests: valid records to ingest and temporary folders.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "record/record.h"
#include "record/record_builder.h"

namespace servebench::store::testutil {

// A valid record numbered `i`: ids derive from i, concurrency is 1 << (i % 7),
// status ok, started at 2026-11-29T20:<i % 60>:00Z, output throughput 1234.5 + i.
inline record::Record MakeRecord(int i) {
  std::string n = std::to_string(i);
  char started[32];
  std::snprintf(started, sizeof started, "2026-11-29T20:%02d:00Z", i % 60);
  record::Record r;
  r.record_id = "rec-" + n;
  r.run_id = "run-1";
  r.point_id = "point-" + n;
  r.session_id = "session-1";
  r.series_id = "series-" + n;
  r.recipe = "quickstart-sim";
  r.engine = "sim";
  r.model = "sim/llama-8b";
  r.precision = "fp8";
  r.hardware = "sim-h100";
  r.concurrency = 1 << (i % 7);
  r.deployment.num_gpus = 1;
  r.status = record::RecordStatus::kOk;
  r.build = {"sim:1", "abc", "2026-11-29"};
  r.provenance.servebench_version = "0.1.0";
  r.provenance.started_at = started;
  r.provenance.ended_at = started;
  record::SetLoadResult(&r, {{"output_throughput", 1234.5 + i}, {"median_ttft_ms", 12.0}});
  r.artifacts.engine_log = "out/logs/engine.log";
  return r;
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
