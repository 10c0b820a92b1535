// CpuBackend::runLogits: the logits of a decode step's row through a q16 split table (q16_split.h),
// in three parts:
// 1. on the pool, every column's sketch and bound from the hi plane (columns at or above
//    reach.exactFrom, the special and timestamp tokens, from both planes at once), each thread
//    keeping the largest lower bounds (sketch − bound) among its columns below exactFrom;
// 2. from the threads' keeps, the reach.top-th largest lower bound L;
// 3. on the pool, both planes for every column below exactFrom whose upper bound (sketch + bound)
//    reaches L. A column left out lies below `top` columns' exact values, so it is not among the
//    top largest, and its logit keeps the sketch's value, within its bound.
// So a decode step reads the hi plane (half an f16 table's bytes) and both planes of about a
// thousand rows (700 to 1,400 with a top of 256, on real and random weights). Several rows, other tables and a reach of every column take runLinear().
#include "core/backend/cpu_backend.h"

#include "core/backend/q16_split.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace hearsay {
namespace {

// Columns sketched per call of the kernel (which widens their scales first).
constexpr size_t kSketchTile = 64;

// The largest values seen, `top` of them at most, with the floor below which none can enter.
struct Keep {
    std::vector<float> values;
    float floor = -std::numeric_limits<float>::infinity();

    void reset(size_t top) {
        values.clear();
        values.reserve(2 * top);
        floor = -std::numeric_limits<float>::infinity();
    }
    void offer(float value, size_t top) {
        if (!(value > floor)) return;  // NaN never enters
        values.push_back(value);
        if (values.size() < 2 * top) return;
        std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(top - 1), values.end(), std::greater<float>());
        values.resize(top);
        floor = values[top - 1];
    }
};

} // namespace

void CpuBackend::runLogits(BufferView x, BufferView table, BufferView y, int rows, int in, int out, LogitsReach reach) {
    const size_t n = static_cast<size_t>(in), m = static_cast<size_t>(out);
    const WeightPointer weight = weightPointer(table, m * n, "logits table");
    // Several rows (beams) take both planes, each row widened once for all of them (linear()): the
    // sketch's sums cost as much per input row as a plane's bytes save, and each input row brings
    // its own candidates.
    if (weight.blockType != ElementType::Q16Split || rows > 1 || reach.exactFrom == 0 || reach.top <= 0 ||
        reach.top >= reach.exactFrom) {
        return runLinear(x, table, {}, y, rows, in, out, false);
    }
    const simd::Q16SplitTable split = simd::q16SplitTable(weight.blocks, weight.tableElements / n, n);
    const float* xp = floats(x);
    float* yp = floats(y);
    const size_t exactFrom = static_cast<size_t>(reach.exactFrom), top = static_cast<size_t>(reach.top);
    const auto describe = [&] {
        // The sketch below exactFrom, both planes above it and, about, for `top` rows below it.
        const double bytes = double(exactFrom * (n + n / 16) + simd::q16SplitBytes((m - exactFrom) * n) + top * n) +
                             4.0 * double(n + m);
        return OpInfo{"logits 1x" + std::to_string(in) + "->" + std::to_string(out) + " q16split sketch", bytes,
                      2.0 * double(m) * double(n)};
    };
    submit(describe, [=, this] {
        const size_t threads = static_cast<size_t>(pool().threads());
        // The calling thread's scratch, shared with the workers through these references.
        thread_local std::vector<float> boundsOfThisThread;
        thread_local simd::SketchInput inputOfThisThread;
        thread_local std::vector<Keep> keepsOfThisThread;
        thread_local std::vector<std::vector<size_t>> candidatesOfThisThread;
        std::vector<float>& bounds = boundsOfThisThread;      // [exactFrom]: each sketch's bound
        simd::SketchInput& input = inputOfThisThread;         // x as the sketch reads it
        std::vector<Keep>& keeps = keepsOfThisThread;         // [threads]
        std::vector<std::vector<size_t>>& candidates = candidatesOfThisThread;  // [threads]
        bounds.resize(exactFrom);
        keeps.resize(threads);
        candidates.resize(threads);
        for (Keep& k : keeps) k.reset(top);
        simd::prepareSketchInput(xp, n, input);

        const size_t chunk = std::max<size_t>(kSketchTile, (m + threads - 1) / threads);
        pool().parallelFor(m, chunk, [&](size_t b, size_t e, int thread) {
            Keep& keep = keeps[size_t(thread)];
            for (size_t t0 = b; t0 < e; t0 += kSketchTile) {
                const size_t t1 = std::min(e, t0 + kSketchTile);
                const size_t sketched = t0 < exactFrom ? std::min(t1, exactFrom) - t0 : 0;
                if (sketched) {
                    simd::sketchQ16Split(input, split, t0, sketched, yp + t0, bounds.data() + t0);
                    for (size_t o = t0; o < t0 + sketched; ++o) keep.offer(yp[o] - bounds[o], top);
                }
                for (size_t o = t0 + sketched; o < t1; ++o) yp[o] = simd::dotQ16Split(xp, split, o);
            }
        });
        // L: the top-th largest lower bound (thread 0's keep gathers the others').
        std::vector<float>& all = keeps[0].values;
        for (size_t t = 1; t < threads; ++t) all.insert(all.end(), keeps[t].values.begin(), keeps[t].values.end());
        float limit = -std::numeric_limits<float>::infinity();
        if (all.size() >= top) {
            std::nth_element(all.begin(), all.begin() + std::ptrdiff_t(top - 1), all.end(), std::greater<float>());
            limit = all[top - 1];
        }
        pool().parallelFor(exactFrom, std::max<size_t>(1024, (exactFrom + threads - 1) / threads),
                           [&](size_t b, size_t e, int thread) {
                               // The candidates first, then their rows with the next ones' prefetched
                               // (they lie anywhere in the table).
                               std::vector<size_t>& mine = candidates[size_t(thread)];
                               mine.clear();
                               for (size_t o = b; o < e; ++o) {
                                   if (!(yp[o] + bounds[o] < limit)) mine.push_back(o);
                               }
                               constexpr size_t kAhead = 4;
                               for (size_t k = 0; k < mine.size(); ++k) {
                                   if (k + kAhead < mine.size()) simd::prefetchQ16SplitRow(split, mine[k + kAhead]);
                                   yp[mine[k]] = simd::dotQ16Split(xp, split, mine[k]);
                               }
                           });
    });
}

} // namespace hearsay
