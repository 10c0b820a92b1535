// The CPU backend's vector kernels against double-precision definitions, with stated
// tolerances: the vectorised softmax and GELU (the path this CPU runs, named in the output)
// and the portable ones, over lengths with every tail size and the extremes the encoder meets;
// q8_0, q5_0 and q5_1 weights kept as blocks (their dot, gemv and convert kernels, and linear() on every
// path) against the same weights dequantised to float32 (the path they replace); the integer products
// of one vector quantised to int8 (cpu_int8.h) against their exact value and within the rounding of
// x to 8 bits of the float product, and the integer GEMM of many rows against them; denormal results flushed to zero in the
// backend's ops, on the caller and the pool's workers, and the caller's own mode left as it was.
#include "core/backend/cpu_backend.h"
#include "core/backend/cpu_int8.h"
#include "core/backend/flush_denormals.h"
#include "core/backend/thread_pool.h"
#include "core/backend/cpu_simd.h"
#include "core/backend/cpu_vector_math.h"
#include "core/model/quantize.h"
#include "core/model/tensor.h"
#include "core/util/half.h"

#include <QtTest>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cmath>
#include <mutex>
#include <random>
#include <set>
#include <string_view>
#include <thread>
#include <vector>

using namespace hearsay;

namespace {

std::vector<float> randomValues(size_t n, uint32_t seed, float scale) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

double geluReference(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

// The kernels of one block format, and its block size in bytes.
struct BlockKernels {
    DType type;
    size_t blockBytes;
    float (*dot)(const float*, const uint8_t*, size_t);
    void (*gemv)(const float*, const uint8_t*, size_t, size_t, float*);
    void (*convert)(const uint8_t*, float*, size_t);
    float (*element)(const uint8_t*, size_t) = nullptr;  // one element (the q5 formats' lookup)
    void (*gemvInt8)(const simd::Int8Vector&, const uint8_t*, size_t, float*) = nullptr;
    void (*dotsInt8)(const simd::Int8Vector*, size_t, const uint8_t*, float*) = nullptr;
};

BlockKernels kernelsOf(const QString& name) {
    if (name == "q5_0") {
        return {DType::Q5_0,     simd::kQ5BlockBytes, simd::dotQ5,      simd::gemvQ5,
                simd::convertQ5, simd::elementQ5,     simd::gemvQ5Int8, simd::dotsQ5Int8};
    }
    if (name == "q5_1") {
        return {DType::Q5_1,       simd::kQ5_1BlockBytes, simd::dotQ5_1,      simd::gemvQ5_1,
                simd::convertQ5_1, simd::elementQ5_1,     simd::gemvQ5_1Int8, simd::dotsQ5_1Int8};
    }
    return {DType::Q8_0, simd::kQ8BlockBytes, simd::dotQ8, simd::gemvQ8, simd::convertQ8, nullptr, simd::gemvQ8Int8,
            simd::dotsQ8Int8};
}

// A q5_1 block's minimum m (the half after d); 0 for the other formats.
float blockMinimum(DType type, const uint8_t* block) {
    if (type != DType::Q5_1) return 0.0f;
    uint16_t bits;
    std::memcpy(&bits, block + 2, sizeof bits);
    return halfToFloat(bits);
}

// The error that rounding x to xq (cpu_int8.h) may add to row o of an integer product, beyond float
// rounding: Σ |w − m|·dx/2 over the row (a q5_1 block's m·Σx is taken from x itself).
double int8RoundingBound(const BlockKernels& k, const uint8_t* row, const float* w, const simd::Int8Vector& xq) {
    double bound = 0.0;
    for (size_t i = 0; i < xq.n; ++i) {
        const float m = blockMinimum(k.type, row + i / 32 * k.blockBytes);
        bound += std::abs(double(w[i]) - m) * xq.scale[i / 32] / 2.0;
    }
    return bound;
}

} // namespace

class TestCpuKernels : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { qInfo("vector math path: %s", simd::vectorMathPath()); }

    void softmaxMatchesDouble() {
        // Relative error of each probability ≤ 3e-6 (a few ulp, and the float sum of up to 1500
        // terms), the reference taking exp of the same float x - max: every tail length, long
        // rows, scores spread wide (scale 30: many exp() arguments far below -87, i.e. zero).
        for (auto* run : {&simd::softmax, &simd::softmaxPortable}) {
            for (size_t n : {1ul, 2ul, 7ul, 15ul, 16ul, 17ul, 31ul, 33ul, 40ul, 448ul, 1500ul}) {
                for (float scale : {0.1f, 3.0f, 30.0f}) {
                    std::vector<float> x = randomValues(n, uint32_t(n * 7 + scale), scale);
                    double maxValue = -1e300, sum = 0.0;
                    for (float v : x) maxValue = std::max(maxValue, double(v));
                    std::vector<double> want(n);
                    for (size_t i = 0; i < n; ++i) sum += want[i] = std::exp(double(x[i] - float(maxValue)));
                    for (auto& w : want) w /= sum;
                    run(x.data(), n);
                    for (size_t i = 0; i < n; ++i) {
                        const double error = std::abs(x[i] - want[i]);
                        const double relative = 3e-6;
                        QVERIFY2(error <= relative * want[i] + 1e-37,
                                 qPrintable(QString("n %1 scale %2 i %3: %4 vs %5").arg(n).arg(scale).arg(i).arg(x[i]).arg(want[i])));
                    }
                }
            }
        }
    }

    void expShiftedMatchesDouble() {
        // softmax() without its division (the attention tiles divide their outputs instead): the
        // exponentials of x - max in place, each within 3e-6 of double's, their sum returned and
        // the max given back.
        for (auto* run : {&simd::expShifted, &simd::expShiftedPortable}) {
            QCOMPARE(run(nullptr, 0, nullptr), 0.0f);
            for (size_t n : {1ul, 15ul, 17ul, 1500ul}) {
                std::vector<float> x = randomValues(n, uint32_t(n * 5 + 1), 3.0f);
                double maxValue = -1e300, sum = 0.0;
                for (float v : x) maxValue = std::max(maxValue, double(v));
                std::vector<double> want(n);
                for (size_t i = 0; i < n; ++i) sum += want[i] = std::exp(double(x[i] - float(maxValue)));
                float shift = 0.0f;
                const float total = run(x.data(), n, &shift);
                QCOMPARE(shift, float(maxValue));
                QVERIFY2(std::abs(total - sum) <= 3e-6 * sum, qPrintable(QString("n %1: sum %2 vs %3").arg(n).arg(total).arg(sum)));
                for (size_t i = 0; i < n; ++i) QVERIFY(std::abs(x[i] - want[i]) <= 3e-6 * want[i] + 1e-37);
            }
        }
    }

    void geluMatchesDouble() {
        // |error| ≤ 2e-7 · max(1, |x|) + 1e-7 · |gelu(x)|: the erf approximation's 1.5e-7 times
        // 0.5|x|, and float rounding. Covers -12..12 densely and every tail length.
        std::vector<float> x;
        for (int i = -12000; i <= 12000; ++i) x.push_back(float(i) * 1e-3f);
        for (float v : randomValues(37, 5, 4.0f)) x.push_back(v);
        for (auto* run : {&simd::gelu, &simd::geluPortable}) {
            for (size_t offset : {0ul, 1ul, 5ul, 13ul}) {
                std::vector<float> y(x.begin() + long(offset), x.end());
                const std::vector<float> input = y;
                run(y.data(), y.size());
                for (size_t i = 0; i < y.size(); ++i) {
                    const double want = geluReference(input[i]);
                    const double bound = 2e-7 * std::max(1.0, std::abs(double(input[i]))) + 1e-7 * std::abs(want);
                    QVERIFY2(std::abs(y[i] - want) <= bound,
                             qPrintable(QString("x %1: %2 vs %3").arg(input[i]).arg(y[i]).arg(want)));
                }
            }
        }
        // Far out: exactly x for large positive x, a signed zero or tiny value for large negative.
        float far[4] = {50.0f, -50.0f, 1e4f, -1e4f};
        simd::gelu(far, 4);
        QCOMPARE(far[0], 50.0f);
        QVERIFY(std::abs(far[1]) < 1e-30f);
        QCOMPARE(far[2], 1e4f);
        QVERIFY(std::abs(far[3]) < 1e-30f);
    }

    void blockKernels_data() {
        QTest::addColumn<QString>("format");
        QTest::newRow("q8_0") << QString("q8_0");
        QTest::newRow("q5_0") << QString("q5_0");
        QTest::newRow("q5_1") << QString("q5_1");
    }
    void blockKernels() {
        // convert (and the q5 formats' one-element lookup) equals the model loader's dequantisation
        // bit for bit; dot and gemv (on row counts around its groups of four) are within float
        // rounding of the double-precision dot with those values: |error| ≤ 1e-6 · Σ|a·w|.
        QFETCH(QString, format);
        const BlockKernels k = kernelsOf(format);
        for (size_t n : {32ul, 64ul, 96ul, 384ul, 1536ul}) {
            for (size_t rows : {1ul, 3ul, 4ul, 7ul, 9ul}) {
                const std::vector<float> w = randomValues(rows * n, uint32_t(n + rows), 0.05f);
                const std::vector<float> a = randomValues(n, uint32_t(n + 1), 1.0f);
                std::vector<std::byte> blocks(rows * n / 32 * k.blockBytes);
                quantizeRow(k.type, w.data(), int64_t(rows * n), blocks.data());
                const auto* q = reinterpret_cast<const uint8_t*>(blocks.data());
                std::vector<float> want(rows * n), got(rows * n), y(rows);
                dequantizeRow(k.type, blocks.data(), int64_t(rows * n), want.data());
                k.convert(q, got.data(), rows * n);
                QCOMPARE(got, want);
                if (k.element) {
                    for (size_t i = 0; i < rows * n; ++i) QCOMPARE(k.element(q, i), want[i]);
                }
                k.gemv(a.data(), q, n, rows, y.data());
                for (size_t o = 0; o < rows; ++o) {
                    double exact = 0.0, magnitude = 0.0;
                    for (size_t i = 0; i < n; ++i) {
                        exact += double(a[i]) * want[o * n + i];
                        magnitude += std::abs(double(a[i]) * want[o * n + i]);
                    }
                    const float dot = k.dot(a.data(), q + o * (n / 32 * k.blockBytes), n);
                    QVERIFY2(std::abs(dot - exact) <= 1e-6 * magnitude,
                             qPrintable(QString("dot n %1 row %2: %3 vs %4").arg(n).arg(o).arg(dot).arg(exact)));
                    QVERIFY2(std::abs(y[o] - exact) <= 1e-6 * magnitude,
                             qPrintable(QString("gemv n %1 rows %2 row %3: %4 vs %5").arg(n).arg(rows).arg(o).arg(y[o]).arg(exact)));
                }
            }
        }
        qInfo("%s dot path: %s", qPrintable(format),
              simd::usingAvx512()                         ? "avx512"
              : simd::usingF16c() && format == "q8_0"     ? "avx2"
              : simd::usingAvx2() && simd::usingF16c()    ? "avx2 convert, portable dot"
                                                          : "portable");
    }

    void int8Quantizer() {
        // Each block of 32: dx = max|x| / 127, q = x·(127 / max|x|) rounded to nearest even (so
        // |x − dx·q| ≤ dx/2 and |q| ≤ 127), the group sums of four q and the float sum of x; a
        // block of zeros gets dx 0 and q 0. Blocks of every magnitude, one with a single large value.
        std::vector<float> x = randomValues(1536, 21, 1.0f);
        for (size_t j = 0; j < 32; ++j) x[32 + j] = 0.0f;
        x[64 + 5] = 1e4f;
        for (size_t j = 0; j < 32; ++j) x[96 + j] *= 1e-6f;
        for (size_t n : {32ul, 96ul, 384ul, 1536ul}) {
            simd::Int8Vector xq;
            simd::quantizeInt8(x.data(), n, xq);
            QCOMPARE(xq.n, n);
            for (size_t b = 0; b < n / 32; ++b) {
                float amax = 0.0f;
                double sum = 0.0, magnitude = 0.0;
                for (size_t j = 0; j < 32; ++j) {
                    amax = std::max(amax, std::abs(x[b * 32 + j]));
                    sum += x[b * 32 + j];
                    magnitude += std::abs(x[b * 32 + j]);
                }
                QCOMPARE(xq.scale[b], amax / 127.0f);
                QVERIFY(std::abs(xq.sum[b] - sum) <= 1e-6 * magnitude);
                const float inverse = amax > 0.0f ? 127.0f / amax : 0.0f;
                for (size_t j = 0; j < 32; ++j) {
                    const size_t i = b * 32 + j;
                    QCOMPARE(int(xq.q[i]), int(std::nearbyint(x[i] * inverse)));
                    QVERIFY(std::abs(int(xq.q[i])) <= 127);
                    QVERIFY(std::abs(double(x[i]) - double(xq.scale[b]) * xq.q[i]) <= xq.scale[b] * (0.5 + 1e-5));
                }
                for (size_t g = 0; g < 8; ++g) {
                    const int8_t* q = xq.q.data() + b * 32 + g * 4;
                    QCOMPARE(xq.groupSum[b * 8 + g], int32_t(q[0] + q[1] + q[2] + q[3]));
                }
            }
        }
        qInfo("int8 products: %s", simd::usingInt8Dots() ? simd::int8DotsKernels()
                                                         : "portable (the backend takes the float kernels)");
    }

    void int8ExtremeIntegers() {
        // The integers at their ends, where a kernel that adds products in 16 bits would saturate
        // (AVX2's vpmaddubsw: |q| ≤ 128 times |xq| ≤ 127, two products to a pair): q8_0 blocks of
        // −128 and of 127, q5_0's q − 16 = −16 and 15, q5_1's 31, against x of ±1 (xq = ±127).
        // The exact sum is d·dx·Σ q·xq (+ m·Σx), d = 1 and m = 0.5; every kernel must give it to
        // float rounding, on 5 rows (a group of four and one) of 2 blocks and 3 vectors at once.
        const uint16_t one = floatToHalf(1.0f), half = floatToHalf(0.5f);
        for (const QString& format : {QString("q8_0"), QString("q5_0"), QString("q5_1")}) {
            const BlockKernels k = kernelsOf(format);
            const size_t n = 64, rows = 5, blocks = n / 32;
            std::vector<uint8_t> w(rows * blocks * k.blockBytes, 0);
            std::vector<std::vector<int>> q(rows, std::vector<int>(n));
            for (size_t o = 0; o < rows; ++o) {
                for (size_t b = 0; b < blocks; ++b) {
                    uint8_t* p = w.data() + (o * blocks + b) * k.blockBytes;
                    std::memcpy(p, &one, 2);
                    const bool low = (o + b) % 2 == 0;  // the format's lowest integer, or its highest
                    if (k.type == DType::Q8_0) {
                        std::memset(p + 2, low ? 0x80 : 0x7F, 32);
                        for (size_t j = 0; j < 32; ++j) q[o][b * 32 + j] = low ? -128 : 127;
                        continue;
                    }
                    const bool withMin = k.type == DType::Q5_1;
                    if (withMin) std::memcpy(p + 2, &half, 2);
                    const size_t high = withMin ? 4 : 2;
                    // q5_0: stored 0 (q − 16 = −16) or 31 (15); q5_1: 31 both times (its highest).
                    const bool zeros = !withMin && low;
                    std::memset(p + high, zeros ? 0x00 : 0xFF, 4);
                    std::memset(p + high + 4, zeros ? 0x00 : 0xFF, 16);
                    for (size_t j = 0; j < 32; ++j) q[o][b * 32 + j] = withMin ? 31 : zeros ? -16 : 15;
                }
            }
            std::vector<simd::Int8Vector> xs(3);
            std::vector<std::vector<float>> x(3, std::vector<float>(n));
            for (size_t i = 0; i < 3; ++i) {
                for (size_t j = 0; j < n; ++j) x[i][j] = (i == 0 || (i == 1 && j % 2 == 0)) ? -1.0f : 1.0f;
                simd::quantizeInt8(x[i].data(), n, xs[i]);
            }
            std::vector<float> y(rows), dots(3);
            k.gemvInt8(xs[0], w.data(), rows, y.data());
            for (size_t o = 0; o < rows; ++o) {
                k.dotsInt8(xs.data(), 3, w.data() + o * blocks * k.blockBytes, dots.data());
                for (size_t i = 0; i < 3; ++i) {
                    double exact = 0.0;
                    for (size_t j = 0; j < n; ++j) {
                        exact += double(q[o][j]) * xs[i].q[j] * xs[i].scale[j / 32];
                        if (k.type == DType::Q5_1) exact += 0.5 * x[i][j];
                    }
                    const double tolerance = 1e-6 * (1.0 + std::abs(exact));
                    QVERIFY2(std::abs(dots[i] - exact) <= tolerance,
                             qPrintable(QString("%1 row %2 vector %3: %4 vs %5").arg(format).arg(o).arg(i).arg(dots[i]).arg(exact)));
                    if (i == 0) {
                        QVERIFY2(std::abs(y[o] - exact) <= tolerance,
                                 qPrintable(QString("%1 gemv row %2: %3 vs %4").arg(format).arg(o).arg(y[o]).arg(exact)));
                    }
                }
            }
        }
    }

    void int8BlockKernels_data() { blockKernels_data(); }
    void int8BlockKernels() {
        // The integer products of rows of blocks with x quantised: (1) within float rounding of
        // their exact value Σ_i (w_i − m)·dx·xq_i + Σ_b m_b·Σx_b in double (2e-6 of its terms'
        // magnitude: the int32 sums are exact, the float scaling rounds a few times per block);
        // (2) within the 8-bit rounding of x (int8RoundingBound) of the float product Σ w·x. Row
        // counts around the groups of four, block counts even and odd (the pairs and the last block).
        QFETCH(QString, format);
        const BlockKernels k = kernelsOf(format);
        for (size_t n : {32ul, 64ul, 96ul, 384ul, 1280ul}) {
            for (size_t rows : {1ul, 3ul, 4ul, 7ul, 9ul}) {
                const std::vector<float> w = randomValues(rows * n, uint32_t(3 * n + rows), 0.05f);
                const std::vector<float> x = randomValues(n, uint32_t(n + 5), 1.0f);
                std::vector<std::byte> blocks(rows * n / 32 * k.blockBytes);
                quantizeRow(k.type, w.data(), int64_t(rows * n), blocks.data());
                const auto* q = reinterpret_cast<const uint8_t*>(blocks.data());
                std::vector<float> values(rows * n), y(rows);
                dequantizeRow(k.type, blocks.data(), int64_t(rows * n), values.data());
                simd::Int8Vector xq;
                simd::quantizeInt8(x.data(), n, xq);
                k.gemvInt8(xq, q, rows, y.data());
                // The many-vector form: row o against 1 to 8 vectors, the first being x.
                std::vector<simd::Int8Vector> xs(simd::kInt8DotsRows);
                xs[0] = xq;
                for (size_t i = 1; i < xs.size(); ++i) {
                    const std::vector<float> other = randomValues(n, uint32_t(n + 40 + i), 1.0f);
                    simd::quantizeInt8(other.data(), n, xs[i]);
                }
                const size_t rowBytes = n / 32 * k.blockBytes;
                for (size_t o = 0; o < rows; ++o) {
                    const uint8_t* row = q + o * rowBytes;
                    double exact = 0.0, terms = 0.0, product = 0.0, magnitude = 0.0;
                    for (size_t b = 0; b < n / 32; ++b) {
                        const double m = blockMinimum(k.type, row + b * k.blockBytes);
                        double sum = 0.0;
                        for (size_t j = 0; j < 32; ++j) {
                            const size_t i = b * 32 + j;
                            const double term = (values[o * n + i] - m) * double(xq.scale[b]) * xq.q[i];
                            exact += term;
                            terms += std::abs(term);
                            sum += x[i];
                            product += double(values[o * n + i]) * x[i];
                            magnitude += std::abs(double(values[o * n + i]) * x[i]);
                        }
                        exact += m * xq.sum[b];
                        terms += std::abs(m * xq.sum[b]);
                    }
                    QVERIFY2(std::abs(y[o] - exact) <= 2e-6 * terms,
                             qPrintable(QString("exact: n %1 rows %2 row %3: %4 vs %5").arg(n).arg(rows).arg(o).arg(y[o]).arg(exact)));
                    const double bound = int8RoundingBound(k, row, values.data() + o * n, xq) + 2e-6 * magnitude;
                    QVERIFY2(std::abs(y[o] - product) <= bound,
                             qPrintable(QString("float: n %1 row %2: %3 vs %4, bound %5").arg(n).arg(o).arg(y[o]).arg(product).arg(bound)));
                    for (size_t count = 1; count <= xs.size(); ++count) {
                        std::vector<float> dots(count);
                        k.dotsInt8(xs.data(), count, row, dots.data());
                        for (size_t i = 0; i < count; ++i) {
                            float one;
                            k.gemvInt8(xs[i], row, 1, &one);
                            QVERIFY2(std::abs(dots[i] - one) <= 2e-6 * (i == 0 ? terms : std::abs(one) + 1e-3),
                                     qPrintable(QString("dots: n %1 count %2 vector %3: %4 vs %5").arg(n).arg(count).arg(i).arg(dots[i]).arg(one)));
                        }
                        QVERIFY(std::abs(dots[0] - exact) <= 2e-6 * terms);
                    }
                }
            }
        }
    }

    void int8Gemm_data() {
        QTest::addColumn<QString>("format");
        QTest::newRow("q8_0") << "q8_0";
        QTest::newRow("q5_0") << "q5_0";
    }
    void int8Gemm() {
        // The integer GEMM (cpu_int8_gemm.cpp) gives each row what the single-vector integer kernel
        // gives it (the same exact block sums; the float sums in another order: 2e-6 of the terms'
        // magnitude), with beta 0 and 1, on row counts around its tiles of six and its blocks of
        // 96 rows, and column counts around its groups of 16 and pairs of groups (the masked ends).
        QFETCH(QString, format);
        const BlockKernels k = kernelsOf(format);
        const auto gemmFormat = k.type == DType::Q8_0 ? simd::Int8GemmFormat::Q8_0 : simd::Int8GemmFormat::Q5_0;
        qInfo("integer GEMM kernel: %s", simd::usingVnniDots()   ? "AVX-512 VNNI"
                                         : simd::usingAvx2Dots() ? "AVX2"
                                                                 : "the portable twin (no integer kernels, or switched off)");
        for (size_t n : {32ul, 96ul, 384ul}) {
            for (size_t rows : {1ul, 5ul, 6ul, 13ul, 97ul, 200ul}) {
                for (size_t columns : {1ul, 16ul, 17ul, 33ul, 70ul}) {
                    const uint32_t seed = uint32_t(n * 1000 + rows * 10 + columns);
                    const std::vector<float> w = randomValues(columns * n, seed, 0.05f);
                    const std::vector<float> x = randomValues(rows * n, seed + 1, 1.0f);
                    std::vector<std::byte> blocks(columns * n / 32 * k.blockBytes);
                    quantizeRow(k.type, w.data(), int64_t(columns * n), blocks.data());
                    const auto* q = reinterpret_cast<const uint8_t*>(blocks.data());
                    simd::Int8Rows xq;
                    xq.reshape(rows, n, gemmFormat);
                    simd::quantizeInt8Rows(x.data(), 0, rows, n, xq);
                    // The middle third of the columns, packed on its own, as a thread packs its block.
                    const size_t first = columns / 3, count = columns - columns / 3;
                    std::vector<uint8_t> packed(simd::int8PackedBytes(n, count));
                    simd::packInt8Columns(gemmFormat, q, n, first, count, packed.data());
                    const std::vector<float> y0 = randomValues(rows * count, seed + 2, 1.0f);
                    for (float beta : {0.0f, 1.0f}) {
                        std::vector<float> y = y0;
                        simd::gemmInt8(xq, 0, rows, packed.data(), count, beta, y.data(), count);
                        for (size_t i = 0; i < rows; ++i) {
                            simd::Int8Vector one;
                            simd::quantizeInt8(x.data() + i * n, n, one);
                            std::vector<float> expected(count);
                            k.gemvInt8(one, q + first * (n / 32 * k.blockBytes), count, expected.data());
                            double magnitude = 0.0;
                            for (size_t j = 0; j < n; ++j) magnitude += std::abs(double(one.q[j]) * one.scale[j / 32]);
                            for (size_t o = 0; o < count; ++o) {
                                const double want = expected[o] + (beta != 0.0f ? y0[i * count + o] : 0.0);
                                const double tolerance = 2e-6 * (magnitude * 0.2 + std::abs(want) + 1.0);
                                QVERIFY2(std::abs(y[i * count + o] - want) <= tolerance,
                                         qPrintable(QString("n %1 rows %2 columns %3 beta %4: y[%5][%6] = %7, the gemv %8")
                                                        .arg(n).arg(rows).arg(columns).arg(beta).arg(i).arg(o)
                                                        .arg(y[i * count + o]).arg(want)));
                            }
                        }
                    }
                }
            }
        }
    }

    // The many-row kernels (cpu_half_rows.cpp) against double, on every row count around their
    // groups of four and widths with and without a tail: f16 rows times one vector (the block
    // formats' in blockKernels), and one query against the heads of key and value rows.
    void manyRowKernels() {
        // Rows of 2048 and more (a multiple of 16) take the AVX2 four-row form on a CPU without
        // AVX-512 (and with HEARSAY_VECTOR_MATH=avx2), whose sums are dotHalf's bit for bit; 2056
        // is not a multiple of 16 and takes dotHalf per row.
        const bool avx2Rows = std::string_view(simd::vectorMathPath()) == "avx2" && simd::usingF16c();
        for (size_t n : {32ul, 48ul, 64ul, 70ul, 384ul, 2048ul, 2056ul, 4096ul}) {
            for (size_t rows : {1ul, 3ul, 4ul, 7ul, 9ul}) {
                const auto w = randomValues(rows * n, uint32_t(7 * n + rows), 0.05f);
                const auto x = randomValues(n, uint32_t(n + 3), 1.0f);
                std::vector<uint16_t> half(w.size());
                for (size_t i = 0; i < w.size(); ++i) half[i] = floatToHalf(w[i]);
                std::vector<float> y(rows);
                simd::gemvHalf(x.data(), half.data(), n, rows, y.data());
                for (size_t o = 0; o < rows; ++o) {
                    if (avx2Rows) {
                        const float dot = simd::dotHalf(x.data(), half.data() + o * n, n);
                        QVERIFY2(std::memcmp(&dot, &y[o], sizeof dot) == 0,
                                 qPrintable(QString("f16 n %1 row %2: %3, dotHalf %4")
                                                .arg(n).arg(o).arg(y[o]).arg(dot)));
                    }
                    double exact = 0.0, magnitude = 0.0;
                    for (size_t i = 0; i < n; ++i) {
                        const double term = double(x[i]) * halfToFloat(half[o * n + i]);
                        exact += term;
                        magnitude += std::abs(term);
                    }
                    QVERIFY2(std::abs(y[o] - exact) <= 1e-6 * magnitude, qPrintable(QString("f16 n %1 row %2").arg(n).arg(o)));
                }
            }
        }
        // One query against the heads of key and value rows (a decode step's cross and self
        // attention): heads of 64 (the AVX-512 and AVX2 vectors), 16, 24 (AVX2's only) and 12 (no
        // vector form), one head to nine (four at a time, then the rest), key counts around the
        // weighted sum's pairs of rows, rows wider than the heads (a stride of 7 more), half and
        // float32 rows, against double.
        for (const size_t hd : {64ul, 16ul, 24ul, 12ul}) {
            for (const size_t heads : {1ul, 4ul, 6ul, 9ul}) {
                for (const size_t keys : {1ul, 2ul, 37ul}) {
                    const size_t stride = heads * hd + 7, width = heads * hd;
                    const uint32_t seed = uint32_t(hd * 100 + heads * 10 + keys);
                    const auto kv = randomValues(keys * stride * 2, seed, 1.0f);
                    std::vector<uint16_t> kh(keys * stride), vh(keys * stride);
                    std::vector<float> kf(keys * stride), vf(keys * stride);
                    for (size_t i = 0; i < kh.size(); ++i) {
                        kh[i] = floatToHalf(kv[i]);
                        vh[i] = floatToHalf(kv[kh.size() + i]);
                        kf[i] = halfToFloat(kh[i]);
                        vf[i] = halfToFloat(vh[i]);
                    }
                    const auto q = randomValues(width, seed + 1, 1.0f);
                    const size_t pStride = keys + 3;
                    for (const bool half : {true, false}) {
                        std::vector<float> scores(heads * pStride, -1.0f), out(width, -1.0f);
                        if (half) {
                            simd::headDotsHalf(q.data(), kh.data(), stride, keys, heads, hd, 0.125f, scores.data(), pStride);
                        } else {
                            simd::headDots(q.data(), kf.data(), stride, keys, heads, hd, 0.125f, scores.data(), pStride);
                        }
                        const QString where = QString("%1, head %2 of %3 heads, %4 keys").arg(half ? "half" : "float32").arg(hd).arg(heads).arg(keys);
                        for (size_t h = 0; h < heads; ++h) {
                            for (size_t i = 0; i < keys; ++i) {
                                double exact = 0.0;
                                for (size_t j = 0; j < hd; ++j) exact += double(q[h * hd + j]) * kf[i * stride + h * hd + j];
                                QVERIFY2(std::abs(scores[h * pStride + i] - 0.125 * exact) <= 1e-5 * (1.0 + std::abs(exact)),
                                         qPrintable("scores: " + where));
                            }
                            QCOMPARE(scores[h * pStride + keys], -1.0f); // nothing past the keys
                        }
                        if (half) {
                            simd::headWeightedSumHalf(scores.data(), pStride, vh.data(), stride, keys, heads, hd, out.data());
                        } else {
                            simd::headWeightedSum(scores.data(), pStride, vf.data(), stride, keys, heads, hd, out.data());
                        }
                        for (size_t h = 0; h < heads; ++h) {
                            for (size_t j = 0; j < hd; ++j) {
                                double exact = 0.0, magnitude = 0.0;
                                for (size_t i = 0; i < keys; ++i) {
                                    const double term = double(scores[h * pStride + i]) * vf[i * stride + h * hd + j];
                                    exact += term;
                                    magnitude += std::abs(term);
                                }
                                QVERIFY2(std::abs(out[h * hd + j] - exact) <= 1e-6 * (1.0 + magnitude),
                                         qPrintable("weighted sum: " + where));
                            }
                        }
                    }
                }
            }
        }
        // No keys: the weighted sum is zeros.
        std::vector<float> none(128, -1.0f);
        simd::headWeightedSumHalf(nullptr, 0, nullptr, 64, 0, 2, 64, none.data());
        QVERIFY(std::all_of(none.begin(), none.end(), [](float x) { return x == 0.0f; }));
    }

    void linearKeepsBlocks_data() { blockKernels_data(); }
    void linearKeepsBlocks() {
        // A q8_0, q5_0 or q5_1 weight [out][in] stays in its blocks (q5 where the AVX-512 or the
        // integer kernels run: elsewhere it is widened to float32) and linear() on 1, 3 (dot paths), 40 and 2100 rows
        // (GEMM path: the integer GEMM for q8_0 and q5_0 where usingInt8Gemm(), 2100 rows of 384 in
        // two passes of x, else widened per block of columns), with bias and accumulate, matches linear() on the same weights dequantised to
        // float32: ≤ 2e-6 relative; on the integer kernels (one and three rows where
        // usingInt8Dots(), 40 on the integer GEMM) within that plus the rounding of x to 8 bits.
        QFETCH(QString, format);
        const BlockKernels kernels = kernelsOf(format);
        CpuBackend backend(2);
        const int in = 384, out = 200;
        const std::vector<float> w = randomValues(size_t(in * out), 11, 0.05f);
        std::vector<std::byte> blocks(size_t(in * out) / 32 * kernels.blockBytes);
        quantizeRow(kernels.type, w.data(), int64_t(in) * out, blocks.data());
        TensorView view;
        view.name = "w";
        view.dtype = kernels.type;
        view.shape = {out, in};
        view.data = blocks.data();
        view.bytes = blocks.size();
        auto blocked = backend.loadWeight(view);
        const bool kept = kernels.type == DType::Q8_0 || simd::usingAvx512() || simd::usingInt8Dots();
        QCOMPARE(blocked->bytes(), kept ? blocks.size() : size_t(in * out) * sizeof(float));
        std::vector<float> dequantised(size_t(in * out));
        dequantizeRow(kernels.type, blocks.data(), int64_t(in) * out, dequantised.data());
        auto f32 = backend.allocate(dequantised.size());
        backend.upload(BufferView(f32.get()), dequantised.data(), dequantised.size());
        const std::vector<float> bias = randomValues(size_t(out), 12, 0.1f);
        auto b = backend.allocate(bias.size());
        backend.upload(BufferView(b.get()), bias.data(), bias.size());
        static_assert(CpuBackend::kInt8GemmBytes / 384 < 2100, "2100 rows take more than one pass");
        for (int rows : {1, 3, 40, 2100}) {
            for (bool accumulate : {false, true}) {
                const std::vector<float> x = randomValues(size_t(rows * in), uint32_t(13 + rows), 1.0f);
                const std::vector<float> y0 = randomValues(size_t(rows * out), uint32_t(14 + rows), 1.0f);
                auto dx = backend.allocate(x.size());
                backend.upload(BufferView(dx.get()), x.data(), x.size());
                std::vector<float> results[2];
                for (int k = 0; k < 2; ++k) {
                    auto dy = backend.allocate(y0.size());
                    backend.upload(BufferView(dy.get()), y0.data(), y0.size());
                    backend.linear(BufferView(dx.get()), BufferView(k == 0 ? blocked.get() : f32.get()), BufferView(b.get()),
                                   BufferView(dy.get()), rows, in, out, accumulate);
                    results[k].resize(y0.size());
                    backend.download(BufferView(dy.get()), results[k].data(), y0.size());
                }
                double worst = 0.0;
                const bool int8 = rows <= CpuBackend::kSmallBatchRows
                                      ? simd::usingInt8Dots()
                                      : simd::usingInt8Gemm() && kernels.type != DType::Q5_1;
                std::vector<simd::Int8Vector> xq(static_cast<size_t>(rows));
                for (int r = 0; int8 && r < rows; ++r) simd::quantizeInt8(x.data() + size_t(r * in), size_t(in), xq[size_t(r)]);
                for (size_t i = 0; i < y0.size(); ++i) {
                    const size_t o = i % size_t(out);  // the weight row; i / out is the input row
                    const double rounding =
                        int8 ? int8RoundingBound(kernels, reinterpret_cast<const uint8_t*>(blocks.data()) +
                                                              o * size_t(in) / 32 * kernels.blockBytes,
                                                 dequantised.data() + o * size_t(in), xq[i / size_t(out)])
                             : 0.0;
                    worst = std::max(worst, (std::abs(results[0][i] - results[1][i]) - rounding) / (1.0 + std::abs(results[1][i])));
                }
                QVERIFY2(worst <= 2e-6, qPrintable(QString("rows %1 accumulate %2: %3").arg(rows).arg(accumulate).arg(worst)));
            }
        }
    }

    void denormalsAreFlushed() {
        // 1e-20 · 1e-20 = 1e-40 is a denormal float (below 1.18e-38): the ops give 0, on every
        // path (a dot product for one row, the GEMM for 40, both threads working).
        const float tiny = 1e-20f;
        const bool callerFlushedBefore = ScopedFlushDenormals::active();
        CpuBackend backend(2);
        const int in = 64, out = 256;
        std::vector<float> w(size_t(in * out), tiny);
        auto dw = backend.allocate(w.size());
        backend.upload(BufferView(dw.get()), w.data(), w.size());
        for (int rows : {1, 40}) {
            std::vector<float> x(size_t(rows * in), 0.0f);
            for (int r = 0; r < rows; ++r) x[size_t(r * in)] = tiny;  // one product per output: 1e-40
            auto dx = backend.allocate(x.size());
            backend.upload(BufferView(dx.get()), x.data(), x.size());
            auto dy = backend.allocate(size_t(rows * out));
            backend.linear(BufferView(dx.get()), BufferView(dw.get()), {}, BufferView(dy.get()), rows, in, out, false);
            std::vector<float> y(size_t(rows * out), -1.0f);
            backend.download(BufferView(dy.get()), y.data(), y.size());
            for (float v : y) QVERIFY2(v == 0.0f, qPrintable(QString("rows %1: %2").arg(rows).arg(double(v))));
        }
        QCOMPARE(ScopedFlushDenormals::active(), callerFlushedBefore);  // restored after each op
        // The pool's workers run with it always.
        ThreadPool pool(3);
        std::mutex mutex;
        std::set<int> flushed, seen;
        for (int round = 0; round < 50 && seen.size() < 2; ++round) {
            pool.parallelFor(64, 1, [&](size_t, size_t, int thread) {
                // Slow chunks: the caller alone cannot take them all before the workers wake.
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
                if (thread == 0) return;
                std::lock_guard lock(mutex);
                seen.insert(thread);
                if (ScopedFlushDenormals::active()) flushed.insert(thread);
            });
        }
        QVERIFY(!seen.empty());
        QCOMPARE(flushed, seen);
    }

    // Jobs after gaps that end each way a waiting thread can be found: still pausing (none),
    // yielding (100 µs), asleep (2 ms, past the spin), and from two callers at once. Each job covers
    // its range exactly once, and a lost wake-up would hang the test.
    void threadPoolAcrossItsWaits() {
        ThreadPool pool(3);
        // True when the job covered its range exactly once (QtTest's checks stay on this thread).
        const auto job = [&pool](size_t count, uint64_t salt) {
            std::vector<std::atomic<int>> hits(count);
            std::atomic<uint64_t> sum{0};
            std::atomic<bool> threadsOk{true};
            pool.parallelFor(count, 7, [&](size_t b, size_t e, int thread) {
                if (thread < 0 || thread >= 3) threadsOk = false;
                uint64_t local = 0;
                for (size_t i = b; i < e; ++i) {
                    hits[i].fetch_add(1);
                    local += i * salt;
                }
                sum.fetch_add(local);
            });
            bool once = true;
            for (size_t i = 0; i < count; ++i) once = once && hits[i].load() == 1;
            return threadsOk.load() && once && sum.load() == salt * count * (count - 1) / 2;
        };
        for (const int gapUs : {0, 100, 2000}) {
            for (int round = 0; round < 20; ++round) {
                QVERIFY2(job(1000 + size_t(round), uint64_t(gapUs + round + 1)),
                         qPrintable(QString("gap %1 us, round %2").arg(gapUs).arg(round)));
                std::this_thread::sleep_for(std::chrono::microseconds(gapUs));
            }
        }
        std::atomic<int> otherFailures{0};
        std::thread other([&] {
            for (int round = 0; round < 50; ++round) otherFailures += job(500, 3) ? 0 : 1;
        });
        int failures = 0;
        for (int round = 0; round < 50; ++round) failures += job(700, 5) ? 0 : 1;
        other.join();
        QCOMPARE(failures, 0);
        QCOMPARE(otherFailures.load(), 0);
    }
};

QTEST_APPLESS_MAIN(TestCpuKernels)
#include "tst_cpu_kernels.moc"
