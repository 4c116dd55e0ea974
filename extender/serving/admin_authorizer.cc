#include "extender/serving/admin_authorizer.h"

#include "absl/strings/str_cat.h"
#include "codec/json_lenient.h"

namespace headroom::extender {

using ::headroom::codec::ObjectField;
using ::headroom::codec::StringField;
using ::headroom::codec::TrueField;

using json = nlohmann::json;

json SubjectAccessReviewBody(const json& user, const std::string& path, const std::string& verb) {
  json spec = {{"nonResourceAttributes", {{"path", path}, {"verb", verb}}}};
  if (user.is_object()) {
    for (const char* field : {"username", "uid", "groups", "extra"}) {
      if (const auto it = user.find(field); it != user.end()) {
        spec[std::string(field) == "username" ? "user" : field] = *it;
      }
    }
  }
  return {{"apiVersion", "authorization.k8s.io/v1"},
          {"kind", "SubjectAccessReview"},
          {"spec", std::move(spec)}};
}

absl::Status AdminAuthorizer::Authorize(const std::string& bearer_token, const std::string& path,
                                        const std::string& verb) const {
  if (bearer_token.empty() || bearer_token.size() > (16 << 10)) {
    return absl::UnauthenticatedError("a Kubernetes bearer token is required");
  }
  const json token_review = {{"apiVersion", "authentication.k8s.io/v1"},
                             {"kind", "TokenReview"},
                             {"spec", {{"token", bearer_token}}}};
  absl::StatusOr<json> reviewed =
      post_("/apis/authentication.k8s.io/v1/tokenreviews",
            token_review.dump(-1, ' ', false, json::error_handler_t::replace));
  if (!reviewed.ok()) {
    return absl::UnavailableError(absl::StrCat("TokenReview: ", reviewed.status().message()));
  }
  const json& status = ObjectField(*reviewed, "status");
  if (!TrueField(status, "authenticated")) {
    return absl::UnauthenticatedError("the API server did not authenticate the token");
  }
  const json& user = ObjectField(status, "user");
  absl::StatusOr<json> decided = post_("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                                       SubjectAccessReviewBody(user, path, verb).dump());
  if (!decided.ok()) {
    return absl::UnavailableError(
        absl::StrCat("SubjectAccessReview: ", decided.status().message()));
  }
  if (!TrueField(ObjectField(*decided, "status"), "allowed")) {
    const std::string name = StringField(user, "username");
    return absl::PermissionDeniedError(
        absl::StrCat(name.empty() ? "?" : name, " may not ", verb, " ", path));
  }
  return absl::OkStatus();
}

}  // namespace headroom::extender
