// The plugin name and index NRI accepts.

#include "kubelet-hook/transport/plugin_runner.h"

#include "gtest/gtest.h"

namespace headroom::nri {
namespace {

TEST(ValidatePluginIdentity, FollowsNriRules) {
  EXPECT_TRUE(ValidatePluginIdentity("headroom", "50").ok());
  EXPECT_FALSE(ValidatePluginIdentity("headroom", "7").ok());
  EXPECT_FALSE(ValidatePluginIdentity("headroom", "5a").ok());
  EXPECT_FALSE(ValidatePluginIdentity("", "50").ok());
  EXPECT_FALSE(ValidatePluginIdentity("bad name", "50").ok());
}

}  // namespace
}  // namespace headroom::nri
