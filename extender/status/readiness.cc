#include "extender/status/readiness.h"

#include "absl/strings/str_cat.h"

namespace headroom::extender {

Readiness JudgeReadiness(const ReadinessFacts& facts) {
  if (facts.api && !facts.watches_listed) {
    return {false, "not ready: waiting for the pod and node watches to list\n"};
  }
  const bool all_reported = facts.api ? facts.api_nodes_fresh >= facts.api_nodes : false;
  if (!all_reported && facts.since_start < facts.grace) {
    return {false,
            facts.api
                ? absl::StrCat("not ready: ", facts.api_nodes_fresh, " of ", facts.api_nodes,
                               " nodes have reported since the start; ready when all have or ",
                               absl::FormatDuration(facts.grace - facts.since_start), " from now\n")
                : absl::StrCat("not ready: ", facts.nodes_reported,
                               " nodes reported since the start; ready ",
                               absl::FormatDuration(facts.grace - facts.since_start),
                               " from now, after one report round\n")};
  }
  return {true, absl::StrCat("ok: ", facts.nodes_reported, " nodes reported\n")};
}

}  // namespace headroom::extender
