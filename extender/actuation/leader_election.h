#pragma once

// One actuator among headroom-extender replicas: a coordination.k8s.io/v1 Lease, as
// client-go's leader election keeps it. The holder renews the Lease every retry period; the
// others take it over once its record has not changed for a lease duration, measured on their
// own clock from when they last saw it change (so clocks need not agree). A holder that cannot
// renew within the renew deadline stops acting before another replica can take over
// (renew deadline < lease duration). Updates carry the resourceVersion they read, so two
// replicas racing for an expired Lease cannot both win.

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "spdlog/spdlog.h"

namespace headroom::extender {

struct LeaseRecord {
  std::string holder;  // spec.holderIdentity; "" when released
  absl::Time renew_time = absl::InfinitePast();
  int lease_duration_seconds = 0;
  int transitions = 0;
  std::string resource_version;
};

// The Lease object's record; InvalidArgument for an object without metadata.resourceVersion.
absl::StatusOr<LeaseRecord> DecodeLease(const nlohmann::json& lease);

// The Lease body (for POST, and as a merge patch carrying the resourceVersion read).
nlohmann::json LeaseBody(const std::string& name, const std::string& namespace_name,
                         const LeaseRecord& record);

struct LeaderElectionConfig {
  std::string lease_name = "headroom-extender";
  std::string lease_namespace = "headroom-system";
  std::string identity;  // unique per replica
  absl::Duration lease_duration = absl::Seconds(15);
  absl::Duration renew_deadline = absl::Seconds(10);
  absl::Duration retry_period = absl::Seconds(2);

  absl::Status Validate() const;
};

enum class LeaseAction { kCreate, kRenew, kTakeOver, kWait };

// What a replica does given the Lease it read (nullopt: none exists), when it last saw the
// record change, and now: it takes over after the longer of its own and the holder's lease
// duration.
LeaseAction DecideLease(const std::optional<LeaseRecord>& current, const std::string& identity,
                        absl::Time observed_change, absl::Time now, absl::Duration lease_duration);

// The Kubernetes API as the elector uses it.
struct LeaseApi {
  // The Lease object; NotFound when there is none.
  std::function<absl::StatusOr<nlohmann::json>(const std::string& path)> get;
  // POST (create) or PATCH (merge patch) `body` at `path`; the HTTP status (409: lost a race).
  std::function<absl::StatusOr<int>(const std::string& method, const std::string& path,
                                    const std::string& body)>
      write;
};

class LeaderElector {
 public:
  LeaderElector(LeaderElectionConfig config, LeaseApi api, std::shared_ptr<spdlog::logger> logger,
                std::function<absl::Time()> clock = absl::Now);

  // One round: read the Lease and create, renew or take it over when due.
  void Step();
  // Step every retry period until Stop(); then releases the Lease if held.
  void Run();
  void Stop() { stop_.Notify(); }

  // True while the Lease is held and was renewed within the renew deadline.
  bool IsLeader() const;

 private:
  std::string LeasePath() const;
  void Release();

  LeaderElectionConfig config_;
  LeaseApi api_;
  std::shared_ptr<spdlog::logger> logger_;
  std::function<absl::Time()> clock_;
  absl::Notification stop_;
  std::optional<LeaseRecord> observed_;
  absl::Time observed_change_ = absl::InfinitePast();
  std::atomic<int64_t> renewed_unix_nanos_{INT64_MIN};
  bool leading_logged_ = false;
};

}  // namespace headroom::extender
