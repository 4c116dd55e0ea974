#include "extender/view/action_journal.h"

#include <utility>

namespace headroom::extender {

void ActionJournal::Record(JournalEntry entry) {
  absl::MutexLock lock(&mu_);
  entries_.push_back(std::move(entry));
  while (entries_.size() > capacity_) entries_.pop_front();
}

std::vector<JournalEntry> ActionJournal::ForWorkload(const std::string& workload,
                                                     size_t limit) const {
  std::vector<JournalEntry> out;
  if (workload.empty()) return out;
  absl::MutexLock lock(&mu_);
  for (auto it = entries_.rbegin(); it != entries_.rend() && out.size() < limit; ++it) {
    if (it->workload == workload) out.push_back(*it);
  }
  return out;
}

std::vector<JournalEntry> ActionJournal::ForPod(const std::string& pod, size_t limit) const {
  std::vector<JournalEntry> out;
  absl::MutexLock lock(&mu_);
  for (auto it = entries_.rbegin(); it != entries_.rend() && out.size() < limit; ++it) {
    if (it->pod == pod) out.push_back(*it);
  }
  return out;
}

size_t ActionJournal::size() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

}  // namespace headroom::extender
