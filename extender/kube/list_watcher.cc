#include "extender/kube/list_watcher.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "codec/json_lenient.h"
#include "shared/status_macros.h"

namespace headroom::extender {

using ::headroom::codec::NestedString;

using nlohmann::json;

FieldMask WatchEventFields(const FieldMask& object_fields) {
  return FieldMask{{"type"}, {"object", object_fields}};
}

FieldMask ListPageFields(const FieldMask& object_fields) {
  return FieldMask{{"metadata"}, {"items", object_fields}};
}

namespace {

// The event's line as a document, cut when asked; discarded when it is not JSON.
json ParseEventLine(absl::string_view line, const FieldMask* event_fields) {
  if (event_fields == nullptr) return io::ParseApiJson(line);
  absl::StatusOr<json> document = ParseProjected(line, *event_fields);
  if (!document.ok()) return json(json::value_t::discarded);
  if (const auto type = document->find("type");
      type != document->end() && type->is_string() && *type == "ERROR") {
    return io::ParseApiJson(line);  // the Status, whole
  }
  return *std::move(document);
}

}  // namespace

absl::StatusOr<WatchEvent> ParseWatchEvent(absl::string_view line, const FieldMask* event_fields) {
  json document = ParseEventLine(line, event_fields);
  if (!document.is_object()) return absl::InvalidArgumentError("watch event: not a JSON object");
  const auto type = document.find("type");
  const auto object = document.find("object");
  if (type == document.end() || !type->is_string()) {
    return absl::InvalidArgumentError("watch event: no type");
  }
  if (object == document.end() || !object->is_object()) {
    return absl::InvalidArgumentError("watch event: no object");
  }
  static const std::pair<const char*, WatchEventType> kTypes[] = {
      {"ADDED", WatchEventType::kAdded},     {"MODIFIED", WatchEventType::kModified},
      {"DELETED", WatchEventType::kDeleted}, {"BOOKMARK", WatchEventType::kBookmark},
      {"ERROR", WatchEventType::kError},
  };
  const std::string& name = type->get_ref<const std::string&>();
  for (const auto& [text, value] : kTypes) {
    if (name == text) return WatchEvent{value, std::move(*object)};
  }
  return absl::InvalidArgumentError(absl::StrCat("watch event: unknown type \"", name, "\""));
}

std::string ResourceVersionOf(const json& object) {
  return NestedString(object, "metadata", "resourceVersion");
}

int ErrorEventCode(const WatchEvent& event) {
  const auto code = event.object.find("code");
  return code != event.object.end() && code->is_number_integer() ? code->get<int>() : 0;
}

namespace {

std::string Escape(const std::string& value) {
  std::string out;
  for (const unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      absl::StrAppend(&out, absl::StrFormat("%%%02X", c));
    }
  }
  return out;
}

std::string Selector(const ListWatchOptions& options) {
  return options.field_selector.empty() ? "" : "&fieldSelector=" + Escape(options.field_selector);
}

}  // namespace

std::string ListQuery(const ListWatchOptions& options, const std::string& continue_token) {
  std::string query = absl::StrCat(options.path, "?limit=", options.page_size, Selector(options));
  if (!continue_token.empty()) absl::StrAppend(&query, "&continue=", Escape(continue_token));
  return query;
}

std::string WatchQuery(const ListWatchOptions& options, const std::string& resource_version) {
  return absl::StrCat(
      options.path, "?watch=1&allowWatchBookmarks=true&resourceVersion=", Escape(resource_version),
      "&timeoutSeconds=", absl::ToInt64Seconds(options.watch_timeout), Selector(options));
}

ListWatcher::ListWatcher(io::KubeClient& client, ListWatchOptions options, Handlers handlers,
                         std::shared_ptr<spdlog::logger> logger)
    : client_(client),
      options_(std::move(options)),
      handlers_(std::move(handlers)),
      logger_(std::move(logger)) {
  if (options_.fields.has_value()) {
    event_fields_ = WatchEventFields(*options_.fields);
    page_fields_ = ListPageFields(*options_.fields);
  }
}

absl::StatusOr<std::string> ListWatcher::List() {
  std::vector<json> items;
  std::string continue_token;
  std::string resource_version;
  do {
    HEADROOM_ASSIGN_OR_RETURN(const std::string body,
                              client_.Get(ListQuery(options_, continue_token), absl::Minutes(1)));
    json page;
    if (page_fields_.has_value()) {
      page = ParseProjected(body, *page_fields_).value_or(json(json::value_t::discarded));
    } else {
      page = io::ParseApiJson(body);
    }
    if (!page.is_object() || !page.contains("items") || !page["items"].is_array()) {
      return absl::InternalError(absl::StrCat("list ", options_.path, ": not a list"));
    }
    for (json& item : page["items"]) items.push_back(std::move(item));
    resource_version = ResourceVersionOf(page);
    const json& metadata = page["metadata"];
    continue_token =
        metadata.is_object() && metadata.contains("continue") && metadata["continue"].is_string()
            ? metadata["continue"].get<std::string>()
            : "";
  } while (!continue_token.empty() && !stop_.HasBeenNotified());
  ++lists_;
  logger_->info("listed {} objects from {} at resourceVersion {}", items.size(), options_.path,
                resource_version);
  handlers_.replace(std::move(items));
  synced_ = true;
  return resource_version;
}

absl::Status ListWatcher::WatchOnce(std::string& resource_version) {
  absl::Status event_error;
  const absl::Status status = client_.Watch(
      WatchQuery(options_, resource_version), options_.watch_timeout + absl::Seconds(30),
      [&](absl::string_view line) {
        absl::StatusOr<WatchEvent> event =
            ParseWatchEvent(line, event_fields_.has_value() ? &*event_fields_ : nullptr);
        if (!event.ok()) {
          event_error = event.status();
          return false;
        }
        if (event->type == WatchEventType::kError) {
          const int code = ErrorEventCode(*event);
          const std::string message = event->object.value("message", "");
          event_error =
              code == 410 ? absl::OutOfRangeError(message)
                          : absl::InternalError(absl::StrCat("watch error ", code, ": ", message));
          return false;
        }
        if (const std::string version = ResourceVersionOf(event->object); !version.empty()) {
          resource_version = version;
        }
        if (event->type != WatchEventType::kBookmark) handlers_.event(*event);
        return true;
      });
  return event_error.ok() ? status : event_error;
}

void ListWatcher::Run() {
  std::string resource_version;
  absl::Duration backoff = options_.initial_backoff;
  while (!stop_.HasBeenNotified()) {
    absl::Status status;
    if (resource_version.empty()) {
      absl::StatusOr<std::string> listed = List();
      status = listed.status();
      if (listed.ok()) resource_version = *listed;
    }
    if (status.ok()) status = WatchOnce(resource_version);
    if (stop_.HasBeenNotified()) break;
    if (status.ok()) {
      backoff = options_.initial_backoff;  // the server ended the watch on time
      continue;
    }
    if (absl::IsOutOfRange(status)) {
      logger_->info("{}: resourceVersion {} is too old, listing again", options_.path,
                    resource_version);
      resource_version.clear();
      continue;
    }
    ++errors_;
    logger_->warn("{}: {}; retrying in {}", options_.path, std::string(status.message()),
                  absl::FormatDuration(backoff));
    stop_.WaitForNotificationWithTimeout(backoff);
    backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

void ListWatcher::Stop() {
  if (!stop_.HasBeenNotified()) stop_.Notify();
  client_.Cancel();
}

}  // namespace headroom::extender
