#include "shared/load_cordon.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace headroom {
namespace {

LoadCordonState Transition(const LoadCordonState& previous, bool cordoned, absl::Time now,
                           double load, Reason reason) {
  LoadCordonState next;
  next.cordoned = cordoned;
  next.since = cordoned == previous.cordoned ? previous.since : now;
  next.load = load;
  next.reason = std::move(reason);
  return next;
}

std::string LoadText(const LoadObservation& observation, double load) {
  return absl::StrFormat("load1 %.2f on %d CPUs = %.2f", observation.load1, observation.cpus, load);
}

}  // namespace

absl::Status LoadCordonConfig::Validate() const {
  if (!(cordon_above > 0) || !std::isfinite(cordon_above)) {
    return absl::InvalidArgumentError(
        absl::StrCat("load cordon threshold must be a positive number, got ", cordon_above));
  }
  if (!(uncordon_below > 0) || uncordon_below > cordon_above) {
    return absl::InvalidArgumentError(absl::StrCat("load uncordon threshold must be in (0, ",
                                                   cordon_above, "], got ", uncordon_below));
  }
  if (min_cordon_duration < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("minimum cordon duration must not be negative");
  }
  if (stale_after <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("load staleness limit must be positive");
  }
  return absl::OkStatus();
}

LoadCordonState NextLoadCordonState(const LoadCordonState& previous,
                                    const std::optional<LoadObservation>& latest, absl::Time now,
                                    const LoadCordonConfig& config) {
  if (!latest.has_value()) {
    return Transition(previous, false, now, 0,
                      {"NoLoadData", "no load data has been reported; not cordoned"});
  }
  const LoadObservation& observation = *latest;
  if (observation.cpus <= 0 || !std::isfinite(observation.load1) || observation.load1 < 0) {
    return Transition(previous, false, now, 0,
                      {"InvalidLoadData",
                       absl::StrFormat("load data is unusable (load1 %g, %d CPUs); not cordoned",
                                       observation.load1, observation.cpus)});
  }
  if (now - observation.observed_at > config.stale_after) {
    return Transition(
        previous, false, now, 0,
        {"StaleLoadData", absl::StrCat("last load report is ",
                                       absl::FormatDuration(absl::Trunc(
                                           now - observation.observed_at, absl::Seconds(1))),
                                       " old (limit ", absl::FormatDuration(config.stale_after),
                                       "); stale data never cordons a node")});
  }
  const double load = observation.load1 / observation.cpus;
  const std::string load_text = LoadText(observation, load);
  if (!previous.cordoned) {
    if (load > config.cordon_above) {
      return Transition(previous, true, now, load,
                        {"Overloaded", absl::StrFormat("%s > %.2f; cordoned for new pods",
                                                       load_text, config.cordon_above)});
    }
    return Transition(
        previous, false, now, load,
        {"LoadNormal", absl::StrFormat("%s <= %.2f", load_text, config.cordon_above)});
  }
  if (load >= config.uncordon_below) {
    return Transition(previous, true, now, load,
                      {"Overloaded", absl::StrFormat("%s; stays cordoned until below %.2f",
                                                     load_text, config.uncordon_below)});
  }
  const absl::Duration cordoned_for = now - previous.since;
  if (cordoned_for < config.min_cordon_duration) {
    return Transition(
        previous, true, now, load,
        {"MinimumCordonDuration",
         absl::StrCat(load_text, " is below the threshold, but the node has been cordoned for ",
                      absl::FormatDuration(absl::Trunc(cordoned_for, absl::Seconds(1))),
                      " of the minimum ", absl::FormatDuration(config.min_cordon_duration))});
  }
  return Transition(previous, false, now, load,
                    {"LoadRecovered", absl::StrFormat("%s < %.2f; accepts new pods again",
                                                      load_text, config.uncordon_below)});
}

}  // namespace headroom
