// app/service_group.h: services start in the order added and stop in the reverse order, each
// joined before the next is stopped.

#include "app/service_group.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"

namespace headroom::app {
namespace {

// A log of what happened, shared by the services' threads.
class Log {
 public:
  void Add(const std::string& line) {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.push_back(line);
  }
  std::vector<std::string> lines() {
    std::lock_guard<std::mutex> lock(mu_);
    return lines_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

// A service that runs until stopped and logs when its run returns.
Service Waiting(const std::string& name, Log& log, absl::Notification& started,
                absl::Notification& stop) {
  return {name,
          [&, name] {
            started.Notify();
            stop.WaitForNotification();
            log.Add(name + " returned");
          },
          [&, name] {
            log.Add("stop " + name);
            stop.Notify();
          }};
}

TEST(ServiceGroup, StopsInTheReverseOrderJoiningEachBeforeTheNext) {
  Log log;
  absl::Notification started_a, started_b, stop_a, stop_b;
  ServiceGroup group;
  group.Add(Waiting("a", log, started_a, stop_a));
  group.Add(Waiting("b", log, started_b, stop_b));
  group.Start();
  started_a.WaitForNotification();
  started_b.WaitForNotification();
  std::vector<std::string> stopped;
  group.Stop([&](const std::string& name) { stopped.push_back(name); });
  EXPECT_EQ(log.lines(),
            (std::vector<std::string>{"stop b", "b returned", "stop a", "a returned"}));
  EXPECT_EQ(stopped, (std::vector<std::string>{"b", "a"}));
}

TEST(ServiceGroup, ServicesWithoutARunOrAStopTakePartInTheOrder) {
  Log log;
  absl::Notification ran;
  ServiceGroup group;
  group.Add({"server", nullptr, [&] { log.Add("stop server"); }});
  group.Add({"once",
             [&] {
               log.Add("once ran");
               ran.Notify();
             },
             nullptr});
  group.Add({"last", nullptr, [&] { log.Add("stop last"); }});
  group.Start();
  ran.WaitForNotification();
  group.Stop();
  EXPECT_EQ(log.lines(), (std::vector<std::string>{"once ran", "stop last", "stop server"}));
  EXPECT_EQ(group.names(), (std::vector<std::string>{"server", "once", "last"}));
}

TEST(ServiceGroup, StopsOnceWhateverTheNumberOfCalls) {
  std::atomic<int> stops = 0;
  {
    ServiceGroup group;
    group.Add({"s", nullptr, [&] { ++stops; }});
    group.Start();
    group.Stop();
    group.Stop();
  }  // and the destructor
  EXPECT_EQ(stops.load(), 1);
}

TEST(ServiceGroup, TheDestructorStopsAGroupNobodyStopped) {
  Log log;
  absl::Notification started, stop;
  {
    ServiceGroup group;
    group.Add(Waiting("a", log, started, stop));
    group.Start();
    started.WaitForNotification();
  }
  EXPECT_EQ(log.lines(), (std::vector<std::string>{"stop a", "a returned"}));
}

TEST(ServiceGroup, AGroupNeverStartedOnlyCallsTheStops) {
  Log log;
  ServiceGroup group;
  group.Add({"a", [&] { log.Add("a ran"); }, [&] { log.Add("stop a"); }});
  group.Stop();
  EXPECT_EQ(log.lines(), (std::vector<std::string>{"stop a"}));
}

}  // namespace
}  // namespace headroom::app
