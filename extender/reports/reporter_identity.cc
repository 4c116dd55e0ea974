#include "extender/reports/reporter_identity.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codec/json_lenient.h"

namespace headroom::extender {

using ::headroom::codec::ArrayField;
using ::headroom::codec::ObjectField;
using ::headroom::codec::StringField;
using ::headroom::codec::TrueField;

absl::StatusOr<ReportAuth> ParseReportAuth(absl::string_view text) {
  if (text == "token") return ReportAuth::kToken;
  if (text == "certificate") return ReportAuth::kCertificate;
  if (text == "insecure") return ReportAuth::kInsecure;
  return absl::InvalidArgumentError(
      absl::StrCat("--report-auth: \"", text, "\" is not token, certificate or insecure"));
}

absl::string_view ReportAuthName(ReportAuth auth) {
  switch (auth) {
    case ReportAuth::kToken:
      return "token";
    case ReportAuth::kCertificate:
      return "certificate";
    case ReportAuth::kInsecure:
      return "insecure";
  }
  return "?";
}

bool CertificateSpeaksFor(const std::vector<std::string>& common_names,
                          const std::vector<std::string>& alt_names, absl::string_view node) {
  if (node.empty()) return false;
  const std::string kubelet_form = absl::StrCat("system:node:", node);
  for (const std::string& name : common_names) {
    if (name == node || name == kubelet_form) return true;
  }
  return std::find(alt_names.begin(), alt_names.end(), node) != alt_names.end();
}

std::string TokenReviewBody(const std::string& token, const std::string& audience) {
  return nlohmann::json{{"apiVersion", "authentication.k8s.io/v1"},
                        {"kind", "TokenReview"},
                        {"spec", {{"token", token}, {"audiences", {audience}}}}}
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

bool Contains(const nlohmann::json& list, const std::string& value) {
  return std::any_of(list.begin(), list.end(), [&](const nlohmann::json& item) {
    return item.is_string() && item.get_ref<const std::string&>() == value;
  });
}

}  // namespace

absl::StatusOr<std::string> NodeOfTokenReview(const nlohmann::json& review,
                                              const std::string& audience,
                                              const std::vector<std::string>& service_accounts) {
  const nlohmann::json& status = ObjectField(review, "status");
  if (!TrueField(status, "authenticated")) {
    const std::string error = StringField(status, "error");
    return absl::UnauthenticatedError(absl::StrCat("the API server did not authenticate the token",
                                                   error.empty() ? "" : ": " + error));
  }
  if (!Contains(ArrayField(status, "audiences"), audience)) {
    return absl::UnauthenticatedError(absl::StrCat("the token is not for the audience ", audience));
  }
  const nlohmann::json& user = ObjectField(status, "user");
  const std::string name = StringField(user, "username");
  if (std::find(service_accounts.begin(), service_accounts.end(), name) == service_accounts.end()) {
    return absl::PermissionDeniedError(
        absl::StrCat("the token's user \"", name, "\" may not report nodes"));
  }
  const nlohmann::json& nodes = ArrayField(ObjectField(user, "extra"), kNodeNameExtra);
  if (nodes.size() != 1 || !nodes[0].is_string() ||
      nodes[0].get_ref<const std::string&>().empty()) {
    return absl::PermissionDeniedError(
        "the token names no node (use a projected token of a pod bound to its node)");
  }
  return nodes[0].get<std::string>();
}

TokenAuthenticator::TokenAuthenticator(Review review, Options options,
                                       std::function<absl::Time()> clock)
    : review_(std::move(review)), options_(std::move(options)), clock_(std::move(clock)) {}

absl::StatusOr<std::string> TokenAuthenticator::NodeOf(const std::string& token,
                                                       const std::string& address) {
  if (token.empty()) return absl::UnauthenticatedError("no bearer token");
  if (token.size() > options_.max_token_bytes) {
    return absl::UnauthenticatedError(
        absl::StrCat("the bearer token is longer than ", options_.max_token_bytes, " bytes"));
  }
  const absl::Time now = clock_();
  {
    absl::MutexLock lock(&mu_);
    for (const Cache* cache : {&accepted_, &refused_}) {
      if (const auto it = cache->find(token); it != cache->end() && it->second.expires > now) {
        return it->second.node;
      }
    }
    if (absl::Status admitted = AdmitReviewLocked(address, now); !admitted.ok()) {
      ++throttled_;
      return admitted;
    }
  }
  absl::StatusOr<nlohmann::json> answer = review_(TokenReviewBody(token, options_.audience));
  absl::MutexLock lock(&mu_);
  --in_flight_;
  if (!answer.ok()) {
    return absl::UnavailableError(
        absl::StrCat("cannot review the token: ", answer.status().message()));
  }
  absl::StatusOr<std::string> node =
      NodeOfTokenReview(*answer, options_.audience, options_.service_accounts);
  if (node.ok()) {
    StoreLocked(accepted_, token, {node, now + options_.ttl}, now);
  } else {
    StoreLocked(refused_, token, {node, now + options_.negative_ttl}, now);
  }
  return node;
}

absl::Status TokenAuthenticator::AdmitReviewLocked(const std::string& address, absl::Time now) {
  auto budget = budgets_.find(address);
  if (budget == budgets_.end()) {
    // So many addresses: start over (the bound on reviews in flight still holds).
    if (budgets_.size() >= options_.max_addresses) budgets_.clear();
    budget = budgets_
                 .emplace(address,
                          TokenBucket(options_.reviews_per_second * 3600, options_.review_burst))
                 .first;
  }
  if (!budget->second.TryTake(now)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "too many new tokens from ", address.empty() ? "this client" : address, " (at most ",
        options_.reviews_per_second, " reviewed a second); retry later"));
  }
  if (in_flight_ >= options_.max_concurrent_reviews) {
    return absl::UnavailableError(
        absl::StrCat("already ", in_flight_, " token reviews in flight; retry later"));
  }
  ++in_flight_;
  return absl::OkStatus();
}

void TokenAuthenticator::StoreLocked(Cache& cache, const std::string& token, Entry entry,
                                     absl::Time now) {
  if (cache.size() >= options_.max_entries) {
    absl::erase_if(cache, [&](const auto& kept) { return kept.second.expires <= now; });
    if (cache.size() >= options_.max_entries) cache.clear();  // a flood of distinct tokens
  }
  cache.insert_or_assign(token, std::move(entry));
}

size_t TokenAuthenticator::cached() const {
  absl::MutexLock lock(&mu_);
  return accepted_.size() + refused_.size();
}

uint64_t TokenAuthenticator::throttled() const {
  absl::MutexLock lock(&mu_);
  return throttled_;
}

}  // namespace headroom::extender
