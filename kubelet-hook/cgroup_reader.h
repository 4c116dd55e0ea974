#pragma once

// Reads a container's usage from cgroupfs: cgroup v2 (unified) or v1 (one hierarchy per
// controller). The host access of headroom-nri lives here; everything that decides is pure.
//   v2: cpu.stat usage_usec, cpu.pressure, memory.current, memory.stat inactive_file,
//       memory.events oom_kill
//   v1: cpuacct/cpuacct.usage, memory/memory.usage_in_bytes, memory.stat total_inactive_file,
//       memory.oom_control oom_kill (kernel >= 4.13), memory.max_usage_in_bytes; and PSI from
//       the unified hierarchy of a hybrid host (<root>/unified, cgroup2 without controllers),
//       where runc creates each container's directory too, with cpu.pressure and
//       memory.pressure. Each sample says which source its PSI came from.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace headroom::nri {

enum class CgroupVersion { kV1, kV2 };

// Where a sample's pressure (PSI) came from.
enum class PsiSource {
  kNone,    // the kernel has no PSI for the container's cgroup (or it is off: psi=0)
  kV2,      // the container's cgroup, cgroup v2
  kHybrid,  // the container's directory in the unified hierarchy of a cgroup v1 host
};
absl::string_view PsiSourceName(PsiSource source);  // "none", "v2", "hybrid"

struct CgroupSample {
  uint64_t cpu_usage_nanos = 0;                   // cumulative
  std::optional<uint64_t> cpu_waiting_micros;     // cumulative "some" CPU stall
  std::optional<uint64_t> memory_waiting_micros;  // cumulative "some" memory stall
  PsiSource psi_source = PsiSource::kNone;
  int64_t memory_working_set_bytes = 0;  // usage minus inactive file cache
  int64_t memory_max_usage_bytes = 0;    // v1 high-water mark; v2 memory.peak when present
  uint64_t oom_kills = 0;                // cumulative oom_kill count
};

// Turns NRI's Container.linux.cgroups_path into a directory under a hierarchy root:
//   "/kubepods/burstable/pod<uid>/<id>" (cgroupfs driver) is used as is;
//   "kubepods-burstable-pod<uid>.slice:cri-containerd:<id>" (systemd driver) becomes
//   "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice/
//    cri-containerd-<id>.scope".
// InvalidArgument for an empty path or one that climbs with "..".
absl::StatusOr<std::string> CgroupRelativeDir(absl::string_view cgroups_path);

class CgroupReader {
 public:
  // `root` is the cgroupfs mount (normally /sys/fs/cgroup); the version is detected from it
  // (cgroup.controllers at the root means v2; on v1, <root>/unified/cgroup.controllers means
  // a hybrid host, whose unified hierarchy carries PSI).
  explicit CgroupReader(std::string root);
  CgroupReader(std::string root, CgroupVersion version);

  CgroupVersion version() const { return version_; }
  const std::string& root() const { return root_; }

  // NotFound when the container's cgroup is gone.
  absl::StatusOr<CgroupSample> Read(absl::string_view cgroups_path) const;
  // Just the OOM-kill counter: cheap enough to poll every second.
  absl::StatusOr<uint64_t> ReadOomKills(absl::string_view cgroups_path) const;

 private:
  std::string Dir(absl::string_view controller, absl::string_view relative) const;
  // The cpu.pressure and memory.pressure of `dir`, when it has them.
  static void ReadPressure(const std::string& dir, PsiSource source, CgroupSample& sample);

  std::string root_;
  CgroupVersion version_;
  bool hybrid_ = false;  // v1 with a unified hierarchy at <root>/unified
};

// Parses "key value" lines (cpu.stat, memory.stat, memory.events, memory.oom_control);
// nullopt when `key` is absent or not a number.
std::optional<uint64_t> KeyedValue(absl::string_view text, absl::string_view key);

// The "total=" of the "some" line of a PSI file (microseconds).
std::optional<uint64_t> PsiSomeTotal(absl::string_view text);

}  // namespace headroom::nri
