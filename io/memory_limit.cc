#include "io/memory_limit.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "io/atomic_file.h"

namespace headroom::io {
namespace {

// "/a/b" below `root`, without doubling the slash for "/".
std::string Below(absl::string_view root, absl::string_view path) {
  path = absl::StripSuffix(path, "/");
  return absl::StrCat(root, path);
}

}  // namespace

std::vector<std::string> MemoryLimitFiles(absl::string_view proc_self_cgroup,
                                          absl::string_view mount) {
  std::vector<std::string> files;
  for (absl::string_view line : absl::StrSplit(proc_self_cgroup, '\n', absl::SkipWhitespace())) {
    // hierarchy-ID:controller-list:path; the path may itself hold ':'.
    const std::vector<absl::string_view> fields = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (fields.size() != 3) continue;
    const absl::string_view path = absl::StripAsciiWhitespace(fields[2]);
    if (fields[0] == "0" && fields[1].empty()) {
      files.push_back(absl::StrCat(Below(mount, path), "/memory.max"));
      files.push_back(absl::StrCat(mount, "/memory.max"));
      continue;
    }
    for (absl::string_view controller : absl::StrSplit(fields[1], ',')) {
      if (controller != "memory") continue;
      const std::string v1 = absl::StrCat(mount, "/memory");
      files.push_back(absl::StrCat(Below(v1, path), "/memory.limit_in_bytes"));
      files.push_back(absl::StrCat(v1, "/memory.limit_in_bytes"));
    }
  }
  return files;
}

std::optional<int64_t> ParseMemoryLimit(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  int64_t bytes = 0;
  if (!absl::SimpleAtoi(text, &bytes) || bytes <= 0 || bytes >= (int64_t{1} << 62)) {
    return std::nullopt;
  }
  return bytes;
}

std::optional<int64_t> OwnMemoryLimitBytes(absl::string_view mount) {
  const absl::StatusOr<std::string> cgroups = ReadFile("/proc/self/cgroup");
  if (!cgroups.ok()) return std::nullopt;
  for (const std::string& file : MemoryLimitFiles(*cgroups, mount)) {
    const absl::StatusOr<std::string> text = ReadFile(file);
    if (!text.ok()) continue;
    return ParseMemoryLimit(*text);
  }
  return std::nullopt;
}

}  // namespace headroom::io
