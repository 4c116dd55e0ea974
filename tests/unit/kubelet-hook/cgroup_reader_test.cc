// cgroup paths from both drivers, the keyed and PSI files, and reading a cgroup v1 and v2 tree.

#include "kubelet-hook/cgroup_reader.h"

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "tests/file_contents.h"
#include "tests/unit/kubelet-hook/nri_test_support.h"

namespace headroom::nri {
namespace {

TEST(CgroupRelativeDir, HandlesBothDrivers) {
  EXPECT_EQ(*CgroupRelativeDir("/kubepods/burstable/podabc/123"), "/kubepods/burstable/podabc/123");
  EXPECT_EQ(*CgroupRelativeDir("kubepods-burstable-podabc.slice:cri-containerd:123"),
            "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podabc.slice/"
            "cri-containerd-123.scope");
  EXPECT_FALSE(CgroupRelativeDir("").ok());
  EXPECT_FALSE(CgroupRelativeDir("/kubepods/../etc").ok());
  EXPECT_FALSE(CgroupRelativeDir("relative/path").ok());
}

TEST(CgroupFiles, ParseKeyedValuesAndPsi) {
  EXPECT_EQ(KeyedValue("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n", "oom_kill"), 3u);
  EXPECT_EQ(KeyedValue("low 0\nhigh 0\nmax 9\noom 2\noom_kill 1\n", "oom"), 2u);
  EXPECT_FALSE(KeyedValue("oom_kill x\n", "oom_kill").has_value());
  EXPECT_EQ(PsiSomeTotal("some avg10=0.45 avg60=13.34 avg300=7.00 total=454171074\n"
                         "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"),
            454171074u);
  EXPECT_FALSE(PsiSomeTotal("").has_value());
}

TEST_F(CgroupTreeTest, ReadsVersion1) {
  Write("cpuacct/pods/c1/cpuacct.usage", "5000000000\n");
  Write("memory/pods/c1/memory.usage_in_bytes", "104857600\n");
  Write("memory/pods/c1/memory.stat", "cache 1\ntotal_inactive_file 4857600\n");
  Write("memory/pods/c1/memory.max_usage_in_bytes", "209715200\n");
  Write("memory/pods/c1/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
  CgroupReader reader(root_.string());
  ASSERT_EQ(reader.version(), CgroupVersion::kV1);
  absl::StatusOr<CgroupSample> sample = reader.Read("/pods/c1");
  ASSERT_TRUE(sample.ok()) << sample.status();
  EXPECT_EQ(sample->cpu_usage_nanos, 5000000000u);
  EXPECT_EQ(sample->memory_working_set_bytes, 100000000);
  EXPECT_EQ(sample->memory_max_usage_bytes, 209715200);
  EXPECT_EQ(sample->oom_kills, 2u);
  EXPECT_FALSE(sample->cpu_waiting_micros.has_value());
  EXPECT_EQ(sample->psi_source, PsiSource::kNone);
  EXPECT_EQ(*reader.ReadOomKills("/pods/c1"), 2u);
  EXPECT_EQ(reader.Read("/pods/gone").status().code(), absl::StatusCode::kNotFound);
}

// A hybrid host: v1 controllers, and a unified hierarchy without controllers where runc
// creates each container's directory too, with its pressure files.
TEST_F(CgroupTreeTest, ReadsPressureFromTheUnifiedHierarchyOfAHybridHost) {
  Write("cpuacct/pods/c1/cpuacct.usage", "5000000000\n");
  Write("memory/pods/c1/memory.usage_in_bytes", "104857600\n");
  Write("memory/pods/c1/memory.stat", "total_inactive_file 0\n");
  Write("memory/pods/c1/memory.max_usage_in_bytes", "104857600\n");
  Write("memory/pods/c1/memory.oom_control", "oom_kill 0\n");
  Write("unified/cgroup.controllers", "");
  Write("unified/pods/c1/cpu.pressure",
        "some avg10=0 avg60=0 avg300=0 total=2276531\nfull total=0\n");
  Write("unified/pods/c1/memory.pressure",
        "some avg10=0 avg60=0 avg300=0 total=77\nfull total=0\n");
  // Another container whose unified directory is missing (an older runc): no PSI, no error.
  Write("cpuacct/pods/c2/cpuacct.usage", "1\n");
  Write("memory/pods/c2/memory.usage_in_bytes", "1\n");
  Write("memory/pods/c2/memory.stat", "total_inactive_file 0\n");
  Write("memory/pods/c2/memory.max_usage_in_bytes", "1\n");
  Write("memory/pods/c2/memory.oom_control", "oom_kill 0\n");
  CgroupReader reader(root_.string());
  ASSERT_EQ(reader.version(), CgroupVersion::kV1);
  absl::StatusOr<CgroupSample> sample = reader.Read("/pods/c1");
  ASSERT_TRUE(sample.ok()) << sample.status();
  EXPECT_EQ(sample->cpu_waiting_micros, 2276531u);
  EXPECT_EQ(sample->memory_waiting_micros, 77u);
  EXPECT_EQ(sample->psi_source, PsiSource::kHybrid);
  absl::StatusOr<CgroupSample> without = reader.Read("/pods/c2");
  ASSERT_TRUE(without.ok()) << without.status();
  EXPECT_FALSE(without->cpu_waiting_micros.has_value());
  EXPECT_EQ(without->psi_source, PsiSource::kNone);
  EXPECT_EQ(PsiSourceName(PsiSource::kHybrid), "hybrid");
}

TEST_F(CgroupTreeTest, ReadsVersion2) {
  Write("cgroup.controllers", "cpu memory\n");
  Write("pods/c1/cpu.stat", "usage_usec 2500000\nuser_usec 1\n");
  Write("pods/c1/cpu.pressure", "some avg10=0 avg60=0 avg300=0 total=123\nfull total=0\n");
  Write("pods/c1/memory.current", "1000\n");
  Write("pods/c1/memory.stat", "anon 900\ninactive_file 100\n");
  Write("pods/c1/memory.events", "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n");
  CgroupReader reader(root_.string());
  ASSERT_EQ(reader.version(), CgroupVersion::kV2);
  absl::StatusOr<CgroupSample> sample = reader.Read("/pods/c1");
  ASSERT_TRUE(sample.ok()) << sample.status();
  EXPECT_EQ(sample->cpu_usage_nanos, 2500000000u);
  EXPECT_EQ(sample->cpu_waiting_micros, 123u);
  EXPECT_EQ(sample->psi_source, PsiSource::kV2);
  EXPECT_EQ(sample->memory_working_set_bytes, 900);
  EXPECT_EQ(sample->oom_kills, 1u);
}

// Files a real kernel wrote: containers of the cgroup v2 VM suite (e2e/vm/run.sh; Debian's
// 6.12 kernel, runc 1.1.15, under containerd 1.7.24 and 2.4.2), recorded by the suite into
// tests/testdata/cgroup-v2. An idle shell (app), the same after headroom-nri tightened it
// in place (app-tightened), and a container whose child was OOM-killed (child-oom-killed).
struct RecordedV2Case {
  std::string dir;
  uint64_t cpu_usage_nanos;        // cpu.stat usage_usec x 1000
  int64_t working_set_bytes;       // memory.current - inactive_file
  int64_t peak_bytes;              // memory.peak
  uint64_t oom_kills;              // memory.events oom_kill
  uint64_t cpu_waiting_micros;     // cpu.pressure some total
  uint64_t memory_waiting_micros;  // memory.pressure some total
};

class RecordedV2Test : public CgroupTreeTest,
                       public ::testing::WithParamInterface<RecordedV2Case> {};

TEST_P(RecordedV2Test, ReadsWhatTheKernelWrote) {
  const RecordedV2Case& c = GetParam();
  Write("cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
  const std::filesystem::path recorded = testing::SourceFile("tests/testdata/cgroup-v2/" + c.dir);
  ASSERT_TRUE(std::filesystem::is_directory(recorded)) << recorded;
  for (const auto& file : std::filesystem::directory_iterator(recorded)) {
    Write("pods/c1/" + file.path().filename().string(), testing::FileContents(file.path()));
  }
  CgroupReader reader(root_.string());
  ASSERT_EQ(reader.version(), CgroupVersion::kV2);
  absl::StatusOr<CgroupSample> sample = reader.Read("/pods/c1");
  ASSERT_TRUE(sample.ok()) << sample.status();
  EXPECT_EQ(sample->cpu_usage_nanos, c.cpu_usage_nanos);
  EXPECT_EQ(sample->memory_working_set_bytes, c.working_set_bytes);
  EXPECT_EQ(sample->memory_max_usage_bytes, c.peak_bytes);
  EXPECT_EQ(sample->oom_kills, c.oom_kills);
  EXPECT_EQ(sample->cpu_waiting_micros, c.cpu_waiting_micros);
  EXPECT_EQ(sample->memory_waiting_micros, c.memory_waiting_micros);
  EXPECT_EQ(sample->psi_source, PsiSource::kV2);
  EXPECT_EQ(*reader.ReadOomKills("/pods/c1"), c.oom_kills);
}

INSTANTIATE_TEST_SUITE_P(
    VmSuite, RecordedV2Test,
    ::testing::Values(
        RecordedV2Case{"containerd-1.7/app", 1519664000, 614400, 14557184, 0, 54575, 0},
        RecordedV2Case{"containerd-1.7/app-tightened", 2924486000, 589824, 14557184, 0, 572158, 0},
        RecordedV2Case{"containerd-1.7/child-oom-killed", 17560745000, 212992, 67108864, 1, 1074991,
                       19362},
        RecordedV2Case{"containerd-2/app", 1498073000, 778240, 13352960, 0, 83763, 0},
        RecordedV2Case{"containerd-2/app-tightened", 3039824000, 569344, 13352960, 0, 906393, 0},
        RecordedV2Case{"containerd-2/child-oom-killed", 15631427000, 245760, 67108864, 1, 1488954,
                       50667}),
    [](const ::testing::TestParamInfo<RecordedV2Case>& info) {
      std::string name = info.param.dir;
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

}  // namespace
}  // namespace headroom::nri
