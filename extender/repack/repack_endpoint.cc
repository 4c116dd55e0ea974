#include "extender/repack/repack_endpoint.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codec/repack_json.h"
#include "io/system_repack_clock.h"
#include "nlohmann/json.hpp"
#include "shared/log_text.h"
#include "shared/repack.h"
#include "spdlog/spdlog.h"

namespace headroom::extender {

void RepackEndpoint::Serve(const io::HttpRequest& request, io::HttpResponse& response) {
  constexpr absl::string_view kBearer = "Bearer ";
  const std::string token = absl::StartsWith(request.authorization, kBearer)
                                ? request.authorization.substr(kBearer.size())
                                : "";
  const absl::Status allowed = authorizer_.Authorize(token, "/repack", "post");
  if (!allowed.ok()) {
    spdlog::warn("repack refused: {}", LogText(allowed.message()));
    response = io::JsonError(absl::IsUnauthenticated(allowed)    ? 401
                             : absl::IsPermissionDenied(allowed) ? 403
                                                                 : 503,
                             allowed.message());
    return;
  }
  Solve(request.body, request.QueryParam("timeout"), request.client_gone.get(), response);
}

void RepackEndpoint::Solve(const std::string& body, const std::string& timeout_text,
                           const std::atomic<bool>* client_gone, io::HttpResponse& response) {
  absl::Duration timeout = kDefaultTimeout;
  if (!timeout_text.empty() && (!absl::ParseDuration(timeout_text, &timeout) ||
                                timeout < absl::ZeroDuration() || timeout > kMaxTimeout)) {
    response = io::JsonError(400, absl::StrCat("timeout: a duration from 0s to ",
                                               absl::FormatDuration(kMaxTimeout), ", e.g. 1s"));
    return;
  }
  absl::StatusOr<RepackInstance> instance = codec::DecodeRepackInputText(body);
  if (!instance.ok()) {
    response = io::JsonError(400, instance.status().message());
    return;
  }
  std::unique_lock<std::mutex> lock(solving_, std::try_to_lock);
  if (!lock.owns_lock()) {
    response = io::JsonError(429, "a repack is already running; retry when it ends");
    return;
  }
  CancellableRepackClock clock(cancelled_, client_gone);
  RepackOptions options;
  options.timeout = timeout;
  absl::StatusOr<RepackPlan> plan = SolveRepack(*instance, options, clock);
  if (!plan.ok()) {
    response = io::JsonError(400, plan.status().message());
    return;
  }
  if (client_gone != nullptr && client_gone->load()) {
    spdlog::info("repack: the caller went away; the solve stopped with its best plan so far");
  }
  nlohmann::json out = codec::EncodeRepackPlan(*instance, *plan);
  out["dryRun"] = true;
  int changes = 0;
  for (const RepackTierResult& tier : plan->tiers) {
    changes += tier.placed_after - tier.placed_before;
  }
  spdlog::info("repack: {} nodes, {} pods: plan places {} more pods ({}), {} changes; dry run",
               instance->nodes.size(), instance->pods.size(), changes,
               plan->optimal ? "proven optimal" : "not proven optimal",
               RepackChanges(*instance, *plan).size());
  response.body = out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace headroom::extender
