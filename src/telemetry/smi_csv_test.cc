// The CLI formats of reference power.md §1.1 and §1.4 (nvidia-smi --format=csv with
// units in header and cells; amd-smi's MI355X watch rows with quoted lists, N/A
// cells and a trailing CR) and InferenceX's column and timestamp rules.
#include "telemetry/smi_csv.h"

#include <gtest/gtest.h>

#include <ctime>

namespace servebench::telemetry {
namespace {

double LocalUnix(int y, int mo, int d, int h, int mi, int s) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  tm.tm_isdst = -1;
  return static_cast<double>(mktime(&tm));
}

TEST(SmiCsvTest, NvidiaSmiRowsWithUnits) {
  SmiCsvParser p;
  ASSERT_TRUE(
      p.SetHeader(
           "timestamp, index, uuid, power.draw [W], temperature.gpu, clocks.current.sm [MHz], "
           "utilization.gpu [%], memory.used [MiB]")
          .ok());
  EXPECT_EQ(p.power_column(), "power.draw [W]");
  std::optional<SmiRow> r =
      p.ParseRow("2026/08/22 04:59:01.123, 3, GPU-abc, 612.45 W, 61, 1980 MHz, 97 %, 1024 MiB");
  ASSERT_TRUE(r);
  EXPECT_NEAR(*r->unix_s, LocalUnix(2026, 8, 22, 4, 59, 1) + 0.123, 1e-6);
  EXPECT_EQ(r->gpu, "3");
  EXPECT_EQ(r->uuid, "GPU-abc");
  EXPECT_DOUBLE_EQ(*r->power_w, 612.45);
  EXPECT_DOUBLE_EQ(*r->temp_c, 61);
  EXPECT_DOUBLE_EQ(*r->sm_clock_mhz, 1980);
  EXPECT_DOUBLE_EQ(*r->util_pct, 97);
  EXPECT_DOUBLE_EQ(*r->mem_used_mib, 1024);
  std::optional<SmiRow> na =
      p.ParseRow("2026/08/22 04:59:02.123, 3, GPU-abc, [N/A], 61, [Not Supported], 97 %, 1 MiB");
  ASSERT_TRUE(na);
  EXPECT_FALSE(na->power_w.has_value());
  EXPECT_FALSE(na->sm_clock_mhz.has_value());
}

TEST(SmiCsvTest, ThePowerColumnIsTheFirstWithoutLimitCapMaxMin) {
  SmiCsvParser p;
  ASSERT_TRUE(
      p.SetHeader("timestamp, index, power.limit [W], enforced.power.limit [W], power.draw [W]")
          .ok());
  EXPECT_EQ(p.power_column(), "power.draw [W]");
}

TEST(SmiCsvTest, AmdSmiWatchRowsOfMi355x) {
  SmiCsvParser p;
  const char* header =
      "timestamp,gpu,gfx_activity,umc_activity,mm_activity,vcn_activity,jpeg_activity,gfx_busy_"
      "inst_xcp_0,"
      "jpeg_busy_xcp_0,vcn_busy_xcp_0,socket_power,gfx_voltage,soc_voltage,mem_voltage,throttle_"
      "status,"
      "power_management,gfx_0_clk,mem_0_clk,edge,hotspot,mem";
  EXPECT_TRUE(SmiCsvParser::IsHeader(header));
  ASSERT_TRUE(p.SetHeader(header).ok());
  EXPECT_EQ(p.power_column(), "socket_power");
  std::optional<SmiRow> r = p.ParseRow(
      "1787277560,5,97,40,N/A,\"['N/A', 'N/A', 'N/A', 'N/A']\",\"['N/A', 'N/A']\",\"[0, 0, 0, 0, "
      "0, 0, 0, 0]\","
      "\"[0, 0]\",\"[0, 0]\",256,N/A,N/A,N/A,N/A,ENABLED,1404,2000,N/A,40,25\r");
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(*r->unix_s, 1787277560.0);
  EXPECT_EQ(r->gpu, "5");
  EXPECT_DOUBLE_EQ(*r->power_w, 256);
  EXPECT_DOUBLE_EQ(*r->util_pct, 97);
  EXPECT_DOUBLE_EQ(*r->sm_clock_mhz, 1404);
  EXPECT_DOUBLE_EQ(*r->temp_c, 40);              // hotspot
  EXPECT_FALSE(p.ParseRow(header).has_value());  // the header repeats every tick
  EXPECT_FALSE(p.ParseRow("").has_value());
}

TEST(SmiCsvTest, AmdSmiEnergySnapshot) {
  SmiCsvParser p;
  ASSERT_TRUE(p.SetHeader("gpu,socket_power,gfx_voltage,soc_voltage,mem_voltage,throttle_status,"
                          "power_management,total_energy_consumption",
                          /*need_time=*/false, /*need_power=*/false)
                  .ok());
  std::optional<SmiRow> r = p.ParseRow("0,238,N/A,N/A,N/A,N/A,ENABLED,178319501.682");
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(*r->energy_j, 178319501.682);
  EXPECT_FALSE(p.ParseRow("1,239,N/A,N/A,N/A,N/A,ENABLED,N/A")->energy_j.has_value());
}

TEST(SmiCsvTest, AHeaderWithoutAPowerColumnSaysWhatIsMissing) {
  SmiCsvParser p;
  Status s = p.SetHeader("timestamp, index, temperature.gpu");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("a power column"), std::string::npos);
}

TEST(SmiCsvTest, TimestampsAsInferenceXParsesThem) {
  EXPECT_DOUBLE_EQ(*ParseTimestampCell("1736942096.789"), 1736942096.789);
  EXPECT_DOUBLE_EQ(*ParseTimestampCell("1736942096789"), 1736942096.789);  // ms above 1e12
  EXPECT_NEAR(*ParseTimestampCell("2025-01-15T12:34:56.789"),
              LocalUnix(2025, 1, 15, 12, 34, 56) + 0.789, 1e-6);
  EXPECT_NEAR(*ParseTimestampCell("2025/01/15 12:34:56"), LocalUnix(2025, 1, 15, 12, 34, 56), 1e-6);
  EXPECT_DOUBLE_EQ(*ParseTimestampCell("2025-01-15T12:34:56Z"), 1736944496.0);
  EXPECT_DOUBLE_EQ(*ParseTimestampCell("2025-01-15T13:34:56+01:00"), 1736944496.0);
  EXPECT_FALSE(ParseTimestampCell("not-a-date").has_value());
  EXPECT_FALSE(ParseTimestampCell("").has_value());
}

TEST(SmiCsvTest, NumberCells) {
  EXPECT_DOUBLE_EQ(*ParseNumberCell("412.34 W"), 412.34);
  EXPECT_DOUBLE_EQ(*ParseNumberCell(" 412.34"), 412.34);
  EXPECT_FALSE(ParseNumberCell("[N/A]").has_value());
  EXPECT_FALSE(ParseNumberCell("N/A").has_value());
  EXPECT_FALSE(ParseNumberCell("").has_value());
}

}  // namespace
}  // namespace servebench::telemetry
