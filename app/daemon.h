#pragma once

// What both daemons do the same way at start: logging, and the recovery of a checkpoint.

#include <cstddef>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "spdlog/spdlog.h"

namespace headroom::app {

// The one logging style of both daemons: every line goes through spdlog's default logger,
// named after the binary ("[headroom-nri]"), at `level` (trace .. error; SPDLOG_LEVEL
// overrides); components that take a logger are given that one. Also turns Abseil's Mutex
// deadlock detection off: Debian's Abseil keeps it on, a graph update on every lock, found in
// the extender's latency profile; headroom's locks do not nest.
void SetUpDaemon(const std::string& name, const std::string& level);

// Loads the checkpoint `file` in `dir` with `load` (which returns the entries restored, or
// NotFound when there is none yet) and logs the outcome. Temporaries of an interrupted write
// are removed first. An unreadable checkpoint is moved aside for inspection and the daemon
// starts without it rather than not at all; a missing `dir` is created (0700). Logs "loaded
// statistics of N <what> from DIR".
// The entries restored (0 on any failure).
size_t RecoverCheckpoint(const std::string& dir, const std::string& file,
                         absl::FunctionRef<absl::StatusOr<size_t>()> load, const std::string& what,
                         spdlog::logger& log);

}  // namespace headroom::app
