// Software prefetch for the kernels that read memory once per decode step: the f16 and block-format
// products of one vector, and one query's attention over the half cross cache. On the AMD Zen 5 VM
// where they were measured, the hardware prefetchers left one core reading a matrix larger than the
// cache at 9 GB/s (q8_0 blocks of 512) to 19 GB/s (f16 rows); prefetching the rows a fixed distance
// ahead lifted that to 42 and 31 GB/s, and a decode step of tiny from 1.5 to 1.1 ms per token on a
// quiet machine (RESULTS.md, "CPU run 7").
#pragma once

#include "core/backend/x86_simd.h"

#include <cstddef>

namespace hearsay::simd {

// How far ahead of the rows being read the prefetches run: enough bytes in flight to cover the
// memory's latency at one core's bandwidth, well inside L1.
constexpr size_t kPrefetchAheadBytes = 12 * 1024;

// Prefetches the lines of [at, at + bytes).
inline void prefetchBytes(const void* at, size_t bytes) {
#ifdef HEARSAY_SIMD_X86
    // Volatile asm rather than _mm_prefetch: GCC 12's dead-code elimination removes a loop that
    // holds nothing but __builtin_prefetch calls, and these loops are all there is between two
    // groups of rows' arithmetic. The address goes in a register, not as a memory operand, since
    // a prefetch reads nothing the program sees (and a sanitizer has nothing to check).
    // prefetcht2 rather than t0: on an Intel Xeon lines asked for into L2 only kept more reads in
    // flight than lines asked for into L1 (likely the core's few L1 fill buffers): medium's cross
    // attention read 18.6 → 19.8 GB/s and its step went 40.7 → 39.0 ms, tiny and base no different
    // (RESULTS.md, "CPU run 18"). On an AMD EPYC Zen 4 VM t2 paid far more: tiny's decode, alternated
    // with a throwaway switch, took 1.0 to 1.7 ms a token with t2, 2.5 to 3.0 with t0 and 3.3 to 3.7
    // with no prefetch at all (base 2.9 to 4.4, 6.1 to 6.7, 6.2 to 8.0; RESULTS.md, "CPU run 21").
    const char* p = static_cast<const char*>(at);
    for (const char* stop = p + bytes; p < stop; p += 64) asm volatile("prefetcht2 (%0)" : : "r"(p));
#else
    (void)at, (void)bytes;
#endif
}

// Prefetches the `bytes` that lie kPrefetchAheadBytes after `at`, up to `end` (the end of the
// caller's rows: nothing past them is asked for).
inline void prefetchRowsAhead(const void* at, size_t bytes, const void* end) {
    const char* p = static_cast<const char*>(at) + kPrefetchAheadBytes;
    const char* last = static_cast<const char*>(end);
    if (p < last) prefetchBytes(p, p + bytes < last ? bytes : size_t(last - p));
}

// Prefetches [at, at + bytes) shifted kPrefetchAheadBytes ahead when all of it lies before `end`;
// a kernel calls it for each small group it reads (a few heads of a key row), so that the
// prefetches are spread among the reads. Near the end nothing is asked for.
inline void prefetchGroupAhead(const void* at, size_t bytes, const void* end) {
    const char* p = static_cast<const char*>(at) + kPrefetchAheadBytes;
    if (p + bytes <= static_cast<const char*>(end)) prefetchBytes(p, bytes);
}

// Rows read in groups of `groupBytes` (a kernel's four rows at a time) and prefetched as they are
// read: each read is matched by a prefetch of the same offset this far ahead, a whole number of
// groups and at least kPrefetchAheadBytes. A burst of prefetches for a whole group at its start (as
// prefetchRowsAhead) overran the core's queue for long rows: q5_0 weights of 4096 inputs (11 KB a
// group) came at 19 to 24 GB/s where rows of 1024 came at 34.
inline size_t groupPrefetchDistance(size_t groupBytes) {
    return (kPrefetchAheadBytes + groupBytes - 1) / groupBytes * groupBytes;
}

// The prefetches of one step of a four-row kernel: in each of the four rows (rowBytes apart, the
// first at `at`), the line `ahead` bytes after the one being read.
inline void prefetchFourRows(const void* at, size_t rowBytes, size_t ahead) {
    const char* p = static_cast<const char*>(at) + ahead;
    for (size_t j = 0; j < 4; ++j) prefetchBytes(p + j * rowBytes, 1);
}

} // namespace hearsay::simd
