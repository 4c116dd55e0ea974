#include "io/daemon_signals.h"

#include <pthread.h>

#include <csignal>
#include <utility>

namespace headroom::io {

sigset_t BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  return signals;
}

StopSignal::StopSignal(sigset_t signals, std::function<void(const std::string& why)> on_stop)
    : on_stop_(std::move(on_stop)) {
  waiter_ = std::thread([this, signals] {
    int received = 0;
    sigwait(&signals, &received);
    if (stopped_.exchange(true)) return;  // woken by Stop(): it ran on_stop_ already
    on_stop_("signal " + std::to_string(received));
  });
}

StopSignal::~StopSignal() {
  Stop("exit");
  waiter_.join();
}

void StopSignal::Stop(const std::string& why) {
  if (stopped_.exchange(true)) return;
  on_stop_(why);
  // The waiter takes this process-directed signal only because every thread blocks it.
  pthread_kill(waiter_.native_handle(), SIGTERM);
}

}  // namespace headroom::io
