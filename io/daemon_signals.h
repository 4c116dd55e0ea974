#pragma once

// How both daemons take signals: SIGTERM and SIGINT are blocked in every thread and taken by
// one thread with sigwait, so a stop always goes through the final checkpoint; SIGPIPE is
// ignored, so a peer that closed its end gives a write error instead of killing the process.

#include <signal.h>

namespace headroom::io {

// Call first thing in main(), before anything can start a thread (threads inherit the mask):
// blocks SIGTERM and SIGINT, ignores SIGPIPE, and returns the set to sigwait on.
sigset_t BlockStopSignals();

}  // namespace headroom::io
