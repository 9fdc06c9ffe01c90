#include "store/record_columns.h"

#include <gtest/gtest.h>

#include "store/store_test_util.h"

namespace servebench::store {
namespace {

using testutil::MakeRecord;

TEST(RecordColumnsTest, RecordYieldsItsIndexedColumns) {
  record::Record r = MakeRecord(3);
  r.failure_class = failure_class::kClientError;
  RecordColumns columns = ColumnsOf(r);
  EXPECT_EQ(columns.record_id, "rec-3");
  EXPECT_EQ(columns.point_id, "point-3");
  EXPECT_EQ(columns.series_id, "series-3");
  EXPECT_EQ(columns.hardware, "sim-h100");
  EXPECT_EQ(columns.precision, "fp8");
  EXPECT_EQ(columns.concurrency, 8);
  EXPECT_EQ(columns.build_date, "2026-11-29");
  EXPECT_EQ(columns.build_commit, "abc");
  EXPECT_EQ(columns.build_image, "sim:1");
  EXPECT_EQ(columns.started_at, "2026-11-29T20:03:00Z");
  EXPECT_EQ(columns.status, "ok");
  EXPECT_EQ(columns.failure_class, "client.error");
}

TEST(RecordColumnsTest, RecordWithoutLoadRunHasNoConcurrency) {
  record::Record r = MakeRecord(1);
  r.concurrency.reset();
  EXPECT_FALSE(ColumnsOf(r).concurrency.has_value());
}

}  // namespace
}  // namespace servebench::store
