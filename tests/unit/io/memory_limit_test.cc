// The daemons find their container's memory limit on cgroup v1 and v2, inside a container
// (the mount is the container's own cgroup) and outside one.

#include "io/memory_limit.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace headroom::io {
namespace {

TEST(MemoryLimitFiles, FromProcSelfCgroup) {
  struct Case {
    const char* name;
    const char* cgroup;
    std::vector<std::string> files;
  };
  const std::vector<Case> cases = {
      {"v2 in a cgroup namespace",
       "0::/\n",
       {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.max"}},
      {"v2 on the host",
       "0::/kubepods.slice/kubepods-pod1.slice/cri-containerd-abc.scope\n",
       {"/sys/fs/cgroup/kubepods.slice/kubepods-pod1.slice/cri-containerd-abc.scope/memory.max",
        "/sys/fs/cgroup/memory.max"}},
      {"v1",
       "12:pids:/docker/abc\n9:memory:/docker/abc\n1:name=systemd:/docker/abc\n",
       {"/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes"}},
      {"v1 hybrid: the memory controller wins over the unified line",
       "9:memory:/a\n0::/b\n",
       {"/sys/fs/cgroup/memory/a/memory.limit_in_bytes",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/b/memory.max",
        "/sys/fs/cgroup/memory.max"}},
      {"a path with a colon",
       "0::/a:b\n",
       {"/sys/fs/cgroup/a:b/memory.max", "/sys/fs/cgroup/memory.max"}},
      {"garbage", "nonsense\n\n", {}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MemoryLimitFiles(c.cgroup, "/sys/fs/cgroup"), c.files) << c.name;
  }
}

TEST(ParseMemoryLimit, BytesOrNoLimit) {
  EXPECT_EQ(ParseMemoryLimit("134217728\n"), 134217728);
  EXPECT_EQ(ParseMemoryLimit("max\n"), std::nullopt);
  EXPECT_EQ(ParseMemoryLimit("9223372036854771712\n"), std::nullopt);  // v1 without a limit
  EXPECT_EQ(ParseMemoryLimit("0"), std::nullopt);
  EXPECT_EQ(ParseMemoryLimit("-5"), std::nullopt);
  EXPECT_EQ(ParseMemoryLimit(""), std::nullopt);
  EXPECT_EQ(ParseMemoryLimit("12Mi"), std::nullopt);
}

}  // namespace
}  // namespace headroom::io
