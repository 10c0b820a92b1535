// CpuBackend's ops against plain double-precision loops written from their definitions:
// linear (gemv and gemm paths, bias, fused residual), layer norm, exact GELU, conv1d by
// im2col (stride 1 and 2), embedding, row copies, attention (both paths, causal, batches);
// f16 weight matrices (kept as f16 by loadWeight) in linear, conv1d and embed.
#include "core/engine/backend_factory.h"
#include "core/backend/cpu_backend.h"
#include "core/model/quantize.h"
#include "core/model/tensor.h"
#include "core/util/half.h"
#include "engine_test_model.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

using namespace hearsay;

namespace {

std::vector<float> randomVector(size_t n, uint64_t seed, double stddev = 1.0) {
    std::vector<float> v(n);
    fillInitValues(seed, "ops", 0, n, 0.0, stddev, v.data());
    return v;
}

struct Device {
    std::unique_ptr<DeviceBuffer> buffer;
    BufferView view() const { return BufferView(buffer.get()); }
};

Device put(Backend& backend, const std::vector<float>& host) {
    Device d{backend.allocate(host.size())};
    backend.upload(d.view(), host.data(), host.size());
    return d;
}

// Token ids then positions in one index buffer (embed() reads its ids from index buffers).
struct DeviceIds {
    std::unique_ptr<IndexBuffer> buffer;
    size_t count = 0;
    IndexView tokens() const { return IndexView(buffer.get(), 0, count); }
    IndexView positions() const { return IndexView(buffer.get(), count, count); }
};

DeviceIds putIds(Backend& backend, std::span<const int> tokens, std::span<const int> positions) {
    DeviceIds ids{backend.allocateIndices(tokens.size() + positions.size()), tokens.size()};
    std::vector<int32_t> values(tokens.begin(), tokens.end());
    values.insert(values.end(), positions.begin(), positions.end());
    backend.uploadIndices(IndexView(ids.buffer.get()), values);
    return ids;
}

std::vector<float> get(Backend& backend, const Device& d) {
    std::vector<float> host(d.buffer->elements());
    backend.download(d.view(), host.data(), host.size());
    return host;
}

// Reference attention in double: one batch, rows strided like the backend's.
void referenceAttention(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                        std::vector<double>& out, int stride, int heads, int headDim, const AttentionBatch& b,
                        bool causal, double scale) {
    for (int h = 0; h < heads; ++h) {
        for (int j = 0; j < b.queryCount; ++j) {
            const int visible = causal ? b.keyCount - b.queryCount + j + 1 : b.keyCount;
            std::vector<double> s(static_cast<size_t>(visible));
            double maxScore = -1e300;
            for (int i = 0; i < visible; ++i) {
                double dot = 0;
                for (int c = 0; c < headDim; ++c) {
                    dot += double(q[size_t((b.queryRow + j) * stride + h * headDim + c)]) *
                           k[size_t((int(b.keyRow) + i) * stride + h * headDim + c)];
                }
                s[size_t(i)] = dot * scale;
                maxScore = std::max(maxScore, s[size_t(i)]);
            }
            double sum = 0;
            for (auto& x : s) sum += (x = std::exp(x - maxScore));
            for (int c = 0; c < headDim; ++c) {
                double acc = 0;
                for (int i = 0; i < visible; ++i) acc += s[size_t(i)] / sum * v[size_t((int(b.keyRow) + i) * stride + h * headDim + c)];
                out[size_t((b.queryRow + j) * stride + h * headDim + c)] = acc;
            }
        }
    }
}

// Values rounded to f16 (as bits) and the same values widened back to float32.
struct HalfValues {
    std::vector<uint16_t> bits;
    std::vector<float> widened;
};

HalfValues toHalf(const std::vector<float>& v) {
    HalfValues h;
    for (float x : v) {
        h.bits.push_back(floatToHalf(x));
        h.widened.push_back(halfToFloat(h.bits.back()));
    }
    return h;
}

// An f16 weight through loadWeight, as a model's tensor would arrive. With `misaligned` the
// bits sit at an odd address (the backend must then copy them).
Device loadHalf(Backend& backend, const HalfValues& h, std::vector<int64_t> shape, std::vector<std::byte>& storage,
                bool misaligned = false) {
    storage.assign(h.bits.size() * 2 + 1, std::byte{0});
    std::byte* at = storage.data() + (misaligned ? 1 : 0);
    if (reinterpret_cast<uintptr_t>(storage.data()) % 2 != 0) at = storage.data() + (misaligned ? 0 : 1);
    std::memcpy(at, h.bits.data(), h.bits.size() * 2);
    TensorView view;
    view.name = "test.f16";
    view.dtype = DType::F16;
    view.shape = std::move(shape);
    view.data = at;
    view.bytes = h.bits.size() * 2;
    return Device{backend.loadWeight(view)};
}

} // namespace

class TestEngineOps : public QObject {
    Q_OBJECT
private slots:
    void linear_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<bool>("withBias");
        QTest::addColumn<bool>("accumulate");
        QTest::addColumn<int>("threads");
        QTest::newRow("gemv") << 1 << true << false << 2;
        QTest::newRow("gemv residual") << 1 << true << true << 1;
        QTest::newRow("gemm") << 7 << true << false << 2;
        QTest::newRow("gemm no bias") << 7 << false << false << 3;
        QTest::newRow("gemm residual") << 40 << true << true << 2;
    }
    void linear() {
        QFETCH(int, rows);
        QFETCH(bool, withBias);
        QFETCH(bool, accumulate);
        QFETCH(int, threads);
        CpuBackend be(threads);
        const int in = 37, out = 53;
        auto x = randomVector(size_t(rows * in), 1), w = randomVector(size_t(out * in), 2), b = randomVector(size_t(out), 3);
        auto y0 = randomVector(size_t(rows * out), 4);
        Device dx = put(be, x), dw = put(be, w), db = put(be, b), dy = put(be, y0);
        be.linear(dx.view(), dw.view(), withBias ? db.view() : BufferView(), dy.view(), rows, in, out, accumulate);
        std::vector<double> want(size_t(rows * out));
        for (int r = 0; r < rows; ++r) {
            for (int o = 0; o < out; ++o) {
                double acc = (withBias ? b[size_t(o)] : 0.0) + (accumulate ? y0[size_t(r * out + o)] : 0.0);
                for (int i = 0; i < in; ++i) acc += double(x[size_t(r * in + i)]) * w[size_t(o * in + i)];
                want[size_t(r * out + o)] = acc;
            }
        }
        QVERIFY(test::relativeError(get(be, dy), want) < 1e-6);
    }

    void linearF16_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<bool>("accumulate");
        QTest::addColumn<bool>("misaligned");
        QTest::newRow("1 row") << 1 << false << false;
        QTest::newRow("1 row residual, copied") << 1 << true << true;
        QTest::newRow("3 rows") << 3 << false << false;
        QTest::newRow("8 rows") << 8 << true << false;
        QTest::newRow("9 rows (gemm)") << 9 << false << false;
        QTest::newRow("40 rows (gemm)") << 40 << true << true;
    }
    // f16 weights against double, and against the float32 buffer of the same (widened) values.
    void linearF16() {
        QFETCH(int, rows);
        QFETCH(bool, accumulate);
        QFETCH(bool, misaligned);
        CpuBackend be(2);
        const int in = 61, out = 203;  // 61 = 3·16 + 8 + 5: every loop of the dot kernels
        auto x = randomVector(size_t(rows * in), 21), b = randomVector(size_t(out), 23);
        auto y0 = randomVector(size_t(rows * out), 24);
        const HalfValues w = toHalf(randomVector(size_t(out * in), 22));
        std::vector<std::byte> storage;
        Device dw = loadHalf(be, w, {out, in}, storage, misaligned);
        QVERIFY(dw.buffer);
        QCOMPARE(dw.buffer->bytes(), size_t(out * in) * sizeof(uint16_t));  // what it occupies: halves
        Device dx = put(be, x), db = put(be, b), dy = put(be, y0), dw32 = put(be, w.widened), dy32 = put(be, y0);
        be.linear(dx.view(), dw.view(), db.view(), dy.view(), rows, in, out, accumulate);
        be.linear(dx.view(), dw32.view(), db.view(), dy32.view(), rows, in, out, accumulate);
        std::vector<double> want(size_t(rows * out));
        for (int r = 0; r < rows; ++r) {
            for (int o = 0; o < out; ++o) {
                double acc = b[size_t(o)] + (accumulate ? y0[size_t(r * out + o)] : 0.0);
                for (int i = 0; i < in; ++i) acc += double(x[size_t(r * in + i)]) * w.widened[size_t(o * in + i)];
                want[size_t(r * out + o)] = acc;
            }
        }
        const auto got = get(be, dy), got32 = get(be, dy32);
        const double error = test::relativeError(got, want);
        QVERIFY2(error < 1e-6, QByteArray::number(error));
        // The float32 copy of the same values: within float rounding (the two may take different
        // kernels: the builtin BLAS has no small-batch dot path for float32 weights).
        std::vector<double> reference(got32.begin(), got32.end());
        const double againstF32 = test::relativeError(got, reference);
        QVERIFY2(againstF32 < 1e-6, QByteArray::number(againstF32));
        // Ops that take only float32 refuse an f16 buffer instead of reading it as float32.
        std::vector<float> host(static_cast<size_t>(in));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, be.download(dw.view(), host.data(), host.size()));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, be.gelu(dw.view()));
    }

    // The cross cache's projection written into a half buffer: the float32 product rounded to
    // nearest, on every path of linear() (one row, a few rows, the GEMM, in blocks of kHalfYRows
    // rows where there are more: 1100 is two whole blocks and part of a third), for float32, f16
    // and q8_0 weights (the SGEMM on widened rows, the integer GEMM); a half weight as y and
    // accumulating into half are refused.
    void linearIntoHalfCache_data() {
        QTest::addColumn<int>("type");
        QTest::newRow("f32") << int(DType::F32);
        QTest::newRow("f16") << int(DType::F16);
        QTest::newRow("q8_0") << int(DType::Q8_0);
    }
    void linearIntoHalfCache() {
        QFETCH(int, type);
        static_assert(2 * CpuBackend::kHalfYRows < 1100 && 3 * CpuBackend::kHalfYRows > 1100);
        CpuBackend be(2, Precision::Fp16);
        const int in = 64, out = 48;
        for (int rows : {1, 3, 40, 1100}) {
            const auto x = randomVector(size_t(rows * in), 31), w = randomVector(size_t(out * in), 32, 0.2);
            const auto b = randomVector(size_t(out), 33);
            std::vector<std::byte> storage;
            Device dw;
            if (DType(type) == DType::F32) {
                dw = put(be, w);
            } else if (DType(type) == DType::F16) {
                dw = loadHalf(be, toHalf(w), {out, in}, storage);
            } else {
                const int64_t rowBytes = dtypeBytes(DType::Q8_0, in);
                storage.resize(size_t(out * rowBytes));
                for (int o = 0; o < out; ++o) quantizeRow(DType::Q8_0, w.data() + o * in, in, storage.data() + o * rowBytes);
                TensorView view;
                view.name = "test.q8_0";
                view.dtype = DType::Q8_0;
                view.shape = {out, in};
                view.data = storage.data();
                view.bytes = storage.size();
                dw = Device{be.loadWeight(view)};
            }
            Device dx = put(be, x), db = put(be, b), dy32{be.allocate(size_t(rows * out))};
            Device dy{be.allocateKv(size_t(rows * out))}, dyBlocks{be.allocate(size_t(rows * out))};
            be.linear(dx.view(), dw.view(), db.view(), dy32.view(), rows, in, out, false);
            be.linear(dx.view(), dw.view(), db.view(), dy.view(), rows, in, out, false);
            // The float32 products of the same blocks of rows, one call each: the BLAS's GEMM may
            // round a row's sums differently with another number of rows beside it.
            const int block = rows > CpuBackend::kSmallBatchRows ? int(CpuBackend::kHalfYRows) : rows;
            for (int first = 0; first < rows; first += block) {
                const int count = std::min(block, rows - first);
                be.linear(dx.view().slice(size_t(first * in), size_t(count * in)), dw.view(), db.view(),
                          dyBlocks.view().slice(size_t(first * out), size_t(count * out)), count, in, out, false);
            }
            std::vector<float> rounded = get(be, dyBlocks);
            for (float& value : rounded) value = halfToFloat(floatToHalf(value));
            const std::vector<float> half = get(be, dy), whole = get(be, dy32);
            QCOMPARE(half, rounded);
            // ... and within one step of half of the product of all rows at once, or 1e-5 where the
            // sum nearly cancels (64 products of order one: float32 sums in another order differ by
            // about 1e-7 each); none apart where the GEMM is exact: the integer products.
            for (size_t i = 0; i < half.size(); ++i) {
                const float nearest = halfToFloat(floatToHalf(whole[i]));
                if (DType(type) == DType::Q8_0) QCOMPARE(half[i], nearest);
                else QVERIFY(std::abs(half[i] - nearest) <= std::abs(nearest) * 0x1p-10f + 1e-5f);
            }
            QVERIFY_THROWS_EXCEPTION(std::logic_error,
                                     be.linear(dx.view(), dw.view(), db.view(), dy.view(), rows, in, out, true));
        }
    }

    void conv1dAndEmbedF16() {
        CpuBackend be(2);
        // conv1d: an f16 [out][in][3] weight gives exactly what its float32 copy gives.
        const int length = 50, cin = 11, cout = 13, outLength = 25;
        auto x = randomVector(size_t(length * cin), 31), b = randomVector(size_t(cout), 33);
        const HalfValues w = toHalf(randomVector(size_t(cout * cin * 3), 32));
        std::vector<std::byte> storage;
        Device dw = loadHalf(be, w, {cout, cin, 3}, storage), dw32 = put(be, w.widened);
        Device dx = put(be, x), db = put(be, b), col{be.allocate(size_t(outLength * cin * 3))};
        Device dy{be.allocate(size_t(outLength * cout))}, dy32{be.allocate(size_t(outLength * cout))};
        be.conv1d(dx.view(), length, cin, dw.view(), db.view(), dy.view(), cout, 2, col.view());
        be.conv1d(dx.view(), length, cin, dw32.view(), db.view(), dy32.view(), cout, 2, col.view());
        QCOMPARE(get(be, dy), get(be, dy32));
        QVERIFY(get(be, dy) != std::vector<float>(size_t(outLength * cout), 0.0f));

        // embed: f16 token and position tables, rows widened exactly.
        const int d = 13;
        const HalfValues table = toHalf(randomVector(size_t(20 * d), 34)), pos = toHalf(randomVector(size_t(10 * d), 35));
        std::vector<std::byte> tableStorage, posStorage;
        Device dt = loadHalf(be, table, {20, d}, tableStorage), dp = loadHalf(be, pos, {10, d}, posStorage, true);
        Device de{be.allocate(size_t(3 * d))};
        const int tokens[] = {19, 0, 7}, positions[] = {9, 3, 0};
        const DeviceIds ids = putIds(be, tokens, positions);
        be.embed(ids.tokens(), ids.positions(), 3, dt.view(), dp.view(), d, de.view());
        auto e = get(be, de);
        for (int i = 0; i < 3; ++i) {
            for (int c = 0; c < d; ++c) {
                QCOMPARE(e[size_t(i * d + c)],
                         table.widened[size_t(tokens[i] * d + c)] + pos.widened[size_t(positions[i] * d + c)]);
            }
        }
        // add() with an f16 table (the encoder's positional embedding of an f16 checkpoint).
        Device da = put(be, std::vector<float>(size_t(10 * d), 1.0f));
        be.add(da.view(), dp.view());
        auto a = get(be, da);
        for (size_t i = 0; i < a.size(); ++i) QCOMPARE(a[i], 1.0f + pos.widened[i]);
    }

    void layerNormAndGelu() {
        CpuBackend be(2);
        const int rows = 9, cols = 384;
        auto x = randomVector(size_t(rows * cols), 5, 3.0), g = randomVector(size_t(cols), 6), b = randomVector(size_t(cols), 7);
        for (auto& v : x) v += 2.0f;  // a mean far from zero
        Device dx = put(be, x), dg = put(be, g), db = put(be, b), dy = put(be, std::vector<float>(x.size()));
        be.layerNorm(dx.view(), dg.view(), db.view(), dy.view(), rows, cols, 1e-5f);
        std::vector<double> want(x.size());
        for (int r = 0; r < rows; ++r) {
            double mean = 0, var = 0;
            for (int c = 0; c < cols; ++c) mean += x[size_t(r * cols + c)];
            mean /= cols;
            for (int c = 0; c < cols; ++c) var += std::pow(x[size_t(r * cols + c)] - mean, 2);
            var /= cols;
            for (int c = 0; c < cols; ++c) {
                want[size_t(r * cols + c)] = (x[size_t(r * cols + c)] - mean) / std::sqrt(var + 1e-5) * g[size_t(c)] + b[size_t(c)];
            }
        }
        QVERIFY(test::relativeError(get(be, dy), want) < 1e-6);

        // GELU in place, exact erf form (the tanh approximation differs by ~1e-3 and fails).
        auto gx = randomVector(20000, 8, 2.5);
        Device dgx = put(be, gx);
        be.gelu(dgx.view());
        std::vector<double> gwant(gx.size());
        for (size_t i = 0; i < gx.size(); ++i) gwant[i] = 0.5 * gx[i] * (1.0 + std::erf(gx[i] / std::sqrt(2.0)));
        auto got = get(be, dgx);
        for (size_t i = 0; i < gx.size(); ++i) QVERIFY2(std::abs(got[i] - gwant[i]) < 1e-6 * (1 + std::abs(gwant[i])), "gelu");
    }

    // The workspace: every output row's columns; the backend's own size (half the rows: the output
    // in two blocks); that and 5 rows more (two blocks of unequal size). In each, a block's first
    // and last rows read the input rows next to the block.
    void conv1d_data() {
        QTest::addColumn<int>("stride");
        QTest::addColumn<int>("extraRows");  // -1: every row's columns; else conv1dWorkspaceElements() and these rows
        for (const int stride : {1, 2}) {
            for (const int rows : {-1, 0, 5}) {
                const QByteArray name = "stride " + QByteArray::number(stride) + ", workspace " +
                                        (rows < 0 ? "of every row" : rows == 0 ? "the backend's" : "the backend's + 5 rows");
                QTest::newRow(name.constData()) << stride << rows;
            }
        }
    }
    void conv1d() {
        QFETCH(int, stride);
        QFETCH(int, extraRows);
        CpuBackend be(2);
        const int length = 50, cin = 11, cout = 13;
        const int outLength = (length - 1) / stride + 1;
        auto x = randomVector(size_t(length * cin), 9), w = randomVector(size_t(cout * cin * 3), 10), b = randomVector(size_t(cout), 11);
        Device dx = put(be, x), dw = put(be, w), db = put(be, b);
        const size_t own = be.conv1dWorkspaceElements(length, cin, stride);
        QCOMPARE(own, size_t((outLength + 1) / 2 * cin * 3));
        const size_t columns = extraRows < 0 ? size_t(outLength * cin * 3) : own + size_t(extraRows * cin * 3);
        Device dy{be.allocate(size_t(outLength * cout))}, col{be.allocate(columns)};
        // Less than the backend asks for is refused before anything runs.
        QVERIFY_THROWS_EXCEPTION(std::exception, be.conv1d(dx.view(), length, cin, dw.view(), db.view(), dy.view(), cout,
                                                           stride, col.view().slice(0, own - 1)));
        be.conv1d(dx.view(), length, cin, dw.view(), db.view(), dy.view(), cout, stride, col.view());
        std::vector<double> want(size_t(outLength * cout));
        for (int t = 0; t < outLength; ++t) {
            for (int o = 0; o < cout; ++o) {
                double acc = b[size_t(o)];
                for (int c = 0; c < cin; ++c) {
                    for (int k = 0; k < 3; ++k) {
                        const int src = t * stride + k - 1;  // padding 1
                        if (src >= 0 && src < length) acc += double(w[size_t((o * cin + c) * 3 + k)]) * x[size_t(src * cin + c)];
                    }
                }
                want[size_t(t * cout + o)] = acc;
            }
        }
        QVERIFY(test::relativeError(get(be, dy), want) < 1e-6);
    }

    void embedAndCopyRows() {
        CpuBackend be(1);
        const int d = 8;
        auto table = randomVector(size_t(20 * d), 12), pos = randomVector(size_t(10 * d), 13);
        Device dt = put(be, table), dp = put(be, pos), dy{be.allocate(size_t(3 * d))};
        const int tokens[] = {19, 0, 7}, positions[] = {9, 3, 0};
        const DeviceIds ids = putIds(be, tokens, positions);
        be.embed(ids.tokens(), ids.positions(), 3, dt.view(), dp.view(), d, dy.view());
        auto y = get(be, dy);
        for (int i = 0; i < 3; ++i) {
            for (int c = 0; c < d; ++c) {
                QCOMPARE(y[size_t(i * d + c)], table[size_t(tokens[i] * d + c)] + pos[size_t(positions[i] * d + c)]);
            }
        }
        // Strided source rows (stride 3d, offset d: the middle third) into a dense buffer.
        auto src = randomVector(size_t(6 * 3 * d), 14);
        Device ds = put(be, src), dd{be.allocate(size_t(10 * d))};
        const RowCopy copies[] = {{1, 4, 2}, {5, 0, 1}};
        be.copyRows(ds.view().slice(size_t(d), src.size() - size_t(d)), 3 * d, dd.view(), d, d, copies);
        auto dst = get(be, dd);
        for (int c = 0; c < d; ++c) {
            QCOMPARE(dst[size_t(4 * d + c)], src[size_t(1 * 3 * d + d + c)]);
            QCOMPARE(dst[size_t(5 * d + c)], src[size_t(2 * 3 * d + d + c)]);
            QCOMPARE(dst[size_t(0 * d + c)], src[size_t(5 * 3 * d + d + c)]);
            QCOMPARE(dst[size_t(1 * d + c)], 0.0f);
        }
    }

    void attention_data() {
        QTest::addColumn<bool>("causal");
        QTest::addColumn<int>("queries");
        QTest::addColumn<bool>("halfKv");
        QTest::addColumn<int>("keys");  // the first batch's; 0: 60 across, 7 past the queries causal
        QTest::addColumn<int>("headDim");
        QTest::newRow("causal one query (decode step)") << true << 1 << false << 0 << 16;
        QTest::newRow("causal few queries") << true << 5 << false << 0 << 16;
        QTest::newRow("causal gemm path") << true << 45 << false << 0 << 16;
        QTest::newRow("cross few queries") << false << 3 << false << 0 << 16;
        QTest::newRow("cross gemm path") << false << 40 << false << 0 << 16;
        // The cross cache in half (CpuBackend with Fp16): the same products of the rounded values.
        QTest::newRow("cross one query, half cache") << false << 1 << true << 0 << 16;
        QTest::newRow("cross few queries, half cache") << false << 3 << true << 0 << 16;
        QTest::newRow("cross gemm path, half cache") << false << 40 << true << 0 << 16;
        // A decode step's 1500 keys, one query and a beam step's five.
        QTest::newRow("cross one query, half cache, 1500 keys") << false << 1 << true << 1500 << 16;
        QTest::newRow("cross five queries, half cache, 1500 keys") << false << 5 << true << 1500 << 16;
        // A causal mask over a half cache (the cross cache has none, the kernels allow one).
        QTest::newRow("causal few queries, half cache, 258 keys") << true << 5 << true << 258 << 16;
        // Whisper's head_dim and the encoder's 1500 keys (keys not a multiple of the AVX-512
        // tiles' 32, queries not of their 24, 8 and 6), a prompt's causal block, and head_dims
        // that end inside a vector of 16 (masked stores).
        QTest::newRow("encoder shape, 1500 keys, head_dim 64") << false << 203 << false << 1500 << 64;
        QTest::newRow("causal gemm path, head_dim 64") << true << 77 << false << 0 << 64;
        // Queries whose masks end before later chunks of 128 keys begin (the tiles skip those).
        QTest::newRow("causal gemm path, 300 queries, head_dim 64") << true << 300 << false << 0 << 64;
        QTest::newRow("cross gemm path, half cache, head_dim 64") << false << 50 << true << 333 << 64;
        QTest::newRow("cross gemm path, head_dim 24") << false << 49 << false << 0 << 24;
        QTest::newRow("causal gemm path, head_dim 72") << true << 38 << false << 0 << 72;
        // Few queries over many keys with Whisper's head_dim: the keys split into one part per
        // thread, each with its own softmax shift, merged (the cross cache in half, the self cache
        // in float32, and a head_dim of 24 that takes the 8-float vectors).
        QTest::newRow("cross one query, half cache, 1500 keys, head_dim 64") << false << 1 << true << 1500 << 64;
        QTest::newRow("cross five queries, 1500 keys, head_dim 64") << false << 5 << false << 1500 << 64;
        QTest::newRow("causal few queries, 400 keys, head_dim 64") << true << 3 << false << 400 << 64;
        QTest::newRow("cross one query, half cache, 1500 keys, head_dim 24") << false << 1 << true << 1500 << 24;
    }
    void attention() {
        QFETCH(bool, causal);
        QFETCH(int, queries);
        QFETCH(bool, halfKv);
        QFETCH(int, keys);
        QFETCH(int, headDim);
        CpuBackend be(3, halfKv ? Precision::Fp16 : Precision::Fp32);
        // Six heads: the few-query kernels score four heads at a time, then the rest one by one.
        const int heads = 6, stride = heads * headDim;
        // Two batches (beams) with their own keys, as the self cache lays them out.
        const int keys0 = keys ? keys : causal ? queries + 7 : 60, keys1 = keys ? keys / 3 : causal ? queries : 33;
        const int keyRow1 = std::max(100, keys0);
        const AttentionBatch batches[] = {{0, queries, 0, keys0}, {queries, queries, size_t(keyRow1), keys1}};
        const int rows = 2 * queries, keyRows = keyRow1 + keys1;
        auto q = randomVector(size_t(rows * stride), 15, 2.0), k = randomVector(size_t(keyRows * stride), 16, 2.0);
        auto v = randomVector(size_t(keyRows * stride), 17);
        Device dq = put(be, q), dout{be.allocate(size_t(rows * stride))};
        Device dk{be.allocateKv(k.size())}, dv{be.allocateKv(v.size())};
        QCOMPARE(dk.buffer->element(), halfKv ? ElementType::F16 : ElementType::F32);
        be.upload(dk.view(), k.data(), k.size());
        be.upload(dv.view(), v.data(), v.size());
        if (halfKv) {  // what the cache holds: the values rounded to nearest half, read back exactly
            for (float& x : k) x = halfToFloat(floatToHalf(x));
            for (float& x : v) x = halfToFloat(floatToHalf(x));
            QCOMPARE(get(be, dk), k);
        }
        Device work{be.allocate(std::max<size_t>(1, be.attentionWorkspaceElements(queries, std::max(keys0, keys1))))};
        AttentionArgs args;
        args.q = dq.view();
        args.k = dk.view();
        args.v = dv.view();
        args.out = dout.view();
        args.qStride = args.kvStride = args.outStride = stride;
        args.heads = heads;
        args.headDim = headDim;
        args.scale = 1.0f / std::sqrt(float(headDim));
        args.causal = causal;
        args.batches = batches;
        args.workspace = work.view();
        be.attention(args);
        std::vector<double> want(size_t(rows * stride));
        for (const auto& b : batches) referenceAttention(q, k, v, want, stride, heads, headDim, b, causal, args.scale);
        QVERIFY(test::relativeError(get(be, dout), want) < 1e-5);
    }

    void badViewsThrowInsteadOfCrashing() {
        CpuBackend be(1);
        Device small{be.allocate(10)};
        QVERIFY_THROWS_EXCEPTION(std::logic_error,
                                 be.linear(small.view(), small.view(), {}, small.view(), 4, 4, 4, false));
        std::vector<float> host(20);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, be.upload(small.view(), host.data(), host.size()));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, be.upload(small.view().slice(8, 5), host.data(), 1));
    }

    // copyRows within one buffer: no block may write rows any block reads (CUDA runs the blocks
    // in parallel, and every backend refuses the same calls); a refused call changes nothing.
    // Blocks between distinct rows of one buffer are copied.
    void overlappingRowBlocksAreRefused() {
        CpuBackend be(1);
        const int d = 4, rows = 40;
        const auto host = randomVector(size_t(rows * d), 21);
        Device buffer = put(be, host);
        const auto refused = [&](std::vector<RowCopy> copies, IndexView offsets = {}) {
            try {
                be.copyRows(buffer.view(), d, buffer.view(), d, d, copies, offsets);
            } catch (const std::logic_error& error) {
                return QString(error.what());
            }
            return QString();
        };
        QVERIFY(refused({{0, 10, 20}}).contains("overlaps a source block"));  // rows 10..19 read and written
        QVERIFY(refused({{5, 5, 1}}).contains("overlaps"));                   // a block onto itself
        QVERIFY(refused({{0, 30, 5}, {28, 0, 4}}).contains("overlaps"));      // one block writes where another reads
        QCOMPARE(get(be, buffer), host);
        auto indices = be.allocateIndices(1);
        QVERIFY(refused({{0, 30, 5}}, IndexView(indices.get())).contains("distinct source and destination"));

        be.copyRows(buffer.view(), d, buffer.view(), d, d, std::vector<RowCopy>{{0, 20, 10}, {35, 10, 2}});
        auto after = get(be, buffer);
        for (int c = 0; c < 10 * d; ++c) QCOMPARE(after[size_t(20 * d + c)], host[size_t(c)]);
        for (int c = 0; c < 2 * d; ++c) QCOMPARE(after[size_t(10 * d + c)], host[size_t(35 * d + c)]);
    }

    void factory() {
        auto cpu = createBackend(BackendKind::Cpu, {2, 0});
        QVERIFY(cpu.ok());
        QCOMPARE(cpu.value()->kind(), BackendKind::Cpu);
        QCOMPARE(cpu.value()->threads(), 2);
        // CUDA starts where a GPU is (and then Auto picks it), else says why in words naming CUDA.
        auto automatic = createBackend(BackendKind::Auto);
        QVERIFY(automatic.ok());
        auto cuda = createBackend(BackendKind::Cuda);
        if (cuda.ok()) {
            QCOMPARE(cuda.value()->kind(), BackendKind::Cuda);
        } else {
            QVERIFY(cuda.message().find("CUDA") != std::string::npos);
        }
        QCOMPARE(automatic.value()->kind(), cuda.ok() ? BackendKind::Cuda : BackendKind::Cpu);
        QCOMPARE(parseBackendKind("CPU").value(), BackendKind::Cpu);
        QCOMPARE(parseBackendKind("cuda").value(), BackendKind::Cuda);
        auto bad = parseBackendKind("tpu");
        QVERIFY(!bad.ok());
        QVERIFY(bad.message().find("tpu") != std::string::npos);
    }

    void precisionNames() {
        for (Precision p : {Precision::Fp16, Precision::Fp32}) QCOMPARE(parsePrecision(precisionName(p)).value(), p);
        QCOMPARE(precisionName(Precision::Fp16), std::string_view("fp16"));
        QCOMPARE(parsePrecision("FP32").value(), Precision::Fp32);
        auto bad = parsePrecision("fp8");
        QVERIFY(!bad.ok());
        QVERIFY(bad.message().find("fp8") != std::string::npos && bad.message().find("fp16") != std::string::npos);
        // Fp16 by default. The CPU backend computes in float32 either way and reports what it was
        // asked for: Fp16 keeps its cross cache in half, Fp32 in float32.
        QCOMPARE(BackendOptions{}.precision, Precision::Fp16);
        for (Precision p : {Precision::Fp16, Precision::Fp32}) {
            auto cpu = createBackend(BackendKind::Cpu, {1, 0, p});
            QVERIFY(cpu.ok());
            QCOMPARE(cpu.value()->precision(), p);
            QCOMPARE(cpu.value()->kvElementBytes(), p == Precision::Fp16 ? size_t(2) : size_t(4));
        }
    }
};

QTEST_APPLESS_MAIN(TestEngineOps)
#include "tst_engine_ops.moc"
