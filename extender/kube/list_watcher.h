#pragma once

// List + watch of one Kubernetes resource, the way client-go's reflector does it: list (in
// pages) to get the current objects and a resourceVersion, then watch from that version with
// bookmarks; when the watch ends, watch again from the last version seen; when the API says
// the version is too old (410 Gone), list again; on errors, retry with exponential backoff.

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "extender/json/json_projection.h"
#include "io/kube_client.h"
#include "nlohmann/json.hpp"
#include "spdlog/logger.h"

namespace headroom::extender {

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };

struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  nlohmann::json object;
};

// One line of a watch stream: {"type": "ADDED", "object": {...}}. InvalidArgument otherwise.
// With `event_fields` (WatchEventFields), the object holds only those members
// (json_projection.h), except an ERROR event's metav1.Status, which is kept whole.
absl::StatusOr<WatchEvent> ParseWatchEvent(absl::string_view line,
                                           const FieldMask* event_fields = nullptr);

// The members of a watch event's line to keep when its object is cut to `object_fields`.
FieldMask WatchEventFields(const FieldMask& object_fields);
// The members of a list page (one GET of a list) to keep when its items are cut so.
FieldMask ListPageFields(const FieldMask& object_fields);

// metadata.resourceVersion of an object or list; empty when absent.
std::string ResourceVersionOf(const nlohmann::json& object);

// The HTTP status code of an ERROR event's metav1.Status (410 for "too old"), 0 if none.
int ErrorEventCode(const WatchEvent& event);

struct ListWatchOptions {
  std::string path;            // e.g. "/api/v1/pods"
  std::string field_selector;  // unescaped, e.g. "spec.nodeName!="
  int page_size = 500;
  absl::Duration watch_timeout = absl::Minutes(5);  // the server ends each watch after this
  // The members of each object that the handlers read (metadata.resourceVersion included);
  // nullopt: whole objects. Listed items and watched objects are cut alike.
  std::optional<FieldMask> fields;
  absl::Duration initial_backoff = absl::Seconds(1);
  absl::Duration max_backoff = absl::Seconds(30);
};

// The query strings the watcher sends (pure, for tests).
std::string ListQuery(const ListWatchOptions& options, const std::string& continue_token);
std::string WatchQuery(const ListWatchOptions& options, const std::string& resource_version);

class ListWatcher {
 public:
  struct Handlers {
    // The complete current set of objects, after every (re)list.
    std::function<void(std::vector<nlohmann::json> items)> replace;
    // ADDED, MODIFIED and DELETED events (bookmarks and errors are handled here).
    std::function<void(const WatchEvent& event)> event;
  };

  ListWatcher(io::KubeClient& client, ListWatchOptions options, Handlers handlers,
              std::shared_ptr<spdlog::logger> logger);

  // Lists and watches until Stop(). Call from a thread of its own.
  void Run();
  // Ends Run() promptly (cancels the running request).
  void Stop();

  bool synced() const { return synced_.load(); }
  int64_t lists() const { return lists_.load(); }
  int64_t watch_errors() const { return errors_.load(); }

 private:
  // The current objects and their list's resourceVersion, all pages.
  absl::StatusOr<std::string> List();
  // One watch from `resource_version`; updates it as events arrive. OutOfRange when the
  // version is too old.
  absl::Status WatchOnce(std::string& resource_version);

  io::KubeClient& client_;
  const ListWatchOptions options_;
  const Handlers handlers_;
  std::shared_ptr<spdlog::logger> logger_;
  absl::Notification stop_;
  std::atomic<bool> synced_{false};
  std::atomic<int64_t> lists_{0};
  std::atomic<int64_t> errors_{0};
  // From options_.fields (empty when whole objects are kept).
  std::optional<FieldMask> event_fields_;
  std::optional<FieldMask> page_fields_;
};

}  // namespace headroom::extender
