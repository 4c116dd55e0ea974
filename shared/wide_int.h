#pragma once

namespace headroom {

// 128-bit signed integer for exact intermediate products and sums of 64-bit amounts
// (a GCC/Clang extension; __extension__ keeps -Wpedantic quiet).
__extension__ typedef __int128 WideInt;

}  // namespace headroom
