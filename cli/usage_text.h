#pragma once

// The `headroom` command's help texts: the overview and one per command.

namespace headroom::cli {

inline constexpr char kTopUsage[] =
    R"(headroom — pods request what they use and share one spike headroom per node.

Usage: headroom <command> [flags]

Commands:
  optimize-node   Size the pods of one node (base + shared headroom) and pick evictions.
  recommend       Show what headroom, VPA and Crane would request for containers' usage.
  simulate        Replay a cluster on real usage under static, VPA, Crane and headroom sizing.
  repack          Plan re-placing running pods so pending higher-priority pods fit (dry run).
  report          Send one node report to a headroom-extender (debugging, tests).
  status          What a running headroom-extender saves, node by node and workload by workload.
  explain         What headroom does to one pod and why, in words and numbers.
  preflight       Check the cluster and headroom's set-up, one line per check with the fix.

Run 'headroom <command> --help' for a command's flags. 'headroom --version' prints the
version. Exit codes: 0 success, 1 runtime failure (I/O), 2 bad flags or malformed input.
)";

inline constexpr char kOptimizeNodeUsage[] =
    R"(Usage: headroom optimize-node --input FILE|- [--nopretty]

Reads one node and its pods as JSON and prints the per-node optimisation (seed 000, phase 2)
as JSON: evictions with reasons, and each surviving container's CPU request (no CPU limit),
memory request and memory limit. The formats are in docs/optimize-node.md.

Flags:
  --input FILE|-   The node as JSON; - reads standard input. Required.
  --[no]pretty     Indent the JSON output (default: true).

Example:
  headroom optimize-node --input examples/node.json
)";

inline constexpr char kRecommendUsage[] =
    R"(Usage: headroom recommend --input FILE|- [--format auto|csv|json] [--output table|json]

Reads per-container usage samples and prints, for each container, what each policy would
request: headroom (seed 000: peak when alone, base + a share of one headroom on a node; the
memory limit is 2 x max(7-day max, memory at OOM); no CPU limit), VPA (target, bounds,
confidence) and Crane (P99 + 15%, OOM protection). Nothing is applied anywhere. Formats are
in docs/recommend.md.

Flags:
  --input FILE|-   Samples as CSV (container,timestamp,cpu,memory[,oom]) or JSON. Required.
  --format F       auto (default: JSON if it starts with { or [), csv or json.
  --output O       table (default) or json.

Example:
  headroom recommend --input examples/usage.csv
)";

inline constexpr char kSimulateUsage[] = R"(Usage: headroom simulate [flags]

Replays a cluster minute by minute on the same pods and usage under each sizing policy
(static declared requests, VPA, Crane, headroom), placing pods with the scheduler's fit (and,
for headroom, the extender's projected fit and load cordon) and sizing them with each
policy's own recommender from the shared library. Prints a table (requests, usage,
utilisation, nodes and nodes / the oracle's, OOM kills, CPU shortfall, evictions), evictions
and resizes per pod-day by cause, and writes summary.json and chart.svg. The oracle is the
fewest nodes perfect packing of the usage would need each step. The model and its
assumptions are in docs/simulate.md.

Default input: 200 CPU-only pods sampled from Alibaba's OpenB pod list and real memory series
from Alibaba's GenAI trace (data/, see data/README.md), with synthetic CPU.

Flags:
  --pods N                 pods sampled from the pod list or usage trace (default 200 of the
                           pod list, all of a usage trace; 0: all; above a trace's count, its
                           pods again read whole days later)
  --usage-trace DIR        replay real usage instead of the pod list and usage model: DIR holds
                           workloads.csv and usage.csv.gz or usage.csv (the shape of
                           ../shared/data/bitbrains-rnd; docs/simulate.md)
  --duration D             simulated time (default 96h; at most 28 days, or a usage trace's
                           length)
  --warmup D               leading time left out of the summary (default 48h: headroom's
                           guard rails hold every workload for its first 24h, so policies
                           are compared once each has had a day to act)
  --seed N                 seed for the sample and the synthetic usage (default 1)
  --nodes N                fixed cluster of N nodes; 0 (default) autoscales
  --autoscaler cluster-autoscaler|karpenter   what removes nodes (default cluster-autoscaler:
                           nodes under half requested; karpenter: any node whose pods fit
                           elsewhere, the fewest pods first)
  --node-shape CPU,MEM     node size (default 96,512Gi: OpenB's 96-core CPU-only node)
  --memory-limit-ratio R   declared memory limit / request (default 1.0)
  --memory-throttling-factor F   the kubelet's Memory QoS: memory.high = request + F x
                           (limit - request); a pod above it stalls on memory, reported as
                           MEM STALL (default 0.9, the kubelet's; 0: Memory QoS off)
  --policies LIST          any of static,vpa,crane,headroom (default all)
  --scoring spread|pack|target   every policy's node scoring (default target: nodes are
                           filled to --scoring-target of their projected footprint, then
                           spread; the extender's --scoring)
  --scoring-target F       the share target scoring fills nodes to (default 0.75)
  --output-dir DIR         where summary.json and chart.svg go (default build/simulate)
  --progress auto|always|never   progress bar on standard error (default auto: on a terminal)
  --data-dir DIR           holds openb/pods.csv and genai-memory/series.csv
  --pod-list FILE          pod list in OpenB's shape (name,cpu_milli,memory_mib,num_gpu,...,qos)
  --memory-series FILE     memory as fractions of the limit: Alibaba's shape
                           (value,timestamp_anon,container_ip) or minute,<id>,<id>,...
  --cpu-series FILE        CPU as fractions of the request, same shapes (default: synthetic)
  --cold-start F           fraction of pods that are new workloads created during the day after
                           the warm-up, which use 5% of their level for their first 2-6 hours,
                           then all of it (default 0)
  --cronjobs F             fraction of pods that are CronJobs: one run a day at one minute of
                           the day, 30 minutes to 3 hours, each run a pod replaying the pod's
                           usage at those minutes (default 0)
  --cronjob-identity cronjob|run   a CronJob's runs are one workload (default; headroom's key)
                           or each its own (a sizer keying pods by their Job)
  --pod-annotations JSON   annotations every simulated pod carries, as the daemons read them,
                           e.g. '{"headroom.dev/min-cpu":"100m"}' (docs/annotations.md); a key
                           or value headroom would ignore is an error here

headroom policy: the product's own guard-rail and actuation flags, same names and defaults
as headroom-extender's (docs/algorithm.md):
  --allow-below-declared   workloads opted in to requests below their declared ones (default
                           true here; false in the daemons: no savings on requests without it)
  --min-history D          warm-up before anything is tightened (default 24h)
  --min-cpu-request Q      CPU request floor (default 25m)
  --min-memory-limit Q     memory limit floor (default 250Mi)
  --allow-memory-limit-below-declared   let memory limits go below the declared ones (default
                           false: limits are only raised)
  --max-shrink-step F      largest fraction one shrink takes (default 0.5)
  --shrink-interval D      at most one shrink per value per D (default 1h)
  --resize-min-change F    resize only when a value moves by this fraction (default 0.1)
  --resize-min-cpu Q       ... and a CPU request by at least this much (default 25m)
  --resize-min-memory Q    ... and a memory request or limit by at least this (default 64Mi)
  --cpu-eviction-after D   evict for CPU only after the bases stayed over this long (default 15m)
  --evictions-per-minute N, --evictions-per-node-per-hour N   eviction budgets (5, 2)
  --disruption-window W    when pods may be evicted or shrunk in place, e.g. "Mon-Fri
                           22:00-06:00; Sat,Sun 00:00-24:00" (UTC; simulated time starts on
                           Wednesday 2023-11-15 00:00; default: always)
  --spike-shortfall F      the share of a node's CPU usage its measured shared headroom may
                           leave above it (default 0.0075, what headroom-nri uses)
  --memory-pressure-threshold F, --memory-pressure-duration D   headroom-nri's memory
                           pressure rule: a stall of at least F for D raises the memory limit
                           25% above the memory in use and the request to it (0.10, 2m; 0: off)
Every simulated workload is also opted in to disruption (headroom.dev/allow-disruption), as
VPA's recreate and the autoscaler's drain move single-replica pods here too.

Examples:
  headroom simulate --duration 48h --pods 100 --seed 7
  headroom simulate --usage-trace ../shared/data/bitbrains-rnd --node-shape 32,128Gi \
    --warmup 168h --duration 504h
)";

inline constexpr char kReportUsage[] =
    R"(Usage: headroom report --extender HOST:PORT --input FILE|- [--timeout 5s]

Sends one node report to headroom-extender's gRPC ReportService, as headroom-nri does for its
node. The input is the report's JSON form (protobuf's JSON mapping of
proto/headroom/v1/report.proto; unknown fields are refused); docs/extender.md has an example.
The report is checked locally first, so a mistake names its field.

Flags:
  --extender HOST:PORT   the extender's --grpc-address. Required.
  --input FILE|-         the report as JSON; - reads standard input. Required.
  --timeout D            deadline for the call (default 5s).
  --extender-ca-file F   TLS: the CA of the extender's gRPC certificate (its --grpc-tls-cert-file).
  --extender-cert-file F, --extender-key-file F
                         mutual TLS: this client's certificate and key.
  --token-file F         a ServiceAccount token sent as the bearer token (the extender's
                         --report-auth=token; the token's pod must run on the reported node).
  --check=false          send the report without checking it locally first (to test the
                         extender's own refusals).
)";

inline constexpr char kRepackUsage[] =
    R"(Usage: headroom repack --input FILE|- | --generate [flags]

Plans a priority-tiered repacking (seed 002): for each priority, highest first, place the
most pending pods of that priority, moving or evicting running pods of the same or lower
priority, then disturb the fewest running pods. Prints, per priority, the pods placed now and
in the plan, an upper bound, whether the plan is proven optimal, and the moves, placements
and evictions. Nothing is changed in any cluster. Formats and the solver: docs/repack.md.

Input: our instance JSON ({"nodes": [{"name","cpu","memory"}], "pods": [{"name","cpu",
"memory","priority","node","owner"}]}), or a snapshot taken with
  kubectl get nodes,pods -A -o json > cluster.json
(DaemonSet and static pods stay where they are; finished pods are ignored).

Flags:
  --input FILE|-        the cluster as JSON; - reads standard input
  --generate            instead, generate an instance as seed 002's evaluation does, placed by
                        a model of kube-scheduler (LeastAllocated, no preemption)
  --nodes N             generate: nodes (default 8 when 0)
  --pods-per-node N     generate: pods per node (default 4)
  --tiers N             generate: priority tiers (default 2)
  --utilisation U       generate: pods' total / cluster capacity (default 1.0)
  --seed N              generate: the instance; and the solver's random choices (default 1)
  --write-instance F    also write the instance (e.g. the generated one) as JSON to F
  --timeout D           time limit of the whole solve, shared out across tiers (default 5s)
  --output table|json   (default table)

Example:
  headroom repack --generate --nodes 16 --pods-per-node 4 --tiers 2 --utilisation 1.05 --timeout 1s
)";

inline constexpr char kStatusUsage[] =
    R"(Usage: headroom status [--extender-url URL] [--output table|json]

Reads a running headroom-extender's status API (GET /api/v1/status, docs/status.md) and
prints the cluster's savings (declared requests against headroom's projection: every pod at
its base plus one shared headroom per node), each reporting node (projection, load, cordon)
and the largest workloads (declared, what headroom would request for a new replica now, history,
OOM kills, why a workload is left alone).

Flags:
  --extender-url URL      headroom-extender's --http-address (default http://127.0.0.1:8888;
                          in a cluster: kubectl -n headroom-system port-forward
                          svc/headroom-extender 8888)
  --extender-ca-file FILE for an https URL: the CA of the extender's certificate
  --output table|json     words and tables (default), or the API's JSON
  --timeout D             (default 5s)

Example:
  headroom status --extender-url http://127.0.0.1:8888
)";

inline constexpr char kPreflightUsage[] =
    R"(Usage: headroom preflight [--kubeconfig FILE] [--context NAME] [--extender-url URL]
                          [--extender-namespace NS] [--output table|json]

Checks, before anything acts, that the cluster and headroom are set up as headroom needs, and
prints one line per check -- ok, warn or fail -- with the fix for each that is not ok:
  kubernetes-version  the apiserver's release is one headroom supports (1.33-1.37)
  in-place-resize     the API serves pods/resize
  extender-rbac       headroom-extender's ServiceAccount may do what it needs (asked with
                      SubjectAccessReviews: this user must be allowed to create them)
  admission-webhook   a mutating webhook calls the extender, failurePolicy Ignore, with a CA
  extender            the extender answers /readyz
  node-reports        every schedulable node has a fresh report from headroom-nri
  scheduler-profile   kube-scheduler has called the extender's /filter
Nothing is changed. docs/install.md walks through each.

Flags:
  --kubeconfig FILE           (default: $KUBECONFIG, else ~/.kube/config, else in-cluster);
                              exec and auth-provider plugins are not supported
  --context NAME              a kubeconfig context other than the current one
  --extender-url URL          headroom-extender's --http-address (default
                              http://127.0.0.1:8888; in a cluster: kubectl -n headroom-system
                              port-forward svc/headroom-extender 8888)
  --extender-ca-file FILE     for an https URL: the CA of the extender's certificate
  --extender-namespace NS     where headroom-extender runs (default headroom-system)
  --extender-service-account NAME  (default headroom-extender)
  --extender-service NAME     the Service the webhook calls (default headroom-extender)
  --output table|json         (default table)
  --timeout D                 for each call to the extender (default 5s)

Exit codes: 0 no check failed (warnings allowed), 1 a check failed, 2 bad flags or no usable
kubeconfig.

Example:
  headroom preflight --kubeconfig ~/.kube/config --extender-url http://127.0.0.1:8888
)";

inline constexpr char kExplainUsage[] =
    R"(Usage: headroom explain NAMESPACE/POD [--extender-url URL] [--output table|json]

Asks a running headroom-extender (GET /api/v1/explain) what headroom does to one pod and why:
its node's projection and load, its workload, whether headroom sizes it (or what leaves it
alone: an annotation, a namespace, an HPA), each container's declared values against what
headroom would request with every guard rail that shaped it, its history and OOM kills, whether
it may be evicted, and headroom's recent actions on it. Exit 2 when the extender knows no such
pod.

Flags: as for 'headroom status'.

Example:
  headroom explain shop/web-7d4b9c-x2x9q
)";

}  // namespace headroom::cli
