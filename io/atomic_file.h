#pragma once

// Files that are either wholly old or wholly new, never half written: content goes to a
// temporary file in the same directory, is fsync'ed, renamed over the target (atomic on
// POSIX), and the directory is fsync'ed so the rename survives a crash.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace headroom::io {

absl::Status WriteFileAtomically(const std::string& path, absl::string_view content);

// NotFound when the file does not exist; other errors carry the path and errno text.
absl::StatusOr<std::string> ReadFile(const std::string& path);

// Removes the temporary files WriteFileAtomically left for `path` when the process died
// mid-write (".<name>.XXXXXX" beside it); returns how many it removed. Call before the
// first write, when no other writer of `path` runs.
size_t RemoveStaleTemporaries(const std::string& path);

// Renames an unreadable `path` to "<path>.corrupt" for inspection; the error, with the
// reason, when that fails (a read-only directory), so the caller can say what really happened.
absl::StatusOr<std::string> MoveAside(const std::string& path);

}  // namespace headroom::io
