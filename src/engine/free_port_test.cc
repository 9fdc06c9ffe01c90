#include "engine/free_port.h"

#include <gtest/gtest.h>

#include <fstream>

namespace servebench::engine {
namespace {

int EphemeralLowForTest() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 32768;
  in >> low;
  return low;
}

// The kernel hands out local ports of outgoing connections from the ephemeral range;
// a port picked there could be a client socket's before the engine binds it.
TEST(FreePortTest, APickedPortIsBelowTheEphemeralRangeWhereClientSocketsLive) {
  const int low = EphemeralLowForTest();
  if (low <= 10001) GTEST_SKIP() << "the ephemeral range starts at " << low;
  for (int i = 0; i < 50; ++i) {
    auto port = FindFreePort();
    ASSERT_TRUE(port.ok()) << port.status().message();
    EXPECT_GE(*port, 10000);
    EXPECT_LT(*port, low);
  }
}

TEST(FreePortTest, AHostThatIsNotAnAddressIsAnError) {
  auto port = FindFreePort("node0");
  ASSERT_FALSE(port.ok());
  EXPECT_NE(port.status().message().find("node0"), std::string::npos);
}

TEST(FreePortTest, OnlyTheCatalogueClassOfAHeldPortIsWorthAnotherStart) {
  EXPECT_TRUE(IsPortTaken(*FailureClass::Parse("infra.port_in_use")));
  EXPECT_FALSE(IsPortTaken(failure_class::kInfraStartFailed));
  EXPECT_FALSE(IsPortTaken(failure_class::kServerDiedBeforeReady));
  EXPECT_FALSE(IsPortTaken(FailureClass()));
}

}  // namespace
}  // namespace servebench::engine
