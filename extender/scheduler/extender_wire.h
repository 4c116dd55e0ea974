#pragma once

// kube-scheduler's HTTP extender protocol (k8s.io/kube-scheduler/extender/v1), JSON codecs:
// - ExtenderArgs: {"Pod": v1.Pod, "Nodes": v1.NodeList | null, "NodeNames": [..] | null};
//   `Nodes` is sent when the extender is configured nodeCacheCapable=false, `NodeNames` when
//   true. Keys are Go field names; Pod and Node are ordinary Kubernetes JSON, read by the one
//   v1.Pod/v1.Node decoder (kube/pod_decoder.h), which reads only what headroom needs.
// - ExtenderFilterResult: the same mode as the request (the surviving Node objects passed
//   through unchanged, or their names), FailedNodes / FailedAndUnresolvableNodes maps and
//   Error; absent values are `null`, as Go's encoding/json writes them, except NodeNames,
//   which is always an array in names mode (null would mean "no feasible node").
// - HostPriorityList: a bare array of {"Host", "Score"} with scores 0..10.
// Upstream: kube-scheduler's extender types (k8s.io/kube-scheduler/extender/v1); real request
// bodies in tests/testdata/kube-scheduler-extender/; docs/extender.md.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "extender/kube/pod_decoder.h"

namespace headroom::extender {

struct ExtenderArgs {
  PodSpec pod;
  // The metadata.uid and metadata.resourceVersion `pod` was decoded from (empty when the Pod
  // had either missing). An object's resourceVersion changes with every change to it, so a
  // decode into these args that sees the same two again keeps `pod` as it is: kube-scheduler
  // sends the same Pod to prioritize right after filter.
  std::string pod_uid;
  std::string pod_resource_version;
  bool node_cache_capable = true;  // NodeNames rather than Nodes
  std::vector<NodeSpec> nodes;
  // The request's Node objects as JSON text (as sent), kept to pass the survivors back
  // unchanged; one per entry of `nodes` in Nodes mode (when asked for), else empty. Copies:
  // views of the body saved one body's worth of memory but dangled once args that outlived
  // it were copied (found by ASan), and only a scheduler without nodeCacheCapable sends them.
  std::vector<std::string> node_items;
};

struct FilterResult {
  // In request order (EncodeFilterResult relies on it). Views of the request's node names
  // (ExtenderArgs::nodes), which must outlive the result.
  std::vector<absl::string_view> passed;
  std::map<std::string, std::string> failed;  // node -> reason
  std::map<std::string, std::string> failed_unresolvable;
  std::string error;
};

struct HostPriority {
  absl::string_view host;  // a view of the request's node name (ExtenderArgs::nodes)
  int score = 0;           // 0..10
};

// Bodies over kWholeParseBytes are checked whole without building anything and parsed one
// piece at a time: the Pod, the NodeNames, each Node object, none over kMaxPieceBytes (the API
// server stores objects of at most 1.5 MiB, etcd's request limit; 5000 names of the longest
// legal length take 1.3 MB). simdjson's DOM reserves about ten times what it parses.
inline constexpr size_t kWholeParseBytes = 4 << 20;
inline constexpr size_t kMaxPieceBytes = 4 << 20;

// InvalidArgument naming the field on a malformed body. The body is parsed once, with
// simdjson's DOM (in pieces when large), and the Pod and nodes are read straight from it. With
// keep_node_objects, node_items holds each Node object's text as sent (for a filter answer);
// prioritize, which answers with names only, skips them.
absl::StatusOr<ExtenderArgs> DecodeExtenderArgs(absl::string_view body,
                                                bool keep_node_objects = true);
// The same into `args`, whose storage (the node list and each name's) is reused: the
// scheduler's path keeps one per thread. A Pod with the uid and resourceVersion of the one
// `args` holds is not decoded again. On error `args` holds a partial decode; a Pod that
// failed to decode is not kept.
absl::Status DecodeExtenderArgsInto(absl::string_view body, bool keep_node_objects,
                                    ExtenderArgs& args);
// Whether `args`, just decoded from a body of `body_bytes`, may be kept for the next
// request's decode: not after a body over kKeptBytes (its Pod is as large), Node objects, more
// than kKeptNodes nodes, or when the names' storage (each grown to the longest name seen at
// its position, across requests) passes kKeptBytes. So a thread keeps at most about a
// megabyte for reuse, whatever clients send.
inline constexpr size_t kKeptNodes = 8192;
inline constexpr size_t kKeptBytes = 1 << 20;
bool KeepForReuse(const ExtenderArgs& args, size_t body_bytes);

std::string EncodeFilterResult(const ExtenderArgs& args, const FilterResult& result);
std::string EncodeHostPriorities(const std::vector<HostPriority>& priorities);

}  // namespace headroom::extender
