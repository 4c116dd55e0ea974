#pragma once

// The report port's front door. headroom-extender's gRPC server listens on no port of its
// own: this door accepts each TCP connection, completes TLS when configured (ALPN "h2"; a
// verified client certificate under --report-auth=certificate), and relays the connection's
// bytes to gRPC over a socket pair (grpc::AddInsecureChannelFromFd), reading every byte the
// client sends through an H2ClientMeter (h2_meter.h). A client that opens, resets or pings
// faster than a node reporter ever does is cut off before gRPC sees the frame: Debian's gRPC
// 1.51 has no defence of its own against HTTP/2 rapid reset.
//
// Also bounded here: connections in all and from one address, and the time a TLS handshake
// may take. One thread runs the door; each connection holds two 16 KiB buffers.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "extender/reports/h2_meter.h"

namespace headroom::extender {

class ReloadingCertificate;

// The verified client certificate of a connection: its subject common names and its DNS and
// IP subjectAltNames.
struct PeerCertificate {
  std::vector<std::string> common_names;
  std::vector<std::string> alt_names;
};

// Who is at the other end of a relayed connection.
struct FrontDoorPeer {
  std::string address;                         // the client's IP address
  std::optional<PeerCertificate> certificate;  // verified, under mutual TLS
};

// The peers of the relayed connections, by the gRPC peer of their connection. gRPC names a
// connection given by file descriptor "fd:N", and keeps N open while any of its calls lives,
// so the entry for N is the caller's for as long as a call can ask.
class FrontDoorPeers {
 public:
  void Set(int fd, FrontDoorPeer peer);
  // The peer of the connection gRPC calls `grpc_peer`; nullopt when unknown.
  std::optional<FrontDoorPeer> Find(absl::string_view grpc_peer) const;

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_map<int, FrontDoorPeer> by_fd_ ABSL_GUARDED_BY(mu_);
};

struct FrontDoorOptions {
  std::string host = "0.0.0.0";
  int port = 0;  // 0: a free one
  // TLS: null serves plaintext. With `client_ca_file`, a client certificate signed by it is
  // required.
  ReloadingCertificate* certificate = nullptr;
  std::string client_ca_file;
  FrontDoorPeers* peers = nullptr;  // optional: told each connection's peer
  H2Limits limits;
  size_t max_connections = 8192;
  size_t max_connections_per_address = 64;
  // From accepting a connection to its HTTP/2 preface, TLS handshake included.
  absl::Duration handshake_timeout = absl::Seconds(10);
  // Told why each refused or cut connection was ("connection_cap", "address_cap",
  // "handshake", "rapid_reset"...); optional.
  std::function<void(absl::string_view reason)> on_refused;
};

class ReportFrontDoor {
 public:
  // Listens and starts the door's thread; `hand_off` gives gRPC the server end of each
  // admitted connection and owns that descriptor from then on.
  static absl::StatusOr<std::unique_ptr<ReportFrontDoor>> Start(
      FrontDoorOptions options, std::function<void(int fd)> hand_off);
  ~ReportFrontDoor();

  int port() const;
  size_t open_connections() const;
  // Stops accepting; connections already admitted go on. Idempotent.
  void StopAccepting();
  // Stops accepting, closes every relayed connection and joins the door's thread; idempotent.
  void Stop();

  struct Impl;  // the door's state, shared with its connections (report_front_door.cc)

 private:
  explicit ReportFrontDoor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  bool accepting_ = true;
  bool stopped_ = false;
};

// "fd:N" -> N; nullopt for any other peer string.
std::optional<int> FdOfGrpcPeer(absl::string_view grpc_peer);

}  // namespace headroom::extender
