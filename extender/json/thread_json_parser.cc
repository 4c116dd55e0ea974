#include "extender/json/thread_json_parser.h"

namespace headroom::extender {

simdjson::dom::parser& ThreadJsonParser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

ReleaseParserAfter::~ReleaseParserAfter() {
  if (bytes_ > (4 << 20)) ThreadJsonParser() = simdjson::dom::parser();
}

}  // namespace headroom::extender
