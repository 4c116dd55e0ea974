// The report queue: reports wait for a worker within bounds of entries, bytes and time.

#include "extender/reports/report_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

namespace headroom::extender {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

// A clock the test moves.
struct TestClock {
  absl::Mutex mu;
  absl::Time now = kNow;
  std::function<absl::Time()> fn() {
    return [this] {
      absl::MutexLock lock(&mu);
      return now;
    };
  }
  void Advance(absl::Duration d) {
    absl::MutexLock lock(&mu);
    now += d;
  }
};

// Occupies the queue's one worker with work of `bytes` until `release` is notified; returns
// once the worker has taken it.
void HoldTheWorker(ReportQueue& queue, absl::Notification& release, size_t bytes = 1) {
  absl::Notification started;
  ASSERT_TRUE(queue.Submit(bytes, absl::InfiniteFuture(), [&](bool expired) {
    EXPECT_FALSE(expired);
    started.Notify();
    release.WaitForNotification();
  }));
  started.WaitForNotification();
}

TEST(ReportQueue, RunsWhatItAcceptsAndRefusesBeyondItsEntries) {
  TestClock clock;
  ReportQueueLimits limits;
  limits.workers = 1;
  limits.max_entries = 2;
  ReportQueue queue(limits, clock.fn());
  absl::Notification release;
  std::atomic<int> ran{0};
  // The one worker is held by the first; two more wait; a fourth is refused.
  HoldTheWorker(queue, release, 10);
  const auto count = [&](bool expired) {
    EXPECT_FALSE(expired);
    ++ran;
  };
  EXPECT_TRUE(queue.Submit(10, absl::InfiniteFuture(), count));
  EXPECT_TRUE(queue.Submit(10, absl::InfiniteFuture(), count));
  EXPECT_FALSE(queue.Submit(10, absl::InfiniteFuture(), count));
  EXPECT_EQ(queue.counts().queued, 2u);
  EXPECT_EQ(queue.counts().queued_bytes, 20u);
  EXPECT_EQ(queue.counts().refused, 1u);
  release.Notify();
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (ran.load() < 2 && absl::Now() < give_up) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_EQ(ran.load(), 2);
  queue.Stop();
}

TEST(ReportQueue, RefusesBeyondItsBytesButAlwaysTakesOneIntoAnEmptyQueue) {
  TestClock clock;
  ReportQueueLimits limits;
  limits.workers = 1;
  limits.max_bytes = 100;
  ReportQueue queue(limits, clock.fn());
  absl::Notification release;
  HoldTheWorker(queue, release, 1000);
  EXPECT_TRUE(queue.Submit(500, absl::InfiniteFuture(), [](bool) {}));  // alone in the queue
  EXPECT_FALSE(queue.Submit(1, absl::InfiniteFuture(), [](bool) {}));   // 501 > 100
  release.Notify();
  queue.Stop();
}

TEST(ReportQueue, WorkPastItsDeadlineIsAnsweredNotDone) {
  TestClock clock;
  ReportQueueLimits limits;
  limits.workers = 1;
  limits.max_wait = absl::Seconds(10);
  ReportQueue queue(limits, clock.fn());
  absl::Notification release;
  HoldTheWorker(queue, release);
  absl::Mutex mu;
  std::vector<std::pair<int, bool>> outcomes;
  const auto record = [&](int which) {
    return [&, which](bool expired) {
      absl::MutexLock lock(&mu);
      outcomes.push_back({which, expired});
    };
  };
  ASSERT_TRUE(queue.Submit(1, kNow + absl::Seconds(2), record(1)));  // its own deadline
  ASSERT_TRUE(queue.Submit(1, absl::InfiniteFuture(), record(2)));   // max_wait: 10 s
  ASSERT_TRUE(queue.Submit(1, kNow + absl::Minutes(1), record(3)));  // max_wait: 10 s
  clock.Advance(absl::Seconds(5));
  release.Notify();
  // Work 1 expired at 2 s; 2 and 3 still had until 10 s.
  while (true) {
    absl::MutexLock lock(&mu);
    if (outcomes.size() == 3) break;
    mu.AwaitWithTimeout(
        absl::Condition(
            +[](std::vector<std::pair<int, bool>>* o) { return o->size() == 3; }, &outcomes),
        absl::Seconds(5));
  }
  EXPECT_EQ(outcomes, (std::vector<std::pair<int, bool>>{{1, true}, {2, false}, {3, false}}));
  EXPECT_EQ(queue.counts().expired, 1u);
  EXPECT_EQ(queue.counts().longest_wait, absl::Seconds(5));
  queue.Stop();
}

TEST(ReportQueue, RefusesNewWorkWhileTheOldestHasWaitedTooLong) {
  TestClock clock;
  ReportQueueLimits limits;
  limits.workers = 1;
  limits.max_sojourn = absl::Milliseconds(500);
  ReportQueue queue(limits, clock.fn());
  absl::Notification release;
  HoldTheWorker(queue, release);
  EXPECT_TRUE(queue.Submit(1, absl::InfiniteFuture(), [](bool) {}));
  clock.Advance(absl::Milliseconds(499));
  EXPECT_TRUE(queue.Submit(1, absl::InfiniteFuture(), [](bool) {}));
  clock.Advance(absl::Milliseconds(1));  // the oldest has waited 500 ms: the queue is behind
  EXPECT_FALSE(queue.Submit(1, absl::InfiniteFuture(), [](bool) {}));
  EXPECT_EQ(queue.counts().refused, 1u);
  release.Notify();
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (queue.counts().queued > 0 && absl::Now() < give_up) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_TRUE(queue.Submit(1, absl::InfiniteFuture(), [](bool) {}));  // caught up
  queue.Stop();
}

TEST(ReportQueue, StopAnswersWhatIsLeftAndRefusesMore) {
  TestClock clock;
  ReportQueueLimits limits;
  limits.workers = 1;
  auto queue = std::make_unique<ReportQueue>(limits, clock.fn());
  absl::Notification release;
  HoldTheWorker(*queue, release);
  std::atomic<int> expired{0};
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(queue->Submit(1, absl::InfiniteFuture(), [&](bool e) { expired += e ? 1 : 0; }));
  }
  queue->BeginStop();
  release.Notify();
  queue->Stop();
  EXPECT_EQ(expired.load(), 5);  // answered, not dropped: each caller hears back
  EXPECT_FALSE(queue->Submit(1, absl::InfiniteFuture(), [](bool) {}));
}

}  // namespace
}  // namespace headroom::extender
