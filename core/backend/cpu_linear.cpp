// CpuBackend::runLinear: y = x · Wᵀ + bias (+ y), on the path the shape and the weight's type call
// for: single rows straight from f16, q8_0, q5_0 or q5_1 rows (the memory-bound decode step), a few
// rows (beams) reading each weight row once (block rows on both paths take x quantised to int8 where
// the CPU has AVX-512 VNNI or AVX2, cpu_int8.h), and GEMMs for many rows: q8_0 and q5_0 on the
// integer GEMM with AVX-512 VNNI, the rest through the BLAS. A half cross cache as y gets the float32
// product rounded to nearest, a block of CpuBackend::kHalfYRows rows at a time.
#include "core/backend/cpu_backend.h"

#include "core/backend/blas.h"
#include "core/backend/cpu_int8.h"
#include "core/backend/cpu_simd.h"
#include "core/backend/cpu_vector_math.h"
#include "core/backend/q16_split.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hearsay {
namespace {

// A weight in ggml blocks of 32 (q8_0, q5_0, q5_1): where its blocks start, their size and the
// format's kernels (cpu_simd.h).
struct Blocks {
    const uint8_t* data = nullptr;  // null: not a block weight
    size_t blockBytes = 0;
    const char* name = "";
    float (*dot)(const float*, const uint8_t*, size_t) = nullptr;
    void (*gemv)(const float*, const uint8_t*, size_t, size_t, float*) = nullptr;
    void (*convert)(const uint8_t*, float*, size_t) = nullptr;
    void (*gemvInt8)(const simd::Int8Vector&, const uint8_t*, size_t, float*) = nullptr;
    void (*dotsInt8)(const simd::Int8Vector*, size_t, const uint8_t*, float*) = nullptr;
    size_t rowBytes(size_t n) const { return n / 32 * blockBytes; }
    const uint8_t* row(size_t o, size_t n) const { return data + o * rowBytes(n); }
};

Blocks blocksOf(const WeightPointer& w) {
    if (!w.blocks) return {};
    switch (w.blockType) {
    case ElementType::Q8_0:
        return {w.blocks,     simd::kQ8BlockBytes, "q8_0",           simd::dotQ8,
                simd::gemvQ8, simd::convertQ8,     simd::gemvQ8Int8, simd::dotsQ8Int8};
    case ElementType::Q5_0:
        return {w.blocks,     simd::kQ5BlockBytes, "q5_0",           simd::dotQ5,
                simd::gemvQ5, simd::convertQ5,     simd::gemvQ5Int8, simd::dotsQ5Int8};
    case ElementType::Q5_1:
        return {w.blocks,       simd::kQ5_1BlockBytes, "q5_1",             simd::dotQ5_1,
                simd::gemvQ5_1, simd::convertQ5_1,     simd::gemvQ5_1Int8, simd::dotsQ5_1Int8};
    case ElementType::F32:
    case ElementType::F16:
    case ElementType::Q16Split: break;
    }
    return {};
}

// A q16 split table of rows of n (null planes: not one).
simd::Q16SplitTable splitOf(const WeightPointer& w, size_t n) {
    if (w.blockType != ElementType::Q16Split) return {};
    return simd::q16SplitTable(w.blocks, w.tableElements / n, n);
}

// The block formats the integer GEMM takes (q5_1's minimum term has no place in it yet): those
// with signed integers and one scale per block.
std::optional<simd::Int8GemmFormat> int8GemmFormat(const WeightPointer& w) {
    if (!w.blocks || !simd::usingInt8Gemm()) return std::nullopt;
    if (w.blockType == ElementType::Q8_0) return simd::Int8GemmFormat::Q8_0;
    if (w.blockType == ElementType::Q5_0) return simd::Int8GemmFormat::Q5_0;
    return std::nullopt;
}

// Bytes of `rows` weight rows of `n` elements as stored (what a product reads of them).
double weightBytes(const WeightPointer& w, size_t rows, size_t n) {
    if (const Blocks b = blocksOf(w); b.data) return double(rows * b.rowBytes(n));
    if (w.blockType == ElementType::Q16Split) return double(simd::q16SplitBytes(rows * n));
    return double(rows * n) * (w.f16 ? 2 : 4);
}

const char* weightTypeName(const WeightPointer& w) {
    if (const Blocks b = blocksOf(w); b.data) return b.name;
    if (w.blockType == ElementType::Q16Split) return "q16split";
    return w.f16 ? "f16" : "f32";
}

// The `rows` input rows (at most kSmallBatchRows) of x, each quantised to int8 on its own (in
// buffers of the calling thread's), when their products with block weights run on the integer
// kernels; null when they take the float ones.
static_assert(size_t(CpuBackend::kSmallBatchRows) <= simd::kInt8DotsRows);
const simd::Int8Vector* int8Inputs(const float* x, size_t rows, size_t n, bool blockWeights) {
    if (!blockWeights || !simd::usingInt8Dots()) return nullptr;
    thread_local std::array<simd::Int8Vector, simd::kInt8DotsRows> quantized;
    for (size_t i = 0; i < rows; ++i) simd::quantizeInt8(x + i * n, n, quantized[i]);
    return quantized.data();
}

// y[j] = x · row (first + j) of w, j < rows, with beta 0; y[j] += that with beta 1: one input row
// against a slice of weight rows read as stored (float32 through the BLAS's sgemv, f16 and the
// block formats four rows at a time; block formats with xq, x quantised, where it is given). The
// single-row products of linear() and linearMany() both come here.
void rowTimesWeights(const float* x, const simd::Int8Vector* xq, const WeightPointer& w, size_t first, size_t rows,
                     size_t n, float beta, float* y) {
    if (w.f32) {
        return blas::sgemv(static_cast<int>(rows), static_cast<int>(n), 1.0f, w.f32 + first * n, static_cast<int>(n), x,
                           beta, y);
    }
    thread_local std::vector<float> dots;
    float* out = y;
    if (beta != 0.0f) {
        dots.resize(rows);
        out = dots.data();
    }
    if (w.f16) {
        simd::gemvHalf(x, w.f16 + first * n, n, rows, out);
    } else if (const simd::Q16SplitTable split = splitOf(w, n); split.hi) {
        for (size_t j = 0; j < rows; ++j) out[j] = simd::dotQ16Split(x, split, first + j);
    } else {
        const Blocks b = blocksOf(w);
        if (xq) b.gemvInt8(*xq, b.row(first, n), rows, out);
        else b.gemv(x, b.row(first, n), n, rows, out);
    }
    if (out != y) {
        for (size_t j = 0; j < rows; ++j) y[j] += dots[j];
    }
}

} // namespace

void CpuBackend::runLinear(BufferView x, BufferView w, BufferView bias, BufferView y, int rows, int in, int out,
                           bool accumulate) {
    const size_t r = static_cast<size_t>(rows), n = static_cast<size_t>(in), m = static_cast<size_t>(out);
    const float* xp = floats(x);
    const WeightPointer weight = weightPointer(w, m * n, "linear weight");
    const float* wp = weight.f32;       // [out][in] float32, or
    const uint16_t* hp = weight.f16;    // [out][in] f16, or
    const Blocks blocks = blocksOf(weight);  // [out][in / 32] blocks of q8_0, q5_0 or q5_1, or
    const simd::Q16SplitTable split = splitOf(weight, n);  // a q16 split table (both planes)
    // y is float32, or a half KV buffer: then the product goes to float32 scratch first and is
    // rounded into it (nearest even), row block by row block.
    if (y.buffer->element() == ElementType::F16 && !isHalfKv(y)) fail("linear y: an f16 weight");
    uint16_t* yHalf = y.buffer->element() == ElementType::F16
                          ? const_cast<uint16_t*>(weightPointer(y, r * m, "linear y").f16)
                          : nullptr;
    float* yFloat = yHalf ? nullptr : floatPointer(y, r * m, "linear y");
    const float* bp = bias.empty() ? nullptr : floats(bias);
    const auto describe = [&] {
        const char* type = weightTypeName(weight);
        const bool int8 = rows <= kSmallBatchRows ? blocks.data && simd::usingInt8Dots()
                                                  : int8GemmFormat(weight).has_value();
        return OpInfo{"linear " + std::to_string(rows) + "x" + std::to_string(in) + "->" + std::to_string(out) + " " +
                          type + (int8 ? "/int8" : "") + (accumulate ? " +=" : ""),
                      weightBytes(weight, m, n) + 4.0 * double(r * n + r * m * (accumulate ? 2 : 1)),
                      2.0 * double(r) * double(m) * double(n)};
    };
    submit(describe, [=, this] {
        // A half y: the GEMMs below take kHalfYRows rows at a time into this scratch and round
        // each block into y; the few rows of the other paths all go in at once.
        const size_t halfRows = r > size_t(kSmallBatchRows) ? std::min(r, kHalfYRows) : r;
        std::unique_ptr<float[]> scratch(yHalf ? new float[halfRows * m] : nullptr);
        float* const yp = yHalf ? scratch.get() : yFloat;
        // With a bias, the columns [b, e) of `count` rows of y (from yRows) get it first and the
        // product is added (beta 1); each thread does its own columns, where it then works (an
        // encoder's y is 1500 rows).
        const float beta = accumulate || bp ? 1.0f : 0.0f;
        const auto addBiasTo = [&](float* yRows, size_t count, size_t b, size_t e) {
            if (!bp) return;
            for (size_t i = 0; i < count; ++i) {
                float* row = yRows + i * m;
                if (accumulate) {
                    for (size_t j = b; j < e; ++j) row[j] += bp[j];
                } else {
                    std::memcpy(row + b, bp + b, (e - b) * sizeof(float));
                }
            }
        };
        const auto addBias = [&](size_t b, size_t e) { addBiasTo(yp, r, b, e); };
        // The GEMMs' blocks of rows: all of them at once into a float32 y; a half y's through the scratch.
        const size_t gemmRows = yHalf ? halfRows : r;
        // The columns [b, e) of the scratch's `count` rows, rounded into the half y's rows from `first`.
        const auto roundBlock = [&](size_t first, size_t count, size_t b, size_t e) {
            for (size_t i = 0; i < count; ++i)
                simd::roundToHalf(yp + i * m + b, yHalf + (first + i) * m + b, e - b);
        };
        // Work is split over the output features (rows of w): every thread reads its own part of
        // the weights once, which is what the memory-bound single-token steps need.
        const size_t threads = static_cast<size_t>(pool().threads());
        const bool small = r * n * m < (size_t(1) << 16);
        if (rows == 1) {
            // y = W x (+ y) per slice of W, its rows read as stored (q8_0 blocks and f16 rows: a
            // quarter and half of the float32 product's bytes).
            const size_t chunk = small ? m : std::max<size_t>(64, (m + threads - 1) / threads);
            const simd::Int8Vector* xq = int8Inputs(xp, 1, n, blocks.data != nullptr);
            pool().parallelFor(m, chunk, [&](size_t b, size_t e, int) {
                addBias(b, e);
                rowTimesWeights(xp, xq, weight, b, e - b, n, beta, yp + b);
            });
        } else if (rows <= kSmallBatchRows) {
            // A few rows (beams): each weight row is read once and dotted with every input row;
            // a packed GEMM would copy all of W first.
            const simd::Int8Vector* xqs = int8Inputs(xp, r, n, blocks.data != nullptr);
            pool().parallelFor(m, small ? m : 64, [&](size_t b, size_t e, int) {
                addBias(b, e);
                for (size_t o = b; o < e; ++o) {
                    if (xqs) {
                        // Each pair of the row's blocks unpacked once for all the input rows.
                        float dots[kSmallBatchRows];
                        blocks.dotsInt8(xqs, r, blocks.row(o, n), dots);
                        for (size_t i = 0; i < r; ++i) {
                            float& target = yp[i * m + o];
                            target = beta == 0.0f ? dots[i] : target + dots[i];
                        }
                        continue;
                    }
                    if (blocks.data) {
                        // The row's blocks stay in L1 across the input rows.
                        for (size_t i = 0; i < r; ++i) {
                            const float dot = blocks.dot(xp + i * n, blocks.row(o, n), n);
                            float& target = yp[i * m + o];
                            target = beta == 0.0f ? dot : target + dot;
                        }
                        continue;
                    }
                    if (split.hi) {
                        // Both planes of the row widened once for all the input rows.
                        float dots[kSmallBatchRows];
                        simd::dotQ16SplitRows(xp, n, r, split, o, dots);
                        for (size_t i = 0; i < r; ++i) {
                            float& target = yp[i * m + o];
                            target = beta == 0.0f ? dots[i] : target + dots[i];
                        }
                        continue;
                    }
                    if (hp) {
                        // The f16 row is read once per 4 input rows; the sums are dot()'s on its float32 copy.
                        float dots[kSmallBatchRows];
                        simd::dotHalfRows(xp, n, r, hp + o * n, n, dots);
                        for (size_t i = 0; i < r; ++i) {
                            float& target = yp[i * m + o];
                            target = beta == 0.0f ? dots[i] : target + dots[i];
                        }
                        continue;
                    }
                    const float* wRow = wp + o * n;
                    for (size_t i = 0; i < r; ++i) {
                        const float dot = simd::dot(xp + i * n, wRow, n);
                        float& target = yp[i * m + o];
                        target = beta == 0.0f ? dot : target + dot;
                    }
                }
            });
        } else if (const auto format = int8GemmFormat(weight)) {
            // Block weights where the integer GEMM runs (AVX-512 VNNI; AVX2): x quantised to int8
            // row by row (as a decode step's x is), then one integer GEMM per thread on a block of
            // output columns, its columns repacked first (O(weights), a quarter of the float32
            // widening's bytes). At most kInt8GemmBytes of x's integers a pass, so that its copy stays
            // small (an encoder's MLP multiplies 1500 rows of 4d: 3 to 4 passes) while each pass is
            // still a large product; the columns are packed once, in the first pass, and kept for
            // the others (a block of `block` columns each: the pool's chunks are blocks here, since
            // block ≥ m / threads).
            thread_local simd::Int8Rows rowsOfThisThread;
            thread_local std::vector<std::vector<uint8_t>> packedOfThisThread;
            simd::Int8Rows& quantized = rowsOfThisThread;  // the workers' lambdas share this thread's
            std::vector<std::vector<uint8_t>>& packed = packedOfThisThread;  // [column block]
            const size_t block = small ? m : ((m + threads - 1) / threads + 31) / 32 * 32;
            if (packed.size() < (m + block - 1) / block) packed.resize((m + block - 1) / block);
            const size_t passRows = std::min(gemmRows, std::max<size_t>(1, kInt8GemmBytes / simd::int8RowBytes(*format, n)));
            for (size_t first = 0; first < r; first += passRows) {
                const size_t count = std::min(passRows, r - first);
                const float* xRows = xp + first * n;
                float* yRows = yHalf ? yp : yp + first * m;
                quantized.reshape(count, n, *format);
                pool().parallelFor(count, std::max<size_t>(1, (count + threads - 1) / threads), [&](size_t b, size_t e, int) {
                    simd::quantizeInt8Rows(xRows, b, e - b, n, quantized);
                });
                pool().parallelFor(m, block, [&](size_t b, size_t e, int) {
                    std::vector<uint8_t>& columns = packed[b / block];
                    if (first == 0) {
                        const size_t bytes = simd::int8PackedBytes(n, e - b);
                        if (columns.size() < bytes) columns.resize(bytes);
                        simd::packInt8Columns(*format, blocks.data, n, b, e - b, columns.data());
                    }
                    addBiasTo(yRows, count, b, e);
                    simd::gemmInt8(quantized, 0, count, columns.data(), e - b, beta, yRows + b, m);
                    if (yHalf) roundBlock(first, count, b, e);
                });
            }
        } else {
            // One GEMM per thread on a block of output columns: y[:, b:e] = x · W[b:e]ᵀ (+ y[:, b:e]).
            const size_t block = small ? m : (m + threads - 1) / threads;
            // An f16 or block W[b:e] is widened first into the thread's scratch (O(weights), next to the
            // O(rows × weights) product), so the GEMM is the float32 one.
            pool().parallelFor(m, block, [&](size_t b, size_t e, int) {
                thread_local std::vector<float> widened; // [e - b][in]
                const float* wBlock = wp ? wp + b * n : nullptr;
                if (!wp) {
                    if (widened.size() < (e - b) * n) widened.resize((e - b) * n);
                    if (hp) simd::convertHalf(hp + b * n, widened.data(), (e - b) * n);
                    else if (split.hi) simd::q16SplitRows(split, b, e - b, widened.data());
                    else blocks.convert(blocks.row(b, n), widened.data(), (e - b) * n);
                    wBlock = widened.data();
                }
                // The widened columns are reused for every block of rows.
                for (size_t first = 0; first < r; first += gemmRows) {
                    const size_t count = std::min(gemmRows, r - first);
                    float* yRows = yHalf ? yp : yp + first * m;
                    addBiasTo(yRows, count, b, e);
                    blas::sgemm(true, static_cast<int>(count), static_cast<int>(e - b), in, 1.0f, xp + first * n, in,
                                wBlock, in, beta, yRows + b, out);
                    if (yHalf) roundBlock(first, count, b, e);
                }
            });
        }
        if (yHalf && r <= size_t(kSmallBatchRows)) {
            pool().parallelFor(r, std::max<size_t>(1, 16384 / m), [&](size_t b, size_t e, int) {
                simd::roundToHalf(yp + b * m, yHalf + b * m, (e - b) * m);
            });
        }
    });
}

// A single row's products of one x (a decode step's q, k and v; fc1 with its GELU): one pass over
// all the targets' weight rows on the pool instead of one op each, so the threads meet once. Each
// output is computed as runLinear computes it (bias first, the same dot products), so the values
// equal separate linear() calls. Several rows, or a half y, take the separate calls.
void CpuBackend::runLinearMany(BufferView x, std::span<const LinearTarget> targets, int rows, int in) {
    bool fused = rows == 1 && !targets.empty() && targets.size() <= kMaxFusedTargets &&
                 (targets.size() > 1 || targets[0].gelu);
    for (const LinearTarget& t : targets) {
        fused = fused && t.y.buffer->element() == ElementType::F32 && t.w.buffer->element() != ElementType::Q16Split;
    }
    if (!fused) return Backend::runLinearMany(x, targets, rows, in);

    struct Part {
        WeightPointer w;
        const float* bias = nullptr;
        float* y = nullptr;
        size_t first = 0;  // index of its first output in the pass
        size_t out = 0;
        bool accumulate = false;
        bool gelu = false;
    };
    const size_t n = static_cast<size_t>(in);
    const float* xp = floats(x);
    std::array<Part, kMaxFusedTargets> parts{};
    size_t total = 0;
    double bytes = 4.0 * double(n);
    std::string outs, type;
    for (size_t i = 0; i < targets.size(); ++i) {
        const LinearTarget& t = targets[i];
        Part& p = parts[i];
        p.out = static_cast<size_t>(t.out);
        p.w = weightPointer(t.w, p.out * n, "linear weight");
        p.bias = t.bias.empty() ? nullptr : floats(t.bias);
        p.y = floatPointer(t.y, p.out, "linear y");
        p.first = total;
        p.accumulate = t.accumulate;
        p.gelu = t.gelu;
        total += p.out;
        bytes += weightBytes(p.w, p.out, n) + 4.0 * double(p.out) * (t.accumulate ? 2 : 1);
        outs += (i ? "+" : "") + std::to_string(t.out);
        type = weightTypeName(p.w);
        if (p.w.blocks && simd::usingInt8Dots()) type += "/int8";
    }
    const size_t count = targets.size();
    const bool anyGelu = std::any_of(parts.begin(), parts.begin() + count, [](const Part& p) { return p.gelu; });
    const auto describe = [&] {
        return OpInfo{"linear 1x" + std::to_string(in) + "->" + outs + " " + type + (anyGelu ? " gelu" : ""), bytes,
                      2.0 * double(total) * double(n)};
    };
    submit(describe, [=, this] {
        const size_t threads = static_cast<size_t>(pool().threads());
        const bool small = total * n < (size_t(1) << 16);
        const size_t chunk = small ? total : std::max<size_t>(64, (total + threads - 1) / threads);
        const bool blockWeights =
            std::any_of(parts.begin(), parts.begin() + count, [](const Part& p) { return p.w.blocks != nullptr; });
        const simd::Int8Vector* xq = int8Inputs(xp, 1, n, blockWeights);
        pool().parallelFor(total, chunk, [&](size_t b, size_t e, int) {
            for (size_t i = 0; i < count; ++i) {
                const Part& p = parts[i];
                const size_t lo = std::max(b, p.first), hi = std::min(e, p.first + p.out);
                if (lo >= hi) continue;
                float* y = p.y + (lo - p.first);
                const size_t rowsHere = hi - lo, o0 = lo - p.first;
                float beta = p.accumulate ? 1.0f : 0.0f;
                if (p.bias) {
                    for (size_t j = 0; j < rowsHere; ++j) y[j] = p.accumulate ? y[j] + p.bias[o0 + j] : p.bias[o0 + j];
                    beta = 1.0f;
                }
                rowTimesWeights(xp, p.w.blocks ? xq : nullptr, p.w, o0, rowsHere, n, beta, y);
                if (p.gelu) simd::gelu(y, rowsHere);
            }
        });
    });
}

} // namespace hearsay
