// The CPU's q16 split logits table (q16_split.h) and Backend::logits() on it: every element within
// s / 508 (s: max|block| / 127 rounded up to a half) of the f16 value it was made from (blocks of ordinary, tiny, subnormal and
// zero values); every row's sketch within its stated bound of the product over both planes; and
// logits() through CpuBackend in fp16 precision exact (bit for bit the product linear() gives over
// the same table) for every column at or above the reach's exactFrom and every column among the
// reach's top largest below it, the others within their bound, while most columns do take the
// sketch; three rows (beams) exact throughout. An fp32 backend keeps the f16 table as it is.
#include "core/backend/cpu_backend.h"
#include "core/backend/q16_split.h"
#include "core/model/tensor.h"
#include "core/util/half.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace hearsay;

namespace {

// A table [rows][n] of halves, its blocks of varied scales: most like an embedding's, some tiny,
// some subnormal, some zero.
std::vector<uint16_t> randomTable(size_t rows, size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> kind(0, 19);
    std::vector<uint16_t> t(rows * n);
    for (size_t b = 0; b < rows * n / 32; ++b) {
        const int k = kind(rng);
        const float scale = k == 0 ? 0.0f : k == 1 ? 1e-6f : k == 2 ? 3e-3f : 0.05f;
        for (size_t j = 0; j < 32; ++j) t[b * 32 + j] = floatToHalf(scale * normal(rng));
    }
    return t;
}

std::vector<float> randomVector(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = normal(rng);
    return v;
}

// The split of `half` as a table of its own memory.
struct Split {
    std::vector<uint8_t> memory;
    simd::Q16SplitTable table;
    Split(const std::vector<uint16_t>& half, size_t rows, size_t n) : memory(simd::q16SplitBytes(rows * n)) {
        simd::splitHalfRows(half.data(), rows, n, memory.data());
        table = simd::q16SplitTable(memory.data(), rows, n);
    }
};

// The bound the sketch states for row o against x, in double, with the kernel's slack: half the
// lo plane's reach, and x's rounding to int16 (scale max|x_b| / 32767) against |hi| ≤ 127.
double sketchBound(const simd::Q16SplitTable& t, size_t o, const float* x) {
    double sum = 0.0;
    for (size_t b = 0; b < t.n / 32; ++b) {
        double l1 = 0.0, largest = 0.0;
        for (size_t j = 0; j < 32; ++j) {
            l1 += std::fabs(x[b * 32 + j]);
            largest = std::max(largest, double(std::fabs(x[b * 32 + j])));
        }
        sum += double(halfToFloat(t.scales[o * (t.n / 32) + b])) * (l1 / 2.0 + 2048.0 * largest / 32767.0);
    }
    return sum * (1.0 + double(t.n) / 16384.0);
}

} // namespace

class TestCpuLogits : public QObject {
    Q_OBJECT

private slots:
    void planesKeepTheHalves() {
        const size_t rows = 64, n = 384;
        const std::vector<uint16_t> half = randomTable(rows, n, 1);
        const Split split(half, rows, n);
        for (size_t b = 0; b < rows * n / 32; ++b) {
            double largest = 0.0;
            for (size_t j = 0; j < 32; ++j) largest = std::max(largest, double(std::fabs(halfToFloat(half[b * 32 + j]))));
            // The scale: max / 127 rounded up to a half, or the smallest normal half below that.
            const double scale = halfToFloat(split.table.scales[b]);
            QVERIFY(scale * 127.0 >= largest && (largest == 0.0 || scale <= std::max(largest / 127.0 * (1.0 + 1.0 / 1024), 6.103515625e-05)));
            for (size_t j = 0; j < 32; ++j) {
                const size_t i = b * 32 + j;
                const double error = std::fabs(double(simd::q16SplitElement(split.table, i)) - halfToFloat(half[i]));
                // s / 508, and the float rounding of s · (hi + lo / 254).
                const double allowed = scale / 508.0 + scale * 128.0 / (1 << 21);
                QVERIFY2(error <= allowed, qPrintable(QString("element %1: error %2, allowed %3").arg(i).arg(error).arg(allowed)));
            }
        }
        std::vector<float> widened(2 * n);
        simd::q16SplitRows(split.table, 5, 2, widened.data());
        for (size_t j = 0; j < 2 * n; ++j) QCOMPARE(widened[j], simd::q16SplitElement(split.table, 5 * n + j));
    }

    void sketchWithinItsBound() {
        for (size_t n : {size_t(384), size_t(1280), size_t(96)}) {
            const size_t rows = 300;
            const Split split(randomTable(rows, n, uint32_t(n)), rows, n);
            const std::vector<float> x = randomVector(n, 7);
            simd::SketchInput input;
            simd::prepareSketchInput(x.data(), n, input);
            std::vector<float> approx(rows), bound(rows);
            simd::sketchQ16Split(input, split.table, 0, rows, approx.data(), bound.data());
            for (size_t o = 0; o < rows; ++o) {
                double exact = 0.0;
                for (size_t j = 0; j < n; ++j) exact += double(x[j]) * simd::q16SplitElement(split.table, o * n + j);
                const float both = simd::dotQ16Split(x.data(), split.table, o);
                QVERIFY2(std::fabs(both - exact) <= 1e-5 * (1.0 + std::fabs(exact)), qPrintable(QString("row %1").arg(o)));
                QVERIFY2(std::fabs(double(approx[o]) - both) <= bound[o],
                         qPrintable(QString("n %1 row %2: sketch %3, both planes %4, bound %5").arg(n).arg(o).arg(approx[o]).arg(both).arg(bound[o])));
                QVERIFY(std::fabs(bound[o] - sketchBound(split.table, o, x.data())) <= 1e-4 * (1.0 + bound[o]));
            }
        }
    }

    // A beam search's rows: dotQ16SplitRows gives each input what dotQ16Split gives it alone, bit for
    // bit, for 1 to 11 inputs (passes of 8 and what is left), and both are the double-precision sum
    // over q16SplitElement's values within float rounding.
    void rowsEqualTheSingleProduct() {
        const size_t rows = 40, n = 384;
        const Split split(randomTable(rows, n, 5), rows, n);
        for (size_t inputs = 1; inputs <= 11; ++inputs) {
            const std::vector<float> x = randomVector(inputs * n, uint32_t(20 + inputs));
            for (size_t o = 0; o < rows; o += 7) {
                std::vector<float> out(inputs);
                simd::dotQ16SplitRows(x.data(), n, inputs, split.table, o, out.data());
                for (size_t r = 0; r < inputs; ++r) {
                    const float alone = simd::dotQ16Split(x.data() + r * n, split.table, o);
                    QVERIFY2(std::memcmp(&alone, &out[r], sizeof(float)) == 0,
                             qPrintable(QString("%1 inputs, row %2, input %3: %4 against %5").arg(inputs).arg(o).arg(r).arg(out[r]).arg(alone)));
                    double exact = 0.0, magnitude = 0.0;
                    for (size_t j = 0; j < n; ++j) {
                        const double term = double(x[r * n + j]) * simd::q16SplitElement(split.table, o * n + j);
                        exact += term;
                        magnitude += std::fabs(term);
                    }
                    QVERIFY(std::fabs(double(alone) - exact) <= 1e-6 * magnitude);
                }
            }
        }
    }

    void logitsExactWithinReach_data() {
        QTest::addColumn<int>("rows");
        QTest::newRow("one row") << 1;
        QTest::newRow("three beams") << 3;
    }

    void logitsExactWithinReach() {
        QFETCH(int, rows);
        const size_t vocab = 5000, n = 384, r = size_t(rows);
        const LogitsReach reach{4600, 64};
        const std::vector<uint16_t> half = randomTable(vocab, n, 3);
        TensorView view;
        view.name = "embed";
        view.dtype = DType::F16;
        view.shape = {int64_t(vocab), int64_t(n)};
        view.data = reinterpret_cast<const std::byte*>(half.data());
        view.bytes = half.size() * sizeof(uint16_t);

        CpuBackend exactBackend(2, Precision::Fp32);
        QCOMPARE(exactBackend.loadLogitsTable(view)->element(), ElementType::F16);

        CpuBackend backend(2, Precision::Fp16);
        auto table = backend.loadLogitsTable(view);
        if (!simd::usingLogitsSketch()) {
            QCOMPARE(table->element(), ElementType::F16);
            QSKIP("the table stays f16 here (no AVX-512 with BW, or HEARSAY_LOGITS_SKETCH=0)");
        }
        QCOMPARE(table->element(), ElementType::Q16Split);
        QCOMPARE(table->bytes(), simd::q16SplitBytes(vocab * n));
        const Split split(half, vocab, n);

        // x near a few rows, as a decoder's last state is near the tokens it favours.
        std::vector<float> x = randomVector(r * n, 9);
        for (size_t i = 0; i < r; ++i) {
            for (size_t j = 0; j < n; ++j) x[i * n + j] += 40.0f * halfToFloat(half[(100 + 37 * i) * n + j]);
        }
        auto dx = backend.allocate(x.size());
        backend.upload(BufferView(dx.get()), x.data(), x.size());
        std::vector<float> results[3];
        for (int k = 0; k < 3; ++k) {
            auto dy = backend.allocate(r * vocab);
            if (k == 0) backend.logits(BufferView(dx.get()), BufferView(table.get()), BufferView(dy.get()), rows, int(n), int(vocab), reach);
            if (k == 1) backend.logits(BufferView(dx.get()), BufferView(table.get()), BufferView(dy.get()), rows, int(n), int(vocab), {});
            if (k == 2) backend.linear(BufferView(dx.get()), BufferView(table.get()), {}, BufferView(dy.get()), rows, int(n), int(vocab), false);
            results[k].resize(r * vocab);
            backend.download(BufferView(dy.get()), results[k].data(), r * vocab);
        }
        QCOMPARE(results[1], results[2]);  // a reach of everything is linear()
        const std::vector<float>& exact = results[2];
        for (size_t i = 0; i < r; ++i) {
            const float* got = results[0].data() + i * vocab;
            const float* want = exact.data() + i * vocab;
            for (size_t o = size_t(reach.exactFrom); o < vocab; ++o) QCOMPARE(got[o], want[o]);
            std::vector<size_t> order(size_t(reach.exactFrom));
            for (size_t o = 0; o < order.size(); ++o) order[o] = o;
            std::partial_sort(order.begin(), order.begin() + reach.top, order.end(),
                              [&](size_t a, size_t b) { return want[a] > want[b]; });
            for (int k = 0; k < reach.top; ++k) {
                const size_t o = order[size_t(k)];
                QVERIFY2(got[o] == want[o], qPrintable(QString("row %1: column %2 (rank %3) not exact").arg(i).arg(o).arg(k)));
            }
            size_t sketched = 0;
            for (size_t o = 0; o < size_t(reach.exactFrom); ++o) {
                if (got[o] != want[o]) ++sketched;
                QVERIFY2(std::fabs(double(got[o]) - want[o]) <= sketchBound(split.table, o, x.data() + i * n),
                         qPrintable(QString("row %1 column %2").arg(i).arg(o)));
            }
            // One row takes the sketch; several (beams) take both planes throughout.
            if (rows == 1) QVERIFY2(sketched > size_t(reach.exactFrom) / 2, qPrintable(QString("only %1 columns sketched").arg(sketched)));
            else QCOMPARE(sketched, size_t(0));
        }
    }
};

QTEST_GUILESS_MAIN(TestCpuLogits)
#include "tst_cpu_logits.moc"
