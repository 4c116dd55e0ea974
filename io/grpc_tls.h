#pragma once

// TLS for the node-report gRPC channel between headroom-nri and headroom-extender, from PEM
// files. All empty means plaintext (inside the cluster network, as before). The extender
// serves the server side from its report port's front door (extender/reports/report_front_door.h),
// which reloads a renewed certificate; the client's files here are read once.

#include <grpcpp/security/credentials.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace headroom::io {

struct GrpcServerTls {
  std::string cert_file;       // the server's certificate (and chain)
  std::string key_file;        // its private key
  std::string client_ca_file;  // when set, clients must present a certificate signed by it
};

struct GrpcClientTls {
  std::string ca_file;    // CA that signed the server's certificate; set to use TLS
  std::string cert_file;  // the client's certificate, for servers that require one
  std::string key_file;
};

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(
    const GrpcClientTls& tls);

}  // namespace headroom::io
