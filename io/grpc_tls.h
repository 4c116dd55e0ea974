#pragma once

// TLS for the node-report gRPC channel between headroom-nri and headroom-extender, from PEM
// files. All empty means plaintext (inside the cluster network, as before). The files are
// read once: a renewed certificate needs a restart (the HTTPS listener, by contrast, reloads).

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace headroom::io {

struct GrpcServerTls {
  std::string cert_file;       // the server's certificate (and chain)
  std::string key_file;        // its private key
  std::string client_ca_file;  // when set, clients must present a certificate signed by it
};

// Insecure credentials when all are empty; InvalidArgument naming the flag otherwise, when a
// file is missing or cert and key are not given together.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(
    const GrpcServerTls& tls);

struct GrpcClientTls {
  std::string ca_file;    // CA that signed the server's certificate; set to use TLS
  std::string cert_file;  // the client's certificate, for servers that require one
  std::string key_file;
};

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(
    const GrpcClientTls& tls);

}  // namespace headroom::io
