#pragma once

// What headroom did to workloads, recently: the admission webhook's sizings and the actuator's
// resizes and evictions (and what dry run or the kill switch withheld), with their reasons, for
// the status page and `headroom explain` (status.h). Bounded: the newest `capacity` entries
// are kept. Thread-safe.

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace headroom::extender {

struct JournalEntry {
  absl::Time at;
  std::string workload;  // "namespace/Kind/name"; "" when unknown
  std::string pod;       // "namespace/name"
  std::string action;    // admit | resize | evict
  std::string outcome;   // applied | refused | evicted | blocked | dry_run | kill_switch | ...
  std::string message;   // the numbers and the reasons
};

class ActionJournal {
 public:
  explicit ActionJournal(size_t capacity = 2000) : capacity_(capacity) {}

  void Record(JournalEntry entry);
  // The newest `limit` entries of the workload (or of the pod), newest first.
  std::vector<JournalEntry> ForWorkload(const std::string& workload, size_t limit) const;
  std::vector<JournalEntry> ForPod(const std::string& pod, size_t limit) const;
  size_t size() const;

 private:
  const size_t capacity_;
  mutable absl::Mutex mu_;
  std::deque<JournalEntry> entries_ ABSL_GUARDED_BY(mu_);  // oldest first
};

}  // namespace headroom::extender
