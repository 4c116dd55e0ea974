#pragma once

// The bearer token headroom-nri (and `headroom report`) sends with each node report under
// --report-auth=token: a projected ServiceAccount token file, which the kubelet rotates, so
// it is read again for every call.

#include <grpcpp/client_context.h>

#include <string>

#include "absl/status/statusor.h"

namespace headroom::io {

inline constexpr size_t kMaxBearerTokenBytes = 16 << 10;

// The file's content without surrounding whitespace; InvalidArgument when it is empty or
// larger than kMaxBearerTokenBytes, NotFound/Unavailable when it cannot be read.
absl::StatusOr<std::string> ReadBearerToken(const std::string& path);

// Adds "authorization: Bearer <token>" to `context` when `token_file` is set.
absl::Status AddBearerToken(grpc::ClientContext& context, const std::string& token_file);

}  // namespace headroom::io
