// bench_store_ingest: what the results store costs. Ingests N records one by one
// (as `run` does after each point), ingests them again (all already present), then
// times the reads that results, run --resume and regress make.
//
//   bench_store_ingest [N] [--db URL]   default: 10000 records into a new SQLite file
//                                       in TMPDIR; with --db, a URL of an EMPTY store
//                                       (e.g. a new PostgreSQL database)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "record/record_json.h"
#include "store/store.h"
#include "store/store_test_util.h"

using namespace servebench;

namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  int n = 10000;
  std::string url;
  store::testutil::TempDir dir;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--db" && i + 1 < argc) {
      url = argv[++i];
    } else {
      n = std::atoi(argv[i]);
    }
  }
  if (url.empty()) url = dir.File("bench.db");
  auto opened = store::Open(url);
  if (!opened.ok()) {
    std::fprintf(stderr, "%s\n", opened.status().ToString().c_str());
    return 1;
  }
  store::Store& db = **opened;
  std::vector<record::Record> records;
  std::vector<std::string> point_ids;
  for (int i = 0; i < n; ++i) {
    records.push_back(store::testutil::MakeRecord(i));
    point_ids.push_back("point-" + std::to_string(i));
  }
  std::printf("store: %s, %d records of %zu bytes\n", db.Describe().c_str(), n,
              record::ToJsonText(records[0]).size());

  for (const char* pass : {"ingest (new)", "ingest (already present)"}) {
    auto start = std::chrono::steady_clock::now();
    for (const auto& r : records) {
      auto outcome = db.Ingest(r);
      if (!outcome.ok()) {
        std::fprintf(stderr, "%s\n", outcome.status().ToString().c_str());
        return 1;
      }
    }
    double s = SecondsSince(start);
    std::printf("%-26s %8.0f records/s  (%.3f s, %.1f us/record)\n", pass, n / s, s, s * 1e6 / n);
  }
  auto timed = [&](const char* what, auto&& fn) {
    auto start = std::chrono::steady_clock::now();
    size_t count = fn();
    std::printf("%-26s %8.2f ms  (%zu results)\n", what, SecondsSince(start) * 1e3, count);
  };
  timed("query all", [&] { return db.Query({}).value().size(); });
  timed("query engine+status", [&] {
    store::RecordFilter f;
    f.engine = "sim";
    f.status = "ok";
    f.limit = 100;
    return db.Query(f).value().size();
  });
  timed("query point_id", [&] {
    store::RecordFilter f;
    f.point_id = "point-" + std::to_string(n / 2);
    return db.Query(f).value().size();
  });
  timed("ok point ids (all asked)", [&] { return db.OkPointIds(point_ids).value().size(); });
  timed("series", [&] { return db.Series("series-" + std::to_string(n / 3)).value().size(); });
  return 0;
}
