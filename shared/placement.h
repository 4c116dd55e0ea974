#pragma once

// Placement judgement of headroom-extender (filter and prioritize), as pure functions, so
// the extender and the simulator use the same code.
//
// Projected fit (filter): a node holds a pod when every pod on it, the candidate included,
// fits at its base plus the node's shared headroom, against allocatable CPU and memory, and
// the node has a free pod slot and is not cordoned for load. The shared headroom is what the
// node's pods were measured to need together (node_headroom.h), with every pod not measured
// with them -- the candidate, pods placed since the report -- added by root-sum-square
// (CombineHeadroom). A pod without statistics is judged by its declared requests: base =
// request, headroom = limit - request (never rejected for lack of data).
//
// Score (prioritize, 0..10): spread and pack score the projected free share after placement,
// averaged over CPU and memory: spread prefers more free room (like kube-scheduler's
// LeastAllocated), pack less (MostAllocated); target packs up to a target share of the fuller
// resource and spreads above it (ScoringStrategy). A node whose load is above `load_penalty_from`
// loses up to `max_load_penalty` points as load approaches the cordon threshold.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "shared/reason.h"
#include "shared/resource.h"

namespace headroom {

// What a pod needs from a node: base, and its headroom (footprint.h: its containers' spikes
// above their bases, combined).
struct PodFootprint {
  ResourceAmounts base;
  ResourceAmounts headroom;
};

// A node as placement sees it: its pods reduced to what the projected fit needs (their
// count, the sum of their bases and their shared headroom), so judging a node costs the same
// however many pods it runs.
// The numbers judging reads come first, together (the extender's node map keeps them within
// two cache lines of a slot: cluster_view.cc checks it); the texts only explain a rejection.
struct NodeFootprint {
  ResourceAmounts allocatable;
  ResourceAmounts base_total;  // sum of their bases
  ResourceAmounts headroom;    // their shared headroom, per resource
  int max_pods = 110;
  int pod_count = 0;      // pods already on the node (and recently placed ones)
  bool cordoned = false;  // load cordon (see load_cordon.h)
  double load = 0;        // load1 / CPUs; 0 when unknown
  std::string name;
  Reason cordon_reason;  // set when cordoned

  // Counts one more pod on the node: its base, and its headroom shared by root-sum-square.
  void Add(const PodFootprint& pod);
  // Counts a pod's base only: its headroom is in a measured shared headroom.
  void AddBase(const PodFootprint& pod);
  // headroom = CombineHeadroom(headroom, more).
  void ShareHeadroom(const ResourceAmounts& more);
};

// Two shared headrooms as one: the root-sum-square sqrt(a^2 + b^2), rounded up: spikes not
// measured together are taken as independent (more than the larger alone, less than the
// sum). Negative amounts count as 0; either beyond 2^62 gives INT64_MAX.
int64_t CombineHeadroom(int64_t a, int64_t b);
ResourceAmounts CombineHeadroom(const ResourceAmounts& a, const ResourceAmounts& b);

struct FitDecision {
  bool fits = false;
  Reason reason;              // code: Fits, InsufficientCpu, InsufficientMemory, TooManyPods,
                              // LoadCordoned; the message is written only for a rejection
  ResourceAmounts projected;  // sum of bases + shared headroom, candidate included
};

// The projected footprint of `node` with `candidate` added (sum of bases + shared headroom).
ResourceAmounts ProjectedFootprint(const NodeFootprint& node, const PodFootprint& candidate);

FitDecision ProjectedFit(const NodeFootprint& node, const PodFootprint& candidate);
// ProjectedFit's verdict alone, without building a decision: for the scheduler's path, which
// judges every node of every request and explains only the rejections.
bool FitsProjected(const NodeFootprint& node, const PodFootprint& candidate);

// How a fitting node is scored, by its projected footprint with the pod (the fuller of its
// CPU and memory shares; for target, its pod slots count too, so small pods do not pile up on
// one node):
// - spread: the emptier the better (kube-scheduler's LeastAllocated);
// - pack: the fuller the better (MostAllocated);
// - target: fuller is better up to `target_share`, emptier is better above it (the formula of
//   Trimaran's TargetLoadPacking, applied to the projected footprint): nodes fill to the
//   target before a new one is used, and every node keeps 1 - target as slack for spikes that
//   coincide (one shared headroom covers one spike at a time).
enum class ScoringStrategy { kSpread, kPack, kTarget };

// "spread", "pack" or "target"; the extender's and the simulator's --scoring.
absl::StatusOr<ScoringStrategy> ParseScoringStrategy(std::string_view name);
std::string_view ScoringStrategyName(ScoringStrategy strategy);

struct ScoringConfig {
  ScoringStrategy strategy = ScoringStrategy::kSpread;
  double target_share = 0.75;      // kTarget: the projected share nodes are filled to
  double load_penalty_from = 0.8;  // load at which the penalty starts
  double cordon_above = 1.0;       // load at which the penalty is full
  int max_load_penalty = 5;

  absl::Status Validate() const;
};

// The scoring both binaries take from --scoring and --scoring-target, validated; an
// InvalidArgument names the flag.
absl::StatusOr<ScoringConfig> ScoringFromFlags(std::string_view strategy, double target_share);

// `score` clamped to [0, 10] and rounded half away from zero, as std::lround would, without
// its library call (prioritize rounds one score per node of every call).
int RoundedScore(double score);

// 0..10; assumes the pod fits (a node that does not fit scores 0).
int ScoreNode(const NodeFootprint& node, const PodFootprint& candidate,
              const ScoringConfig& config = {});

}  // namespace headroom
