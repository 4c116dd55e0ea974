#include "extender/reports/report_queue.h"

#include <algorithm>
#include <utility>

namespace headroom::extender {

ReportQueue::ReportQueue(ReportQueueLimits limits, std::function<absl::Time()> clock)
    : limits_(limits), clock_(std::move(clock)) {
  const int workers = std::max(1, limits_.workers);
  absl::MutexLock lock(&stop_mu_);
  workers_.reserve(workers);
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { RunWorker(); });
}

ReportQueue::~ReportQueue() { Stop(); }

bool ReportQueue::Submit(size_t bytes, absl::Time deadline, Work work) {
  const absl::Time now = clock_();
  absl::MutexLock lock(&mu_);
  // One entry always fits an empty queue, however large: the message size limit bounds it.
  const bool fits = entries_.empty() ||
                    (entries_.size() < limits_.max_entries && bytes_ + bytes <= limits_.max_bytes &&
                     now - entries_.front().queued_at < limits_.max_sojourn);
  if (stopping_ || !fits) {
    ++refused_;
    return false;
  }
  bytes_ += bytes;
  entries_.push_back({bytes, std::min(deadline, now + limits_.max_wait), now, std::move(work)});
  return true;
}

void ReportQueue::RunWorker() {
  while (true) {
    Entry entry;
    bool expired = false;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](ReportQueue* queue) ABSL_EXCLUSIVE_LOCKS_REQUIRED(queue->mu_) {
            return queue->stopping_ || !queue->entries_.empty();
          },
          this));
      if (entries_.empty()) return;  // stopping, nothing left
      entry = std::move(entries_.front());
      entries_.pop_front();
      bytes_ -= entry.bytes;
      const absl::Time now = clock_();
      expired = stopping_ || now > entry.deadline;
      if (expired) {
        ++expired_;
      } else {
        longest_wait_ = std::max(longest_wait_, now - entry.queued_at);
      }
    }
    entry.work(expired);
  }
}

void ReportQueue::BeginStop() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
}

void ReportQueue::Stop() {
  BeginStop();
  std::vector<std::thread> workers;
  {
    absl::MutexLock lock(&stop_mu_);
    workers.swap(workers_);
  }
  for (std::thread& worker : workers) worker.join();
}

ReportQueue::Counts ReportQueue::counts() const {
  absl::MutexLock lock(&mu_);
  return {entries_.size(), bytes_, refused_, expired_, longest_wait_};
}

}  // namespace headroom::extender
