#include "kubelet-hook/kernel_oom_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace headroom::nri {

std::optional<std::string> OomKilledCgroup(absl::string_view record) {
  const size_t start = record.find("oom-kill:");
  if (start == absl::string_view::npos) return std::nullopt;
  constexpr absl::string_view kKey = "task_memcg=";
  size_t at = record.find(kKey, start);
  if (at == absl::string_view::npos) return std::nullopt;
  // The key must start a field, not end another ("xtask_memcg=").
  if (record[at - 1] != ',' && record[at - 1] != ':') return std::nullopt;
  at += kKey.size();
  const size_t end = record.find_first_of(",\n", at);
  absl::string_view path =
      record.substr(at, end == absl::string_view::npos ? record.npos : end - at);
  if (path.empty() || path.front() != '/') return std::nullopt;
  return std::string(path);
}

absl::StatusOr<std::unique_ptr<KernelLogOomSource>> KernelLogOomSource::Open(
    const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    const std::string message = absl::StrCat("open ", path, ": ", std::strerror(error));
    return error == EACCES || error == EPERM ? absl::PermissionDeniedError(message)
                                             : absl::NotFoundError(message);
  }
  // Only kills from now on: older ones were counted, or not ours to count.
  ::lseek(fd, 0, SEEK_END);
  return std::unique_ptr<KernelLogOomSource>(new KernelLogOomSource(fd));
}

KernelLogOomSource::~KernelLogOomSource() { ::close(fd_); }

std::vector<std::string> KernelLogOomSource::KilledCgroups() {
  std::vector<std::string> killed;
  char record[8192];
  while (true) {
    // /dev/kmsg returns one record per read.
    const ssize_t n = ::read(fd_, record, sizeof(record));
    if (n > 0) {
      if (std::optional<std::string> cgroup = OomKilledCgroup(absl::string_view(record, n))) {
        killed.push_back(std::move(*cgroup));
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    // EPIPE: records were overwritten before we read them; the next read continues after them.
    if (n < 0 && errno == EPIPE) continue;
    break;  // EAGAIN: nothing more for now
  }
  return killed;
}

}  // namespace headroom::nri
