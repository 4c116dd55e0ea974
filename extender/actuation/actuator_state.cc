#include "extender/actuation/actuator_state.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "nlohmann/json.hpp"
#include "shared/json_nesting.h"

namespace headroom::extender {
namespace {

using json = nlohmann::json;

constexpr char kShrinksKey[] = "shrinkLedger";
constexpr char kEvictionsKey[] = "recentEvictions";

// The three values of ShrinkTimes and their JSON keys.
struct Field {
  const char* key;
  std::optional<absl::Time> ShrinkTimes::*member;
};
constexpr Field kFields[] = {{"cpuRequest", &ShrinkTimes::cpu_request},
                             {"memoryRequest", &ShrinkTimes::memory_request},
                             {"memoryLimit", &ShrinkTimes::memory_limit}};

absl::StatusOr<absl::Time> ParseRfc3339(const nlohmann::json& value, absl::string_view what) {
  const std::optional<absl::Time> at =
      value.is_string() ? io::ParseKubeTime(value.get<std::string>()) : std::nullopt;
  if (!at.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": not an RFC 3339 time"));
  }
  return *at;
}

absl::Time Latest(const ShrinkTimes& times) {
  absl::Time latest = absl::InfinitePast();
  for (const Field& field : kFields) {
    if (const auto& at = times.*field.member; at.has_value()) latest = std::max(latest, *at);
  }
  return latest;
}

}  // namespace

std::string EncodeShrinkLedger(const ShrinkLedger& ledger) {
  std::vector<const ShrinkLedger::value_type*> entries;
  entries.reserve(ledger.size());
  for (const auto& entry : ledger) entries.push_back(&entry);
  // The newest first, then by key (a stable text for the same ledger).
  std::sort(entries.begin(), entries.end(), [](const auto* a, const auto* b) {
    const absl::Time ta = Latest(a->second);
    const absl::Time tb = Latest(b->second);
    return ta != tb ? ta > tb : a->first < b->first;
  });
  if (entries.size() > kMaxShrinkLedgerEntries) entries.resize(kMaxShrinkLedgerEntries);
  json out = json::object();
  for (const auto* entry : entries) {
    json times = json::object();
    for (const Field& field : kFields) {
      if (const auto& at = entry->second.*field.member; at.has_value()) {
        times[field.key] = io::FormatKubeTime(*at);
      }
    }
    out[entry->first] = std::move(times);
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

absl::StatusOr<ShrinkLedger> DecodeShrinkLedger(absl::string_view text) {
  if (absl::Status nesting = CheckJsonNesting(text, 4); !nesting.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("shrink ledger: ", nesting.message()));
  }
  const json document = json::parse(text.begin(), text.end(), nullptr, false);
  if (!document.is_object()) {
    return absl::InvalidArgumentError("shrink ledger: not a JSON object");
  }
  if (document.size() > kMaxShrinkLedgerEntries) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shrink ledger: ", document.size(), " entries, more than ", kMaxShrinkLedgerEntries));
  }
  ShrinkLedger ledger;
  for (const auto& [key, value] : document.items()) {
    if (!value.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat("shrink ledger: ", key, ": not an object"));
    }
    ShrinkTimes times;
    for (const Field& field : kFields) {
      const auto it = value.find(field.key);
      if (it == value.end() || it->is_null()) continue;
      absl::StatusOr<absl::Time> at =
          ParseRfc3339(*it, absl::StrCat("shrink ledger: ", key, ".", field.key));
      if (!at.ok()) return at.status();
      times.*field.member = *at;
    }
    ledger[key] = times;
  }
  return ledger;
}

void MergeShrinkLedger(ShrinkLedger& into, const ShrinkLedger& from) {
  for (const auto& [key, times] : from) {
    ShrinkTimes& merged = into[key];
    for (const Field& field : kFields) {
      const auto& theirs = times.*field.member;
      auto& ours = merged.*field.member;
      if (theirs.has_value() && (!ours.has_value() || *theirs > *ours)) ours = theirs;
    }
  }
}

std::string EncodeEvictions(const std::vector<RecordedEviction>& evictions) {
  const size_t first =
      evictions.size() > kMaxRecordedEvictions ? evictions.size() - kMaxRecordedEvictions : 0;
  json out = json::array();
  for (size_t i = first; i < evictions.size(); ++i) {
    out.push_back({{"node", evictions[i].node}, {"at", io::FormatKubeTime(evictions[i].at)}});
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

absl::StatusOr<std::vector<RecordedEviction>> DecodeEvictions(absl::string_view text) {
  if (absl::Status nesting = CheckJsonNesting(text, 4); !nesting.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("recent evictions: ", nesting.message()));
  }
  const json document = json::parse(text.begin(), text.end(), nullptr, false);
  if (!document.is_array()) return absl::InvalidArgumentError("recent evictions: not a list");
  if (document.size() > kMaxRecordedEvictions) {
    return absl::InvalidArgumentError(
        absl::StrCat("recent evictions: ", document.size(), ", more than ", kMaxRecordedEvictions));
  }
  std::vector<RecordedEviction> out;
  for (size_t i = 0; i < document.size(); ++i) {
    const json& entry = document[i];
    const std::string what = absl::StrCat("recent evictions[", i, "]");
    if (!entry.is_object() || !entry.contains("node") || !entry["node"].is_string() ||
        entry["node"].get<std::string>().empty() || !entry.contains("at")) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": expected {\"node\", \"at\"}"));
    }
    absl::StatusOr<absl::Time> at = ParseRfc3339(entry["at"], absl::StrCat(what, ".at"));
    if (!at.ok()) return at.status();
    out.push_back({entry["node"].get<std::string>(), *at});
  }
  std::stable_sort(
      out.begin(), out.end(),
      [](const RecordedEviction& a, const RecordedEviction& b) { return a.at < b.at; });
  return out;
}

std::vector<RecordedEviction> MergeEvictions(const std::vector<RecordedEviction>& a,
                                             const std::vector<RecordedEviction>& b,
                                             absl::Time since) {
  std::vector<RecordedEviction> out;
  for (const auto* list : {&a, &b}) {
    for (const RecordedEviction& eviction : *list) {
      if (eviction.at >= since) out.push_back(eviction);
    }
  }
  // Times are stored to the second: an eviction read back equals the one in memory only
  // once both are truncated.
  for (RecordedEviction& eviction : out)
    eviction.at = absl::FromUnixSeconds(absl::ToUnixSeconds(eviction.at));
  std::sort(out.begin(), out.end(), [](const RecordedEviction& x, const RecordedEviction& y) {
    return x.at != y.at ? x.at < y.at : x.node < y.node;
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

EvictionBudget RebuiltEvictionBudget(const EvictionBudgetConfig& config,
                                     const std::vector<RecordedEviction>& evictions) {
  EvictionBudget budget(config);
  for (const RecordedEviction& eviction : evictions) {
    std::string ignored;
    budget.TryTake(eviction.node, eviction.at, &ignored);
  }
  return budget;
}

absl::StatusOr<ConfigMapName> ParseConfigMapName(absl::string_view text) {
  const std::vector<std::string> parts = absl::StrSplit(text, '/');
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
    return absl::InvalidArgumentError(absl::StrCat("\"", text, "\": expected NAMESPACE/NAME"));
  }
  return ConfigMapName{parts[0], parts[1]};
}

ActuatorStateStore::ActuatorStateStore(io::KubeClient& kube, ConfigMapName configmap)
    : kube_(&kube), configmap_(std::move(configmap)), name_(configmap_.Text()) {}

std::string ActuatorStateStore::Path() const {
  return absl::StrCat("/api/v1/namespaces/", configmap_.config_namespace, "/configmaps/",
                      configmap_.name);
}

absl::StatusOr<ActuatorState> ActuatorStateStore::Load() {
  ActuatorState state;
  absl::StatusOr<std::string> body = kube_->Get(Path(), absl::Seconds(10));
  if (absl::IsNotFound(body.status())) return state;
  if (!body.ok()) return body.status();
  const json configmap = io::ParseApiJson(*body);
  if (!configmap.is_object()) return absl::UnavailableError("ConfigMap: not JSON");
  const auto data = configmap.find("data");
  if (data == configmap.end() || !data->is_object()) return state;
  if (const auto text = data->find(kShrinksKey); text != data->end() && text->is_string()) {
    absl::StatusOr<ShrinkLedger> shrinks = DecodeShrinkLedger(text->get<std::string>());
    if (!shrinks.ok()) return shrinks.status();
    state.shrinks = *std::move(shrinks);
  }
  if (const auto text = data->find(kEvictionsKey); text != data->end() && text->is_string()) {
    absl::StatusOr<std::vector<RecordedEviction>> evictions =
        DecodeEvictions(text->get<std::string>());
    if (!evictions.ok()) return evictions.status();
    state.evictions = *std::move(evictions);
  }
  return state;
}

absl::Status ActuatorStateStore::Save(const ActuatorState& state) {
  const json data = {{kShrinksKey, EncodeShrinkLedger(state.shrinks)},
                     {kEvictionsKey, EncodeEvictions(state.evictions)}};
  const json patch = {{"data", data}};
  absl::StatusOr<io::KubeClient::WriteResult> written = kube_->Write(
      "PATCH", Path(), patch.dump(), "application/merge-patch+json", absl::Seconds(10));
  if (written.ok() && written->status == 404) {
    const json configmap = {
        {"apiVersion", "v1"},
        {"kind", "ConfigMap"},
        {"metadata", {{"name", configmap_.name}, {"namespace", configmap_.config_namespace}}},
        {"data", data}};
    written = kube_->Write(
        "POST", absl::StrCat("/api/v1/namespaces/", configmap_.config_namespace, "/configmaps"),
        configmap.dump(), "application/json", absl::Seconds(10));
  }
  if (!written.ok()) return written.status();
  if (written->status != 200 && written->status != 201) {
    return absl::UnavailableError(absl::StrCat("ConfigMap ", name_, ": HTTP ", written->status,
                                               ": ", io::ApiStatusMessage(written->body)));
  }
  return absl::OkStatus();
}

}  // namespace headroom::extender
