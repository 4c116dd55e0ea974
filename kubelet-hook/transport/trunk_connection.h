#pragma once

// One NRI connection to the runtime: a unix stream socket carrying the mux, with a ttrpc server
// for the runtime's calls on connection 1 and a ttrpc client on connection 2, both at once (the
// runtime calls Configure before it answers RegisterPlugin, so the reader never waits on our own
// calls). A reader thread decodes frames and answers requests through the handler; Call() may be
// used from any other thread and matches replies by stream ID.

#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "kubelet-hook/transport/mux_codec.h"
#include "kubelet-hook/transport/ttrpc_codec.h"

namespace headroom::nri {

// Answers one request from the runtime with a ttrpc Response body. Runs on the reader thread:
// it must return quickly (the runtime's deadline is 2 s and a miss drops the plugin).
using RequestHandler = std::function<std::string(const ttrpc::Request& request)>;

class TrunkConnection {
 public:
  // Takes ownership of `fd`, a connected stream socket.
  TrunkConnection(int fd, RequestHandler handler);
  ~TrunkConnection();
  TrunkConnection(const TrunkConnection&) = delete;
  TrunkConnection& operator=(const TrunkConnection&) = delete;

  void Start();

  // Calls `service`/`method` on the runtime (connection 2) and waits for the reply payload.
  // DeadlineExceeded after `timeout`; Unavailable once the connection has closed.
  absl::StatusOr<std::string> Call(absl::string_view service, absl::string_view method,
                                   absl::string_view payload, absl::Duration timeout);

  // Blocks until the connection closes and returns why (EOF, a protocol error, Close()).
  absl::Status Wait();
  // Shuts the socket down; the reader ends and pending calls fail. Idempotent.
  void Close();
  bool closed() const;

 private:
  struct Pending {
    bool done = false;
    absl::StatusOr<std::string> result;
  };

  void ReadLoop();
  void HandleFrame(MuxFrame frame);
  void ServeRequest(const TtrpcMessage& message);
  void CompleteCall(const TtrpcMessage& message);
  absl::Status Send(uint32_t conn_id, const std::string& ttrpc_message);
  void MarkClosed(absl::Status why);

  const int fd_;
  RequestHandler handler_;
  std::thread reader_;
  MuxDecoder mux_;
  TtrpcStreamDecoder server_stream_;  // connection 1: requests from the runtime
  TtrpcStreamDecoder client_stream_;  // connection 2: replies to our calls
  uint32_t last_served_stream_ = 0;

  absl::Mutex write_mu_;  // one frame sequence at a time on the trunk

  mutable absl::Mutex mu_;
  uint32_t next_stream_id_ ABSL_GUARDED_BY(mu_) = 1;
  // node_hash_map: Call() waits on a pointer into it while other calls insert.
  absl::node_hash_map<uint32_t, Pending> pending_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status close_reason_ ABSL_GUARDED_BY(mu_);
};

}  // namespace headroom::nri
