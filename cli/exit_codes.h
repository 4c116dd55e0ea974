#pragma once

namespace headroom::cli {

// Exit codes shared by every headroom command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // I/O and other runtime failures
inline constexpr int kExitBadInput = 2;  // bad flags or malformed input

}  // namespace headroom::cli
