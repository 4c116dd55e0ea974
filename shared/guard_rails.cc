#include "shared/guard_rails.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "shared/annotations.h"
#include "shared/memory_pressure.h"
#include "shared/quantity.h"
#include "shared/wide_int.h"

namespace headroom {
namespace {

enum class Value { kCpuRequest, kMemoryRequest, kMemoryLimit };

absl::string_view ValueName(Value value) {
  switch (value) {
    case Value::kCpuRequest:
      return "cpu request";
    case Value::kMemoryRequest:
      return "memory request";
    case Value::kMemoryLimit:
      return "memory limit";
  }
  return "value";
}

std::string Amount(Value value, int64_t amount) {
  return value == Value::kCpuRequest ? FormatCpuMillis(amount) : FormatMemoryBytes(amount);
}

int64_t Doubled(int64_t amount) { return SaturateToInt64(static_cast<WideInt>(amount) * 2); }

// The member of SizedValues and of ShrinkTimes each value is.
constexpr std::optional<int64_t> SizedValues::*kSized[] = {&SizedValues::cpu_request_millis,
                                                           &SizedValues::memory_request_bytes,
                                                           &SizedValues::memory_limit_bytes};
constexpr std::optional<absl::Time> ShrinkTimes::*kShrunk[] = {
    &ShrinkTimes::cpu_request, &ShrinkTimes::memory_request, &ShrinkTimes::memory_limit};

std::optional<int64_t>& Slot(SizedValues& values, Value value) {
  return values.*kSized[static_cast<int>(value)];
}
const std::optional<int64_t>& Get(const SizedValues& values, Value value) {
  return values.*kSized[static_cast<int>(value)];
}
std::optional<absl::Time>& ShrinkSlot(ShrinkTimes& times, Value value) {
  return times.*kShrunk[static_cast<int>(value)];
}

constexpr Value kValues[] = {Value::kCpuRequest, Value::kMemoryRequest, Value::kMemoryLimit};

// Raises `amount` to `floor`, noting why when it changes anything.
void RaiseTo(int64_t& amount, int64_t floor, Value value, absl::string_view code,
             absl::string_view why, std::vector<Reason>& reasons) {
  if (amount >= floor) return;
  reasons.push_back(
      {std::string(code), absl::StrCat(ValueName(value), " ", Amount(value, amount), " raised to ",
                                       Amount(value, floor), ": ", why)});
  amount = floor;
}

// The memory limit's floors from evidence, warm or not: 2 x the memory at the last OOM kill,
// a step above the memory in use during a sustained memory stall, and the memory in use.
void RaiseLimitToEvidence(int64_t& limit, const GuardInput& input, const GuardRailConfig& config,
                          std::vector<Reason>& reasons) {
  RaiseTo(limit, Doubled(input.oom_memory_bytes), Value::kMemoryLimit, "OomFloor",
          absl::StrCat("2 x the memory at the last OOM kill (",
                       FormatMemoryBytes(input.oom_memory_bytes), ")"),
          reasons);
  // A stall raises by steps, at most to 2 x the declared limit (what one OOM kill of a
  // container at its declared limit gives): beyond that, a leak is the OOM killer's to stop.
  int64_t pressure_floor =
      PressureLimitFloor(input.pressure_memory_bytes, config.memory_pressure_step);
  std::string capped;
  if (input.declared.memory_limit_bytes.has_value() &&
      pressure_floor > Doubled(*input.declared.memory_limit_bytes)) {
    pressure_floor = Doubled(*input.declared.memory_limit_bytes);
    capped = absl::StrCat(", at most 2 x the declared limit ",
                          FormatMemoryBytes(*input.declared.memory_limit_bytes));
  }
  RaiseTo(limit, pressure_floor, Value::kMemoryLimit, "PressureFloor",
          absl::StrCat(std::lround(config.memory_pressure_step * 100),
                       "% above the memory in use during a sustained memory stall (",
                       FormatMemoryBytes(input.pressure_memory_bytes), ")", capped),
          reasons);
  RaiseTo(limit, input.memory_in_use_bytes, Value::kMemoryLimit, "InUseFloor", "the memory in use",
          reasons);
}

// The memory request's floor from evidence: the memory in use during a sustained memory stall
// (the least it needs), under the workload's max bound when it has one.
void RaiseRequestToPressure(int64_t& request, const GuardInput& input,
                            std::vector<Reason>& reasons) {
  int64_t floor = input.pressure_memory_bytes;
  if (input.tuning.max_memory_bytes.has_value()) {
    floor = std::min(floor, *input.tuning.max_memory_bytes);
  }
  RaiseTo(request, floor, Value::kMemoryRequest, "PressureRequestFloor",
          absl::StrCat("the memory in use during a sustained memory stall (",
                       FormatMemoryBytes(input.pressure_memory_bytes), ")"),
          reasons);
}

// The step bound on a running container's value that goes down from `current`.
void BoundShrink(int64_t& amount, int64_t current, Value value, const GuardInput& input,
                 const GuardRailConfig& config, GuardResult& result) {
  if (!input.running || amount >= current) return;
  std::optional<absl::Time>& last = ShrinkSlot(result.last_shrink, value);
  if (last.has_value() && input.now - *last < config.shrink_interval) {
    result.reasons.push_back(
        {"ShrinkTooSoon",
         absl::StrCat(ValueName(value), " kept at ", Amount(value, current), " (wanted ",
                      Amount(value, amount), "): it shrank ",
                      absl::FormatDuration(absl::Trunc(input.now - *last, absl::Seconds(1))),
                      " ago, at most one step per ",
                      absl::FormatDuration(config.shrink_interval))});
    amount = current;
    return;
  }
  const int64_t bounded = static_cast<int64_t>(
      std::ceil(static_cast<long double>(current) * (1.0L - config.max_shrink_step)));
  if (amount < bounded) {
    result.reasons.push_back(
        {"ShrinkStepBounded",
         absl::StrCat(ValueName(value), " ", Amount(value, current), " -> ", Amount(value, bounded),
                      " (wanted ", Amount(value, amount), "): one step takes at most ",
                      std::lround(config.max_shrink_step * 100), "%")});
    amount = bounded;
  }
  last = input.now;
}

// Lowers `amount` to `cap`, noting why when it changes anything.
void LowerTo(int64_t& amount, int64_t cap, Value value, absl::string_view code,
             absl::string_view why, std::vector<Reason>& reasons) {
  if (amount <= cap) return;
  reasons.push_back(
      {std::string(code), absl::StrCat(ValueName(value), " ", Amount(value, amount), " lowered to ",
                                       Amount(value, cap), ": ", why)});
  amount = cap;
}

// The workload's min bound of a request; nullopt for the memory limit.
std::optional<int64_t> MinBound(const WorkloadTuning& tuning, Value value) {
  if (value == Value::kCpuRequest) return tuning.min_cpu_millis;
  if (value == Value::kMemoryRequest) return tuning.min_memory_bytes;
  return std::nullopt;
}

std::optional<int64_t> MaxBound(const WorkloadTuning& tuning, Value value) {
  if (value == Value::kCpuRequest) return tuning.max_cpu_millis;
  if (value == Value::kMemoryRequest) return tuning.max_memory_bytes;
  return std::nullopt;
}

absl::string_view BoundKey(Value value, bool min) {
  if (value == Value::kCpuRequest) return min ? kMinCpuAnnotation : kMaxCpuAnnotation;
  return min ? kMinMemoryAnnotation : kMaxMemoryAnnotation;
}

void RaiseToMinBound(int64_t& amount, Value value, const WorkloadTuning& tuning,
                     std::vector<Reason>& reasons) {
  if (const std::optional<int64_t> min = MinBound(tuning, value); min.has_value()) {
    RaiseTo(amount, *min, value, "MinBound", absl::StrCat("the workload's ", BoundKey(value, true)),
            reasons);
  }
}

// The margin, then the max and min bounds of the workload's tuning, on a proposed request.
void ApplyTuning(int64_t& amount, Value value, const WorkloadTuning& tuning,
                 std::vector<Reason>& reasons) {
  if (value == Value::kMemoryLimit) return;
  const double margin = value == Value::kCpuRequest ? tuning.cpu_margin : tuning.memory_margin;
  if (margin > 0) {
    const int64_t with_margin = SaturateToInt64(static_cast<WideInt>(
        std::ceil(static_cast<long double>(amount) * (1.0L + static_cast<long double>(margin)))));
    RaiseTo(amount, with_margin, value, "Margin",
            absl::StrCat("the workload's margin of ", std::lround(margin * 100), "%"), reasons);
  }
  if (const std::optional<int64_t> max = MaxBound(tuning, value); max.has_value()) {
    LowerTo(amount, *max, value, "MaxBound",
            absl::StrCat("the workload's ", BoundKey(value, false)), reasons);
  }
  RaiseToMinBound(amount, value, tuning, reasons);
}

// The values a workload opted out of leave the proposal: the caller does not manage them.
SizedValues WithoutOptedOut(SizedValues proposed, const WorkloadTuning& tuning,
                            std::vector<Reason>& reasons) {
  const auto keep = [&](absl::string_view resource, const std::string& why) {
    reasons.push_back(
        {"KeptByWorkload",
         absl::StrCat(
             resource, " left as it is: ",
             why.empty() ? absl::StrCat("the workload's ", kKeepDeclaredAnnotation) : why)});
  };
  if (tuning.keep_cpu && proposed.cpu_request_millis.has_value()) {
    proposed.cpu_request_millis.reset();
    keep("cpu", tuning.keep_cpu_why);
  }
  if (tuning.keep_memory &&
      (proposed.memory_request_bytes.has_value() || proposed.memory_limit_bytes.has_value())) {
    proposed.memory_request_bytes.reset();
    proposed.memory_limit_bytes.reset();
    keep("memory", tuning.keep_memory_why);
  }
  return proposed;
}

}  // namespace

std::string DescribeThreshold(const ResizeThreshold& threshold) {
  return absl::StrCat(std::lround(threshold.fraction * 100), "% or ",
                      FormatCpuMillis(threshold.cpu_millis), " / ",
                      FormatMemoryBytes(threshold.memory_bytes));
}

absl::Status GuardRailConfig::Validate() const {
  if (min_history < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("min history must not be negative");
  }
  if (min_cpu_request_millis < 0 || min_memory_limit_bytes < 0) {
    return absl::InvalidArgumentError(
        "the CPU request and memory limit floors must not be negative");
  }
  if (!(max_shrink_step > 0 && max_shrink_step <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("max shrink step must be in (0, 1], got ", max_shrink_step));
  }
  if (shrink_interval < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("shrink interval must not be negative");
  }
  if (!(resize_threshold.fraction >= 0 && resize_threshold.fraction < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the resize threshold must be in [0, 1), got ", resize_threshold.fraction));
  }
  if (resize_threshold.cpu_millis < 0 || resize_threshold.memory_bytes < 0) {
    return absl::InvalidArgumentError(
        "the resize's smallest CPU and memory steps must not be negative");
  }
  return absl::OkStatus();
}

GuardResult ApplyGuardRails(const GuardInput& given, const GuardRailConfig& config) {
  GuardResult result;
  GuardInput input = given;
  input.proposed = WithoutOptedOut(given.proposed, given.tuning, result.reasons);
  result.last_shrink = input.last_shrink;

  if (input.history < config.min_history) {
    // Warm-up: the declared values of what the caller manages, with the memory limit raised
    // only by evidence.
    result.warming_up = true;
    result.values = input.current;
    bool changes = false;
    for (Value value : kValues) {
      if (!Get(input.proposed, value).has_value()) continue;
      Slot(result.values, value) = Get(input.declared, value);
      changes = changes || Get(input.proposed, value) != Get(input.declared, value);
    }
    if (changes) {
      result.reasons.push_back(
          {"WarmingUp",
           absl::StrCat("observed for ",
                        absl::FormatDuration(absl::Trunc(input.history, absl::Minutes(1))),
                        " of the ", absl::FormatDuration(config.min_history),
                        " warm-up: the declared values are kept")});
    }
    // Growth is always allowed: the workload's min bounds and a sustained memory stall apply
    // while it warms up.
    for (Value value : {Value::kCpuRequest, Value::kMemoryRequest}) {
      std::optional<int64_t>& slot = Slot(result.values, value);
      if (!Get(input.proposed, value).has_value() || !slot.has_value()) continue;
      if (value == Value::kMemoryRequest) RaiseRequestToPressure(*slot, input, result.reasons);
      RaiseToMinBound(*slot, value, input.tuning, result.reasons);
    }
    if (input.proposed.memory_limit_bytes.has_value() &&
        result.values.memory_limit_bytes.has_value()) {
      RaiseLimitToEvidence(*result.values.memory_limit_bytes, input, config, result.reasons);
      if (result.values.memory_request_bytes.has_value()) {
        RaiseTo(*result.values.memory_limit_bytes, *result.values.memory_request_bytes,
                Value::kMemoryLimit, "RequestFloor", "a limit is never below the request",
                result.reasons);
      }
    }
    return result;
  }

  result.values = input.current;
  for (Value value : kValues) {
    const std::optional<int64_t>& proposed = Get(input.proposed, value);
    if (!proposed.has_value()) continue;  // not managed by this caller: left as it is
    int64_t amount = std::max<int64_t>(0, *proposed);
    const std::optional<int64_t>& declared = Get(input.declared, value);
    if (value == Value::kMemoryRequest) RaiseRequestToPressure(amount, input, result.reasons);
    ApplyTuning(amount, value, input.tuning, result.reasons);
    if (value == Value::kCpuRequest) {
      RaiseTo(amount, config.min_cpu_request_millis, value, "CpuFloor",
              absl::StrCat("the floor ", FormatCpuMillis(config.min_cpu_request_millis)),
              result.reasons);
    }
    if (value != Value::kMemoryLimit && declared.has_value() && !input.allow_below_declared) {
      RaiseTo(amount, *declared, value, "DeclaredFloor",
              "never below the declared request unless the workload opts in "
              "(headroom.dev/allow-below-declared)",
              result.reasons);
    }
    if (value == Value::kMemoryLimit) {
      RaiseTo(amount, Doubled(input.max_memory_bytes), value, "MaxFloor",
              absl::StrCat("2 x the observed max ", FormatMemoryBytes(input.max_memory_bytes)),
              result.reasons);
      if (declared.has_value() && !config.allow_memory_limit_below_declared) {
        RaiseTo(amount, *declared, value, "DeclaredLimitFloor",
                "never below the declared limit (placement reads requests: a lower limit "
                "saves no node, only risks an OOM kill; --allow-memory-limit-below-declared)",
                result.reasons);
      }
      RaiseTo(amount, config.min_memory_limit_bytes, value, "MemoryLimitFloor",
              absl::StrCat("the floor ", FormatMemoryBytes(config.min_memory_limit_bytes)),
              result.reasons);
      RaiseLimitToEvidence(amount, input, config, result.reasons);
      if (result.values.memory_request_bytes.has_value()) {
        RaiseTo(amount, *result.values.memory_request_bytes, value, "RequestFloor",
                "a limit is never below the request", result.reasons);
      }
    }
    if (const std::optional<int64_t>& current = Get(input.current, value); current.has_value()) {
      BoundShrink(amount, *current, value, input, config, result);
    }
    Slot(result.values, value) = amount;
  }
  return result;
}

}  // namespace headroom
