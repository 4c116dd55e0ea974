#pragma once

// The threads of a daemon as data: each service says how it runs and how it is asked to stop,
// and the group starts them in the order they were added and stops them in the reverse order,
// one at a time (a service is stopped and its thread joined before the one added before it is
// stopped). So what must outlive what is the order of a list: a final checkpoint after the
// report server, the taints released while the leader Lease is still held.

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace headroom::app {

struct Service {
  std::string name;
  // Runs on a thread of its own until `stop` (empty: nothing to run, e.g. a server that has
  // its own threads).
  std::function<void()> run;
  // Asks `run` to return (empty: it returns by itself). Called once, from the stopping thread.
  std::function<void()> stop;
};

class ServiceGroup {
 public:
  ServiceGroup() = default;
  ServiceGroup(const ServiceGroup&) = delete;
  ServiceGroup& operator=(const ServiceGroup&) = delete;
  ~ServiceGroup();  // Stop()

  // Before Start() only.
  void Add(Service service);
  // Starts every service's run, in the order added.
  void Start();
  // Stops and joins each service in the reverse order; `stopped(name)` after each (for logs).
  // Safe to call more than once; a group never started only calls the stops.
  void Stop(const std::function<void(const std::string&)>& stopped = nullptr);

  std::vector<std::string> names() const;

 private:
  struct Running {
    Service service;
    std::thread thread;
  };
  std::vector<Running> services_;
  bool stopped_ = false;
};

}  // namespace headroom::app
