// Integer products of ggml block weights (q8_0, q5_0, q5_1) with one vector: the decode step's
// single-row products (and a beam step's few rows) where the CPU has AVX-512 VNNI or, failing that,
// AVX2. The vector is quantised once per product to int8 in blocks of 32 (each block's scale
// dx = max|x| / 127, q = x / dx rounded to nearest even, as whisper.cpp quantises its activations);
// each weight block's products with those 32 integers are summed exactly in int32 (vpdpbusd, or
// vpmaddubsw then vpmaddwd on AVX2), then scaled by the block's d·dx in float. The q5 formats' five
// bits go to the integer unit as bytes without being widened to float32, which is what made their
// float kernels compute-bound (RESULTS.md, "CPU run 7"; "CPU run 8" and "CPU run 9" for what the
// integer products gained on AVX-512 and on AVX2, and what they cost in words).
//
// Against the float kernels (cpu_simd.h) the result differs by the rounding of x to 8 bits: at most
// dx/2 per element, |Σ w·x − Σ w·x̃| ≤ Σ |w − m|·dx/2 with x̃ = dx·q (m: a q5_1 block's minimum, whose
// term m·Σx takes x itself; 0 for the other formats).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hearsay::simd {

// A vector quantised per block of 32 (n a multiple of 32).
struct Int8Vector {
    size_t n = 0;
    std::vector<int8_t> q;         // n integers in [-127, 127]
    std::vector<float> scale;      // n / 32: each block's dx (0 for a block of zeros)
    std::vector<float> sum;        // n / 32: each block's Σx in float (the q5_1 minimum's term m·Σx)
    std::vector<int32_t> groupSum; // n / 4: Σq over each group of four (the weights' offsets: q5_0's 16, q8_0's 128)
};

// True where the integer kernels run (AVX-512 F, BW, VL and VNNI; or AVX2 with FMA and F16C); the
// backend takes the float kernels elsewhere, and where HEARSAY_INT8_DOTS=0.
bool usingInt8Dots();
// Which ones: "avx512-vnni", "avx2" or "none" (for reports and test logs).
const char* int8DotsKernels();
// True where they are AVX-512 VNNI's.
bool usingVnniDots();
// True where they are AVX2's (also on a CPU with VNNI where HEARSAY_INT8_DOTS=avx2 asks for them,
// so that the AVX2 kernels are tested on every x86 machine).
bool usingAvx2Dots();

// out = x quantised (resized, never shrunk: a thread's vector is reused across steps).
void quantizeInt8(const float* x, size_t n, Int8Vector& out);

// y[o] = Σ over the blocks b of row o: d_b·dx_b·Σ_j q_bj·xq_bj (+ m_b·Σx_b for q5_1), o < rows,
// with q the block's integers as stored (q8_0), less 16 (q5_0), or as stored (q5_1). Four rows at a
// time with VNNI or AVX2; a portable loop elsewhere (the same values to float rounding).
void gemvQ8Int8(const Int8Vector& x, const uint8_t* w, size_t rows, float* y);
void gemvQ5Int8(const Int8Vector& x, const uint8_t* w, size_t rows, float* y);
void gemvQ5_1Int8(const Int8Vector& x, const uint8_t* w, size_t rows, float* y);

// out[i] = one row of blocks times xs[i], i < count (at most kInt8DotsRows): the values gemv*Int8
// gives for each, with the row's integers unpacked once for all the vectors (the few rows of a
// beam search's step, which meet every weight row together).
constexpr size_t kInt8DotsRows = 8;
void dotsQ8Int8(const Int8Vector* xs, size_t count, const uint8_t* row, float* out);
void dotsQ5Int8(const Int8Vector* xs, size_t count, const uint8_t* row, float* out);
void dotsQ5_1Int8(const Int8Vector* xs, size_t count, const uint8_t* row, float* out);

// Many rows times block weights (cpu_int8_gemm.cpp): the encoder's products and a long prompt's.
// Each output is the sum gemv*Int8 gives for its row (the same exact block sums and scales; the
// float additions in block order), with the weights' columns repacked first for a register tile.
enum class Int8GemmFormat { Q8_0, Q5_0 };

// Rows of x quantised as quantizeInt8 quantises one, side by side.
struct Int8Rows {
    size_t n = 0;                // the width of a row
    Int8GemmFormat format = Int8GemmFormat::Q8_0; // the weights' format the starts are made for
    std::vector<int8_t> q;       // rows × n (empty where `wide` holds them)
    std::vector<float> scale;    // rows × n / 32: dx of each block
    std::vector<int32_t> start;  // rows × n / 32: −offset·Σq of each block (the sums' start; unused with `wide`)
    std::vector<int16_t> wide;   // rows × n: the integers as int16, for q8_0 weights on the AVX2 kernels
    // Sized for rowCount × width (never shrunk), for weights of `weights`' format.
    void reshape(size_t rowCount, size_t width, Int8GemmFormat weights);
};
// Rows [first, first + count) of x (rows of n) into `rows`, which reshape() sized (threads may
// quantise disjoint ranges of rows at once).
void quantizeInt8Rows(const float* x, size_t first, size_t count, size_t n, Int8Rows& rows);

// True where gemmInt8 is the encoder's path: where the integer kernels run (AVX-512 VNNI or
// AVX2), unless HEARSAY_INT8_GEMM=0 (or HEARSAY_INT8_DOTS=0) asks for the float32 GEMM.
bool usingInt8Gemm();
// Bytes quantizeInt8Rows keeps of a row of n integers for weights of `format`: n, or 2n where they
// are kept as int16.
size_t int8RowBytes(Int8GemmFormat format, size_t n);
// Bytes packInt8Columns writes for `columns` columns of n inputs.
size_t int8PackedBytes(size_t n, size_t columns);
// Weight rows [first, first + columns) of w (each n / 32 blocks of `format`) as groups of 16
// columns: for each group and block, [8 groups of four][16 columns][4] unsigned integers, then the
// 16 columns' d (0 for columns past the end). q8_0 on the AVX2 kernels instead: [2 halves of 8
// columns][16 pairs of k][8 columns][2] integers as stored (q), then the d.
void packInt8Columns(Int8GemmFormat format, const uint8_t* w, size_t n, size_t first, size_t columns,
                     uint8_t* packed);
// y[i][o] = Σ_b d_ob·dx_ib·(Σ_j u_obj·q_ibj + start_ib) for i in [first, first + count), o < columns
// (beta 0), or y[i][o] += that (beta 1); y's rows ldy apart.
void gemmInt8(const Int8Rows& x, size_t first, size_t count, const uint8_t* packed, size_t columns, float beta,
              float* y, size_t ldy);

} // namespace hearsay::simd
