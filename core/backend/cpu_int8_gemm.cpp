// Integer GEMM of many rows with block weights (cpu_int8.h): the encoder's products and a long
// prompt's, where the float path widens q8_0 or q5_0 to float32 and runs the SGEMM.
//
// The products are the decode step's (cpu_int8.cpp): x quantised per block of 32, each block's
// 32 products summed exactly in int32 by vpdpbusd with the weights as the unsigned side (q8_0's
// q + 128, q5_0's q) and x's integers as the signed side, the offset taken out through x's block
// sums, then scaled by d·dx in float. Only the arrangement differs: the weights are repacked so
// that one 64-byte load holds four integers of each of 16 output columns, and each of x's groups
// of four integers is broadcast to all 16 lanes, so that a register tile of rows × 32 columns
// meets each weight load once per row, the usual GEMM micro-kernel with vpdpbusd for its FMA.
// A block costs 8 vpdpbusd per 16 lanes and then one conversion, one scale and one FMA into the
// float sum. A vpdpbusd does 64 multiply-adds where a float32 FMA does 16, and on the Xeon of
// RESULTS.md's "CPU run 12" it issues a little over half as often as the FMA, so a core multiplies
// about 2.4 times as fast here as in the SGEMM (about 410 against 171 billion operations a second).
// CPUs with AVX2 but no VNNI take the same packing for q5_0 through vpmaddubsw and vpmaddwd
// (below, at tileAvx2; on the Zen 3 of "CPU run 14", one core ran it at 0.6-0.7x the SGEMM's time),
// and q8_0 in another order of the same bytes, widened to int16 for vpmaddwd alone (tilePairsAvx2).
#include "core/backend/cpu_int8.h"

#include "core/backend/cpu_simd.h"
#include "core/backend/x86_simd.h"
#include "core/util/half.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace hearsay::simd {
namespace {

constexpr size_t kBlock = 32;
constexpr size_t kLanes = 16;                                           // output columns per packed group
constexpr size_t kGroupIntegers = kBlock * kLanes;                      // 512 bytes: a block of 16 columns
constexpr size_t kGroupBytes = kGroupIntegers + kLanes * sizeof(float); // + their 16 scales

// True where q8_0's weights are packed in pairs of k and x's integers kept as int16: the AVX2
// kernels' q8_0 GEMM (tilePairsAvx2).
bool pairsLayout(Int8GemmFormat format) {
    return format == Int8GemmFormat::Q8_0 && usingAvx2Dots();
}

// A q5_0 block's integers as the unsigned side takes them (its stored q, 0..31), and its d.
void q5Bytes(const uint8_t* block, uint8_t* out, float* d) {
    int q[kBlock];
    *d = halfFromBytes(block);
    q5BlockIntegers(block, false, q); // q − 16
    for (size_t j = 0; j < kBlock; ++j)
        out[j] = uint8_t(q[j] + 16);
}

size_t formatBlockBytes(Int8GemmFormat format) {
    return format == Int8GemmFormat::Q8_0 ? kQ8BlockBytes : kQ5BlockBytes;
}

// What the unsigned side adds to each weight integer (q8_0: 128; q5_0: 16, its stored q).
int int8GemmOffset(Int8GemmFormat format) {
    return format == Int8GemmFormat::Q8_0 ? 128 : 16;
}

} // namespace

void quantizeInt8Rows(const float* x, size_t first, size_t count, size_t n, Int8Rows& rows) {
    thread_local Int8Vector one;
    const size_t blocks = n / kBlock;
    const int offset = int8GemmOffset(rows.format);
    const bool pairs = pairsLayout(rows.format);  // its tile starts each block's sums at 0
    for (size_t i = first; i < first + count; ++i) {
        quantizeInt8(x + i * n, n, one);
        if (pairs) std::copy(one.q.data(), one.q.data() + n, rows.wide.data() + i * n);
        else std::memcpy(rows.q.data() + i * n, one.q.data(), n);
        std::memcpy(rows.scale.data() + i * blocks, one.scale.data(), blocks * sizeof(float));
        if (pairs) continue;
        for (size_t b = 0; b < blocks; ++b) {
            int32_t sum = 0;
            for (size_t g = 0; g < kBlock / 4; ++g)
                sum += one.groupSum[b * 8 + g];
            rows.start[i * blocks + b] = -offset * sum;
        }
    }
}

void Int8Rows::reshape(size_t rowCount, size_t width, Int8GemmFormat weights) {
    n = width;
    format = weights;
    if (pairsLayout(format)) {
        if (wide.size() < rowCount * n) wide.resize(rowCount * n);
    } else if (q.size() < rowCount * n) {
        q.resize(rowCount * n);
    }
    if (scale.size() < rowCount * n / kBlock) scale.resize(rowCount * n / kBlock);
    if (!pairsLayout(format) && start.size() < rowCount * n / kBlock) start.resize(rowCount * n / kBlock);
}

size_t int8RowBytes(Int8GemmFormat format, size_t n) {
    return pairsLayout(format) ? n * sizeof(int16_t) : n;
}

size_t int8PackedBytes(size_t n, size_t columns) {
    return (columns + kLanes - 1) / kLanes * (n / kBlock) * kGroupBytes;
}

namespace {

// Sixteen lanes' 32 integers (lane l's at src + l·stride), each byte XOR `flip`, to a packed
// group's order: [8 groups of four][16 lanes][4].
void storeLanesPortable(const uint8_t* src, size_t stride, uint8_t flip, uint8_t* group) {
    for (size_t lane = 0; lane < kLanes; ++lane) {
        for (size_t j = 0; j < kBlock; ++j)
            group[(j / 4 * kLanes + lane) * 4 + j % 4] = src[lane * stride + j] ^ flip;
    }
}

#ifdef HEARSAY_SIMD_X86
// The same as a transposition of 16 × 8 four-byte words: lanes l and l + 8 share a register (low and
// high 256 bits), and both halves go through the 8 × 8 transposition of AVX2 code side by side.
__attribute__((target("avx512f"))) void storeLanesAvx512(const uint8_t* src, size_t stride, uint8_t flip,
                                                         uint8_t* group) {
    const __m512i flipBytes = _mm512_set1_epi8(char(flip));
    __m512i z[8], t[8];
    for (size_t k = 0; k < 8; ++k) {
        const __m256i low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + k * stride));
        const __m256i high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + (k + 8) * stride));
        z[k] = _mm512_xor_si512(_mm512_inserti64x4(_mm512_castsi256_si512(low), high, 1), flipBytes);
    }
    for (size_t k = 0; k < 8; k += 2) {
        t[k] = _mm512_unpacklo_epi32(z[k], z[k + 1]);
        t[k + 1] = _mm512_unpackhi_epi32(z[k], z[k + 1]);
    }
    // u[g] (g < 4) holds words g (first 128 bits of each half) and g + 4 (second) of lanes 0-3,
    // u[g + 4] the same of lanes 4-7.
    __m512i u[8];
    for (size_t h = 0; h < 2; ++h) {
        const __m512i* a = t + 4 * h;
        u[4 * h + 0] = _mm512_unpacklo_epi64(a[0], a[2]);
        u[4 * h + 1] = _mm512_unpackhi_epi64(a[0], a[2]);
        u[4 * h + 2] = _mm512_unpacklo_epi64(a[1], a[3]);
        u[4 * h + 3] = _mm512_unpackhi_epi64(a[1], a[3]);
    }
    const __m512i first = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);   // each half's first 128 bits
    const __m512i second = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2); // each half's second 128 bits
    for (size_t g = 0; g < 4; ++g) {
        _mm512_storeu_si512(group + g * 64, _mm512_permutex2var_epi64(u[g], first, u[g + 4]));
        _mm512_storeu_si512(group + (g + 4) * 64, _mm512_permutex2var_epi64(u[g], second, u[g + 4]));
    }
}
#endif

#ifdef HEARSAY_SIMD_X86
// An 8 × 8 transposition of four-byte words: out[g] holds word g of in[0], ..., in[7].
__attribute__((target("avx2"))) void transposeWords8(const __m256i* in, __m256i* out) {
    __m256i t[8], u[8];
    for (size_t k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_epi32(in[k], in[k + 1]);
        t[k + 1] = _mm256_unpackhi_epi32(in[k], in[k + 1]);
    }
    // u[g] (g < 4): word g (first 128 bits) and g + 4 (second) of rows 0-3; u[g + 4]: of rows 4-7.
    for (size_t h = 0; h < 2; ++h) {
        const __m256i* a = t + 4 * h;
        u[4 * h + 0] = _mm256_unpacklo_epi64(a[0], a[2]);
        u[4 * h + 1] = _mm256_unpackhi_epi64(a[0], a[2]);
        u[4 * h + 2] = _mm256_unpacklo_epi64(a[1], a[3]);
        u[4 * h + 3] = _mm256_unpackhi_epi64(a[1], a[3]);
    }
    for (size_t g = 0; g < 4; ++g) {
        out[g] = _mm256_permute2x128_si256(u[g], u[g + 4], 0x20);
        out[g + 4] = _mm256_permute2x128_si256(u[g], u[g + 4], 0x31);
    }
}

// The AVX2 form: lanes 0-7, then 8-15, each an 8 × 8 transposition of four-byte words.
__attribute__((target("avx2"))) void storeLanesAvx2(const uint8_t* src, size_t stride, uint8_t flip,
                                                     uint8_t* group) {
    const __m256i flipBytes = _mm256_set1_epi8(char(flip));
    for (size_t half = 0; half < 2; ++half) {
        __m256i z[8], words[8];
        for (size_t k = 0; k < 8; ++k) {
            const auto* row = reinterpret_cast<const __m256i*>(src + (half * 8 + k) * stride);
            z[k] = _mm256_xor_si256(_mm256_loadu_si256(row), flipBytes);
        }
        transposeWords8(z, words);
        for (size_t g = 0; g < 8; ++g)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(group + g * 64 + half * 32), words[g]);
    }
}

// q8_0's integers of 16 lanes (lane l's at src + l·stride) in the pairs layout: for each half of
// the lanes, [16 pairs of k][8 lanes][2] bytes (the kernel widens 16 bytes, a pair of each lane, to
// one register of int16). The 8 × 8 transposition gives each four-byte word (two pairs) of the 8
// lanes in a register; a byte shuffle and a 64-bit permutation then put the first pairs before the
// second ones.
__attribute__((target("avx2"))) void storePairsAvx2(const uint8_t* src, size_t stride, uint8_t* group) {
    const __m256i pairOrder = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                                               0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    for (size_t half = 0; half < 2; ++half) {
        __m256i z[8], words[8];
        for (size_t l = 0; l < 8; ++l)
            z[l] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + (half * 8 + l) * stride));
        transposeWords8(z, words);
        for (size_t g = 0; g < 8; ++g) { // pairs 2g and 2g + 1
            const __m256i pairs = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(words[g], pairOrder), 0xD8);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(group + half * 256 + g * 32), pairs);
        }
    }
}
#endif

// The portable form of the same, for a group with fewer than 16 lanes (the others zero).
void storePairsPortable(const uint8_t* src, size_t stride, size_t valid, uint8_t* group) {
    for (size_t lane = 0; lane < kLanes; ++lane) {
        const size_t half = lane / 8, l = lane % 8;
        for (size_t j = 0; j < kBlock; ++j)
            group[(half * (kBlock / 2) + j / 2) * 16 + l * 2 + j % 2] = lane < valid ? src[lane * stride + j] : 0;
    }
}

void storeLanes(const uint8_t* src, size_t stride, uint8_t flip, uint8_t* group) {
#ifdef HEARSAY_SIMD_X86
    // Chosen with the integer kernels, so that each of the tests' kernel choices covers one form.
    if (usingVnniDots()) return storeLanesAvx512(src, stride, flip, group);
    if (usingAvx2Dots()) return storeLanesAvx2(src, stride, flip, group);
#endif
    storeLanesPortable(src, stride, flip, group);
}

// The unsigned integers (q + 16: the stored five bits) and d of block b of `count` q5_0 rows
// from `rows` on, rowBytes apart.
void q5Lanes(const uint8_t* rows, size_t rowBytes, size_t b, size_t count, uint8_t (*integers)[kBlock], float* d) {
    for (size_t lane = 0; lane < count; ++lane)
        q5Bytes(rows + lane * rowBytes + b * kQ5BlockBytes, integers[lane], &d[lane]);
}

#ifdef HEARSAY_SIMD_X86
// The same for 16 rows: a block's low nibbles (its first 16 integers in the low bits of qs, the
// last 16 in the high bits), with 16 added where its qh bit is set.
__attribute__((target("avx512f,avx512bw,avx512vl"))) void q5LanesAvx512(const uint8_t* rows, size_t rowBytes,
                                                                        size_t b, uint8_t (*integers)[kBlock],
                                                                        float* d) {
    const __m128i nibble = _mm_set1_epi8(0x0F);
    const __m256i sixteen = _mm256_set1_epi8(0x10);
    for (size_t lane = 0; lane < kLanes; ++lane) {
        const uint8_t* block = rows + lane * rowBytes + b * kQ5BlockBytes;
        d[lane] = halfFromBytes(block);
        uint32_t high;
        std::memcpy(&high, block + 2, sizeof high);
        const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 6));
        const __m256i low = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(qs, 4), nibble), _mm_and_si128(qs, nibble));
        _mm256_store_si256(reinterpret_cast<__m256i*>(integers[lane]),
                           _mm256_or_si256(low, _mm256_maskz_mov_epi8(__mmask32(high), sixteen)));
    }
}

// The AVX2 form: each qh bit spread to a byte (0xFF where set) by bitBytes.
__attribute__((target("avx2"))) void q5LanesAvx2(const uint8_t* rows, size_t rowBytes, size_t b,
                                                 uint8_t (*integers)[kBlock], float* d) {
    const __m128i nibble = _mm_set1_epi8(0x0F);
    const __m256i sixteen = _mm256_set1_epi8(0x10);
    for (size_t lane = 0; lane < kLanes; ++lane) {
        const uint8_t* block = rows + lane * rowBytes + b * kQ5BlockBytes;
        d[lane] = halfFromBytes(block);
        uint32_t high;
        std::memcpy(&high, block + 2, sizeof high);
        const __m128i qs = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 6));
        const __m256i low = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(qs, 4), nibble), _mm_and_si128(qs, nibble));
        _mm256_store_si256(reinterpret_cast<__m256i*>(integers[lane]),
                           _mm256_or_si256(low, _mm256_and_si256(bitBytes(high), sixteen)));
    }
}
#endif

} // namespace

void packInt8Columns(Int8GemmFormat format, const uint8_t* w, size_t n, size_t first, size_t columns, uint8_t* packed) {
    const size_t blocks = n / kBlock, blockBytes = formatBlockBytes(format), rowBytes = blocks * blockBytes;
    const size_t groups = (columns + kLanes - 1) / kLanes;
    constexpr uint8_t kQ8Flip = 0x80; // q8_0's q + 128: q's sign bit flipped
    const bool pairs = pairsLayout(format);
    for (size_t c = 0; c < groups; ++c) {
        const size_t valid = std::min(kLanes, columns - c * kLanes);
        const uint8_t* rows = w + (first + c * kLanes) * rowBytes;
        for (size_t b = 0; b < blocks; ++b) {
            uint8_t* group = packed + (c * blocks + b) * kGroupBytes;
            if (pairs) {
                float d[kLanes] = {};
                for (size_t lane = 0; lane < valid; ++lane)
                    d[lane] = halfFromBytes(rows + lane * rowBytes + b * blockBytes);
#ifdef HEARSAY_SIMD_X86
                if (valid == kLanes) storePairsAvx2(rows + b * blockBytes + 2, rowBytes, group);
                else
#endif
                    storePairsPortable(rows + b * blockBytes + 2, rowBytes, valid, group);
                std::memcpy(group + kGroupIntegers, d, sizeof d);
                continue;
            }
            // Each lane's d after its integers; a column past the end gets zeros, d = 0 among them.
            float d[kLanes] = {};
            if (format == Int8GemmFormat::Q8_0 && valid == kLanes) {
                // The integers straight from the 16 rows.
                for (size_t lane = 0; lane < kLanes; ++lane)
                    d[lane] = halfFromBytes(rows + lane * rowBytes + b * blockBytes);
                storeLanes(rows + b * blockBytes + 2, rowBytes, kQ8Flip, group);
            } else {
                alignas(64) uint8_t integers[kLanes][kBlock];
                if (valid < kLanes) std::memset(integers, 0, sizeof integers);
                if (format == Int8GemmFormat::Q8_0) {
                    for (size_t lane = 0; lane < valid; ++lane) {
                        const uint8_t* block = rows + lane * rowBytes + b * blockBytes;
                        d[lane] = halfFromBytes(block);
                        for (size_t j = 0; j < kBlock; ++j)
                            integers[lane][j] = block[2 + j] ^ kQ8Flip;
                    }
                }
#ifdef HEARSAY_SIMD_X86
                else if (valid == kLanes && usingVnniDots()) q5LanesAvx512(rows, rowBytes, b, integers, d);
                else if (valid == kLanes && usingAvx2Dots()) q5LanesAvx2(rows, rowBytes, b, integers, d);
#endif
                else q5Lanes(rows, rowBytes, b, valid, integers, d);
                storeLanes(integers[0], kBlock, 0, group);
            }
            std::memcpy(group + kGroupIntegers, d, sizeof d);
        }
    }
}

namespace {

// The portable twin: the same integer sums and the same order of the float ones per output.
void gemmInt8Portable(const Int8Rows& x, size_t first, size_t count, const uint8_t* packed, size_t columns, float beta,
                      float* y, size_t ldy) {
    const size_t blocks = x.n / kBlock;
    for (size_t i = first; i < first + count; ++i) {
        for (size_t o = 0; o < columns; ++o) {
            const size_t c = o / kLanes, lane = o % kLanes;
            float total = 0.0f;
            for (size_t b = 0; b < blocks; ++b) {
                const uint8_t* group = packed + (c * blocks + b) * kGroupBytes;
                float d;
                std::memcpy(&d, group + kGroupIntegers + lane * sizeof(float), sizeof d);
                int32_t sum = x.start[i * blocks + b];
                for (size_t j = 0; j < kBlock; ++j)
                    sum += int32_t(group[(j / 4 * kLanes + lane) * 4 + j % 4]) * x.q[i * x.n + b * kBlock + j];
                total += float(sum) * (d * x.scale[i * blocks + b]);
            }
            float& target = y[i * ldy + o];
            target = beta == 0.0f ? total : target + total;
        }
    }
}

} // namespace

#ifdef HEARSAY_SIMD_X86
namespace {

// tile(std::integral_constant<size_t, rows>) for rows in [1, R]: a row block's last tile may be short,
// and each tile's row count is a template argument (its accumulators are registers).
template <size_t R, class Tile> void withRows(size_t rows, Tile&& tile) {
    if constexpr (R > 0) {
        if (rows == R) return tile(std::integral_constant<size_t, R>{});
        return withRows<R - 1>(rows, tile);
    }
}

#define HEARSAY_INT8_GEMM_TARGET "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma"

// R rows (R ≤ kTileRows) × 32 columns (two packed groups; the second may be absent: `two` false).
template <size_t R, bool two>
__attribute__((target(HEARSAY_INT8_GEMM_TARGET))) void tileVnni(const Int8Rows& x, size_t i0, const uint8_t* g0,
                                                                const uint8_t* g1, size_t valid0, size_t valid1,
                                                                float beta, float* y, size_t ldy) {
    const size_t blocks = x.n / kBlock;
    __m512 f0[R], f1[R];
#pragma GCC unroll 16
    for (size_t r = 0; r < R; ++r) {
        f0[r] = _mm512_setzero_ps();
        f1[r] = _mm512_setzero_ps();
    }
    const int8_t* q = x.q.data() + i0 * x.n;
    const int32_t* start = x.start.data() + i0 * blocks;
    const float* scale = x.scale.data() + i0 * blocks;
    for (size_t b = 0; b < blocks; ++b) {
        const uint8_t* p0 = g0 + b * kGroupBytes;
        const uint8_t* p1 = g1 + b * kGroupBytes;
        __m512i a0[R], a1[R];
#pragma GCC unroll 16
        for (size_t r = 0; r < R; ++r) {
            a0[r] = _mm512_set1_epi32(start[r * blocks + b]);
            a1[r] = a0[r];
        }
#pragma GCC unroll 16
        for (size_t g = 0; g < kBlock / 4; ++g) {
            const __m512i w0 = _mm512_loadu_si512(p0 + g * 64);
            const __m512i w1 = two ? _mm512_loadu_si512(p1 + g * 64) : w0;
#pragma GCC unroll 16
            for (size_t r = 0; r < R; ++r) {
                int32_t four;
                std::memcpy(&four, q + r * x.n + b * kBlock + 4 * g, sizeof four);
                const __m512i xb = _mm512_set1_epi32(four);
                a0[r] = _mm512_dpbusd_epi32(a0[r], w0, xb);
                if constexpr (two) a1[r] = _mm512_dpbusd_epi32(a1[r], w1, xb);
            }
        }
        const __m512 d0 = _mm512_loadu_ps(reinterpret_cast<const float*>(p0 + kGroupIntegers));
        const __m512 d1 = two ? _mm512_loadu_ps(reinterpret_cast<const float*>(p1 + kGroupIntegers)) : d0;
#pragma GCC unroll 16
        for (size_t r = 0; r < R; ++r) {
            const __m512 dx = _mm512_set1_ps(scale[r * blocks + b]);
            f0[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(a0[r]), _mm512_mul_ps(d0, dx), f0[r]);
            if constexpr (two) f1[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(a1[r]), _mm512_mul_ps(d1, dx), f1[r]);
        }
    }
    const __mmask16 m0 = __mmask16((1u << valid0) - 1), m1 = __mmask16((1u << valid1) - 1);
#pragma GCC unroll 16
    for (size_t r = 0; r < R; ++r) {
        float* row = y + (i0 + r) * ldy;
        if (beta != 0.0f) f0[r] = _mm512_add_ps(f0[r], _mm512_maskz_loadu_ps(m0, row));
        _mm512_mask_storeu_ps(row, m0, f0[r]);
        if constexpr (two) {
            if (beta != 0.0f) f1[r] = _mm512_add_ps(f1[r], _mm512_maskz_loadu_ps(m1, row + kLanes));
            _mm512_mask_storeu_ps(row + kLanes, m1, f1[r]);
        }
    }
}

constexpr size_t kTileRows = 6;
constexpr size_t kRowBlock = 96; // rows whose integers stay in L2 while the packed columns pass

void gemmInt8Vnni(const Int8Rows& x, size_t first, size_t count, const uint8_t* packed, size_t columns, float beta,
                  float* y, size_t ldy) {
    const size_t blocks = x.n / kBlock, groups = (columns + kLanes - 1) / kLanes;
    for (size_t i = first; i < first + count; i += kRowBlock) {
        const size_t rowEnd = std::min(first + count, i + kRowBlock);
        for (size_t c = 0; c < groups; c += 2) {
            const bool two = c + 1 < groups;
            const size_t valid0 = std::min(kLanes, columns - c * kLanes);
            const size_t valid1 = two ? std::min(kLanes, columns - (c + 1) * kLanes) : 0;
            const uint8_t* g0 = packed + c * blocks * kGroupBytes;
            const uint8_t* g1 = two ? g0 + blocks * kGroupBytes : g0;
            for (size_t r = i; r < rowEnd; r += kTileRows) {
                const size_t rows = std::min(kTileRows, rowEnd - r);
                withRows<kTileRows>(rows, [&](auto n) {
                    constexpr size_t R = decltype(n)::value;
                    if (two) tileVnni<R, true>(x, r, g0, g1, valid0, valid1, beta, y + c * kLanes, ldy);
                    else tileVnni<R, false>(x, r, g0, g1, valid0, valid1, beta, y + c * kLanes, ldy);
                });
            }
        }
    }
}

// The AVX2 form of q5_0 (cpu_int8.cpp's AVX2 kernels: vpmaddubsw, then vpmaddwd with ones, for one
// vpdpbusd), in tiles of R rows × 8 columns: one half of each 64-byte line of a packed group. The
// stored integers (0..31) go in unsigned as packed, and the sum starts at x's start as on the VNNI
// path. The block sums equal the VNNI path's exactly, and so do the float sums. (q8_0's q + 128
// would let a pair pass 32767 here; it takes the int16 form below, tilePairsAvx2.)
#define HEARSAY_INT8_GEMM_AVX2_TARGET "avx2,fma"

template <size_t R>
__attribute__((target(HEARSAY_INT8_GEMM_AVX2_TARGET))) void tileAvx2(const Int8Rows& x, size_t i0, const uint8_t* g,
                                                                    size_t valid, float beta, float* y, size_t ldy) {
    const size_t blocks = x.n / kBlock;
    const __m256i ones = _mm256_set1_epi16(1);
    __m256 f[R];
#pragma GCC unroll 8
    for (size_t r = 0; r < R; ++r)
        f[r] = _mm256_setzero_ps();
    const int8_t* q = x.q.data() + i0 * x.n;
    const int32_t* start = x.start.data() + i0 * blocks;
    const float* scale = x.scale.data() + i0 * blocks;
    for (size_t b = 0; b < blocks; ++b) {
        const uint8_t* p = g + b * kGroupBytes;
        __m256i a[R];
#pragma GCC unroll 8
        for (size_t r = 0; r < R; ++r)
            a[r] = _mm256_set1_epi32(start[r * blocks + b]);
        // A pair is at most 2·31·127 = 7874, so four k-steps' pairs add up in int16 (at most
        // 31496) before one vpmaddwd widens them: 10 multiplies a block instead of 16.
#pragma GCC unroll 2
        for (size_t k0 = 0; k0 < kBlock / 4; k0 += 4) {
            __m256i pairs[R];
#pragma GCC unroll 8
            for (size_t r = 0; r < R; ++r)
                pairs[r] = _mm256_setzero_si256();
#pragma GCC unroll 4
            for (size_t k = k0; k < k0 + 4; ++k) {
                const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + k * 64));
#pragma GCC unroll 8
                for (size_t r = 0; r < R; ++r) {
                    int32_t four;
                    std::memcpy(&four, q + r * x.n + b * kBlock + 4 * k, sizeof four);
                    pairs[r] = _mm256_add_epi16(pairs[r], _mm256_maddubs_epi16(w, _mm256_set1_epi32(four)));
                }
            }
#pragma GCC unroll 8
            for (size_t r = 0; r < R; ++r)
                a[r] = _mm256_add_epi32(a[r], _mm256_madd_epi16(pairs[r], ones));
        }
        const __m256 d = _mm256_loadu_ps(reinterpret_cast<const float*>(p + kGroupIntegers));
#pragma GCC unroll 8
        for (size_t r = 0; r < R; ++r) {
            const __m256 dx = _mm256_set1_ps(scale[r * blocks + b]);
            f[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a[r]), _mm256_mul_ps(d, dx), f[r]);
        }
    }
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(valid)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
#pragma GCC unroll 8
    for (size_t r = 0; r < R; ++r) {
        float* row = y + (i0 + r) * ldy;
        if (beta != 0.0f) f[r] = _mm256_add_ps(f[r], _mm256_maskload_ps(row, mask));
        _mm256_maskstore_ps(row, mask, f[r]);
    }
}

constexpr size_t kTileRowsAvx2 = 4;

// tile(n, r, g, column, valid) for the AVX2 tiles of rows [first, first + count) × the packed
// columns: row blocks of kRowBlock, then units of `unit` columns (8: half a group, at g; 16: a
// whole group), then tiles of TileRows rows (n an integral constant, the last tile's maybe fewer).
template <size_t TileRows, class Tile>
void forEachAvx2Tile(size_t first, size_t count, size_t blocks, const uint8_t* packed, size_t columns, size_t unit,
                     Tile&& tile) {
    for (size_t i = first; i < first + count; i += kRowBlock) {
        const size_t rowEnd = std::min(first + count, i + kRowBlock);
        for (size_t column = 0; column < columns; column += unit) {
            const size_t valid = std::min(unit, columns - column);
            const uint8_t* g = packed + column / kLanes * blocks * kGroupBytes + column % kLanes / 8 * 32;
            for (size_t r = i; r < rowEnd; r += TileRows)
                withRows<TileRows>(std::min(TileRows, rowEnd - r), [&](auto n) { tile(n, r, g, column, valid); });
        }
    }
}

void gemmInt8Avx2(const Int8Rows& x, size_t first, size_t count, const uint8_t* packed, size_t columns, float beta,
                  float* y, size_t ldy) {
    forEachAvx2Tile<kTileRowsAvx2>(first, count, x.n / kBlock, packed, columns, 8,
                                   [&](auto n, size_t r, const uint8_t* g, size_t column, size_t valid) {
                                       tileAvx2<decltype(n)::value>(x, r, g, valid, beta, y + column, ldy);
                                   });
}

// q8_0 on AVX2 in int16: x's integers (Int8Rows::wide) and the weights' (the pairs layout, widened
// by vpmovsxbw as they are loaded) go in as int16, so that one vpmaddwd multiplies 16 of them and
// adds each pair into int32, exactly (at most 2·127·128 a pair): 32 products are two vpmaddwd
// where the byte form took a vpsignb, a vpmaddubsw and a vpmaddwd, all on the same two pipes of
// Zen 3 (RESULTS.md, "CPU run 15"); the widening and the vpaddd that sum the products go to the
// other pipes. No offset: the sums start at 0 and equal the VNNI path's block sums, and so do the
// float sums. A tile is R rows × 16 columns (both halves of a group): 2R int32 accumulators, the two
// weight registers and x's broadcast pair in the 16 registers. The empty asm after each sum keeps
// GCC from scheduling a block's 32R products ahead of their sums, which spilled them to the stack
// (1.4x the byte form's time instead of 0.8x, one core; RESULTS.md, "CPU run 25").
template <size_t R>
__attribute__((target(HEARSAY_INT8_GEMM_AVX2_TARGET))) void tilePairsAvx2(const Int8Rows& x, size_t i0,
                                                                         const uint8_t* g, size_t valid, float beta,
                                                                         float* y, size_t ldy) {
    const size_t blocks = x.n / kBlock;
    __m256 f[R][2];
#pragma GCC unroll 8
    for (size_t r = 0; r < R; ++r)
        f[r][0] = f[r][1] = _mm256_setzero_ps();
    const int16_t* q = x.wide.data() + i0 * x.n;
    const float* scale = x.scale.data() + i0 * blocks;
    for (size_t b = 0; b < blocks; ++b) {
        const uint8_t* p = g + b * kGroupBytes;
        __m256i a[R][2];
#pragma GCC unroll 8
        for (size_t r = 0; r < R; ++r)
            a[r][0] = a[r][1] = _mm256_setzero_si256();
#pragma GCC unroll 16
        for (size_t k = 0; k < kBlock / 2; ++k) {
            const __m256i w0 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + k * 16)));
            const __m256i w1 = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 256 + k * 16)));
#pragma GCC unroll 8
            for (size_t r = 0; r < R; ++r) {
                int32_t pair;
                std::memcpy(&pair, q + r * x.n + b * kBlock + 2 * k, sizeof pair);
                const __m256i xb = _mm256_set1_epi32(pair);
                a[r][0] = _mm256_add_epi32(a[r][0], _mm256_madd_epi16(w0, xb));
                asm("" : "+x"(a[r][0]));
                a[r][1] = _mm256_add_epi32(a[r][1], _mm256_madd_epi16(w1, xb));
                asm("" : "+x"(a[r][1]));
            }
        }
        const __m256 d0 = _mm256_loadu_ps(reinterpret_cast<const float*>(p + kGroupIntegers));
        const __m256 d1 = _mm256_loadu_ps(reinterpret_cast<const float*>(p + kGroupIntegers) + 8);
#pragma GCC unroll 8
        for (size_t r = 0; r < R; ++r) {
            const __m256 dx = _mm256_set1_ps(scale[r * blocks + b]);
            f[r][0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a[r][0]), _mm256_mul_ps(d0, dx), f[r][0]);
            f[r][1] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(a[r][1]), _mm256_mul_ps(d1, dx), f[r][1]);
        }
    }
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask[2] = {_mm256_cmpgt_epi32(_mm256_set1_epi32(int(valid)), lane),
                             _mm256_cmpgt_epi32(_mm256_set1_epi32(int(valid) - 8), lane)};
#pragma GCC unroll 8
    for (size_t r = 0; r < R; ++r) {
        float* row = y + (i0 + r) * ldy;
        for (size_t h = 0; h < 2 && 8 * h < valid; ++h) {
            if (beta != 0.0f) f[r][h] = _mm256_add_ps(f[r][h], _mm256_maskload_ps(row + 8 * h, mask[h]));
            _mm256_maskstore_ps(row + 8 * h, mask[h], f[r][h]);
        }
    }
}

constexpr size_t kTileRowsPairs = 4;

void gemmPairsAvx2(const Int8Rows& x, size_t first, size_t count, const uint8_t* packed, size_t columns, float beta,
                   float* y, size_t ldy) {
    forEachAvx2Tile<kTileRowsPairs>(first, count, x.n / kBlock, packed, columns, kLanes,
                                    [&](auto n, size_t r, const uint8_t* g, size_t column, size_t valid) {
                                        tilePairsAvx2<decltype(n)::value>(x, r, g, valid, beta, y + column, ldy);
                                    });
}

} // namespace
#endif

bool usingInt8Gemm() {
    static const bool on = [] {
        if (const char* v = std::getenv("HEARSAY_INT8_GEMM"); v && std::string_view(v) == "0") return false;
        return usingVnniDots() || usingAvx2Dots();
    }();
    return on;
}

void gemmInt8(const Int8Rows& x, size_t first, size_t count, const uint8_t* packed, size_t columns, float beta,
              float* y, size_t ldy) {
#ifdef HEARSAY_SIMD_X86
    if (usingVnniDots()) return gemmInt8Vnni(x, first, count, packed, columns, beta, y, ldy);
    if (usingAvx2Dots()) {
        if (x.format == Int8GemmFormat::Q8_0) return gemmPairsAvx2(x, first, count, packed, columns, beta, y, ldy);
        return gemmInt8Avx2(x, first, count, packed, columns, beta, y, ldy);
    }
#endif
    gemmInt8Portable(x, first, count, packed, columns, beta, y, ldy);
}

} // namespace hearsay::simd
