#include "app/daemon.h"

#include <filesystem>
#include <system_error>

#include "absl/synchronization/mutex.h"
#include "io/atomic_file.h"
#include "spdlog/cfg/env.h"

namespace headroom::app {

void SetUpDaemon(const std::string& name, const std::string& level) {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  spdlog::set_default_logger(spdlog::default_logger()->clone(name));
  spdlog::set_level(spdlog::level::from_str(level));
  spdlog::cfg::load_env_levels();
}

size_t RecoverCheckpoint(const std::string& dir, const std::string& file,
                         absl::FunctionRef<absl::StatusOr<size_t>()> load, const std::string& what,
                         spdlog::logger& log) {
  const std::string path = dir + "/" + file;
  if (const size_t stale = io::RemoveStaleTemporaries(path); stale > 0) {
    log.warn("removed {} temporary files of an interrupted checkpoint in {}", stale, dir);
  }
  absl::StatusOr<size_t> loaded = load();
  if (loaded.ok()) {
    log.info("loaded statistics of {} {} from {}", *loaded, what, dir);
    return *loaded;
  }
  if (absl::IsNotFound(loaded.status())) {
    // A missing directory is made (as a hostPath of type DirectoryOrCreate would be), so the
    // first checkpoint does not fail; when it cannot be, every checkpoint will, and says so.
    std::error_code error;
    if (std::filesystem::create_directories(dir, error)) {
      std::filesystem::permissions(dir, std::filesystem::perms::owner_all, error);
      log.info("no checkpoint yet: created {}", dir);
    } else if (error) {
      log.error("no checkpoint in {}, and it cannot be created ({}): checkpoints will fail", dir,
                error.message());
    } else {
      log.info("no checkpoint in {} yet", dir);
    }
    return 0;
  }
  const absl::StatusOr<std::string> aside = io::MoveAside(path);
  log.error("{}; {}, starting without statistics", std::string(loaded.status().message()),
            aside.ok() ? "moved aside to " + *aside
                       : "left in place (" + std::string(aside.status().message()) +
                             "); the next checkpoint replaces it");
  return 0;
}

}  // namespace headroom::app
