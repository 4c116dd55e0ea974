// The killed task's cgroup, read from kernel log records.

#include "kubelet-hook/kernel_oom_log.h"

#include "gtest/gtest.h"

namespace headroom::nri {
namespace {

TEST(OomKilledCgroup, ReadsTheKilledTasksCgroupFromKernelRecords) {
  // A real record from this VM's /dev/kmsg (cgroup v1, memcg OOM).
  EXPECT_EQ(OomKilledCgroup("6,1724,10154604789,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=("
                            "null),cpuset=/,mems_allowed=0,oom_memcg=/hr-test/child,task_memcg=/"
                            "hr-test/child,task=tail,pid=24225,uid=0\n"),
            "/hr-test/child");
  // The pod's limit was hit, a container's task was killed: the task's cgroup counts.
  EXPECT_EQ(OomKilledCgroup("oom-kill:constraint=CONSTRAINT_MEMCG,oom_memcg=/kubepods/pod1,"
                            "task_memcg=/kubepods/pod1/c1,task=app,pid=7,uid=0"),
            "/kubepods/pod1/c1");
  for (const char* other :
       {"3,1725,1,-;Memory cgroup out of memory: Killed process 24225 (tail)",
        "oom-kill:constraint=CONSTRAINT_NONE,task=x,pid=1", "oom-kill:xtask_memcg=/a,task=x",
        "oom-kill:constraint=CONSTRAINT_MEMCG,task_memcg=,task=x", "unrelated"}) {
    EXPECT_FALSE(OomKilledCgroup(other).has_value()) << other;
  }
}

}  // namespace
}  // namespace headroom::nri
