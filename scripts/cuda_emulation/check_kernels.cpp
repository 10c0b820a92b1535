// Runs the extracted device code of kernels/tensor_attention.cu and kernels/small_linear.cu
// (see run.sh) on the CPU emulation of shim.h and compares with double-precision references.
// Exit status 1 when any relative error exceeds 1e-2 (attention) or 1e-5 (linear).
#include "shim.h"
#include <cstdio>
#include <random>
#include "ta_kernel.inc"
#include "sl_kernel.inc"
#include "da_kernel.inc"
#include "at_kernel.inc"

static std::vector<float> rnd(size_t n, unsigned seed, float lo = -1, float hi = 1) {
    std::mt19937 g(seed); std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n); for (auto& x : v) x = d(g); return v;
}

// Keys or values as a KV cache holds them: `values` rounded to half in place (the reference
// then uses exactly what the kernel reads), and their half copy.
static std::vector<_Float16> toHalf(std::vector<float>& values) {
    std::vector<_Float16> h(values.size());
    for (size_t i = 0; i < values.size(); ++i) { h[i] = (_Float16)values[i]; values[i] = float(h[i]); }
    return h;
}

static double testAttention(int queries, int keys, int heads, int qStride, int kvStride, int queryRow, int keyRow, float amp,
                            bool halfKv = false) {
    using namespace hearsay::cuda::ta;
    const int hd = 64;
    auto q = rnd(size_t(queryRow + queries) * qStride, 1, -amp, amp), k = rnd(size_t(keyRow + keys) * kvStride, 2, -amp, amp),
         v = rnd(size_t(keyRow + keys) * kvStride, 3);
    std::vector<_Float16> kHalf, vHalf;
    if (halfKv) { kHalf = toHalf(k); vHalf = toHalf(v); }
    std::vector<float> out(size_t(queryRow + queries) * qStride, 7.0f);
    const float scale = 0.125f;
    Params p{q.data(), halfKv ? static_cast<const void*>(kHalf.data()) : k.data(),
             halfKv ? static_cast<const void*>(vHalf.data()) : v.data(), out.data(), size_t(qStride), size_t(kvStride),
             size_t(qStride), queryRow, queries, size_t(keyRow), keys, scale};
    emulate({unsigned((queries + kBlockQueries - 1) / kBlockQueries), unsigned(heads)}, {kThreads}, kSharedBytes, [&] {
        if (halfKv) tensorAttentionKernel<__half>(p); else tensorAttentionKernel<float>(p);
    });
    double maxErr = 0, maxRef = 0;
    for (int h = 0; h < heads; ++h) for (int i = 0; i < queries; ++i) {
        std::vector<double> s(keys); double m = -1e300;
        for (int j = 0; j < keys; ++j) {
            double d = 0; for (int c = 0; c < hd; ++c) d += double(q[size_t(queryRow + i) * qStride + h * hd + c]) * k[size_t(keyRow + j) * kvStride + h * hd + c];
            s[j] = d * scale; m = std::max(m, s[j]);
        }
        double sum = 0; for (auto& x : s) { x = std::exp(x - m); sum += x; }
        for (int c = 0; c < hd; ++c) {
            double o = 0; for (int j = 0; j < keys; ++j) o += s[j] * v[size_t(keyRow + j) * kvStride + h * hd + c];
            o /= sum;
            maxRef = std::max(maxRef, std::abs(o));
            maxErr = std::max(maxErr, std::abs(o - out[size_t(queryRow + i) * qStride + h * hd + c]));
        }
    }
    // rows outside untouched
    for (int i = 0; i < queryRow; ++i) for (int c = 0; c < qStride; ++c) if (out[size_t(i) * qStride + c] != 7.0f) { std::printf("  wrote outside!\n"); return 1; }
    for (int i = 0; i < queries; ++i) for (int c = heads * hd; c < qStride; ++c) if (out[size_t(queryRow + i) * qStride + c] != 7.0f) { std::printf("  wrote past heads!\n"); return 1; }
    return maxErr / maxRef;
}

// kernels/small_linear against a double-precision reference: one launch with a target per
// entry of `outs` (each its own weights, bias and output; the same x).
template <int R>
// geluTarget: that target applies GELU (and does not accumulate).
static double testLinear(int in, std::vector<int> outs, int xOff, int wOff, bool bias, bool acc, int geluTarget = -1) {
    using namespace hearsay::cuda;
    auto x = rnd(size_t(xOff) + size_t(R) * in, 4);
    struct Data { std::vector<__half> w; std::vector<float> b, y, y0; };
    std::vector<Data> data;
    Launch p{};
    p.x = x.data() + xOff;
    p.in = in;
    bool vector = in % 8 == 0 && reinterpret_cast<uintptr_t>(p.x) % 16 == 0;
    int widest = 0;
    for (size_t t = 0; t < outs.size(); ++t) {
        const int out = outs[t];
        auto wf = rnd(size_t(wOff) + size_t(out) * in, 5 + unsigned(t), -0.2f, 0.2f);
        Data d;
        d.w.resize(wf.size());
        for (size_t i = 0; i < wf.size(); ++i) d.w[i] = (_Float16)wf[i];
        d.b = rnd(out, 16 + unsigned(t));
        d.y = rnd(size_t(R) * out + 1, 26 + unsigned(t));
        d.y0 = d.y;
        data.push_back(std::move(d));
        widest = std::max(widest, out);
    }
    for (size_t t = 0; t < outs.size(); ++t) {
        const bool gelu = int(t) == geluTarget;
        p.targets[t] = {data[t].w.data() + wOff, bias ? data[t].b.data() : nullptr, data[t].y.data(), outs[t],
                        acc && !gelu, gelu};
        vector = vector && reinterpret_cast<uintptr_t>(p.targets[t].w) % 16 == 0;
    }
    auto run = [&] {
        if (vector) smallLinearKernel<R, true>(p); else smallLinearKernel<R, false>(p);
    };
    emulate({unsigned((widest + kWarps - 1) / kWarps), unsigned(outs.size())}, {kThreads}, 0, run);
    double maxErr = 0, maxRef = 0;
    for (size_t t = 0; t < outs.size(); ++t) {
        const Data& d = data[t];
        const int out = outs[t];
        for (int r = 0; r < R; ++r) for (int o = 0; o < out; ++o) {
            double s = 0; for (int i = 0; i < in; ++i) s += double(x[xOff + size_t(r) * in + i]) * float(d.w[wOff + size_t(o) * in + i]);
            if (bias) s += d.b[o];
            if (int(t) == geluTarget) s = 0.5 * s * (1.0 + std::erf(s / std::sqrt(2.0)));
            else if (acc) s += d.y0[size_t(r) * out + o];
            maxRef = std::max(maxRef, std::abs(s)); maxErr = std::max(maxErr, std::abs(s - d.y[size_t(r) * out + o]));
        }
        if (d.y.back() != d.y0.back()) { std::printf("  wrote outside!\n"); return 1; }
    }
    std::printf("  linear %d rows %dx%d (%zu targets) x+%d w+%d bias %d acc %d (%s): rel err %.3g\n", R, in, outs[0],
                outs.size(), xOff, wOff, bias, acc, vector ? "vector" : "scalar", maxErr / maxRef);
    return maxErr / maxRef;
}

// Decode attention: slices of ≤ 8 queries over [keyRow + rowOffset, + keyCount + countOffset);
// a slice whose keys leave k/v or exceed maxKeys must give NaN rows.
struct DaSlice { int queries, keyRow, keyCount, rowOffset, countOffset; };
// general: kernels/attention.cu's kernel (maxKeys unused) instead of decode_attention.cu's two.
// aligned: rows of exactly heads · hd elements (else 3 more), so that the decode kernel reads keys and
// values 16 bytes at a time where the head's width allows.
static double testDecodeAttention(const char* name, int heads, int hd, bool causal, int kvRows, int maxKeys,
                                  std::vector<DaSlice> slices, bool offsets, bool general = false, bool halfKv = false,
                                  bool aligned = false) {
    using namespace hearsay::cuda::da;
    const int width = heads * hd, stride = aligned ? width : width + 3;
    int rows = 0; for (auto& s : slices) rows += s.queries;
    auto q = rnd(size_t(rows) * stride, 11), k = rnd(size_t(kvRows) * stride, 12, -2, 2), v = rnd(size_t(kvRows) * stride, 13);
    std::vector<float> out(size_t(rows) * stride, 42.0f);
    std::vector<int> rowOff, countOff;
    Launch p{};
    std::vector<_Float16> kHalf, vHalf;
    if (halfKv) { kHalf = toHalf(k); vHalf = toHalf(v); }
    p.shape.q = q.data(); p.shape.out = out.data();
    p.shape.k = halfKv ? static_cast<const void*>(kHalf.data()) : k.data();
    p.shape.v = halfKv ? static_cast<const void*>(vHalf.data()) : v.data();
    p.shape.kvHalf = halfKv;
    p.shape.qStride = p.shape.kvStride = p.shape.outStride = stride;
    p.shape.heads = heads; p.shape.headDim = hd; p.shape.scale = 1.0f / std::sqrt(float(hd)); p.shape.causal = causal;
    p.shape.kvRows = kvRows;
    for (auto& s : slices) { rowOff.push_back(s.rowOffset); countOff.push_back(s.countOffset); }
    if (offsets) { p.shape.keyRowOffsets = rowOff.data(); p.shape.keyCountOffsets = countOff.data(); }
    p.maxKeys = maxKeys; p.splits = (maxKeys + 31) / 32;
    p.vectorKv = kvVectorizable(p.shape);
    std::vector<float> scratch(size_t(slices.size()) * heads * p.splits * 8 * (hd + 2), -12345.0f);
    p.scratch = scratch.data();
    int row = 0;
    for (size_t i = 0; i < slices.size(); ++i) {
        p.queryRow[i] = row; p.queryCount[i] = slices[i].queries; p.keyRow[i] = slices[i].keyRow;
        p.keyCount[i] = slices[i].keyCount; p.offsetIndex[i] = int(i); row += slices[i].queries;
    }
    p.slices = int(slices.size());
    if (general) {
        namespace at = hearsay::cuda::at;
        at::AttentionLaunch g{};
        std::memcpy(static_cast<void*>(&g.shape), &p.shape, sizeof(g.shape));
        g.slices = p.slices;
        for (int i = 0; i < p.slices; ++i) {
            g.queryRow[i] = p.queryRow[i]; g.queryCount[i] = p.queryCount[i]; g.keyCount[i] = p.keyCount[i];
            g.offsetIndex[i] = p.offsetIndex[i]; g.keyRow[i] = p.keyRow[i];
            g.firstTile[i + 1] = g.firstTile[i] + (p.queryCount[i] + at::kTileQueries - 1) / at::kTileQueries;
        }
        const dim3e grid{unsigned(g.firstTile[g.slices]), unsigned(heads), 1};
        const size_t bytes = at::sharedBytes(hd);
        auto run = [&](auto kv) {
            using KV = decltype(kv);
            if (hd <= 32) emulate(grid, {at::kThreads}, bytes, [&] { at::attentionKernel<1, KV>(g); });
            else if (hd <= 64) emulate(grid, {at::kThreads}, bytes, [&] { at::attentionKernel<2, KV>(g); });
            else if (hd <= 128) emulate(grid, {at::kThreads}, bytes, [&] { at::attentionKernel<4, KV>(g); });
            else emulate(grid, {at::kThreads}, bytes, [&] { at::attentionKernel<8, KV>(g); });
        };
        if (halfKv) run(__half{}); else run(float{});
    } else {
        const dim3e grid{unsigned(p.splits), unsigned(heads), unsigned(p.slices)};
        auto run = [&](auto kv) {
            using KV = decltype(kv);
            if (hd <= 32) emulate(grid, {32}, 0x10000, [&] { partialKernel<1, KV>(p); });
            else if (hd <= 64) emulate(grid, {32}, 0x10000, [&] { partialKernel<2, KV>(p); });
            else emulate(grid, {32}, 0x10000, [&] { partialKernel<4, KV>(p); });
        };
        if (halfKv) run(__half{}); else run(float{});
        emulate({unsigned(heads), unsigned(p.slices), 1}, {kMergeThreads}, mergeSharedBytes(p.splits), [&] { mergeKernel(p); });
    }
    double maxErr = 0, maxRef = 0;
    row = 0;
    for (auto& s : slices) {
        const long long keyRow = s.keyRow + (offsets ? s.rowOffset : 0), keyCount = s.keyCount + (offsets ? s.countOffset : 0);
        const bool valid = keyRow >= 0 && keyCount >= 1 && (general || keyCount <= maxKeys) && (!causal || keyCount >= s.queries) &&
                           keyRow + keyCount <= kvRows;
        for (int qi = 0; qi < s.queries; ++qi, ++row) {
            const int visible = causal ? int(keyCount) - s.queries + qi + 1 : int(keyCount);
            for (int h = 0; h < heads; ++h) {
                std::vector<double> sc(std::max(visible, 0)); double m = -1e300;
                if (valid) for (int j = 0; j < visible; ++j) {
                    double d = 0; for (int c = 0; c < hd; ++c) d += double(q[size_t(row) * stride + h * hd + c]) * k[size_t(keyRow + j) * stride + h * hd + c];
                    sc[j] = d * p.shape.scale; m = std::max(m, sc[j]);
                }
                double sum = 0; for (auto& x : sc) { x = std::exp(x - m); sum += x; }
                for (int c = 0; c < hd; ++c) {
                    const float got = out[size_t(row) * stride + h * hd + c];
                    if (!valid) { if (!std::isnan(got)) { std::printf("  %s: expected NaN\n", name); return 1; } continue; }
                    double o = 0; for (int j = 0; j < visible; ++j) o += sc[j] * v[size_t(keyRow + j) * stride + h * hd + c];
                    o /= sum; maxRef = std::max(maxRef, std::abs(o)); maxErr = std::max(maxErr, std::abs(o - got));
                }
            }
            for (int c = width; c < stride; ++c) if (out[size_t(row) * stride + c] != 42.0f) { std::printf("  %s: wrote padding\n", name); return 1; }
        }
    }
    const double e = maxRef > 0 ? maxErr / maxRef : 0;
    std::printf("%s attention %s%s: rel err %.3g\n", general ? "general" : "decode", name,
                !general && p.vectorKv ? " (16-byte loads)" : "", e);
    return e;
}

int main(int argc, char** argv) {
    const bool encoder = argc > 1 && std::string(argv[1]) == "--encoder";  // + one 1500×1500 head (1 min)
    double worst = 0, worstLinear = 0;
    struct { int q, k, h, qs, kvs, qr, kr; float amp; } cases[] = {
        {1, 1, 1, 64, 64, 0, 0, 1}, {16, 1, 1, 64, 64, 0, 0, 1}, {33, 65, 2, 128, 132, 0, 0, 1}, {129, 63, 1, 68, 64, 3, 5, 1},
        {130, 200, 2, 136, 128, 1, 0, 4}, {300, 447, 1, 64, 64, 0, 17, 2},
    };
    std::vector<std::remove_reference_t<decltype(cases[0])>> list(std::begin(cases), std::end(cases));
    if (encoder) list.push_back({1500, 1500, 1, 64, 64, 0, 0, 1});
    for (auto c : list) {
        double e = testAttention(c.q, c.k, c.h, c.qs, c.kvs, c.qr, c.kr, c.amp);
        std::printf("attention q %d k %d heads %d: rel err %.3g\n", c.q, c.k, c.h, e);
        worst = std::max(worst, e);
    }
    worstLinear = std::max(worstLinear, testLinear<1>(1280, {70}, 0, 0, true, false));
    worstLinear = std::max(worstLinear, testLinear<1>(1288, {9}, 0, 0, true, true));
    worstLinear = std::max(worstLinear, testLinear<5>(2056, {13}, 0, 0, false, true));
    worstLinear = std::max(worstLinear, testLinear<8>(64, {5}, 0, 0, true, true));
    worstLinear = std::max(worstLinear, testLinear<3>(1280, {7}, 3, 0, true, true));
    worstLinear = std::max(worstLinear, testLinear<2>(7, {5}, 1, 7, true, false));
    worstLinear = std::max(worstLinear, testLinear<4>(1280, {6}, 0, 4, false, false));
    // q, k and v of one attention block in one launch; targets of different widths.
    worstLinear = std::max(worstLinear, testLinear<1>(1280, {70, 33, 5}, 0, 0, true, false));
    worstLinear = std::max(worstLinear, testLinear<5>(7, {9, 4, 12}, 1, 0, true, true, 1));
    worstLinear = std::max(worstLinear, testLinear<1>(1280, {5120}, 0, 0, true, false, 0));  // fc1 with GELU
    double worstDecode = 0;
    for (int keys : {1, 31, 32, 33, 447, 1500}) {
        const std::string name = "cross 1 query " + std::to_string(keys) + " keys";
        worstDecode = std::max(worstDecode, testDecodeAttention(name.c_str(), 2, 64, false, keys, keys, {{1, 0, keys, 0, 0}}, false));
    }
    worstDecode = std::max(worstDecode, testDecodeAttention("cross 5 beams 1500 keys", 3, 64, false, 1500, 1500, {{5, 0, 1500, 0, 0}}, false));
    worstDecode = std::max(worstDecode, testDecodeAttention("causal prompt tail 3 of 40", 2, 64, true, 40, 40, {{3, 0, 40, 0, 0}}, false));
    // A decode step: beam b in slot b of a 448-row cache, one query, keys from offsets (one slice
    // outside the cache, one above maxKeys: NaN rows).
    worstDecode = std::max(worstDecode, testDecodeAttention("step 5 beams offsets", 2, 64, true, 5 * 448, 448,
        {{1, 0, 1, 448 * 2, 0}, {1, 0, 1, 0, 99}, {1, 0, 1, 448 * 4, 446}, {1, 0, 1, 448, 32}, {1, 0, 1, 448 * 3, 300}}, true));
    worstDecode = std::max(worstDecode, testDecodeAttention("step invalid slices", 2, 64, true, 2 * 448, 448,
        {{1, 0, 1, 448, 448}, {1, 0, 1, 448, 10}, {1, 0, 1, -5, 3}, {1, 0, 1, 448, 500}}, true));
    worstDecode = std::max(worstDecode, testDecodeAttention("head dim 100", 3, 100, false, 77, 77, {{2, 0, 77, 0, 0}, {7, 5, 70, 0, 0}}, false));
    worstDecode = std::max(worstDecode, testDecodeAttention("head dim 24", 5, 24, true, 300, 300, {{8, 10, 290, 0, 0}}, false));
    // kernels/attention.cu (prompts, fp32 mode, head dims beyond the others): the same checks.
    worstDecode = std::max(worstDecode, testDecodeAttention("non-causal 100x300", 1, 64, false, 300, 300, {{100, 0, 300, 0, 0}}, false, true));
    worstDecode = std::max(worstDecode, testDecodeAttention("causal prompt 37 of 40, 2 beams", 3, 64, true, 80, 40, {{37, 0, 40, 0, 0}, {37, 40, 40, 0, 0}}, false, true));
    worstDecode = std::max(worstDecode, testDecodeAttention("step 5 beams offsets", 2, 64, true, 5 * 448, 448,
        {{1, 0, 1, 448 * 2, 0}, {1, 0, 1, 0, 99}, {1, 0, 1, 448 * 4, 446}, {1, 0, 1, 448, 32}, {1, 0, 1, 448 * 3, 300}}, true, true));
    worstDecode = std::max(worstDecode, testDecodeAttention("invalid offsets", 2, 64, true, 2 * 448, 448,
        {{1, 0, 1, 448, 448}, {1, 0, 1, -5, 3}, {1, 0, 1, 448, 500}}, true, true));
    for (int hd : {1, 40, 130, 256}) {
        const std::string name = "head dim " + std::to_string(hd);
        worstDecode = std::max(worstDecode, testDecodeAttention(name.c_str(), 2, hd, hd % 2 == 0, 100, 100, {{9, 3, 97, 0, 0}}, false, true));
    }
    // Half keys and values (the cross cache in fp16 mode), on all three kernels.
    worstDecode = std::max(worstDecode, testDecodeAttention("half KV cross 5 beams", 3, 64, false, 1500, 1500, {{5, 0, 1500, 0, 0}}, false, false, true));
    worstDecode = std::max(worstDecode, testDecodeAttention("half KV 9 queries", 2, 64, false, 200, 200, {{9, 0, 200, 0, 0}}, false, true, true));
    // Rows aligned to 16 bytes: the decode kernel's vector loads of keys and values.
    for (bool half : {false, true}) {
        const std::string suffix = half ? ", half KV" : ", float KV";
        worstDecode = std::max(worstDecode, testDecodeAttention(("aligned cross 1 query 1500 keys" + suffix).c_str(), 2, 64, false,
                                                                1500, 1500, {{1, 0, 1500, 0, 0}}, false, false, half, true));
        worstDecode = std::max(worstDecode, testDecodeAttention(("aligned cross 5 beams 47 keys" + suffix).c_str(), 3, 64, false,
                                                                47, 47, {{5, 0, 47, 0, 0}}, false, false, half, true));
        worstDecode = std::max(worstDecode, testDecodeAttention(("aligned step 5 beams offsets" + suffix).c_str(), 2, 64, true,
            5 * 448, 448, {{1, 0, 1, 448 * 2, 0}, {1, 0, 1, 0, 99}, {1, 0, 1, 448 * 4, 446}, {1, 0, 1, 448, 32}, {1, 0, 1, 448 * 3, 300}},
            true, false, half, true));
        worstDecode = std::max(worstDecode, testDecodeAttention(("aligned head dim 24" + suffix).c_str(), 5, 24, true, 300, 300,
                                                                {{8, 10, 290, 0, 0}}, false, false, half, true));
        worstDecode = std::max(worstDecode, testDecodeAttention(("aligned head dim 128" + suffix).c_str(), 2, 128, false, 70, 70,
                                                                {{3, 0, 70, 0, 0}}, false, false, half, true));
    }
    {
        const double e = testAttention(130, 200, 2, 128, 132, 0, 0, 1, true);
        std::printf("attention half KV q 130 k 200: rel err %.3g\n", e);
        worst = std::max(worst, e);
    }
    std::printf("worst: decode and general attention %.3g (limit 1e-5)\n", worstDecode);
    std::printf("worst: attention %.3g (limit 1e-2), linear %.3g (limit 1e-5)\n", worst, worstLinear);
    return worst <= 1e-2 && worstLinear <= 1e-5 && worstDecode <= 1e-5 ? 0 : 1;
}
