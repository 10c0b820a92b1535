// The CPU backend's vector kernels against double-precision definitions, with stated
// tolerances: the vectorised softmax and GELU (the path this CPU runs, named in the output)
// and the portable ones, over lengths with every tail size and the extremes the encoder meets.
#include "core/backend/cpu_vector_math.h"

#include <QtTest>

#include <cmath>
#include <random>
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
};

QTEST_APPLESS_MAIN(TestCpuKernels)
#include "tst_cpu_kernels.moc"
