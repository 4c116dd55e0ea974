#pragma once

// The NRI side of headroom-nri's connection to the runtime: the Plugin service's transport.
// It decodes each ttrpc request into its typed message, calls the plugin's handler for it,
// and encodes the reply; it answers Configure with the events to subscribe to, derived from
// the handlers that are set (as containerd/nri's own stub does), and collects Synchronize's
// parts until the last. It holds no policy: the plugin (nri_plugin.h) decides. A handler that
// is not set is never subscribed, and a call for it answers "nothing to adjust". An
// undecodable payload answers "nothing to adjust" too, and is logged: an error reply would
// fail the container's creation.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "nri/v1alpha1/api.pb.h"
#include "ttrpc/ttrpc.pb.h"

namespace headroom::nri {

namespace napi = ::nri::pkg::api::v1alpha1;

inline constexpr char kPluginService[] = "nri.pkg.api.v1alpha1.Plugin";
inline constexpr char kRuntimeService[] = "nri.pkg.api.v1alpha1.Runtime";

// The typed plugin interface. Every member may be empty.
struct NriHandlers {
  // The runtime's name and version from Configure, e.g. "containerd v2.1.5".
  std::function<void(const std::string& runtime)> configure;
  // The runtime's whole state at (re)connection, all parts joined; the updates to make.
  std::function<napi::SynchronizeResponse(const std::vector<napi::PodSandbox>& pods,
                                          const std::vector<napi::Container>& containers)>
      synchronize;
  std::function<napi::CreateContainerResponse(const napi::CreateContainerRequest&)>
      create_container;
  std::function<napi::UpdateContainerResponse(const napi::UpdateContainerRequest&)>
      update_container;
  std::function<void(const napi::Container&)> remove_container;
  std::function<void(const napi::PodSandbox&)> remove_pod_sandbox;
};

// The Configure reply's event mask for `handlers`: bit 1 << (event - 1) per NRI Event
// (api.proto) that has a handler. Synchronize and Configure are not events.
int32_t SubscribedEvents(const NriHandlers& handlers);

class NriStub {
 public:
  explicit NriStub(NriHandlers handlers);

  // Answers one ttrpc request from the runtime with a Response body. Thread-safe: requests
  // are handled one at a time, as the runtime sends them.
  std::string Handle(const ttrpc::Request& request);

  // What the runtime said in Configure (empty before).
  std::string runtime() const;
  uint64_t requests_served() const;

 private:
  std::string Configure(const std::string& payload) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string Synchronize(const std::string& payload) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string StateChange(const std::string& payload) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const NriHandlers handlers_;
  const int32_t events_;
  mutable absl::Mutex mu_;
  std::string runtime_ ABSL_GUARDED_BY(mu_);
  // Parts of a Synchronize with more = true, kept until the last arrives.
  std::vector<napi::PodSandbox> pending_pods_ ABSL_GUARDED_BY(mu_);
  std::vector<napi::Container> pending_containers_ ABSL_GUARDED_BY(mu_);
  uint64_t requests_served_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace headroom::nri
