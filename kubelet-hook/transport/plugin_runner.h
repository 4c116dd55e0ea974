#pragma once

// Keeps headroom-nri connected to the runtime: dial the NRI socket (or use the socket on fd 3
// when the runtime launched us: NRI_PLUGIN_SOCKET), register, serve until the connection ends,
// then back off (1 s doubling to 30 s) and do it all again -- a containerd restart makes a new
// socket, and Synchronize on the new connection rebuilds the runtime's view. A pre-launched
// plugin returns instead: the runtime restarts it.

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "kubelet-hook/transport/nri_stub.h"
#include "kubelet-hook/transport/runtime_updates.h"
#include "kubelet-hook/transport/trunk_connection.h"

namespace headroom::nri {

struct RunnerOptions {
  std::string socket_path = "/var/run/nri/nri.sock";
  std::string plugin_name = "headroom";
  std::string plugin_index = "50";  // two digits; plugins run in index order
  absl::Duration register_timeout = absl::Seconds(5);
  absl::Duration min_backoff = absl::Seconds(1);
  absl::Duration max_backoff = absl::Seconds(30);
  int preconnected_fd = -1;  // from NRI_PLUGIN_SOCKET
};

// InvalidArgument unless the index is two ASCII digits and the name non-empty [A-Za-z0-9_.+-].
absl::Status ValidatePluginIdentity(const std::string& name, const std::string& index);

class PluginRunner : public RuntimeUpdates {
 public:
  PluginRunner(RunnerOptions options, RequestHandler handler);

  // Runs until Stop(). Returns the reason a pre-launched connection ended.
  absl::Status Run();
  void Stop();

  // Sends updates to the runtime over the current connection (never from an NRI handler).
  absl::StatusOr<napi::UpdateContainersResponse> UpdateContainers(
      const napi::UpdateContainersRequest& request, absl::Duration timeout) override;

  bool connected() const;
  uint64_t connections() const;

 private:
  absl::StatusOr<int> Dial() const;
  absl::Status ServeOne(int fd);

  RunnerOptions options_;
  RequestHandler handler_;
  mutable absl::Mutex mu_;
  std::shared_ptr<TrunkConnection> current_ ABSL_GUARDED_BY(mu_);
  bool registered_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t connections_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace headroom::nri
