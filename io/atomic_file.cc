#include "io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace headroom::io {
namespace {

absl::Status Errno(absl::string_view what, const std::string& path) {
  const int error = errno;
  const std::string message = absl::StrCat(what, " ", path, ": ", std::strerror(error));
  if (error == ENOENT) return absl::NotFoundError(message);
  if (error == EACCES || error == EPERM) return absl::PermissionDeniedError(message);
  return absl::UnavailableError(message);
}

// Writes everything, retrying short writes and EINTR.
bool WriteAll(int fd, absl::string_view content) {
  while (!content.empty()) {
    const ssize_t written = ::write(fd, content.data(), content.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    content.remove_prefix(static_cast<size_t>(written));
  }
  return true;
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path, absl::string_view content) {
  const std::filesystem::path target(path);
  const std::filesystem::path directory =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string temp = (directory / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return Errno("cannot create a temporary file for", path);
  if (!WriteAll(fd, content) || ::fsync(fd) != 0) {
    const absl::Status status = Errno("cannot write", temp);
    ::close(fd);
    ::unlink(temp.c_str());
    return status;
  }
  if (::close(fd) != 0) {
    const absl::Status status = Errno("cannot close", temp);
    ::unlink(temp.c_str());
    return status;
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const absl::Status status = Errno("cannot rename into", path);
    ::unlink(temp.c_str());
    return status;
  }
  // Persist the rename itself.
  const int dir_fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Errno("cannot open", path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("cannot read ", path));
  return buffer.str();
}

size_t RemoveStaleTemporaries(const std::string& path) {
  const std::filesystem::path target(path);
  const std::filesystem::path directory =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  const std::string prefix = "." + target.filename().string() + ".";
  std::error_code error;
  size_t removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    // mkstemp's suffix: exactly six characters after the prefix.
    if (name.size() != prefix.size() + 6 || name.compare(0, prefix.size(), prefix) != 0) continue;
    std::error_code ignored;
    if (entry.is_regular_file(ignored) && std::filesystem::remove(entry.path(), ignored)) {
      ++removed;
    }
  }
  return removed;
}

absl::StatusOr<std::string> MoveAside(const std::string& path) {
  const std::string aside = path + ".corrupt";
  if (::rename(path.c_str(), aside.c_str()) != 0) return Errno("cannot move aside", path);
  return aside;
}

}  // namespace headroom::io
