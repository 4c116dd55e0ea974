#include "extender/scheduler/extender_wire.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "extender/json/dom_fields.h"
#include "extender/json/json_members.h"
#include "extender/json/json_spans.h"
#include "extender/json/json_writer.h"
#include "extender/json/thread_json_parser.h"
#include "extender/view/node_name_key.h"
#include "shared/status_macros.h"

namespace headroom::extender {

absl::StatusOr<ExtenderArgs> DecodeExtenderArgs(absl::string_view body, bool keep_node_objects) {
  ExtenderArgs args;
  HEADROOM_RETURN_IF_ERROR(DecodeExtenderArgsInto(body, keep_node_objects, args));
  return args;
}

namespace {

// args.pod from `pod`, unless it is the Pod args.pod was decoded from (the same uid and
// resourceVersion, both set).
absl::Status DecodePodUnlessKept(simdjson::dom::element pod, ExtenderArgs& args) {
  simdjson::dom::element metadata;
  std::string_view uid;
  std::string_view resource_version;
  if (Present(pod, "metadata", metadata)) {
    uid = StringMember(metadata, "uid");
    resource_version = StringMember(metadata, "resourceVersion");
  }
  const bool versioned = !uid.empty() && !resource_version.empty();
  if (versioned && uid == args.pod_uid && resource_version == args.pod_resource_version) {
    return absl::OkStatus();
  }
  args.pod_uid.clear();  // (no Pod to keep if this one is malformed)
  args.pod_resource_version.clear();
  HEADROOM_ASSIGN_OR_RETURN(args.pod, DecodePodElement(pod));
  if (versioned) {
    args.pod_uid.assign(uid.data(), uid.size());
    args.pod_resource_version.assign(resource_version.data(), resource_version.size());
  }
  return absl::OkStatus();
}

}  // namespace

namespace {

// args.nodes from a NodeNames array (nodeCacheCapable), built in place: one copy of each name,
// into the storage of the previous request's.
absl::Status DecodeNodeNames(simdjson::dom::element names, ExtenderArgs& args) {
  simdjson::dom::array list;
  if (names.get(list) != simdjson::SUCCESS) return InvalidField("NodeNames", "expected an array");
  args.node_cache_capable = true;
  args.nodes.resize(list.size());
  size_t i = 0;
  for (simdjson::dom::element name : list) {
    std::string_view text;
    if (name.get(text) != simdjson::SUCCESS) {
      return InvalidField(absl::StrCat("NodeNames[", i, "]"), "expected a string");
    }
    NodeSpec& node = args.nodes[i];
    // Prioritize mostly gets the names filter got, in the same order: no copy then.
    if (!NodeNameEq()(node.name, absl::string_view(text.data(), text.size()))) {
      node.name.assign(text.data(), text.size());
    }
    node.allocatable.reset();
    node.max_pods.reset();
    ++i;
  }
  return absl::OkStatus();
}

// The whole body in simdjson's DOM: the fast path, for every body kube-scheduler sends with
// nodeCacheCapable and most without.
absl::Status DecodeWholeBody(absl::string_view body, bool keep_node_objects, ExtenderArgs& args) {
  simdjson::dom::element document;
  if (const simdjson::error_code error =
          ThreadJsonParser().parse(body.data(), body.size()).get(document);
      error != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(
        absl::StrCat("body is not valid JSON: ", simdjson::error_message(error)));
  }
  simdjson::dom::object top;
  if (document.get(top) != simdjson::SUCCESS) {
    return InvalidField("body", "expected an ExtenderArgs object");
  }
  simdjson::dom::element pod;
  if (!Present(top, "Pod", pod)) return InvalidField("Pod", "required");
  HEADROOM_RETURN_IF_ERROR(DecodePodUnlessKept(pod, args));
  simdjson::dom::element names;
  simdjson::dom::element nodes;
  if (Present(top, "NodeNames", names)) return DecodeNodeNames(names, args);
  if (!Present(top, "Nodes", nodes))
    return InvalidField("body", "neither NodeNames nor Nodes is set");
  args.node_cache_capable = false;
  args.nodes.clear();
  simdjson::dom::element items_element;
  if (!Present(nodes, "items", items_element)) return absl::OkStatus();
  simdjson::dom::array items;
  if (items_element.get(items) != simdjson::SUCCESS) {
    return InvalidField("Nodes.items", "expected an array");
  }
  args.nodes.reserve(items.size());
  // The Node objects' own text, to pass the survivors back as sent; serialised again only
  // when the raw scan cannot find them (keys written with escapes).
  std::optional<std::vector<absl::string_view>> spans;
  if (keep_node_objects) {
    spans = ArrayElementSpans(body, {"Nodes", "items"});
    if (spans.has_value() && spans->size() != items.size()) spans.reset();
    args.node_items.reserve(items.size());
  }
  size_t i = 0;
  for (simdjson::dom::element item : items) {
    HEADROOM_ASSIGN_OR_RETURN(NodeSpec node, DecodeNodeElement(item, i));
    args.nodes.push_back(std::move(node));
    if (keep_node_objects) {
      args.node_items.push_back(spans.has_value() ? std::string((*spans)[i])
                                                  : simdjson::minify(item));
    }
    ++i;
  }
  return absl::OkStatus();
}

// The value of the first member `key` (as the DOM's lookup finds it) unless it is null.
std::optional<absl::string_view> MemberValue(const std::vector<JsonMember>& members,
                                             absl::string_view key) {
  for (const JsonMember& member : members) {
    if (member.key_escaped || member.key != key) continue;
    if (member.value == "null") return std::nullopt;
    return member.value;
  }
  return std::nullopt;
}

// One piece of a large body in the thread's DOM, refused beyond kMaxPieceBytes.
absl::StatusOr<simdjson::dom::element> ParsePiece(absl::string_view text, absl::string_view path) {
  if (text.size() > kMaxPieceBytes) {
    return InvalidField(path, absl::StrCat(text.size(), " bytes, more than ", kMaxPieceBytes,
                                           ": larger than any object the API server stores"));
  }
  simdjson::dom::element element;
  if (const simdjson::error_code error =
          ThreadJsonParser().parse(text.data(), text.size()).get(element);
      error != simdjson::SUCCESS) {
    return InvalidField(path, absl::StrCat("not valid JSON: ", simdjson::error_message(error)));
  }
  return element;
}

// A body over kWholeParseBytes: checked whole without building anything (json_members.h),
// then the Pod, the NodeNames and each Node object parsed on their own, so memory follows the
// largest of them rather than the body, and a member nobody reads is never materialised.
absl::Status DecodeBodyInPieces(absl::string_view body, bool keep_node_objects,
                                ExtenderArgs& args) {
  HEADROOM_ASSIGN_OR_RETURN(const std::vector<JsonMember> top, TopLevelMembers(body));
  const std::optional<absl::string_view> pod_text = MemberValue(top, "Pod");
  if (!pod_text.has_value()) return InvalidField("Pod", "required");
  HEADROOM_ASSIGN_OR_RETURN(const simdjson::dom::element pod, ParsePiece(*pod_text, "Pod"));
  HEADROOM_RETURN_IF_ERROR(DecodePodUnlessKept(pod, args));
  if (const std::optional<absl::string_view> names = MemberValue(top, "NodeNames")) {
    HEADROOM_ASSIGN_OR_RETURN(const simdjson::dom::element list, ParsePiece(*names, "NodeNames"));
    return DecodeNodeNames(list, args);
  }
  const std::optional<absl::string_view> nodes = MemberValue(top, "Nodes");
  if (!nodes.has_value()) return InvalidField("body", "neither NodeNames nor Nodes is set");
  args.node_cache_capable = false;
  args.nodes.clear();
  if (nodes->front() != '{') return InvalidField("Nodes", "expected an object");
  HEADROOM_ASSIGN_OR_RETURN(const std::vector<JsonMember> list, TopLevelMembers(*nodes));
  const std::optional<absl::string_view> items_text = MemberValue(list, "items");
  if (!items_text.has_value()) return absl::OkStatus();
  const std::optional<std::vector<absl::string_view>> items = ArrayElementSpans(*items_text, {});
  if (!items.has_value()) return InvalidField("Nodes.items", "expected an array");
  args.nodes.reserve(items->size());
  if (keep_node_objects) args.node_items.reserve(items->size());
  for (size_t i = 0; i < items->size(); ++i) {
    const absl::string_view item = (*items)[i];
    HEADROOM_ASSIGN_OR_RETURN(const simdjson::dom::element node,
                              ParsePiece(item, absl::StrCat("Nodes.items[", i, "]")));
    HEADROOM_ASSIGN_OR_RETURN(NodeSpec spec, DecodeNodeElement(node, i));
    args.nodes.push_back(std::move(spec));
    if (keep_node_objects) args.node_items.emplace_back(item);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status DecodeExtenderArgsInto(absl::string_view body, bool keep_node_objects,
                                    ExtenderArgs& args) {
  // (The args hold copies: nothing points into the parser or `body` once this returns.)
  const ReleaseParserAfter release(body.size());
  args.node_items.clear();
  return body.size() > kWholeParseBytes ? DecodeBodyInPieces(body, keep_node_objects, args)
                                        : DecodeWholeBody(body, keep_node_objects, args);
}

bool KeepForReuse(const ExtenderArgs& args, size_t body_bytes) {
  if (body_bytes > kKeptBytes || !args.node_items.empty() || args.nodes.size() > kKeptNodes) {
    return false;
  }
  size_t name_bytes = 0;
  for (const NodeSpec& node : args.nodes) name_bytes += node.name.capacity();
  return name_bytes <= kKeptBytes;
}

namespace {

// Writes into a string sized beforehand (the answers' sizes are known before writing them).
class Cursor {
 public:
  explicit Cursor(char* at) : at_(at) {}
  void Put(absl::string_view text) {
    if (text.empty()) return;  // (an empty view's data may be null, which memcpy must not get)
    std::memcpy(at_, text.data(), text.size());
    at_ += text.size();
  }
  void Put(char c) { *at_++ = c; }
  void Skip(size_t bytes) { at_ += bytes; }
  char* at() const { return at_; }

 private:
  char* at_;
};

// Writes `start` and then the names, quoted and comma-separated, in one pass that copies them
// and checks that each is plain JSON text; false (and `out` emptied) when one is not.
bool PutPlainNames(std::string& out, absl::string_view start,
                   const std::vector<absl::string_view>& names) {
  size_t size = start.size();
  for (const absl::string_view name : names) size += name.size() + 3;
  out.resize(size);
  Cursor cursor(out.data());
  cursor.Put(start);
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) cursor.Put(',');
    cursor.Put('"');
    if (!CopyPlainJsonText(cursor.at(), names[i])) {
      out.clear();
      return false;
    }
    cursor.Skip(names[i].size());
    cursor.Put('"');
  }
  out.resize(static_cast<size_t>(cursor.at() - out.data()));
  return true;
}

// {"name":"reason",...}: Go's encoding of a map[string]string ({} when empty).
void AppendStringMap(std::string& out, const std::map<std::string, std::string>& map) {
  out += '{';
  bool first = true;
  for (const auto& [key, value] : map) {
    if (!first) out += ',';
    first = false;
    AppendJsonString(out, key);
    out += ':';
    AppendJsonString(out, value);
  }
  out += '}';
}

}  // namespace

std::string EncodeFilterResult(const ExtenderArgs& args, const FilterResult& result) {
  std::string out;
  size_t size = 128;
  for (const absl::string_view name : result.passed) size += name.size() + 3;
  for (const auto& [node, reason] : result.failed) size += node.size() + reason.size() + 6;
  if (!args.node_cache_capable) {
    for (const std::string& item : args.node_items) size += item.size() + 1;
  }
  out.reserve(size);
  if (args.node_cache_capable) {
    constexpr absl::string_view kStart =
        "{\"Nodes\":null,\"NodeNames\":[";  // an array even when empty
    if (PutPlainNames(out, kStart, result.passed)) {
      out += ']';
    } else {
      out.append(kStart.data(), kStart.size());
      for (const absl::string_view name : result.passed) {
        AppendJsonString(out, name);
        out += ',';
      }
      if (!result.passed.empty()) out.pop_back();
      out += ']';
    }
  } else {
    // The surviving Node objects, as the request's own JSON text; `passed` keeps the
    // request's order, so one walk matches them.
    out += "{\"Nodes\":{\"metadata\":{},\"items\":[";
    size_t next = 0;
    bool first = true;
    for (size_t i = 0; i < args.nodes.size() && i < args.node_items.size(); ++i) {
      if (next >= result.passed.size() || args.nodes[i].name != result.passed[next]) continue;
      ++next;
      if (!first) out += ',';
      first = false;
      out += args.node_items[i];
    }
    out += "]},\"NodeNames\":null";
  }
  out += ",\"FailedNodes\":";
  AppendStringMap(out, result.failed);
  out += ",\"FailedAndUnresolvableNodes\":";
  AppendStringMap(out, result.failed_unresolvable);
  out += ",\"Error\":";
  AppendJsonString(out, result.error);
  out += '}';
  return out;
}

namespace {

void PutScore(Cursor& cursor, int score) {
  score = std::clamp(score, 0, 10);
  if (score == 10) {
    cursor.Put("10");
  } else {
    cursor.Put(static_cast<char>('0' + score));
  }
}

// The answer written in one pass when every host is plain JSON text; nullopt otherwise.
std::optional<std::string> PlainHostPriorities(const std::vector<HostPriority>& priorities) {
  constexpr absl::string_view kHost = "{\"Host\":\"";
  constexpr absl::string_view kScore = "\",\"Score\":";
  size_t size = 2;
  for (const HostPriority& priority : priorities) {
    size += kHost.size() + priority.host.size() + kScore.size() + 2 + 2;  // score, "},"
  }
  std::string out(size, '\0');
  Cursor cursor(out.data());
  cursor.Put('[');
  for (size_t i = 0; i < priorities.size(); ++i) {
    if (i > 0) cursor.Put(',');
    cursor.Put(kHost);
    if (!CopyPlainJsonText(cursor.at(), priorities[i].host)) return std::nullopt;
    cursor.Skip(priorities[i].host.size());
    cursor.Put(kScore);
    PutScore(cursor, priorities[i].score);
    cursor.Put('}');
  }
  cursor.Put(']');
  out.resize(static_cast<size_t>(cursor.at() - out.data()));
  return out;
}

}  // namespace

std::string EncodeHostPriorities(const std::vector<HostPriority>& priorities) {
  if (std::optional<std::string> plain = PlainHostPriorities(priorities)) return *std::move(plain);
  std::string out = "[";
  out.reserve(priorities.size() * 40 + 2);
  for (size_t i = 0; i < priorities.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"Host\":";
    AppendJsonString(out, priorities[i].host);
    const int score = std::clamp(priorities[i].score, 0, 10);
    out += ",\"Score\":";
    if (score == 10) {
      out += "10";
    } else {
      out += static_cast<char>('0' + score);
    }
    out += '}';
  }
  out += ']';
  return out;
}

}  // namespace headroom::extender
