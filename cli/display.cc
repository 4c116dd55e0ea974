#include "cli/display.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "shared/quantity.h"

namespace headroom::cli {

std::string DisplayCpu(int64_t millis) {
  if (millis == std::numeric_limits<int64_t>::max()) return "unbounded";
  if (millis % 1000 == 0 || millis < 10'000) return FormatCpuMillis(millis);
  return absl::StrFormat("%.2f", static_cast<double>(millis) / 1000);
}

std::string DisplayMemory(int64_t bytes) {
  if (bytes == std::numeric_limits<int64_t>::max()) return "unbounded";
  constexpr int64_t kMi = 1LL << 20;
  constexpr int64_t kGi = 1LL << 30;
  if (bytes % kMi == 0 || bytes < kMi) return FormatMemoryBytes(bytes);
  if (bytes < kGi) return absl::StrFormat("%.1fMi", static_cast<double>(bytes) / kMi);
  return absl::StrFormat("%.2fGi", static_cast<double>(bytes) / kGi);
}

std::string FormatTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      absl::StrAppend(&line, row[i]);
      if (i + 1 < row.size()) line.append(widths[i] - row[i].size() + 2, ' ');
    }
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

}  // namespace headroom::cli
