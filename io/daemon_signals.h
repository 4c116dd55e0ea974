#pragma once

// How both daemons take signals: SIGTERM and SIGINT are blocked in every thread and taken by
// one thread with sigwait, so a stop always goes through the final checkpoint; SIGPIPE is
// ignored, so a peer that closed its end gives a write error instead of killing the process.

#include <signal.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace headroom::io {

// Call first thing in main(), before anything can start a thread (threads inherit the mask):
// blocks SIGTERM and SIGINT, ignores SIGPIPE, and returns the set to sigwait on.
sigset_t BlockStopSignals();

// The one way both daemons stop: a thread waits for a signal of `signals` (blocked with
// BlockStopSignals) and then runs `on_stop` once, with "signal 15"; Stop(why) runs it from the
// program itself (a component ended) instead. Whichever comes first wins; the destructor
// ends the wait and joins.
class StopSignal {
 public:
  StopSignal(sigset_t signals, std::function<void(const std::string& why)> on_stop);
  ~StopSignal();
  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;

  void Stop(const std::string& why);
  bool stopped() const { return stopped_.load(); }

 private:
  std::function<void(const std::string&)> on_stop_;
  std::atomic<bool> stopped_{false};
  std::thread waiter_;
};

}  // namespace headroom::io
