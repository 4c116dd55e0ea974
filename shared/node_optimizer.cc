#include "shared/node_optimizer.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "shared/quantity.h"
#include "shared/status_macros.h"
#include "shared/wide_int.h"

namespace headroom {
namespace {

using Wide = WideInt;

constexpr std::array<Resource, 2> kEvictionPasses = {Resource::kMemory, Resource::kCpu};

size_t Slot(Resource resource) { return resource == Resource::kCpu ? 0 : 1; }

// A sized container's base and headroom, by the footprint rule (footprint.h) that placement
// and the simulator use too. Only pods whose every container is past the warm-up reach steps
// 2-6 (HasHistory), so the rule's observed values apply: no warm-up to check again here.
ResourceFootprint Sized(const ContainerDemand& container, Resource resource) {
  return ContainerFootprint(container, resource, absl::ZeroDuration());
}

std::string Amount(Resource resource, Wide amount) {
  return FormatAmount(resource, SaturateToInt64(amount));
}

// Step 2 aggregates of one optimised pod.
struct PodWork {
  size_t pod = 0;
  std::array<Wide, 2> base{};
  // The CPU base now (the short-window P75): a CPU eviction answers a sustained overload now,
  // not the daily peak of the base that sizing and placement plan for.
  Wide cpu_now = 0;
  std::array<int64_t, 2> headroom{};  // its containers' headrooms combined (footprint.h)
  uint32_t name_rank = 0;             // position in namespace/name order: the final tie-break
  bool alive = true;
  bool measured = false;  // its headroom is in the node's measured shared headroom
};

// Pod indices in (namespace, name) order. Sorting once lets validation find duplicates as
// neighbours and gives the eviction sorts an integer tie-break instead of string compares.
std::vector<size_t> PodsByName(const std::vector<PodDemand>& pods) {
  std::vector<size_t> order(pods.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const int by_namespace = pods[a].pod_namespace.compare(pods[b].pod_namespace);
    if (by_namespace != 0) return by_namespace < 0;
    const int by_name = pods[a].name.compare(pods[b].name);
    return by_name != 0 ? by_name < 0 : a < b;
  });
  return order;
}

bool Evictable(const PodDemand& pod) {
  return !pod.daemonset && pod.ranking != EvictionRanking::kNoEviction &&
         !pod.protected_from_eviction;
}

absl::Status FieldError(size_t pod, const PodDemand& demand, absl::string_view field,
                        absl::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("pods[", pod, "]", field, ": ", problem, " (pod ", demand.Key(), ")"));
}

absl::Status ValidateContainer(size_t pod_index, const PodDemand& pod, size_t index) {
  const ContainerDemand& container = pod.containers[index];
  // Built only on error: validation runs for every container on every optimisation.
  const auto path = [index] { return absl::StrCat(".containers[", index, "]"); };
  if (container.cpu.has_value()) {
    const CpuStats& cpu = *container.cpu;
    if (cpu.base_millis < 0 || cpu.peak_millis < 0 || cpu.daily_base_millis < 0) {
      return FieldError(pod_index, pod, absl::StrCat(path(), ".cpu"), "must not be negative");
    }
    if (cpu.peak_millis < cpu.base_millis) {
      return FieldError(
          pod_index, pod, absl::StrCat(path(), ".cpu.max"),
          absl::StrCat("peak ", FormatCpuMillis(cpu.peak_millis), " is below the base (p75) ",
                       FormatCpuMillis(cpu.base_millis)));
    }
  }
  if (container.memory.has_value()) {
    const MemoryStats& memory = *container.memory;
    if (memory.base_bytes < 0 || memory.peak_bytes < 0 || memory.max_7d_bytes < 0 ||
        memory.oom_bytes < 0 || memory.daily_base_bytes < 0) {
      return FieldError(pod_index, pod, absl::StrCat(path(), ".memory"), "must not be negative");
    }
    if (memory.peak_bytes < memory.base_bytes) {
      return FieldError(
          pod_index, pod, absl::StrCat(path(), ".memory.max"),
          absl::StrCat("peak ", FormatMemoryBytes(memory.peak_bytes), " is below the base (p75) ",
                       FormatMemoryBytes(memory.base_bytes)));
    }
    if (memory.max_7d_bytes < memory.peak_bytes) {
      return FieldError(pod_index, pod, absl::StrCat(path(), ".memory.max7d"),
                        absl::StrCat("7-day max ", FormatMemoryBytes(memory.max_7d_bytes),
                                     " is below the peak ", FormatMemoryBytes(memory.peak_bytes)));
    }
  }
  if (container.history < absl::ZeroDuration()) {
    return FieldError(pod_index, pod, absl::StrCat(path(), ".history"), "must not be negative");
  }
  return absl::OkStatus();
}

// Whether every container has trusted statistics (footprint.h); `missing` says why not.
bool HasHistory(const PodDemand& pod, absl::Duration min_history, std::string* missing) {
  for (const ContainerDemand& container : pod.containers) {
    if (!container.cpu.has_value() || !container.memory.has_value()) {
      *missing = absl::StrCat("container ", container.name, " has no ",
                              container.cpu.has_value() ? "memory" : "cpu", " usage history");
      return false;
    }
    if (!HasTrustedHistory(container, min_history)) {
      *missing = absl::StrCat(
          "container ", container.name, " has been observed for ",
          absl::FormatDuration(absl::Trunc(container.history, absl::Minutes(1))), " of the ",
          absl::FormatDuration(min_history), " warm-up (guard rail: no tightening before)");
      return false;
    }
  }
  return true;
}

// Step 3/4 order: pods that may be evicted first, DaemonSets last, then ranking (low first),
// then larger headroom first, then namespace/name so that the result never depends on input
// order.
void SortForEviction(std::vector<size_t>& order, const std::vector<PodWork>& work,
                     const std::vector<PodDemand>& pods, Resource resource) {
  const size_t slot = Slot(resource);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const PodDemand& pa = pods[work[a].pod];
    const PodDemand& pb = pods[work[b].pod];
    if (pa.protected_from_eviction != pb.protected_from_eviction) {
      return !pa.protected_from_eviction;
    }
    if (pa.daemonset != pb.daemonset) return !pa.daemonset;
    if (pa.ranking != pb.ranking) return pa.ranking < pb.ranking;
    if (work[a].headroom[slot] != work[b].headroom[slot]) {
      return work[a].headroom[slot] > work[b].headroom[slot];
    }
    return work[a].name_rank < work[b].name_rank;
  });
}

struct Totals {
  Wide base = 0;
  int64_t headroom = 0;  // the node's shared headroom
  Wide squares = 0;      // its square before the root: the sum the greedy pass keeps running
  // headroom-nri measured the pods together (node_headroom.h) and they needed more than
  // their bases: base + headroom is then their measured P99 together.
  bool measured_above_bases = false;
};

// A headroom squared, clamped at 2^56 (64 PiB; a node's sum of squares then stays within
// 128 bits for 2^14 pods, far beyond what a node or report holds).
Wide Square(int64_t headroom) {
  const Wide clamped = std::clamp<int64_t>(headroom, 0, int64_t{1} << 56);
  return clamped * clamped;
}

// The node's shared headroom for `resource` when headroom-nri measured it (NodeDemand).
std::optional<int64_t> Measured(const NodeDemand& node, Resource resource) {
  if (!node.shared_headroom.has_value()) return std::nullopt;
  return std::max<int64_t>(0, node.shared_headroom->Get(resource));
}

// Squared headroom a surviving pod adds to the node's: none when it is in the measurement.
Wide AddedSquare(const PodWork& pod, Resource resource, std::optional<int64_t> measured) {
  return measured.has_value() && pod.measured ? 0 : Square(pod.headroom[Slot(resource)]);
}

// The survivors' bases and shared headroom: the measured one (kept while pods are evicted: a
// pod leaving can only lower it, so keeping it is on the safe side until the next
// measurement) with the headrooms of the pods outside it by root-sum-square.
Totals AliveTotals(const std::vector<PodWork>& work, Resource resource,
                   std::optional<int64_t> measured) {
  Totals totals;
  Wide squares = measured.has_value() ? Square(*measured) : 0;
  for (const PodWork& pod : work) {
    if (!pod.alive) continue;
    totals.base += pod.base[Slot(resource)];
    squares += AddedSquare(pod, resource, measured);
  }
  totals.squares = squares;
  totals.headroom = CeilSqrt(squares);
  totals.measured_above_bases = measured.value_or(0) > 0;
  return totals;
}

std::string NeedText(Resource resource, const Totals& totals, Wide available) {
  return absl::StrCat("base ", Amount(resource, totals.base), " + shared headroom ",
                      Amount(resource, totals.headroom), " = ",
                      Amount(resource, totals.base + totals.headroom), " > available ",
                      Amount(resource, available));
}

absl::string_view DoesNotFitCode(Resource resource) {
  return resource == Resource::kCpu ? "CpuDoesNotFit" : "MemoryDoesNotFit";
}

Wide CpuNow(const std::vector<PodWork>& work) {
  Wide total = 0;
  for (const PodWork& pod : work) {
    if (pod.alive) total += pod.cpu_now;
  }
  return total;
}

// What must fit: memory at base + the shared headroom (running out kills). CPU (running out
// throttles) at its bases now -- and, where headroom-nri measured the node's pods needing
// more than their bases together, at base + the measured shared headroom too: their P99
// together in the last 48 hours is contention that happened, not a worst case (an unmeasured
// headroom is what weights and PSI arbitrate). `cpu_now` is the sum of the current CPU bases.
Wide Need(Resource resource, const Totals& totals, Wide cpu_now) {
  if (resource == Resource::kMemory) return totals.base + totals.headroom;
  return totals.measured_above_bases ? std::max(cpu_now, totals.base + totals.headroom) : cpu_now;
}

std::string EvictionText(Resource resource, const Totals& totals, Wide cpu_now, Wide available) {
  if (resource == Resource::kMemory) return NeedText(resource, totals, available);
  if (totals.measured_above_bases && totals.base + totals.headroom > cpu_now) {
    return absl::StrCat(NeedText(resource, totals, available),
                        " (measured together) for a sustained period");
  }
  return absl::StrCat("bases now ", Amount(resource, cpu_now), " > available ",
                      Amount(resource, available), " for a sustained period");
}

// Steps 3 and 4 for one resource: evicts in order until the node fits or only protected
// pods remain. The base total and the sum of the survivors' squared headrooms are kept
// running, so the greedy pass is O(n log n).
// Returns the victims (indices into `work`) in eviction order; they are marked not alive.
std::vector<size_t> ChooseVictims(Resource resource, Wide available, const NodeDemand& node,
                                  std::vector<PodWork>& work) {
  const size_t slot = Slot(resource);
  std::vector<size_t> order;
  order.reserve(work.size());
  for (size_t i = 0; i < work.size(); ++i) {
    if (work[i].alive) order.push_back(i);
  }
  SortForEviction(order, work, node.pods, resource);
  const std::optional<int64_t> measured = Measured(node, resource);
  Totals totals = AliveTotals(work, resource, measured);
  Wide cpu_now = CpuNow(work);
  std::vector<size_t> victims;
  // Evictable pods form a prefix of `order` (protected pods sort after them).
  for (size_t next = 0; Need(resource, totals, cpu_now) > available && next < order.size();
       ++next) {
    PodWork& victim = work[order[next]];
    if (!Evictable(node.pods[victim.pod])) break;
    victim.alive = false;
    victims.push_back(order[next]);
    totals.base -= victim.base[slot];
    cpu_now -= victim.cpu_now;
    totals.squares -= AddedSquare(victim, resource, measured);
    totals.headroom = CeilSqrt(totals.squares);
  }
  return victims;
}

bool Fits(Resource resource, Wide available, const std::vector<PodWork>& work,
          std::optional<int64_t> measured) {
  return Need(resource, AliveTotals(work, resource, measured), CpuNow(work)) <= available;
}

// Headroom's guard rail on the seed's greedy order (kube-scheduler's preemption does the same,
// "reprieve"): once the node fits, each victim, from the last chosen (the most protected) to
// the first, is kept if the node still fits with it back. A low-ranked pod whose eviction
// does not help -- say a small one while the shortfall is another pod's base -- is not
// evicted, and the disruption budgets go to evictions that close the shortfall.
void Reprieve(Resource resource, Wide available, std::vector<PodWork>& work,
              std::vector<size_t>& victims, std::optional<int64_t> measured) {
  if (!Fits(resource, available, work, measured)) return;  // a shortfall: every eviction helps
  for (size_t k = victims.size(); k-- > 0;) {
    work[victims[k]].alive = true;
    if (Fits(resource, available, work, measured)) {
      victims.erase(victims.begin() + static_cast<std::ptrdiff_t>(k));
    } else {
      work[victims[k]].alive = false;
    }
  }
}

// Steps 3 and 4 for one resource: the victims, then the reprieve, then each eviction with the
// numbers the node had just before it.
void EvictUntilFits(Resource resource, Wide available, const NodeDemand& node,
                    std::vector<PodWork>& work, std::vector<PodEviction>& evictions) {
  std::vector<size_t> victims = ChooseVictims(resource, available, node, work);
  Reprieve(resource, available, work, victims, Measured(node, resource));
  for (size_t victim : victims) work[victim].alive = true;
  for (size_t index : victims) {
    PodWork& victim = work[index];
    const PodDemand& pod = node.pods[victim.pod];
    evictions.push_back(
        {victim.pod,
         resource,
         {std::string(DoesNotFitCode(resource)),
          absl::StrCat(ResourceName(resource), " does not fit on node ", node.name, ": ",
                       EvictionText(resource, AliveTotals(work, resource, Measured(node, resource)),
                                    CpuNow(work), available),
                       "; evicted first as ranking ", EvictionRankingName(pod.ranking), " with ",
                       ResourceName(resource), " headroom ",
                       Amount(resource, victim.headroom[Slot(resource)]))}});
    victim.alive = false;
  }
}

ResourceOutcome Outcome(Resource resource, const NodeDemand& node, Wide reserved,
                        const std::vector<PodWork>& work,
                        const std::vector<ContainerDemand const*>& alive_containers,
                        const OptimizeOptions& options) {
  ResourceOutcome outcome;
  const Wide allocatable = node.allocatable.Get(resource);
  const Wide available = allocatable - reserved;
  const Totals totals = AliveTotals(work, resource, Measured(node, resource));
  Wide total_headroom = 0;
  for (const ContainerDemand* container : alive_containers) {
    total_headroom += Sized(*container, resource).headroom;
  }
  outcome.allocatable = SaturateToInt64(allocatable);
  outcome.reserved = SaturateToInt64(reserved);
  outcome.base_total = SaturateToInt64(totals.base);
  outcome.shared_headroom = totals.headroom;
  outcome.total_headroom = SaturateToInt64(total_headroom);
  const Wide cpu_now = CpuNow(work);
  outcome.fits = totals.base + totals.headroom <= available;
  outcome.bases_fit = resource == Resource::kCpu ? Need(resource, totals, cpu_now) <= available
                                                 : totals.base <= available;
  if (Need(resource, totals, cpu_now) <= available) return outcome;
  if (resource == Resource::kCpu && !options.evict_for_cpu) {
    outcome.shortfall =
        Reason{"CpuBasesOverAllocatable",
               absl::StrCat("cpu bases on node ", node.name, " exceed the available cpu (",
                            EvictionText(resource, totals, cpu_now, available),
                            " not yet): no eviction until that lasts (CPU is compressible)")};
    return outcome;
  }
  outcome.shortfall = Reason{
      "ProtectedPodsDoNotFit",
      absl::StrCat(ResourceName(resource), " does not fit on node ", node.name,
                   " and no evictable pod is left (DaemonSet, no-eviction and protected pods "
                   "are never evicted): ",
                   EvictionText(resource, totals, cpu_now, available))};
  return outcome;
}

// Step 5: base + shared headroom x own / total, rounded up.
int64_t FinalAmount(int64_t base, int64_t own_headroom, int64_t shared_headroom,
                    Wide total_headroom) {
  if (total_headroom <= 0 || own_headroom <= 0) return base;
  const Wide share =
      (static_cast<Wide>(shared_headroom) * own_headroom + total_headroom - 1) / total_headroom;
  return SaturateToInt64(base + share);
}

absl::Status ValidateNode(const NodeDemand& node, const std::vector<size_t>& by_name) {
  if (node.allocatable.cpu_millis < 0 || node.allocatable.memory_bytes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("node.allocatable: must not be negative (node ", node.name, ")"));
  }
  for (size_t i = 1; i < by_name.size(); ++i) {
    const PodDemand& previous = node.pods[by_name[i - 1]];
    const PodDemand& current = node.pods[by_name[i]];
    if (previous.pod_namespace == current.pod_namespace && previous.name == current.name) {
      return FieldError(by_name[i], current, "",
                        "the same namespace/name appears twice on the node");
    }
  }
  for (size_t i = 0; i < node.pods.size(); ++i) {
    const PodDemand& pod = node.pods[i];
    if (pod.requests.cpu_millis < 0 || pod.requests.memory_bytes < 0) {
      return FieldError(i, pod, ".requests", "must not be negative");
    }
    if (pod.optimizable && pod.containers.empty()) {
      return FieldError(i, pod, ".containers", "an optimizable pod needs at least one container");
    }
    for (size_t c = 0; c < pod.containers.size(); ++c) {
      // Pods have a handful of containers: a quadratic scan beats hashing.
      for (size_t earlier = 0; earlier < c; ++earlier) {
        if (pod.containers[earlier].name == pod.containers[c].name) {
          return FieldError(
              i, pod, absl::StrCat(".containers[", c, "].name"),
              absl::StrCat("container name ", pod.containers[c].name, " appears twice in the pod"));
        }
      }
      HEADROOM_RETURN_IF_ERROR(ValidateContainer(i, pod, c));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateNodeDemand(const NodeDemand& node) {
  return ValidateNode(node, PodsByName(node.pods));
}

absl::StatusOr<NodeOptimization> OptimizeNode(const NodeDemand& node,
                                              const OptimizeOptions& options) {
  const std::vector<size_t> by_name = PodsByName(node.pods);
  HEADROOM_RETURN_IF_ERROR(ValidateNode(node, by_name));
  std::vector<uint32_t> name_rank(node.pods.size());
  for (size_t rank = 0; rank < by_name.size(); ++rank) {
    name_rank[by_name[rank]] = static_cast<uint32_t>(rank);
  }
  NodeOptimization result;

  // Step 1: pods headroom does not size keep their declared requests.
  std::array<Wide, 2> reserved{};
  std::vector<PodWork> work;
  work.reserve(node.pods.size());
  for (size_t i = 0; i < node.pods.size(); ++i) {
    const PodDemand& pod = node.pods[i];
    std::string missing;
    if (!pod.optimizable || !HasHistory(pod, options.min_history, &missing)) {
      reserved[Slot(Resource::kCpu)] += pod.requests.cpu_millis;
      reserved[Slot(Resource::kMemory)] += pod.requests.memory_bytes;
      const std::string requests =
          absl::StrCat("its declared requests (cpu ", FormatCpuMillis(pod.requests.cpu_millis),
                       ", memory ", FormatMemoryBytes(pod.requests.memory_bytes), ") are reserved");
      result.skipped.push_back(
          {i, pod.optimizable
                  ? Reason{"NoHistory", absl::StrCat(missing, "; ", requests)}
                  : Reason{"NotOptimizable", absl::StrCat("pod is not optimised; ", requests)}});
      continue;
    }
    // Step 2: per-pod base and its containers' headrooms combined.
    PodWork pod_work;
    pod_work.pod = i;
    pod_work.name_rank = name_rank[i];
    pod_work.measured = pod.in_shared_headroom;
    for (const ContainerDemand& container : pod.containers) {
      pod_work.cpu_now += container.cpu->base_millis;
      for (Resource resource : kEvictionPasses) {
        const ResourceFootprint sized = Sized(container, resource);
        pod_work.base[Slot(resource)] += sized.base;
        pod_work.headroom[Slot(resource)] =
            CombineHeadroom(pod_work.headroom[Slot(resource)], sized.headroom);
      }
    }
    work.push_back(pod_work);
  }

  // Steps 3 and 4: memory first (running out kills), then CPU (running out throttles) when
  // the caller has seen its bases over for a sustained period.
  for (Resource resource : kEvictionPasses) {
    if (resource == Resource::kCpu && !options.evict_for_cpu) continue;
    const Wide available =
        static_cast<Wide>(node.allocatable.Get(resource)) - reserved[Slot(resource)];
    EvictUntilFits(resource, available, node, work, result.evictions);
  }

  std::vector<const ContainerDemand*> alive_containers;
  for (const PodWork& pod : work) {
    if (!pod.alive) continue;
    for (const ContainerDemand& container : node.pods[pod.pod].containers) {
      alive_containers.push_back(&container);
    }
  }
  result.cpu = Outcome(Resource::kCpu, node, reserved[Slot(Resource::kCpu)], work, alive_containers,
                       options);
  result.memory = Outcome(Resource::kMemory, node, reserved[Slot(Resource::kMemory)], work,
                          alive_containers, options);

  // Steps 5 and 6: share the node's shared headroom, then size every surviving container.
  result.containers.reserve(alive_containers.size());
  for (const PodWork& pod : work) {
    if (!pod.alive) continue;
    const PodDemand& demand = node.pods[pod.pod];
    for (size_t c = 0; c < demand.containers.size(); ++c) {
      const ContainerDemand& container = demand.containers[c];
      ContainerSizing sizing;
      const ResourceFootprint cpu = Sized(container, Resource::kCpu);
      const ResourceFootprint memory = Sized(container, Resource::kMemory);
      sizing.cpu_request_millis = FinalAmount(cpu.base, cpu.headroom, result.cpu.shared_headroom,
                                              result.cpu.total_headroom);
      sizing.memory_request_bytes =
          FinalAmount(memory.base, memory.headroom, result.memory.shared_headroom,
                      result.memory.total_headroom);
      sizing.memory_limit_bytes = MemoryLimitBytes(*container.memory, sizing.memory_request_bytes);
      result.containers.push_back({pod.pod, c, sizing});
    }
  }
  return result;
}

}  // namespace headroom
