#pragma once

// The status page served under /ui by headroom-extender: HTML, its script and its style, all
// shipped in the binary (no CDN, nothing fetched but /api/v1/status). The script writes every
// value from the API with textContent, never as markup: names in node reports are untrusted.

#include "absl/strings/string_view.h"

namespace headroom::extender {

absl::string_view StatusPageHtml();
absl::string_view StatusPageScript();
absl::string_view StatusPageStyle();

// Content-Security-Policy of the page: only its own origin, no inline code.
inline constexpr char kStatusPagePolicy[] =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

}  // namespace headroom::extender
