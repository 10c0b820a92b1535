// CpuBackend's attention work: batches of many queries through sgemm (a score matrix per
// thread in the workspace), the others one query (all heads) or one part of a query's keys at a
// time on the pool.
// runAttention() (cpu_backend.cpp) hands it checked batches, their per-step offsets applied.
// Keys and values are float32, or IEEE half (the cross cache, allocateKv): widened exactly as
// they are read, so both give the same products of the same values.
#include "core/backend/cpu_backend.h"

#include "core/backend/blas.h"
#include "core/backend/cpu_attention_tiles.h"
#include "core/backend/cpu_simd.h"
#include "core/backend/cpu_vector_math.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
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
    const size_t keyStride = simd::tileKeyStride(kc), valueStride = simd::tileValueStride(hd),
                 valueSlice = simd::tileValueSlice(hd);
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
                v.assign(keyStride * valueStride, 0.0f);
                row.resize(width);
                for (size_t i = 0; i < static_cast<size_t>(kc); ++i) {
                    const size_t at = (batch.keyRow + i) * ks + col;
                    const float* key = kp.f32 ? kp.f32 + at : row.data();
                    if (!kp.f32) simd::convertHalf(kp.f16 + at, row.data(), width);
                    for (size_t c = 0; c < width; ++c) kt[simd::tileKeyIndex(i, c, width)] = key[c];
                    const float* value = vp.f32 ? vp.f32 + at : row.data();
                    if (!vp.f32) simd::convertHalf(vp.f16 + at, row.data(), width);
                    for (size_t c = 0; c < width; c += valueSlice) {
                        const size_t n = std::min(valueSlice, width - c);
                        std::copy(value + c, value + c + n, v.data() + simd::tileValueIndex(i, c, keyStride, valueSlice));
                    }
                }
                const simd::TileHead head{kt.data(), v.data(), kc, hd, keyStride, valueStride, valueSlice};
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

namespace {

// One query's share of a few-query batch: all heads over the keys [first, first + count).
struct QueryPart {
    const AttentionBatch* batch;
    int query;
    size_t first, count;
    int parts;   // how many parts the query's keys were split into
    size_t slot; // where a split part leaves its partial result (parts > 1)
};

// The merge of a query's parts: each part's heads' weighted sums of exp(s − m_p) (its own max m_p)
// with the sums of those exponentials, rescaled to the largest max and divided by the total.
void mergeParts(const float* parts, size_t count, size_t heads, size_t hd, float* out) {
    const size_t slotFloats = heads * hd + 2 * heads;
    for (size_t h = 0; h < heads; ++h) {
        float shift = -std::numeric_limits<float>::infinity();
        for (size_t p = 0; p < count; ++p) shift = std::max(shift, parts[p * slotFloats + heads * hd + h]);
        float total = 0.0f;
        float* o = out + h * hd;
        std::fill(o, o + hd, 0.0f);
        for (size_t p = 0; p < count; ++p) {
            const float* part = parts + p * slotFloats;
            const float w = std::exp(part[heads * hd + h] - shift);
            total += w * part[heads * hd + heads + h];
            for (size_t j = 0; j < hd; ++j) o[j] += w * part[h * hd + j];
        }
        const float inv = 1.0f / total;
        for (size_t j = 0; j < hd; ++j) o[j] *= inv;
    }
}

} // namespace

void CpuBackend::attentionNow(const AttentionArgs& a, std::span<const AttentionBatch> batches) {
    size_t work = 0; // scores of the few-query batches
    for (const AttentionBatch& b : batches) {
        if (b.queryCount <= 0) continue;
        if (b.queryCount >= kGemmAttentionQueries) {
            attentionGemm(a, b);
        } else {
            work += static_cast<size_t>(b.queryCount) * static_cast<size_t>(a.heads) * static_cast<size_t>(b.keyCount);
        }
    }
    if (work == 0) return;

    // The few-query batches (a decode step's, a beam's): each query takes all heads of every key
    // row it sees, the rows in order, so that its keys and values are read whole (cpu_simd.h,
    // headDotsHalf). A query with many keys (the cross cache's 1500) is split into up to
    // threads() parts of the keys, each with its own softmax shift, merged at the end.
    const size_t heads = static_cast<size_t>(a.heads), hd = static_cast<size_t>(a.headDim), width = heads * hd;
    // Small problems run inline: waking the workers costs more than they save.
    const bool runInline = work * hd < 65536;
    thread_local std::vector<QueryPart> tasks; // reused: a decode step allocates nothing
    tasks.clear();
    size_t splitTasks = 0;
    for (const AttentionBatch& b : batches) {
        if (b.queryCount <= 0 || b.queryCount >= kGemmAttentionQueries) continue;
        for (int query = 0; query < b.queryCount; ++query) {
            const size_t visible = static_cast<size_t>(a.causal ? b.keyCount - b.queryCount + query + 1 : b.keyCount);
            const size_t parts =
                runInline ? 1 : std::clamp<size_t>(visible / kAttentionPartKeys, 1, static_cast<size_t>(threads()));
            for (size_t p = 0; p < parts; ++p) {
                const size_t first = visible * p / parts;
                tasks.push_back(QueryPart{&b, query, first, visible * (p + 1) / parts - first, static_cast<int>(parts),
                                          splitTasks + p});
            }
            if (parts > 1) splitTasks += parts;
        }
    }
    // Each split task's partial result: heads × hd weighted sums, then the heads' shifts and sums.
    const size_t slotFloats = width + 2 * heads;
    thread_local std::vector<float> partials;
    if (partials.size() < splitTasks * slotFloats) partials.resize(splitTasks * slotFloats);

    const float* q = floatPointer(a.q, a.q.size, "attention q");
    const WeightPointer k = weightPointer(a.k, a.k.size, "attention k");
    const WeightPointer v = weightPointer(a.v, a.v.size, "attention v");
    float* out = floatPointer(a.out, a.out.size, "attention out");
    const size_t kvStride = static_cast<size_t>(a.kvStride);
    // The workers see these through pointers: a thread_local named inside the lambda would be theirs.
    float* partialData = partials.data();
    const QueryPart* taskList = tasks.data();
    pool().parallelFor(tasks.size(), runInline ? tasks.size() : 1, [&](size_t begin, size_t end, int) {
        thread_local std::vector<float> scores; // [heads][keys of the part]
        for (size_t t = begin; t < end; ++t) {
            const QueryPart& task = taskList[t];
            const size_t row = static_cast<size_t>(task.batch->queryRow + task.query), n = task.count;
            if (scores.size() < heads * n) scores.resize(heads * n);
            const float* qv = q + row * static_cast<size_t>(a.qStride);
            const size_t first = (task.batch->keyRow + task.first) * kvStride;
            if (k.f16) {
                simd::headDotsHalf(qv, k.f16 + first, kvStride, n, heads, hd, a.scale, scores.data(), n);
            } else {
                simd::headDots(qv, k.f32 + first, kvStride, n, heads, hd, a.scale, scores.data(), n);
            }
            float* o = out + row * static_cast<size_t>(a.outStride);
            if (task.parts > 1) {
                o = partialData + task.slot * slotFloats;
                for (size_t h = 0; h < heads; ++h) o[width + heads + h] = simd::expShifted(scores.data() + h * n, n, o + width + h);
            } else {
                for (size_t h = 0; h < heads; ++h) simd::softmax(scores.data() + h * n, n);
            }
            if (v.f16) {
                simd::headWeightedSumHalf(scores.data(), n, v.f16 + first, kvStride, n, heads, hd, o);
            } else {
                simd::headWeightedSum(scores.data(), n, v.f32 + first, kvStride, n, heads, hd, o);
            }
        }
    });
    for (size_t t = 0; t < tasks.size(); t += static_cast<size_t>(tasks[t].parts)) {
        const QueryPart& task = tasks[t];
        if (task.parts == 1) continue;
        const size_t row = static_cast<size_t>(task.batch->queryRow + task.query);
        mergeParts(partialData + task.slot * slotFloats, static_cast<size_t>(task.parts), heads, hd,
                   out + row * static_cast<size_t>(a.outStride));
    }
}

} // namespace hearsay
