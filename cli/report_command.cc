#include "cli/report_command.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <string>

#include "cli/exit_codes.h"
#include "cli/input_file.h"
#include "codec/report_codec.h"
#include "headroom/v1/report.grpc.pb.h"
#include "io/bearer_token.h"

namespace headroom::cli {

int RunReport(absl::string_view extender, absl::string_view input, absl::Duration timeout,
              const io::GrpcClientTls& tls, const std::string& token_file, bool check_locally,
              std::ostream& out, std::ostream& err) {
  if (extender.empty() || input.empty()) {
    err << "headroom report: --extender HOST:PORT and --input FILE|- are required\n";
    return kExitBadInput;
  }
  absl::StatusOr<std::string> text = ReadInput(input);
  if (!text.ok()) {
    err << "headroom report: " << text.status().message() << "\n";
    return absl::IsInvalidArgument(text.status()) ? kExitBadInput : kExitFailure;
  }
  absl::StatusOr<headroom::v1::NodeReport> report = headroom::codec::ReportFromJson(*text);
  if (!report.ok()) {
    err << "headroom report: " << input << ": " << report.status().message() << "\n";
    return kExitBadInput;
  }
  // Check locally what the extender would refuse, so the message names the field here too.
  absl::StatusOr<headroom::NodeReport> checked =
      check_locally ? headroom::codec::NodeReportFromProto(*report, absl::Now())
                    : headroom::NodeReport{};
  if (!checked.ok()) {
    err << "headroom report: " << input << ": " << checked.status().message() << "\n";
    return kExitBadInput;
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      io::ChannelCredentials(tls);
  if (!credentials.ok()) {
    err << "headroom report: " << credentials.status().message() << "\n";
    return kExitBadInput;
  }
  auto channel = grpc::CreateChannel(std::string(extender), *credentials);
  auto stub = headroom::v1::ReportService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(absl::ToInt64Milliseconds(timeout)));
  if (absl::Status added = io::AddBearerToken(context, token_file); !added.ok()) {
    err << "headroom report: --token-file: " << added.message() << "\n";
    return kExitBadInput;
  }
  headroom::v1::ReportReply reply;
  const grpc::Status status = stub->Report(&context, *report, &reply);
  if (!status.ok()) {
    err << "headroom report: " << extender << ": " << status.error_message() << " (gRPC code "
        << status.error_code() << ")\n";
    return status.error_code() == grpc::StatusCode::INVALID_ARGUMENT ? kExitBadInput : kExitFailure;
  }
  out << "reported node " << report->node() << " (" << report->pods_size()
      << " pods); the extender now knows " << reply.nodes_known() << " nodes\n";
  return kExitOk;
}

}  // namespace headroom::cli
