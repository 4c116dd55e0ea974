#pragma once

// The memory limit of the cgroup this process runs in (its container's limit in a pod), so a
// daemon can size what it keeps to what it may use. cgroup v2 ("0::/path" in /proc/self/cgroup,
// memory.max) and v1 ("N:memory:/path", memory.limit_in_bytes). Inside a container the cgroup
// file system is usually mounted at the container's own cgroup, so the path from
// /proc/self/cgroup is tried below the mount first and the mount's root second.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace headroom::io {

// The cgroup files that may hold this process's memory limit, most specific first, from
// /proc/self/cgroup's text and the cgroup mount ("/sys/fs/cgroup").
std::vector<std::string> MemoryLimitFiles(absl::string_view proc_self_cgroup,
                                          absl::string_view mount);

// A limit file's value in bytes; nullopt for "max" (v2), for v1's "no limit" (a value of
// 2^62 or more, the page-rounded INT64_MAX) and for anything that is not a positive integer.
std::optional<int64_t> ParseMemoryLimit(absl::string_view text);

// The first limit found in MemoryLimitFiles; nullopt when none is set or none is readable.
std::optional<int64_t> OwnMemoryLimitBytes(absl::string_view mount = "/sys/fs/cgroup");

}  // namespace headroom::io
