#pragma once

// OOM kills as the kernel reports them. A container whose main process is OOM-killed usually
// has its cgroup deleted before the next poll of its oom_kill counter (seen with containerd 1.7
// and runc on cgroup v1, where NRI's StopContainer also arrives after the deletion, and v1's
// counter is not hierarchical, so the pod's cgroup does not keep it either). The kernel log
// keeps the record: every kill writes
//   oom-kill:constraint=CONSTRAINT_MEMCG,...,oom_memcg=/a/b,task_memcg=/a/b/c,task=tail,pid=1,uid=0
// to /dev/kmsg, naming the cgroup of the killed task. kubelet's OOM watcher reads the same.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace headroom::nri {

// The task_memcg of an "oom-kill:" kernel log record (a /dev/kmsg line, with or without its
// "prio,seq,time,flags;" prefix); nullopt for any other record.
std::optional<std::string> OomKilledCgroup(absl::string_view record);

// Where OOM kills come from, one cgroup path (relative to the hierarchy root) per kill.
class OomKillSource {
 public:
  virtual ~OomKillSource() = default;
  // The kills since the last call.
  virtual std::vector<std::string> KilledCgroups() = 0;
};

// /dev/kmsg, read without blocking from the end of the log at open.
class KernelLogOomSource : public OomKillSource {
 public:
  // PermissionDenied / NotFound etc. with the path when the log cannot be read.
  static absl::StatusOr<std::unique_ptr<KernelLogOomSource>> Open(const std::string& path);
  ~KernelLogOomSource() override;
  std::vector<std::string> KilledCgroups() override;

 private:
  explicit KernelLogOomSource(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace headroom::nri
