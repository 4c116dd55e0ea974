#include "extender/status/status.h"

#include <malloc.h>

#include <algorithm>
#include <map>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "extender/kube/pod_facts.h"
#include "shared/node_actions.h"
#include "shared/quantity.h"

namespace headroom::extender {
namespace {

using json = nlohmann::json;

json Amounts(const ResourceAmounts& amounts) {
  return {{"cpuMillis", amounts.cpu_millis}, {"memoryBytes", amounts.memory_bytes}};
}

json Optional(const std::optional<int64_t>& value) { return value ? json(*value) : json(nullptr); }

json Sized(const SizedValues& values) {
  return {{"cpuRequestMillis", Optional(values.cpu_request_millis)},
          {"memoryRequestBytes", Optional(values.memory_request_bytes)},
          {"memoryLimitBytes", Optional(values.memory_limit_bytes)}};
}

std::string Describe(const SizedValues& values) {
  auto cpu = [](const std::optional<int64_t>& v) { return v ? FormatCpuMillis(*v) : "-"; };
  auto mem = [](const std::optional<int64_t>& v) { return v ? FormatMemoryBytes(*v) : "-"; };
  return absl::StrCat("cpu ", cpu(values.cpu_request_millis), ", memory ",
                      mem(values.memory_request_bytes), " (limit ", mem(values.memory_limit_bytes),
                      ")");
}

SizedValues DeclaredValues(const DeclaredResources& d) {
  return {d.cpu_request_millis, d.memory_request_bytes, d.memory_limit_bytes};
}

// A reported container's declared values (a memory limit of 0: none).
SizedValues DeclaredValues(const ContainerDemand& c) {
  return {c.declared_requests.cpu_millis, c.declared_requests.memory_bytes,
          c.declared_limits.memory_bytes > 0
              ? std::optional<int64_t>(c.declared_limits.memory_bytes)
              : std::nullopt};
}

std::string Rfc3339(absl::Time at) {
  return absl::FormatTime(absl::RFC3339_sec, at, absl::UTCTimeZone());
}

json TotalsJson(const ClusterTotals& totals) {
  return {
      {"nodes", totals.nodes},
      {"pods", totals.pods},
      {"allocatable", Amounts(totals.allocatable)},
      {"declared", Amounts(totals.declared)},
      {"requested", Amounts(totals.requested)},
      {"projected", Amounts(totals.projected)},
      {"savings",
       {{"cpu", Saving(totals.declared.cpu_millis, totals.projected.cpu_millis)},
        {"memory", Saving(totals.declared.memory_bytes, totals.projected.memory_bytes)}}},
      {"nodesWorth", {{"declared", totals.nodes_declared}, {"projected", totals.nodes_projected}}}};
}

json ActionsJson(const std::vector<JournalEntry>& entries) {
  json out = json::array();
  for (const JournalEntry& e : entries) {
    out.push_back({{"at", Rfc3339(e.at)},
                   {"pod", e.pod},
                   {"action", e.action},
                   {"outcome", e.outcome},
                   {"message", e.message}});
  }
  return out;
}

}  // namespace

NodeStatus NodeStatusOf(const NodeFootprint& footprint, const ResourceAmounts& declared,
                        const ResourceAmounts& requested, absl::Duration report_age) {
  NodeStatus node;
  node.name = footprint.name;
  node.allocatable = footprint.allocatable;
  node.declared = declared;
  node.requested = requested;
  node.base_sum = footprint.base_total;
  node.shared_headroom = footprint.headroom;
  node.projected = ProjectedFootprint(footprint, PodFootprint{});
  node.pods = footprint.pod_count;
  node.fits = node.projected.cpu_millis <= node.allocatable.cpu_millis &&
              node.projected.memory_bytes <= node.allocatable.memory_bytes;
  node.cordoned = footprint.cordoned;
  node.cordon_reason = footprint.cordoned ? footprint.cordon_reason.message : "";
  node.load = footprint.load;
  node.report_age = report_age;
  return node;
}

ClusterTotals TotalsOf(const std::vector<NodeStatus>& nodes) {
  ClusterTotals totals;
  for (const NodeStatus& node : nodes) {
    ++totals.nodes;
    totals.pods += node.pods;
    totals.allocatable = SaturatingSum(totals.allocatable, node.allocatable);
    totals.declared = SaturatingSum(totals.declared, node.declared);
    totals.requested = SaturatingSum(totals.requested, node.requested);
    totals.projected = SaturatingSum(totals.projected, node.projected);
  }
  const auto worth = [&](const ResourceAmounts& amounts) {
    double most = 0;
    if (totals.allocatable.cpu_millis > 0) {
      most = std::max(most, static_cast<double>(amounts.cpu_millis) * totals.nodes /
                                static_cast<double>(totals.allocatable.cpu_millis));
    }
    if (totals.allocatable.memory_bytes > 0) {
      most = std::max(most, static_cast<double>(amounts.memory_bytes) * totals.nodes /
                                static_cast<double>(totals.allocatable.memory_bytes));
    }
    return most;
  };
  totals.nodes_declared = worth(totals.declared);
  totals.nodes_projected = worth(totals.projected);
  return totals;
}

void AddToNamespace(NamespaceStatus& ns, int replicas, const ResourceAmounts& requested,
                    const ResourceAmounts& recommended_per_replica, bool sizable) {
  ++ns.workloads;
  ns.pods += replicas;
  ns.requested = SaturatingSum(ns.requested, requested);
  const ResourceAmounts recommended =
      sizable ? ResourceAmounts{recommended_per_replica.cpu_millis * replicas,
                                recommended_per_replica.memory_bytes * replicas}
              : requested;
  ns.recommended = SaturatingSum(ns.recommended, recommended);
  ns.saves = SaturatingSum(
      ns.saves, {std::max<int64_t>(0, requested.cpu_millis - recommended.cpu_millis),
                 std::max<int64_t>(0, requested.memory_bytes - recommended.memory_bytes)});
}

double Saving(int64_t declared, int64_t projected) {
  if (declared <= 0) return 0;
  return 1.0 - static_cast<double>(projected) / static_cast<double>(declared);
}

StatusBoard::StatusBoard(ClusterView& view, const PodIndex* pods, const ActionJournal& journal,
                         Options options, std::function<absl::Time()> clock)
    : view_(view),
      pods_(pods),
      journal_(journal),
      options_(std::move(options)),
      clock_(std::move(clock)) {}

StatusBoard::ReportRequests StatusBoard::RequestsOf(
    const std::vector<SharedReport>& reports) const {
  ReportRequests out;
  out.reserve(reports.size());
  for (const SharedReport& report : reports) {
    std::vector<PodRequests>& pods = out.emplace_back();
    pods.reserve(report->pods.size());
    std::vector<std::optional<PodRequests>> api;
    if (pods_ != nullptr) api = pods_->RequestsOf(report->pods);
    for (size_t i = 0; i < report->pods.size(); ++i) {
      const ResourceAmounts& reported = report->pods[i].requests;
      pods.push_back(i < api.size() && api[i].has_value() ? *api[i]
                                                          : PodRequests{reported, reported});
    }
  }
  return out;
}

std::vector<NodeStatus> StatusBoard::Nodes(const std::vector<SharedReport>& reports,
                                           const ReportRequests& requests, absl::Time now) {
  // A few hundred nodes at a time: judging a node afresh takes the view's writer lock, which
  // the scheduler's requests wait for.
  constexpr size_t kBatch = 256;
  std::vector<std::optional<NodeFootprint>> footprints;
  footprints.reserve(reports.size());
  std::vector<absl::string_view> names;
  for (size_t first = 0; first < reports.size(); first += kBatch) {
    names.clear();
    for (size_t i = first; i < std::min(reports.size(), first + kBatch); ++i) {
      names.push_back(reports[i]->node);
    }
    for (std::optional<NodeFootprint>& footprint : view_.Nodes(names, now)) {
      footprints.push_back(std::move(footprint));
    }
  }
  std::vector<NodeStatus> nodes;
  nodes.reserve(reports.size());
  for (size_t i = 0; i < reports.size(); ++i) {
    if (!footprints[i].has_value()) continue;
    ResourceAmounts declared;
    ResourceAmounts requested;
    for (const PodRequests& pod : requests[i]) {
      declared = SaturatingSum(declared, pod.declared);
      requested = SaturatingSum(requested, pod.now);
    }
    nodes.push_back(
        NodeStatusOf(*footprints[i], declared, requested, now - reports[i]->reported_at));
  }
  // (The reports come sorted by node name.)
  return nodes;
}

NamespaceStatus StatusBoard::NamespaceOf(const std::string& name) const {
  NamespaceStatus ns;
  ns.name = name;
  const WorkloadPolicy policy =
      ResolvePodPolicy({}, "", std::nullopt, options_.defaults, name, "", options_.layers);
  ns.step = policy.step;
  ns.step_from = policy.step_from;
  ns.excluded = std::find(options_.excluded_namespaces.begin(), options_.excluded_namespaces.end(),
                          name) != options_.excluded_namespaces.end();
  return ns;
}

WorkloadPolicy StatusBoard::PolicyFor(const std::string& pod_namespace, const ApiPod* api,
                                      const Counts& counts, std::string* workload_key) const {
  if (api != nullptr) {
    if (workload_key != nullptr) *workload_key = WorkloadKeyOf(*api);
    return PolicyOf(*api, CountOf(counts, *api), options_.defaults, options_.layers);
  }
  return ResolvePodPolicy({}, "", std::nullopt, options_.defaults, pod_namespace,
                          workload_key != nullptr ? *workload_key : std::string(), options_.layers);
}

void StatusBoard::ApplyHpaMode(const std::string& workload_key, WorkloadPolicy& policy) const {
  if (options_.hpa_for) {
    (void)KeepForHpa(options_.hpa_for(workload_key), options_.hpa_mode, policy.tuning);
  }
}

std::string StatusBoard::SizingBlocked(const std::string& pod_namespace,
                                       const WorkloadPolicy& policy) const {
  if (std::find(options_.excluded_namespaces.begin(), options_.excluded_namespaces.end(),
                pod_namespace) != options_.excluded_namespaces.end()) {
    return absl::StrCat("namespace ", pod_namespace, " is excluded");
  }
  return SizingBlockedBy(policy);
}

StatusBoard::ContainerStatus StatusBoard::SizeContainer(const std::string& workload_key,
                                                        const std::string& container,
                                                        const SizedValues& declared,
                                                        const WorkloadPolicy& policy,
                                                        const std::string& blocked) const {
  ContainerStatus status;
  status.name = container;
  status.declared = declared;
  status.recommended = declared;
  status.blocked = blocked;
  status.stats = view_.WorkloadContainer(workload_key, container);
  // The observe step leaves the pod as declared but still shows what headroom would do.
  status.observed = !blocked.empty() && OnlyObserving(policy) && blocked == SizingBlockedBy(policy);
  if (!blocked.empty()) {
    status.reasons.push_back(absl::StrCat("left as declared: ", blocked));
    if (!status.observed) return status;
  }
  if (!status.stats.has_value()) {
    status.reasons.push_back("no statistics yet: left as declared");
    return status;
  }
  GuardResult sized = SizeNewContainer(*status.stats, declared, policy.allow_below_declared,
                                       policy.tuning, options_.guard);
  status.recommended = sized.values;
  for (const Reason& reason : sized.reasons) status.reasons.push_back(reason.message);
  return status;
}

namespace {

json ContainerJson(const StatusBoard::ContainerStatus& c) {
  json out = {{"name", c.name},
              {"declared", Sized(c.declared)},
              {"recommended", Sized(c.recommended)},
              {"observed", c.observed},
              {"reasons", c.reasons}};
  if (c.stats.has_value()) {
    out["historySeconds"] = absl::ToInt64Seconds(c.stats->history);
    if (c.stats->cpu.has_value()) {
      out["cpu"] = {{"baseMillis", c.stats->cpu->base_millis},
                    {"peakMillis", c.stats->cpu->peak_millis},
                    {"dailyBaseMillis", c.stats->cpu->daily_base_millis}};
    }
    if (c.stats->memory.has_value()) {
      out["memory"] = {{"baseBytes", c.stats->memory->base_bytes},
                       {"peakBytes", c.stats->memory->peak_bytes},
                       {"max7dBytes", c.stats->memory->max_7d_bytes},
                       {"oomBytes", c.stats->memory->oom_bytes}};
    }
  }
  return out;
}

std::string ContainerWords(const StatusBoard::ContainerStatus& c) {
  std::string line =
      absl::StrCat("container ", c.name, ": declared ", Describe(c.declared), "; headroom ",
                   c.blocked.empty() ? "would request "
                   : c.observed      ? "would request (in a step above observe) "
                                     : "keeps ",
                   Describe(c.recommended));
  if (c.stats.has_value()) {
    absl::StrAppend(&line, "; observed for ",
                    absl::FormatDuration(absl::Trunc(c.stats->history, absl::Minutes(1))));
    if (c.stats->cpu.has_value()) {
      absl::StrAppend(&line, ", cpu base ", FormatCpuMillis(c.stats->cpu->base_millis), " peak ",
                      FormatCpuMillis(c.stats->cpu->peak_millis));
    }
    if (c.stats->memory.has_value()) {
      absl::StrAppend(&line, ", memory base ", FormatMemoryBytes(c.stats->memory->base_bytes),
                      " peak ", FormatMemoryBytes(c.stats->memory->peak_bytes), " 7-day max ",
                      FormatMemoryBytes(c.stats->memory->max_7d_bytes));
      if (c.stats->memory->oom_bytes > 0) {
        absl::StrAppend(&line, ", OOM-killed at ", FormatMemoryBytes(c.stats->memory->oom_bytes),
                        " (the memory limit is at least twice that)");
      }
    }
  }
  if (!c.reasons.empty()) absl::StrAppend(&line, " [", absl::StrJoin(c.reasons, "] ["), "]");
  return line;
}

json NamespaceJson(const NamespaceStatus& ns) {
  const bool top = ns.step == AdoptionStep::kInPlace;
  return {{"name", ns.name},
          {"step", AdoptionStepName(ns.step)},
          {"stepFrom", ns.step_from},
          {"excluded", ns.excluded},
          {"nextStep",
           top || ns.excluded ? json(nullptr) : json(AdoptionStepName(NextAdoptionStep(ns.step)))},
          {"workloads", ns.workloads},
          {"pods", ns.pods},
          {"requested", Amounts(ns.requested)},
          {"recommended", Amounts(ns.recommended)},
          {"saves", Amounts(ns.saves)}};
}

}  // namespace

json StatusBoard::Workloads(const std::vector<SharedReport>& reports,
                            const ReportRequests& requests, size_t* total, json* namespaces) {
  const Counts counts = pods_ != nullptr ? pods_->WorkloadCounts() : Counts{};
  struct Seen {
    const ReportedPod* pod = nullptr;  // a replica, for its containers and declared requests
    int replicas = 0;
    ResourceAmounts declared;   // per replica
    ResourceAmounts requested;  // every replica's requests now, summed
  };
  // (Keyed by the reports' own strings: `reports` outlives the map.)
  absl::flat_hash_map<absl::string_view, Seen> workloads;
  for (size_t r = 0; r < reports.size(); ++r) {
    const std::vector<ReportedPod>& pods = reports[r]->pods;
    for (size_t i = 0; i < pods.size(); ++i) {
      const ReportedPod& pod = pods[i];
      if (!pod.verified || pod.workload_key.empty() || pod.daemonset) continue;
      Seen& seen = workloads[pod.workload_key];
      if (seen.pod == nullptr) {
        seen.pod = &pod;
        seen.declared = requests[r][i].declared;
      }
      seen.requested = SaturatingSum(seen.requested, requests[r][i].now);
      ++seen.replicas;
    }
  }
  *total = workloads.size();
  // Every workload is sized once, for its namespace's sums; the largest are listed.
  struct Sized {
    std::string key;
    const Seen* seen = nullptr;
    WorkloadPolicy policy;
    std::string blocked;
    std::vector<ContainerStatus> containers;
    ResourceAmounts recommended;  // per replica
  };
  std::vector<Sized> sized;
  sized.reserve(workloads.size());
  for (const auto& [key, seen] : workloads) {
    Sized row;
    row.key = std::string(key);
    row.seen = &seen;
    std::string workload_key = row.key;
    std::vector<DeclaredResources> declared;
    // The replica as the API has it, shared rather than copied.
    const std::shared_ptr<const ApiPod> api =
        pods_ != nullptr ? pods_->Get(seen.pod->pod_namespace, seen.pod->name) : nullptr;
    row.policy = PolicyFor(seen.pod->pod_namespace, api.get(), counts, &workload_key);
    if (api != nullptr) declared = DeclaredOf(*api);
    ApplyHpaMode(workload_key, row.policy);
    row.blocked = SizingBlocked(seen.pod->pod_namespace, row.policy);
    for (const ContainerDemand& container : seen.pod->containers) {
      SizedValues values = DeclaredValues(container);
      for (const DeclaredResources& d : declared) {
        if (d.name == container.name) values = DeclaredValues(d);
      }
      row.containers.push_back(
          SizeContainer(row.key, container.name, values, row.policy, row.blocked));
      const ContainerStatus& c = row.containers.back();
      row.recommended =
          SaturatingSum(row.recommended, {c.recommended.cpu_request_millis.value_or(0),
                                          c.recommended.memory_request_bytes.value_or(0)});
    }
    sized.push_back(std::move(row));
  }
  std::map<std::string, NamespaceStatus> sums;
  for (const Sized& row : sized) {
    const std::string& name = row.seen->pod->pod_namespace;
    auto [it, added] = sums.try_emplace(name);
    if (added) it->second = NamespaceOf(name);
    // Only what headroom may size counts towards the savings (not a disabled workload's).
    AddToNamespace(it->second, row.seen->replicas, row.seen->requested, row.recommended,
                   row.blocked.empty() || OnlyObserving(row.policy));
  }
  *namespaces = json::array();
  for (const auto& [name, ns] : sums) *namespaces += NamespaceJson(ns);
  // The largest first, found without moving the rows (a partial sort of pointers).
  std::vector<const Sized*> largest;
  largest.reserve(sized.size());
  for (const Sized& row : sized) largest.push_back(&row);
  const size_t listed = std::min(largest.size(), options_.max_workloads);
  std::partial_sort(largest.begin(), largest.begin() + static_cast<ptrdiff_t>(listed),
                    largest.end(), [](const Sized* a, const Sized* b) {
                      const int64_t ca = a->seen->declared.cpu_millis * a->seen->replicas;
                      const int64_t cb = b->seen->declared.cpu_millis * b->seen->replicas;
                      return ca != cb ? ca > cb : a->key < b->key;
                    });
  largest.resize(listed);
  json out = json::array();
  for (const Sized* listed_row : largest) {
    const Sized& row = *listed_row;
    json containers = json::array();
    bool oom = false;
    absl::Duration history = absl::ZeroDuration();
    for (const ContainerStatus& c : row.containers) {
      if (c.stats.has_value()) {
        oom = oom || (c.stats->memory.has_value() && c.stats->memory->oom_bytes > 0);
        history = std::max(history, c.stats->history);
      }
      containers.push_back(ContainerJson(c));
    }
    out.push_back(
        {{"key", row.key},
         {"replicas", row.seen->replicas},
         {"declared", Amounts(row.seen->declared)},
         {"recommended", Amounts(row.recommended)},
         {"historySeconds", absl::ToInt64Seconds(history)},
         {"oomKilled", oom},
         {"step", AdoptionStepName(row.policy.step)},
         {"sizing", row.blocked.empty() ? "sized by headroom" : row.blocked},
         {"containers", std::move(containers)},
         {"actions", ActionsJson(journal_.ForWorkload(row.key, options_.actions_per_workload))}});
  }
  return out;
}

json StatusBoard::Build(absl::Time now) {
  const std::vector<SharedReport> reports = view_.FreshReports(now);
  const ReportRequests requests = RequestsOf(reports);
  const std::vector<NodeStatus> nodes = Nodes(reports, requests, now);
  const ClusterTotals totals = TotalsOf(nodes);
  json nodes_json = json::array();
  for (const NodeStatus& node : nodes) {
    nodes_json.push_back({{"name", node.name},
                          {"allocatable", Amounts(node.allocatable)},
                          {"declared", Amounts(node.declared)},
                          {"requested", Amounts(node.requested)},
                          {"baseSum", Amounts(node.base_sum)},
                          {"sharedHeadroom", Amounts(node.shared_headroom)},
                          {"projected", Amounts(node.projected)},
                          {"pods", node.pods},
                          {"fits", node.fits},
                          {"load", node.load},
                          {"cordoned", node.cordoned},
                          {"cordonReason", node.cordon_reason},
                          {"reportAgeSeconds", absl::ToInt64Seconds(node.report_age)}});
  }
  size_t workload_total = 0;
  json namespaces = json::array();
  json workloads = Workloads(reports, requests, &workload_total, &namespaces);
  std::vector<HistoryPoint> points;
  {
    absl::MutexLock lock(&mu_);
    points.assign(history_.begin(), history_.end());
  }
  json history = json::array();
  for (const HistoryPoint& point : points) {
    history.push_back({{"at", absl::ToUnixSeconds(point.at)},
                       {"nodes", point.totals.nodes},
                       {"declared", Amounts(point.totals.declared)},
                       {"requested", Amounts(point.totals.requested)},
                       {"projected", Amounts(point.totals.projected)},
                       {"allocatable", Amounts(point.totals.allocatable)}});
  }
  return {{"generatedAt", Rfc3339(now)},
          {"cluster", TotalsJson(totals)},
          {"history", std::move(history)},
          {"nodes", std::move(nodes_json)},
          {"workloads", std::move(workloads)},
          {"workloadsTotal", workload_total},
          {"namespaces", std::move(namespaces)},
          {"apiConnected", pods_ != nullptr},
          {"setup", options_.setup ? options_.setup() : json(nullptr)}};
}

bool StatusBoard::CachedHolds(absl::Time cached_at, absl::Time now,
                              absl::Duration serve_for) const {
  return now >= cached_at && now - cached_at < serve_for;
}

std::shared_ptr<const std::string> StatusBoard::BuildAndKeep(absl::Time now,
                                                             absl::Duration serve_for) {
  absl::MutexLock build(&build_mu_);
  {
    absl::MutexLock lock(&mu_);  // built by another caller while this one waited?
    if (cached_ != nullptr && CachedHolds(cached_at_, now, serve_for)) return cached_;
  }
  // Built without mu_: readers are served the previous document meanwhile.
  auto built = std::make_shared<const std::string>(
      Build(now).dump(-1, ' ', false, json::error_handler_t::replace));
  {
    absl::MutexLock lock(&mu_);
    cached_ = built;
    cached_at_ = now;
  }
  // The build's document tree and lookups are freed by now; glibc keeps such memory for the
  // process unless asked to give it back.
  if (built->size() > (1 << 20)) malloc_trim(0);
  return built;
}

std::string StatusBoard::StatusJson() {
  const absl::Time now = clock_();
  const absl::Duration serve_for =
      options_.refresh_in_background ? 6 * options_.cache_for : options_.cache_for;
  std::shared_ptr<const std::string> document;
  {
    absl::MutexLock lock(&mu_);
    last_read_ = now;
    if (cached_ != nullptr && CachedHolds(cached_at_, now, serve_for)) document = cached_;
  }
  if (document == nullptr) document = BuildAndKeep(now, options_.cache_for);
  return *document;  // (copied outside the lock)
}

void StatusBoard::RefreshIfWatched() {
  const absl::Time now = clock_();
  {
    absl::MutexLock lock(&mu_);
    if (now - last_read_ > options_.watched_for) return;  // nobody is looking
  }
  // (A document younger than half the interval is kept: the refresh is not due yet.)
  (void)BuildAndKeep(now, options_.cache_for / 2);
}

void StatusBoard::Sample() {
  const absl::Time now = clock_();
  const std::vector<SharedReport> reports = view_.FreshReports(now);
  const ClusterTotals totals = TotalsOf(Nodes(reports, RequestsOf(reports), now));
  if (totals.nodes == 0) return;  // nothing reported yet (just started): no point to plot
  absl::MutexLock lock(&mu_);
  history_.push_back({now, totals});
  while (history_.size() > options_.history_points) history_.pop_front();
}

namespace {

// "runs on NODE: projected cpu .. of .., memory .. of .. (bases .. + one shared headroom ..);
// load .., not cordoned".
std::string NodeWords(const NodeStatus& node) {
  return absl::StrCat(
      "runs on ", node.name, ": projected cpu ", FormatCpuMillis(node.projected.cpu_millis), " of ",
      FormatCpuMillis(node.allocatable.cpu_millis), ", memory ",
      FormatMemoryBytes(node.projected.memory_bytes), " of ",
      FormatMemoryBytes(node.allocatable.memory_bytes), " (bases ",
      FormatCpuMillis(node.base_sum.cpu_millis), " / ",
      FormatMemoryBytes(node.base_sum.memory_bytes), " + one shared headroom ",
      FormatCpuMillis(node.shared_headroom.cpu_millis), " / ",
      FormatMemoryBytes(node.shared_headroom.memory_bytes), "); ",
      node.cordoned ? absl::StrCat("load-cordoned: ", node.cordon_reason)
                    : absl::StrCat("load ", absl::StrFormat("%.2f", node.load), ", not cordoned"));
}

}  // namespace

absl::StatusOr<json> StatusBoard::Explain(const std::string& pod_namespace,
                                          const std::string& name) {
  const absl::Time now = clock_();
  // An index lookup, not a copy of every report: an explain costs the same at any size.
  const std::optional<ClusterView::FoundPod> found =
      view_.FindReportedPod(pod_namespace, name, now);
  const ReportedPod* reported = found.has_value() ? &found->pod : nullptr;
  std::optional<ApiPod> api;
  if (pods_ != nullptr) api = pods_->Find(pod_namespace, name);
  if (reported == nullptr && !api.has_value()) {
    return absl::NotFoundError(absl::StrCat("pod ", pod_namespace, "/", name,
                                            " is in no fresh node report",
                                            pods_ != nullptr ? " and not in the API" : ""));
  }
  std::string workload_key = reported != nullptr ? reported->workload_key : "";
  // Only this pod's controller is counted (a lookup, not the cluster's pods).
  Counts counts;
  if (pods_ != nullptr && api.has_value()) {
    const std::string controller = ControllerKey(*api);
    if (!controller.empty()) counts[controller] = pods_->CountFor(*api);
  }
  WorkloadPolicy policy =
      PolicyFor(pod_namespace, api.has_value() ? &*api : nullptr, counts, &workload_key);
  ApplyHpaMode(workload_key, policy);
  std::vector<std::string> words;
  json out = {{"pod", absl::StrCat(pod_namespace, "/", name)}, {"workload", workload_key}};
  if (found.has_value()) {
    std::vector<absl::string_view> names = {found->node};
    const std::vector<std::optional<NodeFootprint>> footprint = view_.Nodes(names, now);
    out["node"] = found->node;
    if (footprint[0].has_value()) {
      const NodeStatus node = NodeStatusOf(*footprint[0], {}, {}, now - found->reported_at);
      words.push_back(NodeWords(node));
    }
  } else {
    words.push_back(
        "no fresh node report lists the pod (not running yet, or its node's "
        "headroom-nri is not reporting)");
  }
  words.push_back(absl::StrCat("workload ", workload_key.empty() ? "(unknown)" : workload_key));
  out["step"] = AdoptionStepName(policy.step);
  out["stepFrom"] = policy.step_from;
  words.push_back(absl::StrCat(
      "mode ", AdoptionStepName(policy.step), " (from: ", policy.step_from,
      policy.step == AdoptionStep::kObserve
          ? "): nothing is changed, recommendations are shown only"
      : policy.step == AdoptionStep::kAdmission
          ? "): new pods are sized when created, running pods are never resized or evicted"
          : "): sized when created, resized in place, evicted where the policy allows"));
  const std::string blocked = SizingBlocked(pod_namespace, policy);
  words.push_back(blocked.empty() ? absl::StrCat("sized by headroom",
                                                 policy.allow_below_declared
                                                     ? " (may request less than declared)"
                                                     : " (never below the declared requests)")
                                  : absl::StrCat("left as declared: ", blocked));
  for (const Reason& warning : policy.warnings) {
    words.push_back(absl::StrCat("ignored annotation: ", warning.message));
  }
  std::vector<DeclaredResources> declared;
  if (api.has_value()) declared = DeclaredOf(*api);
  std::vector<std::pair<std::string, SizedValues>> sized;
  if (!declared.empty()) {
    for (const DeclaredResources& d : declared) sized.emplace_back(d.name, DeclaredValues(d));
  } else if (reported != nullptr) {
    for (const ContainerDemand& c : reported->containers) {
      sized.emplace_back(c.name, DeclaredValues(c));
    }
  }
  json containers = json::array();
  for (const auto& [container, values] : sized) {
    const ContainerStatus c = SizeContainer(workload_key, container, values, policy, blocked);
    words.push_back(ContainerWords(c));
    containers.push_back(ContainerJson(c));
  }
  out["containers"] = std::move(containers);
  if (api.has_value()) {
    const std::string eviction = EvictionBlockedBy(*api, CountOf(counts, *api), now, policy);
    words.push_back(eviction.empty() ? "may be evicted when its node cannot fit its pods"
                                     : absl::StrCat("not evicted by headroom: ", eviction));
    words.push_back(
        absl::StrCat("disruption window ", DescribeDisruptionWindows(policy.disruption_windows),
                     policy.windows_unreadable ? " (unreadable annotation: no eviction or shrink)"
                     : OutsideDisruptionWindow(policy, now).empty()
                         ? ": evictions and shrinking resizes allowed now"
                         : ": now outside it, running pods may grow but not shrink or be evicted"));
    out["disruptionWindow"] = DescribeDisruptionWindows(policy.disruption_windows);
  }
  const std::vector<JournalEntry> actions =
      journal_.ForPod(absl::StrCat(pod_namespace, "/", name), 10);
  for (const JournalEntry& e : actions) {
    words.push_back(absl::StrCat(Rfc3339(e.at), " ", e.action, " ", e.outcome, ": ", e.message));
  }
  out["actions"] = ActionsJson(actions);
  out["explanation"] = std::move(words);
  return out;
}

}  // namespace headroom::extender
