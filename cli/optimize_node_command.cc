#include "cli/optimize_node_command.h"

#include <string>

#include "cli/input_file.h"
#include "cli/node_json.h"
#include "codec/json_fields.h"
#include "shared/node_optimizer.h"
#include "shared/status_macros.h"

namespace headroom::cli {

using ::headroom::codec::ParseJson;

absl::StatusOr<std::string> OptimizeNodeJson(absl::string_view text, bool pretty) {
  HEADROOM_ASSIGN_OR_RETURN(const nlohmann::json document, ParseJson(text));
  HEADROOM_ASSIGN_OR_RETURN(const NodeDemand node, DecodeNodeDemand(document));
  HEADROOM_ASSIGN_OR_RETURN(const OptimizeOptions options, DecodeOptimizeOptions(document));
  HEADROOM_ASSIGN_OR_RETURN(const NodeOptimization result, OptimizeNode(node, options));
  return EncodeNodeOptimization(node, result).dump(pretty ? 2 : -1);
}

int RunOptimizeNode(absl::string_view input, bool pretty, std::ostream& out, std::ostream& err) {
  if (input.empty()) {
    err << "headroom optimize-node: --input is required (a file, or - for standard input)\n";
    return kExitBadInput;
  }
  absl::StatusOr<std::string> text = ReadInput(input);
  if (!text.ok()) {
    err << "headroom optimize-node: " << text.status().message() << "\n";
    return absl::IsInvalidArgument(text.status()) ? kExitBadInput : kExitFailure;
  }
  absl::StatusOr<std::string> output = OptimizeNodeJson(*text, pretty);
  if (!output.ok()) {
    err << "headroom optimize-node: " << input << ": " << output.status().message() << "\n";
    return absl::IsInvalidArgument(output.status()) || absl::IsOutOfRange(output.status())
               ? kExitBadInput
               : kExitFailure;
  }
  out << *output << "\n";
  return kExitOk;
}

}  // namespace headroom::cli
