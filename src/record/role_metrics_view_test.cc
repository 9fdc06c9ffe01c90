// The role-metrics table of `results show --role-metrics` and report.md.
#include "record/role_metrics_view.h"

#include <gtest/gtest.h>

namespace servebench::record {
namespace {

TEST(RoleMetricsViewTest, ARowPerRoleAndMetricInStartOrderAColumnPerPoint) {
  RoleMetrics low = {{"router", {{"sgl_router_pd_requests_total", 8}}},
                     {"decode", {{"vllm:generation_tokens_total", 256}}},
                     {"prefill", {{"servebench:kv_handoffs_total", 8}}}};
  RoleMetrics high = {{"router", {{"sgl_router_pd_requests_total", 32}}},
                      {"decode",
                       {{"vllm:generation_tokens_total", 1024},
                        {"vllm:nixl_bytes_transferred_sum", 1073741824},
                        {"vllm:nixl_xfer_time_seconds_sum", 0.005528709119}}},
                      {"prefill", {{"servebench:kv_handoffs_total", 32}}}};
  const std::string table = RoleMetricsTable({{"conc 2", &low}, {"conc 8", &high}});
  EXPECT_EQ(table,
            "| role    | metric                          | conc 2 | conc 8     |\n"
            "| ------- | ------------------------------- | ------ | ---------- |\n"
            "| prefill | servebench:kv_handoffs_total    | 8      | 32         |\n"
            "| decode  | vllm:generation_tokens_total    | 256    | 1024       |\n"
            "| decode  | vllm:nixl_bytes_transferred_sum | -      | 1073741824 |\n"
            "| decode  | vllm:nixl_xfer_time_seconds_sum | -      | 0.00552871 |\n"
            "| router  | sgl_router_pd_requests_total    | 8      | 32         |\n");
}

TEST(RoleMetricsViewTest, NothingWhenNoPointHasRoleMetrics) {
  RoleMetrics none;
  EXPECT_EQ(RoleMetricsTable({{"value", &none}}), "");
  EXPECT_EQ(RoleMetricsTable({}), "");
}

}  // namespace
}  // namespace servebench::record
