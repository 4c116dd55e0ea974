#pragma once

// One simdjson DOM parser per thread, shared by the extender's JSON readers (the scheduler's
// requests, the API's objects, the watches' lines): it keeps its buffers between documents,
// so a thread does not allocate them per request. An element it returned is valid until the
// next parse on the same thread.

#include <simdjson.h>

#include <cstddef>

namespace headroom::extender {

simdjson::dom::parser& ThreadJsonParser();

// Held while a document of `bytes` is parsed and read: when it goes, a parser that grew for
// a document over 4 MiB starts over, so that no thread keeps the memory of the largest
// document it ever read.
class ReleaseParserAfter {
 public:
  explicit ReleaseParserAfter(size_t bytes) : bytes_(bytes) {}
  ~ReleaseParserAfter();
  ReleaseParserAfter(const ReleaseParserAfter&) = delete;
  ReleaseParserAfter& operator=(const ReleaseParserAfter&) = delete;

 private:
  size_t bytes_;
};

}  // namespace headroom::extender
