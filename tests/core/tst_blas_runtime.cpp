// The CPU backend's BLAS (core/backend/blas.h): its two products against a double-precision
// definition (both layouts of B, leading dimensions wider than the rows, beta 0 and 1), and the
// kernels OpenBLAS runs, as OpenBLAS itself names them: the ones chosen for this CPU's features,
// or the user's OPENBLAS_CORETYPE (CTest runs this program a second time with it set), and the
// variable left as the user had it; a count of threads set for a while is put back.
#include "core/backend/blas.h"

#include <QtTest>

#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace hearsay;

namespace {

std::vector<float> randomValues(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

bool builtin() { return blas::describe().rfind("builtin", 0) == 0; }

} // namespace

class BlasRuntimeTest : public QObject {
    Q_OBJECT
private slots:
    void sgemmMatchesDefinition_data() {
        QTest::addColumn<bool>("bTransposed");
        QTest::addColumn<float>("beta");
        QTest::newRow("B, beta 0") << false << 0.0f;
        QTest::newRow("B transposed, beta 0") << true << 0.0f;
        QTest::newRow("B, beta 1") << false << 1.0f;
        QTest::newRow("B transposed, beta 1") << true << 1.0f;
    }
    void sgemmMatchesDefinition() {
        QFETCH(bool, bTransposed);
        QFETCH(float, beta);
        const int m = 37, n = 53, k = 129, lda = k + 3, ldb = (bTransposed ? k : n) + 5, ldc = n + 7;
        const auto a = randomValues(size_t(m) * lda, 1);
        const auto b = randomValues(size_t(bTransposed ? n : k) * ldb, 2);
        auto c = randomValues(size_t(m) * ldc, 3);
        const auto before = c;
        const float alpha = 0.75f;
        blas::sgemm(bTransposed, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
        for (int i = 0; i < m; ++i) {
            for (int j = 0; j < ldc; ++j) {
                const size_t at = size_t(i) * ldc + j;
                if (j >= n) {
                    QCOMPARE(c[at], before[at]);  // outside the n columns nothing is written
                    continue;
                }
                double sum = 0.0;
                for (int p = 0; p < k; ++p) {
                    const double bv = bTransposed ? b[size_t(j) * ldb + p] : b[size_t(p) * ldb + j];
                    sum += double(a[size_t(i) * lda + p]) * bv;
                }
                const double expected = alpha * sum + beta * double(before[at]);
                QVERIFY2(std::abs(c[at] - expected) <= 1e-4 * (1.0 + std::abs(expected)),
                         qPrintable(QString("c[%1][%2] = %3, expected %4").arg(i).arg(j).arg(c[at]).arg(expected)));
            }
        }
    }

    void sgemvMatchesDefinition() {
        const int m = 301, n = 97, lda = n + 11;
        const auto a = randomValues(size_t(m) * lda, 4);
        const auto x = randomValues(size_t(n), 5);
        for (float beta : {0.0f, 1.0f}) {
            auto y = randomValues(size_t(m), 6);
            const auto before = y;
            blas::sgemv(m, n, 1.5f, a.data(), lda, x.data(), beta, y.data());
            for (int i = 0; i < m; ++i) {
                double sum = 0.0;
                for (int j = 0; j < n; ++j) sum += double(a[size_t(i) * lda + j]) * x[size_t(j)];
                const double expected = 1.5 * sum + beta * double(before[size_t(i)]);
                QVERIFY(std::abs(y[size_t(i)] - expected) <= 1e-4 * (1.0 + std::abs(expected)));
            }
        }
    }

    // ThreadsFor sets the count of threads for its lifetime and puts back the one it found.
    // OpenBLAS gives at most the threads it started with (one a CPU); the builtin BLAS has one.
    void threadsForPutsTheCountBack() {
        blas::setThreads(1);
        {
            const blas::ThreadsFor two(2);
            const int inside = blas::threads();
            if (!builtin() && std::thread::hardware_concurrency() >= 2) QCOMPARE(inside, 2);
            {
                const blas::ThreadsFor one(1);
                QCOMPARE(blas::threads(), 1);
            }
            QCOMPARE(blas::threads(), inside);
        }
        QCOMPARE(blas::threads(), 1);
    }

    // OpenBLAS runs the kernels chosen for this CPU (its own report of what it runs), or the ones
    // the user set; the variable is the user's afterwards.
    void kernelsChosenForThisCpu() {
        const std::string text = blas::describe();
        qInfo("BLAS: %s", text.c_str());
        if (builtin()) QSKIP("built with HEARSAY_BLAS=builtin: no kernels to choose");
        const char* userSet = std::getenv("OPENBLAS_CORETYPE");
        if (userSet && *userSet) {
            QVERIFY2(text.find(std::string(userSet) + " kernels (set by OPENBLAS_CORETYPE)") != std::string::npos,
                     text.c_str());
            QCOMPARE(QByteArray(std::getenv("OPENBLAS_CORETYPE")), QByteArray(userSet));
            return;
        }
        QVERIFY2(std::getenv("OPENBLAS_CORETYPE") == nullptr, "the variable set for loading OpenBLAS was left behind");
        __builtin_cpu_init();
        const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                            __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
                            __builtin_cpu_supports("avx512cd");
        if (avx512) {
            QVERIFY2(text.find("SkylakeX kernels (chosen for this CPU: AVX-512)") != std::string::npos, text.c_str());
        } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
            QVERIFY2(text.find("Haswell kernels (chosen for this CPU: AVX2 and FMA)") != std::string::npos, text.c_str());
        } else {
            QVERIFY2(text.find("(OpenBLAS's choice)") != std::string::npos, text.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(BlasRuntimeTest)
#include "tst_blas_runtime.moc"
