// CpuBackend's attention work: batches of many queries through sgemm (a score matrix per
// thread in the workspace), the others one (batch, head, query) task at a time on the pool.
// runAttention() (cpu_backend.cpp) hands it checked batches, their per-step offsets applied.
// Keys and values are float32, or IEEE half (the cross cache, allocateKv): widened exactly as
// they are read, so both give the same products of the same values.
#include "core/backend/cpu_backend.h"

#include "core/backend/blas.h"
#include "core/backend/cpu_attention_tiles.h"
#include "core/backend/cpu_simd.h"
#include "core/backend/cpu_vector_math.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace hearsay {

size_t CpuBackend::attentionWorkspaceElements(int queries, int keys) const {
    if (queries < kGemmAttentionQueries) return 0;
    // One [query block][keys] score matrix per thread (heads run in parallel, each over its
    // queries a block at a time): the encoder's 1500 x 1500 scores would be 9 MB per thread.
    // With the register tiles, one block of kTileQueries scores per thread, rows padded to 32 keys.
    if (simd::usingAttentionTiles()) {
        const int rows = std::min(queries, simd::kTileQueries);
        return static_cast<size_t>(threads()) * static_cast<size_t>(rows) * simd::tileKeyStride(keys);
    }
    const int rows = std::min(queries, kAttentionQueryBlock);
    return static_cast<size_t>(threads()) * static_cast<size_t>(rows) * static_cast<size_t>(std::max(keys, 0));
}

void CpuBackend::attentionTiles(const AttentionArgs& a, const AttentionBatch& batch) {
    const int qc = batch.queryCount, kc = batch.keyCount, hd = a.headDim;
    const size_t qs = static_cast<size_t>(a.qStride), ks = static_cast<size_t>(a.kvStride),
                 os = static_cast<size_t>(a.outStride);
    const size_t keyStride = simd::tileKeyStride(kc), valueStride = simd::tileValueStride(hd);
    const size_t matrix = static_cast<size_t>(std::min(qc, simd::kTileQueries)) * keyStride;
    float* scores = floatPointer(a.workspace, matrix, "attention workspace");
    const float* q = floatPointer(a.q, a.q.size, "attention q") + static_cast<size_t>(batch.queryRow) * qs;
    const WeightPointer kp = weightPointer(a.k, a.k.size, "attention k");
    const WeightPointer vp = weightPointer(a.v, a.v.size, "attention v");
    float* out = floatPointer(a.out, a.out.size, "attention out") + static_cast<size_t>(batch.queryRow) * os;
    const size_t groups = std::min({a.workspace.size / matrix, static_cast<size_t>(threads()), static_cast<size_t>(a.heads)});
    pool().parallelFor(groups, 1, [&](size_t begin, size_t end, int) {
        // One head's keys transposed and values padded (simd::TileHead), made once per head.
        thread_local std::vector<float> kt, v, row;
        for (size_t g = begin; g < end; ++g) {
            for (size_t h = g; h < static_cast<size_t>(a.heads); h += groups) {
                const size_t col = h * static_cast<size_t>(hd), width = static_cast<size_t>(hd);
                kt.assign(width * keyStride, 0.0f);
                v.assign(static_cast<size_t>(kc) * valueStride, 0.0f);
                row.resize(width);
                for (size_t i = 0; i < static_cast<size_t>(kc); ++i) {
                    const size_t at = (batch.keyRow + i) * ks + col;
                    const float* key = kp.f32 ? kp.f32 + at : row.data();
                    if (!kp.f32) simd::convertHalf(kp.f16 + at, row.data(), width);
                    for (size_t c = 0; c < width; ++c) kt[simd::tileKeyIndex(i, c, width)] = key[c];
                    float* value = v.data() + i * valueStride;
                    if (vp.f32) {
                        std::copy(vp.f32 + at, vp.f32 + at + width, value);
                    } else {
                        simd::convertHalf(vp.f16 + at, value, width);
                    }
                }
                const simd::TileHead head{kt.data(), v.data(), kc, hd, keyStride, valueStride};
                // Query j of the batch sees kc - qc + j + 1 keys under the causal mask.
                simd::attentionTile(q + col, qs, qc, head, a.scale, a.causal, kc - qc + 1, scores + g * matrix, out + col, os);
            }
        }
    });
}

void CpuBackend::attentionGemm(const AttentionArgs& a, const AttentionBatch& batch) {
    if (simd::usingAttentionTiles()) return attentionTiles(a, batch);
    const int qc = batch.queryCount, kc = batch.keyCount, hd = a.headDim;
    const size_t qs = static_cast<size_t>(a.qStride), ks = static_cast<size_t>(a.kvStride),
                 os = static_cast<size_t>(a.outStride);
    const int block = std::min(qc, kAttentionQueryBlock);
    const size_t matrix = static_cast<size_t>(block) * static_cast<size_t>(kc);
    float* scores = floatPointer(a.workspace, matrix, "attention workspace");
    const float* q = floatPointer(a.q, a.q.size, "attention q") + static_cast<size_t>(batch.queryRow) * qs;
    const WeightPointer kp = weightPointer(a.k, a.k.size, "attention k");
    const WeightPointer vp = weightPointer(a.v, a.v.size, "attention v");
    const bool half = kp.f16 != nullptr;
    float* out = floatPointer(a.out, a.out.size, "attention out") + static_cast<size_t>(batch.queryRow) * os;
    // Heads are split into as many groups as there are score matrices in the workspace (at most
    // one per thread); group g uses matrix g, so no two running heads share one.
    const size_t groups = std::min({a.workspace.size / matrix, static_cast<size_t>(threads()), static_cast<size_t>(a.heads)});
    pool().parallelFor(groups, 1, [&](size_t begin, size_t end, int) {
        for (size_t g = begin; g < end; ++g) {
            float* s = scores + g * matrix;
            thread_local std::vector<float> widenedK, widenedV;  // one head's half keys and values
            for (size_t h = g; h < static_cast<size_t>(a.heads); h += groups) {
                const size_t col = h * static_cast<size_t>(hd);
                const float* k = nullptr;
                const float* v = nullptr;
                int kvStride = a.kvStride;
                if (half) {
                    const size_t rows = static_cast<size_t>(kc), width = static_cast<size_t>(hd);
                    widenedK.resize(rows * width);
                    widenedV.resize(rows * width);
                    for (size_t i = 0; i < rows; ++i) {
                        const size_t at = (batch.keyRow + i) * ks + col;
                        simd::convertHalf(kp.f16 + at, widenedK.data() + i * width, width);
                        simd::convertHalf(vp.f16 + at, widenedV.data() + i * width, width);
                    }
                    k = widenedK.data();
                    v = widenedV.data();
                    kvStride = hd;
                } else {
                    k = kp.f32 + batch.keyRow * ks + col;
                    v = vp.f32 + batch.keyRow * ks + col;
                }
                for (int first = 0; first < qc; first += block) {
                    const int rows = std::min(block, qc - first);
                    const float* qBlock = q + static_cast<size_t>(first) * qs + col;
                    // s[rows][kc] = scale · q_h k_hᵀ for queries [first, first + rows)
                    blas::sgemm(true, rows, kc, hd, a.scale, qBlock, a.qStride, k, kvStride, 0.0f, s, kc);
                    for (int j = 0; j < rows; ++j) {
                        float* row = s + static_cast<size_t>(j) * static_cast<size_t>(kc);
                        const int visible = a.causal ? kc - qc + first + j + 1 : kc;
                        simd::softmax(row, static_cast<size_t>(visible));
                        std::fill(row + visible, row + kc, 0.0f);
                    }
                    // out_h[rows][hd] = s · v_h
                    blas::sgemm(false, rows, hd, kc, 1.0f, s, kc, v, kvStride, 0.0f,
                                out + static_cast<size_t>(first) * os + col, a.outStride);
                }
            }
        }
    });
}

void CpuBackend::attentionNow(const AttentionArgs& a, std::span<const AttentionBatch> batches) {
    struct Task {
        const AttentionBatch* batch;
        int head;
        int query;
    };
    size_t smallTasks = 0;
    for (const AttentionBatch& b : batches) {
        if (b.queryCount <= 0) continue;
        if (b.queryCount >= kGemmAttentionQueries) {
            attentionGemm(a, b);
        } else {
            smallTasks += static_cast<size_t>(b.queryCount) * static_cast<size_t>(a.heads);
        }
    }
    if (smallTasks == 0) return;

    size_t work = 0;
    for (const AttentionBatch& b : batches) {
        if (b.queryCount <= 0 || b.queryCount >= kGemmAttentionQueries) continue;
        work += static_cast<size_t>(b.queryCount) * static_cast<size_t>(a.heads) * static_cast<size_t>(b.keyCount);
    }
    // Task t is (batch, head, query) in batch order; found by a scan over the (few) batches.
    auto taskAt = [&](size_t t) {
        for (const AttentionBatch& b : batches) {
            if (b.queryCount <= 0 || b.queryCount >= kGemmAttentionQueries) continue;
            const size_t n = static_cast<size_t>(b.queryCount) * static_cast<size_t>(a.heads);
            if (t < n) {
                return Task{&b, static_cast<int>(t / static_cast<size_t>(b.queryCount)),
                            static_cast<int>(t % static_cast<size_t>(b.queryCount))};
            }
            t -= n;
        }
        return Task{nullptr, 0, 0};
    };
    const float* q = floatPointer(a.q, a.q.size, "attention q");
    const WeightPointer k = weightPointer(a.k, a.k.size, "attention k");
    const WeightPointer v = weightPointer(a.v, a.v.size, "attention v");
    float* out = floatPointer(a.out, a.out.size, "attention out");
    const int hd = a.headDim;
    // Small problems run inline: waking the workers costs more than they save.
    const size_t minChunk = work * static_cast<size_t>(hd) < 65536 ? smallTasks : 1;
    pool().parallelFor(smallTasks, minChunk, [&](size_t begin, size_t end, int) {
        thread_local std::vector<float> scores;
        for (size_t t = begin; t < end; ++t) {
            const Task task = taskAt(t);
            const AttentionBatch& b = *task.batch;
            const size_t col = static_cast<size_t>(task.head) * static_cast<size_t>(hd);
            const size_t row = static_cast<size_t>(b.queryRow + task.query);
            const int visible = a.causal ? b.keyCount - b.queryCount + task.query + 1 : b.keyCount;
            if (scores.size() < static_cast<size_t>(visible)) scores.resize(static_cast<size_t>(visible));
            const float* qv = q + row * static_cast<size_t>(a.qStride) + col;
            float* o = out + row * static_cast<size_t>(a.outStride) + col;
            // A head's keys, then its values, in one pass each (float32, or the half cross cache).
            const size_t first = b.keyRow * static_cast<size_t>(a.kvStride) + col;
            const size_t stride = static_cast<size_t>(a.kvStride), n = static_cast<size_t>(visible),
                         width = static_cast<size_t>(hd);
            if (k.f16) {
                simd::dotsHalf(qv, k.f16 + first, stride, n, width, a.scale, scores.data());
            } else {
                simd::dots(qv, k.f32 + first, stride, n, width, a.scale, scores.data());
            }
            simd::softmax(scores.data(), n);
            if (v.f16) {
                simd::weightedSumHalf(scores.data(), v.f16 + first, stride, n, width, o);
            } else {
                simd::weightedSum(scores.data(), v.f32 + first, stride, n, width, o);
            }
        }
    });
}

} // namespace hearsay
