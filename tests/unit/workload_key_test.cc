#include "shared/workload_key.h"

#include <gtest/gtest.h>

namespace headroom {
namespace {

TEST(WorkloadKey, ContainerKey) {
  EXPECT_EQ(WorkloadContainerKey("ns/Deployment/web", "app"), "ns/Deployment/web#app");
}

TEST(WorkloadKey, KindTable) {
  struct Case {
    const char* key;
    const char* want;
  };
  const Case cases[] = {
      {"ns/Deployment/web", "Deployment"},
      {"ns/DaemonSet/agent", "DaemonSet"},
      {"ns/Pod/lonely", "Pod"},
      {"ns//web", ""},
      {"ns/Deployment", ""},
      {"web", ""},
      {"", ""},
  };
  for (const Case& c : cases) EXPECT_EQ(WorkloadKind(c.key), c.want) << c.key;
}

}  // namespace
}  // namespace headroom
