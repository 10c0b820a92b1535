// The fused attention kernel against CpuBackend::attention: beams 1 and 5, key counts 1, 447,
// 448 and 1500, queries 1..1500, causal and not, head sizes that are not multiples of 32,
// strided rows, a shared cross-attention key block, batches with no queries, and the errors;
// decode steps whose key rows and counts come from index buffers (per-step offsets, as in a
// recorded step), and offsets that leave the cache (NaN rows, nothing read outside k/v).
// Tolerance: 5e-5 relative (max |gpu - cpu| / max |cpu|): the online softmax sums the
// exponentials in another order than the CPU's two-pass softmax, over up to 1500 keys. These
// run in fp32 mode, where slices of ≤ 8 queries go to the split-key kernel (kernels/
// decode_attention) and the rest to kernels/attention; unsplitMatchesCpu runs them all on
// kernels/attention; tensorCoresMatchCpu checks fp16 mode's tensor-core kernel to 1e-2.
#include "cuda_test_support.h"

#include "core/engine/backend_factory.h"
#include "core/util/half.h"
#include "kernels/cuda_backend.h"
#include "kernels/device_info.h"

#include <QtTest>

#include <cmath>
#include <span>
#include <stdexcept>

using namespace hearsay;

namespace {

constexpr double kTolerance = 5e-5;
constexpr double kHalfTolerance = 1e-2;  // fp16 mode's tensor-core attention (the fp16 tolerance, 1e-2 relative)

struct Problem {
    int heads = 2, headDim = 64;
    int beams = 1, queries = 1, keys = 1;
    bool causal = false;
    bool sharedKeys = false;   // every beam reads the same key rows (cross-attention)
    int qPad = 0, kvPad = 0, outPad = 0;  // row stride = width + pad
    bool halfKv = false;       // k and v in Backend::allocateKv buffers (half in fp16 mode)
};

} // namespace

Q_DECLARE_METATYPE(Problem)

class TestCudaAttention : public QObject {
    Q_OBJECT
private:
    std::shared_ptr<Backend> m_cpu;
    std::shared_ptr<Backend> m_gpu;    // fp32 mode: kernels/attention for every problem
    std::shared_ptr<Backend> m_gpu16;  // fp16 mode with tensor-core attention (kernels/tensor_attention)
    std::shared_ptr<Backend> m_gpuUnsplit;  // fp32 mode, few-query slices not split over keys

    // `host` in a CPU buffer and in a KV buffer of `gpu` (allocateKv).
    test::Mirrored mirrorKv(Backend& gpu, const std::vector<float>& host) {
        test::Mirrored m{m_cpu->allocate(host.size()), gpu.allocateKv(host.size())};
        m_cpu->upload(BufferView(m.cpu.get()), host.data(), host.size());
        gpu.upload(BufferView(m.gpu.get()), host.data(), host.size());
        return m;
    }

    // Runs `p` on both backends; returns the relative error of the outputs.
    double compare(const Problem& p, uint32_t seed) { return compare(p, seed, *m_gpu); }

    double compare(const Problem& p, uint32_t seed, Backend& gpu) {
        const int width = p.heads * p.headDim;
        const int qStride = width + p.qPad, kvStride = width + p.kvPad, outStride = width + p.outPad;
        const size_t qRows = size_t(p.beams) * size_t(p.queries);
        const size_t kvRows = p.sharedKeys ? size_t(p.keys) : size_t(p.beams) * size_t(p.keys);
        // Scores of a useful spread: q, k in [-1, 1], scale headDim^-0.5 (as Whisper).
        auto q = test::mirror(*m_cpu, gpu, test::randomFloats(qRows * size_t(qStride), seed));
        auto kHost = test::randomFloats(kvRows * size_t(kvStride), seed + 1, -2.0f, 2.0f);
        auto vHost = test::randomFloats(kvRows * size_t(kvStride), seed + 2);
        if (p.halfKv) {  // the CPU gets the values the GPU's half buffers hold
            for (float& x : kHost) x = halfToFloat(floatToHalf(x));
            for (float& x : vHost) x = halfToFloat(floatToHalf(x));
        }
        auto k = p.halfKv ? mirrorKv(gpu, kHost) : test::mirror(*m_cpu, gpu, kHost);
        auto v = p.halfKv ? mirrorKv(gpu, vHost) : test::mirror(*m_cpu, gpu, vHost);
        auto out = test::mirror(*m_cpu, gpu, std::vector<float>(qRows * size_t(outStride), 42.0f));
        std::vector<AttentionBatch> batches;
        for (int b = 0; b < p.beams; ++b) {
            batches.push_back({b * p.queries, p.queries, p.sharedKeys ? 0 : size_t(b) * size_t(p.keys), p.keys});
        }
        auto cpuWorkspace = m_cpu->allocate(std::max<size_t>(1, m_cpu->attentionWorkspaceElements(p.queries, p.keys)));
        auto gpuWorkspace = gpu.allocate(std::max<size_t>(1, gpu.attentionWorkspaceElements(p.queries, p.keys)));
        AttentionArgs args;
        args.qStride = qStride;
        args.kvStride = kvStride;
        args.outStride = outStride;
        args.heads = p.heads;
        args.headDim = p.headDim;
        args.scale = 1.0f / std::sqrt(float(p.headDim));
        args.causal = p.causal;
        args.batches = batches;
        args.q = q.cpu.get();
        args.k = k.cpu.get();
        args.v = v.cpu.get();
        args.out = out.cpu.get();
        args.workspace = cpuWorkspace.get();
        m_cpu->attention(args);
        args.q = q.gpu.get();
        args.k = k.gpu.get();
        args.v = v.gpu.get();
        args.out = out.gpu.get();
        args.workspace = gpuWorkspace.get();
        gpu.attention(args);
        const auto expected = test::readBack(*m_cpu, *out.cpu), actual = test::readBack(gpu, *out.gpu);
        // Padding columns of the output rows are not written.
        for (size_t r = 0; r < qRows; ++r) {
            for (int c = width; c < outStride; ++c) {
                if (actual[r * size_t(outStride) + size_t(c)] != 42.0f) return INFINITY;
            }
        }
        return test::relativeError(actual, expected);
    }

    // A causal decode step's arguments on the GPU buffers: one query row and one static key per
    // batch, with per-step key row and count offsets from `ids` ([rows][counts]).
    static AttentionArgs stepArgs(int heads, int headDim, std::span<const AttentionBatch> batches, DeviceBuffer* q,
                                  DeviceBuffer* kv, DeviceBuffer* out, IndexBuffer* ids) {
        AttentionArgs args;
        args.qStride = args.kvStride = args.outStride = heads * headDim;
        args.heads = heads;
        args.headDim = headDim;
        args.scale = 0.3f;
        args.causal = true;
        args.batches = batches;
        args.q = q;
        args.k = args.v = kv;
        args.out = out;
        args.keyRowOffsets = IndexView(ids, 0, batches.size());
        args.keyCountOffsets = IndexView(ids, batches.size(), batches.size());
        return args;
    }

private slots:
    void initTestCase() {
        if (const QString why = test::missingGpuReason(); !why.isEmpty()) QSKIP(qPrintable(why));
        auto gpu = createBackend(BackendKind::Cuda, {0, 0, Precision::Fp32});
        QVERIFY2(gpu.ok(), gpu.ok() ? "" : gpu.message().c_str());
        m_gpu = gpu.value();
        cuda::CudaBackendOptions options;  // not through createBackend: its environment switches do not apply
        options.precision = Precision::Fp16;
        options.tensorAttention = true;
        m_gpu16 = std::make_shared<cuda::CudaBackend>(options);
        cuda::CudaBackendOptions unsplit;
        unsplit.precision = Precision::Fp32;
        unsplit.splitAttention = false;
        m_gpuUnsplit = std::make_shared<cuda::CudaBackend>(unsplit);
        m_cpu = test::cpuBackend(2);
    }

    void matchesCpu_data() {
        QTest::addColumn<Problem>("problem");
        auto add = [](const char* name, Problem p) { QTest::newRow(name) << p; };
        // Decoder self-attention, one new token per beam over a cache of `keys` positions.
        for (int beams : {1, 5}) {
            for (int keys : {1, 2, 33, 447, 448}) {
                Problem p{.heads = 6, .headDim = 64, .beams = beams, .queries = 1, .keys = keys, .causal = true};
                QTest::addRow("self step beams %d keys %d", beams, keys) << p;
            }
        }
        // Decoder self-attention over a prompt, and the whole sequence re-run (self cache off).
        add("self prompt 7", {.heads = 6, .headDim = 64, .beams = 1, .queries = 7, .keys = 7, .causal = true});
        add("self prompt 33 of 40", {.heads = 4, .headDim = 64, .beams = 5, .queries = 33, .keys = 40, .causal = true});
        add("self rerun 448 beams 2", {.heads = 2, .headDim = 64, .beams = 2, .queries = 448, .keys = 448, .causal = true});
        // Cross-attention: every beam reads the same 1500 encoder positions.
        for (int beams : {1, 5}) {
            for (int queries : {1, 3, 40}) {
                Problem p{.heads = 6, .headDim = 64, .beams = beams, .queries = queries, .keys = 1500, .sharedKeys = true};
                QTest::addRow("cross beams %d queries %d", beams, queries) << p;
            }
        }
        add("cross one key", {.heads = 3, .headDim = 64, .beams = 5, .queries = 2, .keys = 1, .sharedKeys = true});
        // Encoder self-attention over a whole window.
        add("encoder 1500", {.heads = 2, .headDim = 32, .beams = 1, .queries = 1500, .keys = 1500});
        add("encoder 1500 hd 64", {.heads = 6, .headDim = 64, .beams = 1, .queries = 1500, .keys = 1500});
        // Head sizes of every kernel variant, not multiples of 32, strided rows.
        for (int hd : {1, 24, 32, 40, 64, 100, 128, 130, 256}) {
            Problem p{.heads = 3, .headDim = hd, .beams = 2, .queries = 9, .keys = 447, .causal = hd % 2 == 0,
                      .qPad = 2 * 3 * hd + 1, .kvPad = 5, .outPad = 3};
            QTest::addRow("head dim %d", hd) << p;
        }
        add("non-causal 447 keys", {.heads = 5, .headDim = 64, .beams = 5, .queries = 17, .keys = 447});
        // Few queries (≤ 8: kernels/decode_attention, split over 32-key groups) at every head size
        // it takes (≤ 128) and beyond (130: kernels/attention), key counts around the groups.
        for (int hd : {1, 24, 100, 128, 130}) {
            Problem p{.heads = 3, .headDim = hd, .beams = 2, .queries = 3, .keys = 65, .causal = hd % 2 == 0,
                      .qPad = 1, .kvPad = 2, .outPad = 3};
            QTest::addRow("few queries head dim %d", hd) << p;
        }
        add("8 queries 31 keys", {.heads = 2, .headDim = 64, .beams = 3, .queries = 8, .keys = 31, .causal = true});
        add("8 queries 32 keys", {.heads = 2, .headDim = 64, .beams = 1, .queries = 8, .keys = 32});
        add("8 queries 33 keys", {.heads = 2, .headDim = 64, .beams = 1, .queries = 8, .keys = 33, .causal = true});
        add("17 beams of one query", {.heads = 2, .headDim = 64, .beams = 17, .queries = 1, .keys = 100, .causal = true});
        add("causal queries = keys 1500", {.heads = 1, .headDim = 64, .beams = 1, .queries = 1500, .keys = 1500, .causal = true});
    }

    void matchesCpu() {
        QFETCH(Problem, problem);
        const double error = compare(problem, 100);
        QVERIFY2(error <= kTolerance, qPrintable(QString("relative error %1").arg(error)));
    }

    // The same problems with the split-key kernel switched off (HEARSAY_CUDA_DISABLE=split-attention):
    // kernels/attention alone.
    void unsplitMatchesCpu_data() { matchesCpu_data(); }

    void unsplitMatchesCpu() {
        QFETCH(Problem, problem);
        const double error = compare(problem, 100, *m_gpuUnsplit);
        QVERIFY2(error <= kTolerance, qPrintable(QString("relative error %1").arg(error)));
    }

    // Fp16 mode: slices of ≥ 16 queries with head dimension 64, no mask and 16-byte aligned rows
    // run on tensor cores (q, k, v, p rounded to half; fp32 softmax and sums), held to the fp16
    // tolerance (1e-2 relative). Query and key counts around the kernel's tiles (16 per warp, 128 per block,
    // 64 keys per tile); strides with padding (multiples of 4 floats: still the tensor path; odd:
    // kernels/attention); several beams, and causal or few-query slices (kernels/attention).
    void tensorCoresMatchCpu_data() {
        QTest::addColumn<Problem>("problem");
        auto add = [](const char* name, Problem p) { QTest::newRow(name) << p; };
        add("encoder 1500 heads 6", {.heads = 6, .headDim = 64, .beams = 1, .queries = 1500, .keys = 1500});
        add("encoder 1500 heads 20", {.heads = 20, .headDim = 64, .beams = 1, .queries = 1500, .keys = 1500});
        for (int queries : {16, 17, 127, 128, 129, 300}) {
            for (int keys : {1, 63, 64, 65, 447}) {
                Problem p{.heads = 2, .headDim = 64, .beams = 1, .queries = queries, .keys = keys};
                QTest::addRow("queries %d keys %d", queries, keys) << p;
            }
        }
        add("padded rows (tensor path)", {.heads = 3, .headDim = 64, .beams = 1, .queries = 200, .keys = 333,
                                          .qPad = 4, .kvPad = 12, .outPad = 3});
        add("odd stride (fp32 kernel)", {.heads = 3, .headDim = 64, .beams = 1, .queries = 200, .keys = 333,
                                         .kvPad = 5});
        add("cross beams 5 queries 40", {.heads = 6, .headDim = 64, .beams = 5, .queries = 40, .keys = 1500,
                                         .sharedKeys = true});
        add("cross beams 5 queries 3 (fp32 kernel)", {.heads = 6, .headDim = 64, .beams = 5, .queries = 3,
                                                     .keys = 1500, .sharedKeys = true});
        add("causal prompt (fp32 kernel)", {.heads = 6, .headDim = 64, .beams = 2, .queries = 100, .keys = 100,
                                            .causal = true});
        add("head dim 32 (fp32 kernel)", {.heads = 2, .headDim = 32, .beams = 1, .queries = 1500, .keys = 1500});
    }

    void tensorCoresMatchCpu() {
        QFETCH(Problem, problem);
        const double error = compare(problem, 300, *m_gpu16);
        qInfo("relative error %.3g", error);
        QVERIFY2(error <= kHalfTolerance, qPrintable(QString("relative error %1").arg(error)));
    }

    // Half keys and values (fp16 mode's cross cache): every kernel reads them. The CPU holds the
    // same half-rounded values, so the fp32 kernels (few queries, causal, 9..15 queries) stay at
    // 5e-5; the tensor-core kernel at 1e-2.
    void halfKvMatchesCpu_data() {
        QTest::addColumn<Problem>("problem");
        QTest::addColumn<double>("tolerance");
        auto add = [](const char* name, Problem p, double tolerance) {
            p.halfKv = true;
            QTest::newRow(name) << p << tolerance;
        };
        add("step cross beams 1 (split)", {.heads = 6, .headDim = 64, .beams = 1, .queries = 1, .keys = 1500,
                                           .sharedKeys = true}, kTolerance);
        add("step cross beams 5 (split)", {.heads = 6, .headDim = 64, .beams = 5, .queries = 1, .keys = 1500,
                                           .sharedKeys = true}, kTolerance);
        add("prompt cross 12 queries (fp32 kernel)", {.heads = 6, .headDim = 64, .beams = 1, .queries = 12,
                                                      .keys = 1500, .sharedKeys = true}, kTolerance);
        add("prompt cross 40 queries (tensor cores)", {.heads = 6, .headDim = 64, .beams = 2, .queries = 40,
                                                       .keys = 1500, .sharedKeys = true}, kHalfTolerance);
        add("causal 7 of 40 (split)", {.heads = 3, .headDim = 64, .beams = 2, .queries = 7, .keys = 40,
                                       .causal = true}, kTolerance);
        add("head dim 100 (split)", {.heads = 2, .headDim = 100, .beams = 1, .queries = 3, .keys = 70}, kTolerance);
    }

    void halfKvMatchesCpu() {
        QFETCH(Problem, problem);
        QFETCH(double, tolerance);
        const double error = compare(problem, 500, *m_gpu16);
        qInfo("relative error %.3g", error);
        QVERIFY2(error <= tolerance, qPrintable(QString("relative error %1").arg(error)));
    }

    void stepOffsetsMatchCpu_data() {
        QTest::addColumn<int>("beams");
        QTest::addColumn<std::vector<int>>("positions");  // per beam: keys = position + 1
        QTest::addColumn<bool>("bounded");                // AttentionArgs::maxKeys = 448 (as the decoder sets it)
        QTest::newRow("beam 1, cache 0") << 1 << std::vector<int>{0} << false;
        QTest::newRow("beam 1, cache 1") << 1 << std::vector<int>{1} << false;
        QTest::newRow("beam 1, cache 447") << 1 << std::vector<int>{447} << false;
        QTest::newRow("beams 5, mixed") << 5 << std::vector<int>{0, 1, 446, 447, 200} << false;
        QTest::newRow("beams 5, all long") << 5 << std::vector<int>{447, 447, 447, 447, 447} << false;
        QTest::newRow("beam 1, cache 447, bounded") << 1 << std::vector<int>{447} << true;
        QTest::newRow("beams 5, mixed, bounded") << 5 << std::vector<int>{0, 1, 446, 447, 31} << true;
    }

    void stepOffsetsMatchCpu() {
        // A decode step as the decoder states it: batch b = query row b, 1 key at row 0, plus
        // keyRowOffsets[b] = the beam's first cache row (its slot · 448) and keyCountOffsets[b]
        // = its position. Slots are permuted, as after beam reorders.
        QFETCH(int, beams);
        QFETCH(std::vector<int>, positions);
        QFETCH(bool, bounded);
        const int heads = 6, headDim = 64, width = heads * headDim, capacity = 448, slotCount = 5;
        auto q = test::mirror(*m_cpu, *m_gpu, test::randomFloats(size_t(beams) * width, 7));
        auto k = test::mirror(*m_cpu, *m_gpu, test::randomFloats(size_t(slotCount) * capacity * width, 8, -2.0f, 2.0f));
        auto v = test::mirror(*m_cpu, *m_gpu, test::randomFloats(size_t(slotCount) * capacity * width, 9));
        auto out = test::mirror(*m_cpu, *m_gpu, std::vector<float>(size_t(beams) * width, 42.0f));
        std::vector<int32_t> values;  // [first cache rows][positions]
        std::vector<AttentionBatch> batches, plain;
        for (int b = 0; b < beams; ++b) values.push_back(((2 * b + 3) % slotCount) * capacity);
        for (int b = 0; b < beams; ++b) values.push_back(positions[size_t(b)]);
        for (int b = 0; b < beams; ++b) {
            batches.push_back({b, 1, 0, 1});
            plain.push_back({b, 1, size_t(values[size_t(b)]), positions[size_t(b)] + 1});
        }
        auto ids = test::mirrorIds(*m_cpu, *m_gpu, values);
        AttentionArgs args;
        args.qStride = args.kvStride = args.outStride = width;
        args.heads = heads;
        args.headDim = headDim;
        args.scale = 1.0f / std::sqrt(float(headDim));
        args.causal = true;
        args.batches = batches;
        args.maxKeys = bounded ? capacity : 0;
        auto run = [&](Backend& backend, DeviceBuffer* qb, DeviceBuffer* kb, DeviceBuffer* vb, DeviceBuffer* ob,
                       IndexBuffer* idb) {
            args.q = qb;
            args.k = kb;
            args.v = vb;
            args.out = ob;
            args.keyRowOffsets = IndexView(idb, 0, size_t(beams));
            args.keyCountOffsets = IndexView(idb, size_t(beams), size_t(beams));
            backend.attention(args);
        };
        run(*m_cpu, q.cpu.get(), k.cpu.get(), v.cpu.get(), out.cpu.get(), ids.cpu.get());
        run(*m_gpu, q.gpu.get(), k.gpu.get(), v.gpu.get(), out.gpu.get(), ids.gpu.get());
        const auto expected = test::readBack(*m_cpu, *out.cpu), actual = test::readBack(*m_gpu, *out.gpu);
        const double error = test::relativeError(actual, expected);
        qInfo("relative error %.3g", error);
        QVERIFY2(error <= kTolerance, qPrintable(QString("relative error %1").arg(error)));
        // The CPU's offset form is its static form exactly.
        auto staticOut = m_cpu->allocate(size_t(beams) * width);
        AttentionArgs same = args;
        same.q = q.cpu.get();
        same.k = k.cpu.get();
        same.v = v.cpu.get();
        same.out = staticOut.get();
        same.batches = plain;
        same.keyRowOffsets = {};
        same.keyCountOffsets = {};
        m_cpu->attention(same);
        QCOMPARE(test::readBack(*m_cpu, *staticOut), expected);
    }

    void keysBeyondMaxKeysGiveNaN() {
        // Both beams' keys lie inside k and v, but beam 1's 10 keys exceed maxKeys = 8 (a slot of
        // 8 rows): NaN on the GPU (the split kernel reads no key past maxKeys), refused by the CPU.
        const int heads = 2, headDim = 32, width = heads * headDim, rows = 20;
        auto q = test::mirror(*m_cpu, *m_gpu, test::randomFloats(2 * width, 13));
        auto kv = test::mirror(*m_cpu, *m_gpu, test::randomFloats(size_t(rows) * width, 14));
        auto out = test::mirror(*m_cpu, *m_gpu, std::vector<float>(2 * width, 42.0f));
        auto ids = test::mirrorIds(*m_cpu, *m_gpu, {0, 8, /*counts*/ 7, 9});
        const std::vector<AttentionBatch> batches = {{0, 1, 0, 1}, {1, 1, 0, 1}};
        AttentionArgs args = stepArgs(heads, headDim, batches, q.gpu.get(), kv.gpu.get(), out.gpu.get(), ids.gpu.get());
        args.maxKeys = 8;
        m_gpu->attention(args);
        const auto actual = test::readBack(*m_gpu, *out.gpu);
        for (int c = 0; c < width; ++c) {
            QVERIFY(std::isfinite(actual[size_t(c)]));
            QVERIFY(std::isnan(actual[size_t(width + c)]));
        }
        AttentionArgs cpuArgs = stepArgs(heads, headDim, batches, q.cpu.get(), kv.cpu.get(), out.cpu.get(), ids.cpu.get());
        cpuArgs.maxKeys = 8;
        QVERIFY_THROWS_EXCEPTION(std::logic_error, m_cpu->attention(cpuArgs));
    }

    void offsetsOutsideTheCacheGiveNaN() {
        // Beam 0 valid; beam 1's keys end past the cache; beam 2 has a key count of 0 after its
        // offset. The GPU writes NaN rows for 1 and 2 (the CPU throws when its work runs).
        const int heads = 2, headDim = 32, width = heads * headDim, rows = 20;
        auto q = test::mirror(*m_cpu, *m_gpu, test::randomFloats(3 * width, 11));
        auto kv = test::mirror(*m_cpu, *m_gpu, test::randomFloats(size_t(rows) * width, 12));
        auto out = test::mirror(*m_cpu, *m_gpu, std::vector<float>(3 * width, 42.0f));
        auto ids = test::mirrorIds(*m_cpu, *m_gpu, {0, 15, 0, /*counts*/ 4, 5, -1});
        const std::vector<AttentionBatch> batches = {{0, 1, 0, 1}, {1, 1, 0, 1}, {2, 1, 0, 1}};
        AttentionArgs args = stepArgs(heads, headDim, batches, q.gpu.get(), kv.gpu.get(), out.gpu.get(), ids.gpu.get());
        m_gpu->attention(args);
        const auto actual = test::readBack(*m_gpu, *out.gpu);
        for (int c = 0; c < width; ++c) {
            QVERIFY(std::isfinite(actual[size_t(c)]));
            QVERIFY(std::isnan(actual[size_t(width + c)]));
            QVERIFY(std::isnan(actual[size_t(2 * width + c)]));
        }
        // Beam 0 as the CPU computes it.
        const std::vector<AttentionBatch> first = {{0, 1, 0, 5}};
        AttentionArgs cpuArgs = args;
        cpuArgs.q = q.cpu.get();
        cpuArgs.k = cpuArgs.v = kv.cpu.get();
        cpuArgs.out = out.cpu.get();
        cpuArgs.batches = first;
        cpuArgs.keyRowOffsets = {};
        cpuArgs.keyCountOffsets = {};
        m_cpu->attention(cpuArgs);
        const auto expected = test::readBack(*m_cpu, *out.cpu);
        QVERIFY(test::relativeError(std::vector<float>(actual.begin(), actual.begin() + width),
                                    std::vector<float>(expected.begin(), expected.begin() + width)) <= kTolerance);
        // The CPU refuses the same offsets.
        cpuArgs.batches = batches;
        cpuArgs.keyRowOffsets = IndexView(ids.cpu.get(), 0, 3);
        cpuArgs.keyCountOffsets = IndexView(ids.cpu.get(), 3, 3);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, m_cpu->attention(cpuArgs));
        // An offset view shorter than the batches is a host-side error on both.
        args.keyCountOffsets = IndexView(ids.gpu.get(), 3, 2);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, m_gpu->attention(args));
    }

    void batchesWithoutQueries() {
        // A batch with no queries (and no keys) is skipped; its output rows stay as they were.
        const int width = 64;
        auto q = test::mirror(*m_cpu, *m_gpu, test::randomFloats(4 * width, 1));
        auto kv = test::mirror(*m_cpu, *m_gpu, test::randomFloats(10 * width, 2));
        const auto initial = test::randomFloats(4 * width, 3);
        auto out = test::mirror(*m_cpu, *m_gpu, initial);
        const std::vector<AttentionBatch> batches = {{0, 2, 0, 5}, {2, 0, 5, 0}, {2, 1, 5, 5}};
        for (auto [backend, qb, kvb, ob] : {std::tuple{m_cpu.get(), q.cpu.get(), kv.cpu.get(), out.cpu.get()},
                                           std::tuple{m_gpu.get(), q.gpu.get(), kv.gpu.get(), out.gpu.get()}}) {
            AttentionArgs args;
            args.q = qb;
            args.k = args.v = kvb;
            args.out = ob;
            args.qStride = args.kvStride = args.outStride = width;
            args.heads = 2;
            args.headDim = 32;
            args.scale = 0.2f;
            args.causal = true;
            args.batches = batches;
            auto workspace = backend->allocate(std::max<size_t>(1, backend->attentionWorkspaceElements(2, 5)));
            args.workspace = workspace.get();
            backend->attention(args);
        }
        const auto expected = test::readBack(*m_cpu, *out.cpu), actual = test::readBack(*m_gpu, *out.gpu);
        QVERIFY(std::equal(actual.begin() + 3 * width, actual.end(), initial.begin() + 3 * width));
        QVERIFY(test::relativeError(actual, expected) <= kTolerance);
    }

    void errors() {
        // Key count 0 with queries, causal with fewer keys than queries, views too short, and a
        // head size above the kernel's limit: std::logic_error, as CpuBackend (where it applies).
        auto buffer = m_gpu->allocate(64 * 600);
        auto workspace = m_gpu->allocate(1);
        AttentionArgs args;
        args.q = args.k = args.v = args.out = buffer.get();
        args.workspace = workspace.get();
        args.qStride = args.kvStride = args.outStride = 64;
        args.heads = 2;
        args.headDim = 32;
        std::vector<AttentionBatch> batches = {{0, 1, 0, 0}};
        args.batches = batches;
        QVERIFY_THROWS_EXCEPTION(std::logic_error, m_gpu->attention(args));
        batches = {{0, 5, 0, 4}};
        args.causal = true;
        QVERIFY_THROWS_EXCEPTION(std::logic_error, m_gpu->attention(args));
        batches = {{0, 1, 0, 601}};
        QVERIFY_THROWS_EXCEPTION(std::logic_error, m_gpu->attention(args));
        batches = {{0, 1, 0, 4}};
        args.heads = 1;
        args.headDim = 257;
        args.qStride = args.kvStride = args.outStride = 257;
        QVERIFY_THROWS_EXCEPTION(std::logic_error, m_gpu->attention(args));
        // The CPU agrees on the first one.
        auto cpuBuffer = m_cpu->allocate(64 * 10);
        AttentionArgs cpuArgs = args;
        cpuArgs.q = cpuArgs.k = cpuArgs.v = cpuArgs.out = cpuBuffer.get();
        cpuArgs.heads = 2;
        cpuArgs.headDim = 32;
        cpuArgs.qStride = cpuArgs.kvStride = cpuArgs.outStride = 64;
        batches = {{0, 1, 0, 0}};
        cpuArgs.workspace = {};
        QVERIFY_THROWS_EXCEPTION(std::logic_error, m_cpu->attention(cpuArgs));
    }
};

QTEST_APPLESS_MAIN(TestCudaAttention)
#include "tst_cuda_attention.moc"
