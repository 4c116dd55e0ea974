#include "shared/workload_key.h"

#include "absl/strings/str_cat.h"

namespace headroom {

std::string WorkloadContainerKey(absl::string_view workload_key, absl::string_view container) {
  return absl::StrCat(workload_key, "#", container);
}

std::string WorkloadKind(absl::string_view workload_key) {
  const size_t first = workload_key.find('/');
  if (first == absl::string_view::npos) return "";
  const size_t second = workload_key.find('/', first + 1);
  if (second == absl::string_view::npos) return "";
  return std::string(workload_key.substr(first + 1, second - first - 1));
}

}  // namespace headroom
