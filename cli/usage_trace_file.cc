#include "cli/usage_trace_file.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "absl/strings/str_cat.h"
#include "cli/input_file.h"

namespace headroom::cli {
namespace {

struct GzCloser {
  void operator()(gzFile file) const { gzclose(file); }
};

}  // namespace

absl::StatusOr<sim::UsageTrace> LoadUsageTrace(absl::string_view directory) {
  const std::filesystem::path dir{std::string(directory)};
  const std::string workloads_path = (dir / "workloads.csv").string();
  absl::StatusOr<std::string> workloads = ReadInput(workloads_path);
  if (!workloads.ok()) return workloads.status();
  std::string usage_path = (dir / "usage.csv.gz").string();
  if (!std::filesystem::exists(usage_path)) usage_path = (dir / "usage.csv").string();
  absl::StatusOr<sim::UsageTraceParser> parser =
      sim::UsageTraceParser::Create(*workloads, workloads_path, usage_path);
  if (!parser.ok()) return parser.status();

  // zlib reads plain files as they are, so one reader serves usage.csv and usage.csv.gz.
  std::unique_ptr<gzFile_s, GzCloser> file(gzopen(usage_path.c_str(), "rb"));
  if (file == nullptr) {
    const int error = errno;
    const std::string message = absl::StrCat(
        usage_path, ": ", error != 0 ? std::strerror(error) : "cannot open",
        " (a usage trace directory holds workloads.csv and usage.csv.gz or usage.csv)");
    return error == ENOENT ? absl::NotFoundError(message) : absl::UnavailableError(message);
  }
  gzbuffer(file.get(), 1 << 20);
  char line[kMaxTraceLineBytes + 2];
  int64_t line_number = 0;
  while (gzgets(file.get(), line, sizeof(line)) != nullptr) {
    ++line_number;
    size_t length = std::strlen(line);
    const bool complete = length > 0 && line[length - 1] == '\n';
    if (!complete && !gzeof(file.get())) {
      return absl::InvalidArgumentError(absl::StrCat(
          usage_path, ": line ", line_number, ": longer than ", kMaxTraceLineBytes, " bytes"));
    }
    if (complete) --length;
    if (absl::Status status = parser->AddUsageLine({line, length}, line_number); !status.ok()) {
      return status;
    }
  }
  int error = Z_OK;
  const char* message = gzerror(file.get(), &error);
  if (error != Z_OK && error != Z_STREAM_END) {
    return absl::DataLossError(absl::StrCat(usage_path, ": after line ", line_number, ": ",
                                            message != nullptr ? message : "read failed"));
  }
  return std::move(*parser).Finish();
}

}  // namespace headroom::cli
