#include "cli/repack_command.h"

#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/exit_codes.h"
#include "cli/input_file.h"
#include "codec/repack_json.h"
#include "io/system_repack_clock.h"
#include "shared/repack.h"

namespace headroom::cli {

using ::headroom::codec::DecodeRepackInputText;
using ::headroom::codec::EncodeRepackInstance;
using ::headroom::codec::EncodeRepackPlan;
namespace {

std::string YesNo(bool value) { return value ? "yes" : "no"; }

void PrintTable(const RepackInstance& instance, const RepackPlan& plan, std::ostream& out) {
  out << absl::StrFormat("%-9s %6s %7s %8s %6s %8s %8s %5s %6s %8s %10s %8s\n", "priority", "pods",
                         "placed", "in plan", "bound", "optimal", "running", "kept", "moved",
                         "evicted", "moves opt", "seconds");
  for (const RepackTierResult& tier : plan.tiers) {
    out << absl::StrFormat("%-9d %6d %7d %8d %6d %8s %8d %5d %6d %8d %10s %8.3f\n", tier.priority,
                           tier.pods, tier.placed_before, tier.placed_after, tier.placement_bound,
                           YesNo(tier.placement_optimal), tier.running, tier.kept, tier.moved,
                           tier.evicted, YesNo(tier.moves_optimal),
                           absl::ToDoubleSeconds(tier.elapsed));
  }
  int moves = 0, places = 0, evictions = 0;
  const std::vector<RepackChange> changes = RepackChanges(instance, plan);
  for (const RepackChange& change : changes) {
    moves += change.kind == RepackChange::Kind::kMove;
    places += change.kind == RepackChange::Kind::kPlace;
    evictions += change.kind == RepackChange::Kind::kEvict;
  }
  out << "\nplan: " << moves << " moves, " << places << " placements, " << evictions
      << " evictions; " << (plan.optimal ? "proven optimal" : "not proven optimal")
      << " (dry run: nothing was changed)\n";
  for (const RepackChange& change : changes) {
    const std::string& pod = instance.pods[change.pod].name;
    switch (change.kind) {
      case RepackChange::Kind::kMove:
        out << "  move   " << pod << "  " << instance.nodes[change.from].name << " -> "
            << instance.nodes[change.to].name << "\n";
        break;
      case RepackChange::Kind::kPlace:
        out << "  place  " << pod << "  -> " << instance.nodes[change.to].name << "\n";
        break;
      case RepackChange::Kind::kEvict:
        out << "  evict  " << pod << "  from " << instance.nodes[change.from].name << "\n";
        break;
    }
  }
}

}  // namespace

int RunRepack(const RepackCommandOptions& options, std::ostream& out, std::ostream& err) {
  if (options.output != "table" && options.output != "json") {
    err << "headroom repack: --output must be table or json, not \"" << options.output << "\"\n";
    return kExitBadInput;
  }
  if (options.timeout < absl::ZeroDuration()) {
    err << "headroom repack: --timeout must not be negative\n";
    return kExitBadInput;
  }
  if (options.generate == !options.input.empty()) {
    err << "headroom repack: give either --input FILE|- or --generate (see 'headroom repack "
           "--help')\n";
    return kExitBadInput;
  }
  RepackInstance instance;
  if (options.generate) {
    const RepackGeneratorConfig& g = options.generator;
    if (g.nodes < 1 || g.pods_per_node < 1 || g.tiers < 1 || g.target_utilisation <= 0) {
      err << "headroom repack: --nodes, --pods-per-node and --tiers must be at least 1 and "
             "--utilisation above 0\n";
      return kExitBadInput;
    }
    instance = GenerateRepackInstance(g);
  } else {
    absl::StatusOr<std::string> text = ReadInput(options.input);
    if (!text.ok()) {
      err << "headroom repack: " << text.status().message() << "\n";
      return absl::IsInvalidArgument(text.status()) ? kExitBadInput : kExitFailure;
    }
    absl::StatusOr<RepackInstance> decoded = DecodeRepackInputText(*text);
    if (!decoded.ok()) {
      err << "headroom repack: " << options.input << ": " << decoded.status().message() << "\n";
      return kExitBadInput;
    }
    instance = std::move(*decoded);
  }
  if (!options.write_instance.empty()) {
    std::ofstream file(options.write_instance);
    file << EncodeRepackInstance(instance).dump(1) << "\n";
    if (!file) {
      err << "headroom repack: cannot write " << options.write_instance << "\n";
      return kExitFailure;
    }
  }
  SystemRepackClock clock;
  RepackOptions solve;
  solve.timeout = options.timeout;
  solve.seed = options.seed;
  absl::StatusOr<RepackPlan> plan = SolveRepack(instance, solve, clock);
  if (!plan.ok()) {
    err << "headroom repack: " << plan.status().message() << "\n";
    return kExitBadInput;
  }
  if (options.output == "json") {
    out << EncodeRepackPlan(instance, *plan).dump(2) << "\n";
  } else {
    int pending = 0;
    for (const RepackPod& pod : instance.pods) pending += pod.current_node < 0;
    out << "repack: " << instance.nodes.size() << " nodes, " << instance.pods.size() << " pods ("
        << pending << " pending), " << plan->tiers.size() << " priority tiers, timeout "
        << absl::FormatDuration(options.timeout) << "\n\n";
    PrintTable(instance, *plan, out);
  }
  return kExitOk;
}

}  // namespace headroom::cli
