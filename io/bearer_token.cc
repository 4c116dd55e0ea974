#include "io/bearer_token.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "io/atomic_file.h"

namespace headroom::io {

absl::StatusOr<std::string> ReadBearerToken(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  const absl::string_view token = absl::StripAsciiWhitespace(*text);
  if (token.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": empty token"));
  if (token.size() > kMaxBearerTokenBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": a token of more than ", kMaxBearerTokenBytes, " bytes"));
  }
  return std::string(token);
}

absl::Status AddBearerToken(grpc::ClientContext& context, const std::string& token_file) {
  if (token_file.empty()) return absl::OkStatus();
  absl::StatusOr<std::string> token = ReadBearerToken(token_file);
  if (!token.ok()) return token.status();
  context.AddMetadata("authorization", absl::StrCat("Bearer ", *token));
  return absl::OkStatus();
}

}  // namespace headroom::io
