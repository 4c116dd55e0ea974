#include "extender/kube/hpa_index.h"

#include "absl/strings/str_cat.h"
#include "codec/json_lenient.h"

namespace headroom::extender {

ListWatchOptions HpaWatch() {
  ListWatchOptions options;
  options.path = "/apis/autoscaling/v2/horizontalpodautoscalers";
  return options;
}

void HpaIndex::Insert(codec::HpaObject hpa) {
  Erase(hpa.key);  // its target may have changed
  by_workload_[hpa.workload_key].insert(hpa.key);
  std::string key = hpa.key;
  by_hpa_.emplace(std::move(key), std::move(hpa));
}

void HpaIndex::Erase(const std::string& hpa_key) {
  const auto it = by_hpa_.find(hpa_key);
  if (it == by_hpa_.end()) return;
  const auto workload = by_workload_.find(it->second.workload_key);
  if (workload != by_workload_.end()) {
    workload->second.erase(hpa_key);
    if (workload->second.empty()) by_workload_.erase(workload);
  }
  by_hpa_.erase(it);
}

void HpaIndex::Replace(const std::vector<nlohmann::json>& hpas) {
  std::vector<codec::HpaObject> decoded;
  for (const nlohmann::json& object : hpas) {
    if (absl::StatusOr<codec::HpaObject> hpa = codec::DecodeHpa(object); hpa.ok()) {
      decoded.push_back(*std::move(hpa));
    }
  }
  absl::MutexLock lock(&mu_);
  by_hpa_.clear();
  by_workload_.clear();
  for (codec::HpaObject& hpa : decoded) Insert(std::move(hpa));
}

void HpaIndex::Apply(const WatchEvent& event) {
  if (event.type == WatchEventType::kDeleted) {
    const std::string key =
        absl::StrCat(codec::NestedString(event.object, "metadata", "namespace"), "/",
                     codec::NestedString(event.object, "metadata", "name"));
    absl::MutexLock lock(&mu_);
    Erase(key);
    return;
  }
  if (event.type != WatchEventType::kAdded && event.type != WatchEventType::kModified) return;
  absl::StatusOr<codec::HpaObject> hpa = codec::DecodeHpa(event.object);
  if (!hpa.ok()) return;
  absl::MutexLock lock(&mu_);
  Insert(*std::move(hpa));
}

std::optional<HpaScaling> HpaIndex::For(const std::string& workload_key) const {
  std::optional<HpaScaling> found;
  absl::MutexLock lock(&mu_);
  const auto workload = by_workload_.find(workload_key);
  if (workload == by_workload_.end()) return found;
  for (const std::string& key : workload->second) {
    const HpaScaling& scaling = by_hpa_.at(key).scaling;
    found = found.has_value() ? MergeHpaScaling(*found, scaling) : scaling;
  }
  return found;
}

size_t HpaIndex::size() const {
  absl::MutexLock lock(&mu_);
  return by_hpa_.size();
}

}  // namespace headroom::extender
