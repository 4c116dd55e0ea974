#include "extender/actuation/leader_election.h"

#include <algorithm>
#include <climits>

#include "absl/strings/str_cat.h"
#include "codec/json_lenient.h"
#include "io/kube_client.h"

namespace headroom::extender {

using ::headroom::codec::Field;
using ::headroom::codec::NestedString;
using ::headroom::codec::ObjectField;
using ::headroom::codec::StringField;
namespace {

using json = nlohmann::json;

std::string MicroTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

}  // namespace

absl::Status LeaderElectionConfig::Validate() const {
  if (identity.empty()) return absl::InvalidArgumentError("leader election: empty identity");
  if (lease_name.empty() || lease_namespace.empty()) {
    return absl::InvalidArgumentError("leader election: lease name and namespace are required");
  }
  if (retry_period <= absl::ZeroDuration() || renew_deadline <= retry_period ||
      lease_duration <= renew_deadline) {
    return absl::InvalidArgumentError(
        "leader election: need 0 < retry period < renew deadline < lease duration");
  }
  return absl::OkStatus();
}

absl::StatusOr<LeaseRecord> DecodeLease(const json& lease) {
  if (!lease.is_object()) return absl::InvalidArgumentError("Lease: not an object");
  LeaseRecord record;
  record.resource_version = NestedString(lease, "metadata", "resourceVersion");
  if (record.resource_version.empty()) {
    return absl::InvalidArgumentError("Lease: no metadata.resourceVersion");
  }
  const json& spec = ObjectField(lease, "spec");
  record.holder = StringField(spec, "holderIdentity");
  record.renew_time =  // InfinitePast if absent
      io::ParseKubeTime(StringField(spec, "renewTime")).value_or(absl::InfinitePast());
  const auto integer = [&spec](const char* key) {
    const json* value = Field(spec, key);
    return value != nullptr && value->is_number_integer() ? value->get<int>() : 0;
  };
  record.lease_duration_seconds = integer("leaseDurationSeconds");
  record.transitions = integer("leaseTransitions");
  return record;
}

json LeaseBody(const std::string& name, const std::string& namespace_name,
               const LeaseRecord& record) {
  json metadata = {{"name", name}, {"namespace", namespace_name}};
  if (!record.resource_version.empty()) metadata["resourceVersion"] = record.resource_version;
  return {{"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", metadata},
          {"spec",
           {{"holderIdentity", record.holder},
            {"leaseDurationSeconds", record.lease_duration_seconds},
            {"acquireTime", MicroTime(record.renew_time)},
            {"renewTime", MicroTime(record.renew_time)},
            {"leaseTransitions", record.transitions}}}};
}

LeaseAction DecideLease(const std::optional<LeaseRecord>& current, const std::string& identity,
                        absl::Time observed_change, absl::Time now, absl::Duration lease_duration) {
  if (!current.has_value()) return LeaseAction::kCreate;
  if (current->holder == identity) return LeaseAction::kRenew;
  // The holder's own duration counts when longer: it may act until its renew deadline.
  const absl::Duration holders =
      std::max(lease_duration, absl::Seconds(current->lease_duration_seconds));
  if (current->holder.empty() || now - observed_change >= holders) {
    return LeaseAction::kTakeOver;
  }
  return LeaseAction::kWait;
}

LeaderElector::LeaderElector(LeaderElectionConfig config, LeaseApi api,
                             std::shared_ptr<spdlog::logger> logger,
                             std::function<absl::Time()> clock)
    : config_(std::move(config)),
      api_(std::move(api)),
      logger_(std::move(logger)),
      clock_(std::move(clock)) {}

std::string LeaderElector::LeasePath() const {
  return absl::StrCat("/apis/coordination.k8s.io/v1/namespaces/", config_.lease_namespace,
                      "/leases/", config_.lease_name);
}

bool LeaderElector::IsLeader() const {
  const int64_t renewed = renewed_unix_nanos_.load();
  if (renewed == INT64_MIN) return false;
  return clock_() - absl::FromUnixNanos(renewed) < config_.renew_deadline;
}

void LeaderElector::Step() {
  const absl::Time now = clock_();
  std::optional<LeaseRecord> current;
  absl::StatusOr<json> read = api_.get(LeasePath());
  if (read.ok()) {
    absl::StatusOr<LeaseRecord> decoded = DecodeLease(*read);
    if (!decoded.ok()) {
      logger_->warn("leader election: {}", std::string(decoded.status().message()));
      return;
    }
    current = *decoded;
  } else if (!absl::IsNotFound(read.status())) {
    logger_->warn("leader election: cannot read the Lease: {}",
                  std::string(read.status().message()));
    return;
  }
  // The holder or its renewal changed since the last look: the holder is alive.
  if (current.has_value() && (!observed_.has_value() || observed_->holder != current->holder ||
                              observed_->renew_time != current->renew_time)) {
    observed_change_ = now;
  }
  observed_ = current;
  const LeaseAction action =
      DecideLease(current, config_.identity, observed_change_, now, config_.lease_duration);
  if (action == LeaseAction::kWait) {
    if (leading_logged_) {
      logger_->warn("leader election: lost the Lease to {}; the actuator stops", current->holder);
      leading_logged_ = false;
    }
    return;
  }
  LeaseRecord next;
  next.holder = config_.identity;
  next.renew_time = now;
  next.lease_duration_seconds = static_cast<int>(
      absl::ToInt64Seconds(config_.lease_duration + absl::Seconds(1) - absl::Nanoseconds(1)));
  next.transitions = current.has_value() ? current->transitions : 0;
  if (action == LeaseAction::kTakeOver) ++next.transitions;
  absl::StatusOr<int> written;
  if (action == LeaseAction::kCreate) {
    written = api_.write("POST",
                         absl::StrCat("/apis/coordination.k8s.io/v1/namespaces/",
                                      config_.lease_namespace, "/leases"),
                         LeaseBody(config_.lease_name, config_.lease_namespace, next).dump());
  } else {
    next.resource_version = current->resource_version;  // lose a race rather than both win
    written = api_.write("PATCH", LeasePath(),
                         LeaseBody(config_.lease_name, config_.lease_namespace, next).dump());
  }
  if (!written.ok() || *written >= 300) {
    logger_->debug(
        "leader election: {} failed: {}", action == LeaseAction::kCreate ? "create" : "update",
        written.ok() ? absl::StrCat("HTTP ", *written) : std::string(written.status().message()));
    return;
  }
  renewed_unix_nanos_ = absl::ToUnixNanos(now);
  if (!leading_logged_) {
    logger_->info("leader election: {} holds Lease {}/{}; the actuator acts", config_.identity,
                  config_.lease_namespace, config_.lease_name);
    leading_logged_ = true;
  }
}

void LeaderElector::Release() {
  // Whether this replica ever held it; the Lease read below says whether it still does.
  if (renewed_unix_nanos_.load() == INT64_MIN) return;
  renewed_unix_nanos_ = INT64_MIN;
  absl::StatusOr<json> read = api_.get(LeasePath());
  if (!read.ok()) return;
  absl::StatusOr<LeaseRecord> current = DecodeLease(*read);
  if (!current.ok() || current->holder != config_.identity) return;
  LeaseRecord released = *current;
  released.holder = "";
  released.renew_time = clock_();
  released.lease_duration_seconds = 1;
  (void)api_.write("PATCH", LeasePath(),
                   LeaseBody(config_.lease_name, config_.lease_namespace, released).dump());
  logger_->info("leader election: released Lease {}/{}", config_.lease_namespace,
                config_.lease_name);
}

void LeaderElector::Run() {
  while (!stop_.HasBeenNotified()) {
    Step();
    stop_.WaitForNotificationWithTimeout(config_.retry_period);
  }
  Release();
}

}  // namespace headroom::extender
