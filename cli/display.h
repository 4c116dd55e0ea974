#pragma once

// Human-readable amounts for tables (JSON output keeps exact integers).

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::cli {

// "500m", "2", "1.25" cores: millicores below 10 cores unless whole, else cores with two
// decimals. INT64_MAX shows as "unbounded".
std::string DisplayCpu(int64_t millis);

// "512Mi", "1.2Gi", "980.5Mi": exact binary suffix when it divides, else one decimal in Mi
// below 1 Gi and two decimals in Gi above. INT64_MAX shows as "unbounded".
std::string DisplayMemory(int64_t bytes);

// Pads or truncates nothing: joins cells with two spaces after padding each column to the
// widest cell. `rows` includes the header row.
std::string FormatTable(const std::vector<std::vector<std::string>>& rows);

}  // namespace headroom::cli
