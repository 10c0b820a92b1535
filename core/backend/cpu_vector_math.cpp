// Vectorised softmax and GELU: AVX-512F (16 lanes, masked tails) and AVX2+FMA (8 lanes, scalar
// tails) versions compiled with target attributes and chosen once at start-up; portable loops
// over std::exp / std::erf elsewhere.
#include "core/backend/cpu_vector_math.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "core/backend/x86_simd.h"

namespace hearsay::simd {
namespace {

// Cephes expf: n = round(x·log2 e), r = x - n·ln 2 (in two parts), exp(r) by a degree-5
// polynomial, times 2^n.
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
constexpr float kExpP0 = 1.9875691500e-4f, kExpP1 = 1.3981999507e-3f, kExpP2 = 8.3334519073e-3f,
                kExpP3 = 4.1665795894e-2f, kExpP4 = 1.6666665459e-1f, kExpP5 = 5.0000001201e-1f;
constexpr float kExpMax = 88.3762626647949f;
// Abramowitz and Stegun 7.1.26: erfc(z) ≈ t·(a1 + t·(a2 + t·(a3 + t·(a4 + t·a5))))·exp(-z²), t = 1/(1 + p·z).
constexpr float kErfP = 0.3275911f;
constexpr float kErfA1 = 0.254829592f, kErfA2 = -0.284496736f, kErfA3 = 1.421413741f, kErfA4 = -1.453152027f,
                kErfA5 = 1.061405429f;
constexpr float kInvSqrt2 = 0.70710678118654752440f;

#ifdef HEARSAY_SIMD_X86
// ---- AVX-512F ----

__attribute__((target("avx512f"))) inline __m512 exp16(__m512 x) {
    // Below -104 the result is 0 after scaling (2^-150), above kExpMax it would overflow.
    x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-104.0f)), _mm512_set1_ps(kExpMax));
    const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(kLog2e)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
    __m512 p = _mm512_set1_ps(kExpP0);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpP1));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpP2));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpP3));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpP4));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpP5));
    p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r);
    p = _mm512_add_ps(p, _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(p, n);  // p · 2^n, subnormal and zero results included
}

__attribute__((target("avx512f"))) float expShiftedAvx512(float* x, size_t n, float* shift) {
    if (n == 0) return 0.0f;
    __m512 vmax = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    size_t i = 0;
    for (; i + 16 <= n; i += 16) vmax = _mm512_max_ps(vmax, _mm512_loadu_ps(x + i));
    const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1u);
    if (tail) vmax = _mm512_mask_max_ps(vmax, tail, vmax, _mm512_maskz_loadu_ps(tail, x + i));
    const float maxScore = _mm512_reduce_max_ps(vmax);
    if (shift) *shift = maxScore;
    const __m512 m = _mm512_set1_ps(maxScore);
    __m512 sum = _mm512_setzero_ps();
    for (i = 0; i + 16 <= n; i += 16) {
        const __m512 e = exp16(_mm512_sub_ps(_mm512_loadu_ps(x + i), m));
        _mm512_storeu_ps(x + i, e);
        sum = _mm512_add_ps(sum, e);
    }
    if (tail) {
        const __m512 e = exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(tail, x + i), m));
        _mm512_mask_storeu_ps(x + i, tail, e);
        sum = _mm512_mask_add_ps(sum, tail, sum, e);
    }
    return _mm512_reduce_add_ps(sum);
}

__attribute__((target("avx512f"))) void softmaxAvx512(float* x, size_t n) {
    if (n == 0) return;
    const __m512 inv = _mm512_set1_ps(1.0f / expShiftedAvx512(x, n, nullptr));
    size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, _mm512_mul_ps(_mm512_loadu_ps(x + i), inv));
    const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1u);
    if (tail) _mm512_mask_storeu_ps(x + i, tail, _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, x + i), inv));
}

__attribute__((target("avx512f"))) inline __m512 gelu16(__m512 x) {
    const __m512 z = _mm512_mul_ps(_mm512_abs_ps(x), _mm512_set1_ps(kInvSqrt2));
    const __m512 t = _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_fmadd_ps(z, _mm512_set1_ps(kErfP), _mm512_set1_ps(1.0f)));
    __m512 p = _mm512_set1_ps(kErfA5);
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(kErfA4));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(kErfA3));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(kErfA2));
    p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(kErfA1));
    p = _mm512_mul_ps(p, t);
    const __m512 erfcz = _mm512_mul_ps(p, exp16(_mm512_mul_ps(_mm512_sub_ps(_mm512_setzero_ps(), z), z)));
    // 1 + erf(x/√2): 2 - erfc(z) for x ≥ 0, erfc(z) for x < 0 (no cancellation on the small side).
    const __mmask16 negative = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_LT_OQ);
    const __m512 onePlusErf = _mm512_mask_blend_ps(negative, _mm512_sub_ps(_mm512_set1_ps(2.0f), erfcz), erfcz);
    return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), x), onePlusErf);
}

__attribute__((target("avx512f"))) void geluAvx512(float* x, size_t n) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, gelu16(_mm512_loadu_ps(x + i)));
    if (i < n) {
        const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1u);
        _mm512_mask_storeu_ps(x + i, tail, gelu16(_mm512_maskz_loadu_ps(tail, x + i)));
    }
}

// ---- AVX2 + FMA ----

// exp(x) for x ≤ 0, the only arguments its callers have (a softmax's scores less their maximum,
// the GELU's −z²). Below −87.3 the result is set to 0 (exp(−87.3) = 1.2e-38, the smallest normal
// float); above it n = round(x·log2 e) lies in [−126, 0], so 2^n is one normal float built in the
// exponent bits and p · 2^n rounds once, as p · 2^h · 2^(n−h) did when x could be positive (the
// same results, six instructions fewer).
__attribute__((target("avx2,fma"))) inline __m256 expNonPositive8(__m256 x) {
    const __m256 zero = _mm256_cmp_ps(x, _mm256_set1_ps(-87.33654f), _CMP_LT_OQ);
    x = _mm256_max_ps(x, _mm256_set1_ps(-87.33654f));  // a NaN becomes −87.3, as before
    const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
    __m256 p = _mm256_set1_ps(kExpP0);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpP1));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpP2));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpP3));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpP4));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpP5));
    p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r);
    p = _mm256_add_ps(p, _mm256_set1_ps(1.0f));
    const __m256 scale = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
    return _mm256_andnot_ps(zero, _mm256_mul_ps(p, scale));
}

__attribute__((target("avx2,fma"))) float expShiftedAvx2(float* x, size_t n, float* shift) {
    if (n == 0) return 0.0f;
    __m256 vmax = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
    size_t i = 0;
    for (; i + 8 <= n; i += 8) vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(x + i));
    float maxScore = reduceMax8(vmax);
    for (size_t j = i; j < n; ++j) maxScore = std::max(maxScore, x[j]);
    if (shift) *shift = maxScore;
    const __m256 m = _mm256_set1_ps(maxScore);
    __m256 sum = _mm256_setzero_ps();
    for (i = 0; i + 8 <= n; i += 8) {
        const __m256 e = expNonPositive8(_mm256_sub_ps(_mm256_loadu_ps(x + i), m));
        _mm256_storeu_ps(x + i, e);
        sum = _mm256_add_ps(sum, e);
    }
    float total = reduceAdd8(sum);
    for (size_t j = i; j < n; ++j) {
        x[j] = std::exp(x[j] - maxScore);
        total += x[j];
    }
    return total;
}

__attribute__((target("avx2,fma"))) void softmaxAvx2(float* x, size_t n) {
    if (n == 0) return;
    const float inv = 1.0f / expShiftedAvx2(x, n, nullptr);
    const __m256 vinv = _mm256_set1_ps(inv);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_loadu_ps(x + i), vinv));
    for (; i < n; ++i) x[i] *= inv;
}

__attribute__((target("avx2,fma"))) void geluAvx2(float* x, size_t n) {
    const __m256 signMask = _mm256_set1_ps(-0.0f);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        const __m256 z = _mm256_mul_ps(_mm256_andnot_ps(signMask, v), _mm256_set1_ps(kInvSqrt2));
        const __m256 t = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_fmadd_ps(z, _mm256_set1_ps(kErfP), _mm256_set1_ps(1.0f)));
        __m256 p = _mm256_set1_ps(kErfA5);
        p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(kErfA4));
        p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(kErfA3));
        p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(kErfA2));
        p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(kErfA1));
        p = _mm256_mul_ps(p, t);
        const __m256 erfcz = _mm256_mul_ps(p, expNonPositive8(_mm256_mul_ps(_mm256_xor_ps(z, signMask), z)));
        const __m256 negative = _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ);
        const __m256 onePlusErf = _mm256_blendv_ps(_mm256_sub_ps(_mm256_set1_ps(2.0f), erfcz), erfcz, negative);
        _mm256_storeu_ps(x + i, _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), v), onePlusErf));
    }
    geluPortable(x + i, n - i);
}

enum class Path { Avx512, Avx2, Portable };

// HEARSAY_VECTOR_MATH=avx2 takes the AVX2 forms on a CPU with AVX-512 (so that its tests check both).
Path detectPath() {
    __builtin_cpu_init();
    const char* asked = std::getenv("HEARSAY_VECTOR_MATH");
    const bool avx2Asked = asked && std::string_view(asked) == "avx2";
    if (__builtin_cpu_supports("avx512f") && !avx2Asked) return Path::Avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Path::Avx2;
    return Path::Portable;
}
#else
enum class Path { Avx512, Avx2, Portable };
Path detectPath() { return Path::Portable; }
#endif

const Path kPath = detectPath();

} // namespace

float expShiftedPortable(float* x, size_t n, float* shift) {
    if (n == 0) return 0.0f;
    float maxScore = -std::numeric_limits<float>::infinity();
    for (size_t i = 0; i < n; ++i) maxScore = std::max(maxScore, x[i]);
    if (shift) *shift = maxScore;
    float sum = 0.0f;
    for (size_t i = 0; i < n; ++i) {
        x[i] = std::exp(x[i] - maxScore);
        sum += x[i];
    }
    return sum;
}

void softmaxPortable(float* x, size_t n) {
    if (n == 0) return;
    const float inv = 1.0f / expShiftedPortable(x, n, nullptr);
    for (size_t i = 0; i < n; ++i) x[i] *= inv;
}

void geluPortable(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * kInvSqrt2));
}

void softmax(float* x, size_t n) {
#ifdef HEARSAY_SIMD_X86
    if (kPath == Path::Avx512) return softmaxAvx512(x, n);
    if (kPath == Path::Avx2) return softmaxAvx2(x, n);
#endif
    softmaxPortable(x, n);
}

float expShifted(float* x, size_t n, float* shift) {
#ifdef HEARSAY_SIMD_X86
    if (kPath == Path::Avx512) return expShiftedAvx512(x, n, shift);
    if (kPath == Path::Avx2) return expShiftedAvx2(x, n, shift);
#endif
    return expShiftedPortable(x, n, shift);
}

void gelu(float* x, size_t n) {
#ifdef HEARSAY_SIMD_X86
    if (kPath == Path::Avx512) return geluAvx512(x, n);
    if (kPath == Path::Avx2) return geluAvx2(x, n);
#endif
    geluPortable(x, n);
}

const char* vectorMathPath() {
    switch (kPath) {
    case Path::Avx512: return "avx512";
    case Path::Avx2: return "avx2";
    case Path::Portable: return "portable";
    }
    return "portable";
}

} // namespace hearsay::simd
