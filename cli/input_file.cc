#include "cli/input_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <istream>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace headroom::cli {
namespace {

absl::StatusOr<std::string> ReadStream(std::istream& in, absl::string_view name) {
  std::string content;
  char buffer[64 * 1024];
  while (in.read(buffer, sizeof(buffer)) || in.gcount() > 0) {
    content.append(buffer, static_cast<size_t>(in.gcount()));
    if (content.size() > kMaxInputBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": larger than ", kMaxInputBytes >> 20, " MiB"));
    }
  }
  if (in.bad()) return absl::DataLossError(absl::StrCat(name, ": read failed"));
  return content;
}

}  // namespace

absl::StatusOr<std::string> ReadInput(absl::string_view path) {
  if (path == "-") return ReadStream(std::cin, "standard input");
  std::ifstream file{std::string(path), std::ios::binary};
  if (!file) {
    const int error = errno;
    const std::string message = absl::StrCat(path, ": ", std::strerror(error));
    if (error == ENOENT) return absl::NotFoundError(message);
    if (error == EACCES) return absl::PermissionDeniedError(message);
    return absl::UnavailableError(message);
  }
  return ReadStream(file, path);
}

}  // namespace headroom::cli
