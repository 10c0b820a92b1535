// OpenBLAS, loaded on first use with kernels chosen from the CPU's features (blas.h says why).
// The choice: what the user set in OPENBLAS_CORETYPE, if anything; else SkylakeX where the CPU
// has the AVX-512 subsets those kernels use, Haswell where it has AVX2 and FMA, and otherwise
// OpenBLAS's own choice. The variable is set only while OpenBLAS loads and then put back as it
// was, so the programs Hearsay starts (the bench's peers) see the user's environment.
#ifndef HEARSAY_BUILTIN_BLAS

#include "core/backend/blas.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>

namespace hearsay::blas {
namespace {

// OpenBLAS's CBLAS constants and LP64 entry points (libopenblas.so.0: 32-bit integers).
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
using SgemvFn = void (*)(int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
using SetThreadsFn = void (*)(int);
using GetThreadsFn = int (*)();
using NameFn = char* (*)();

struct Library {
    SgemmFn sgemm = nullptr;
    SgemvFn sgemv = nullptr;
    SetThreadsFn setThreads = nullptr;
    GetThreadsFn threads = nullptr;
    std::string description;
    std::string error;  // why it could not be loaded; empty when it was
};

// The kernels to ask for on this CPU, with the reason; nullptr: leave the choice to OpenBLAS.
const char* kernelsForThisCpu(const char** reason) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd")) {
        *reason = "chosen for this CPU: AVX-512";
        return "SkylakeX";
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        *reason = "chosen for this CPU: AVX2 and FMA";
        return "Haswell";
    }
    *reason = "OpenBLAS's choice";
    return nullptr;
}

Library load() {
    Library lib;
    const char* userSet = std::getenv("OPENBLAS_CORETYPE");
    const char* reason = "set by OPENBLAS_CORETYPE";
    const char* kernels = nullptr;
    if (userSet && *userSet) {
        kernels = userSet;
    } else {
        kernels = kernelsForThisCpu(&reason);
        if (kernels) setenv("OPENBLAS_CORETYPE", kernels, 1);
    }
    void* handle = nullptr;
    std::string tried;
    for (const char* name : {"libopenblas.so.0", "libopenblas.so"}) {
        handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (handle) break;
        if (const char* why = dlerror()) tried += std::string(tried.empty() ? "" : "; ") + why;
    }
    if (!(userSet && *userSet) && kernels) unsetenv("OPENBLAS_CORETYPE");
    if (!handle) {
        lib.error = "OpenBLAS could not be loaded (" + tried + "); install it (Debian: libopenblas0)";
        return lib;
    }
    lib.sgemm = reinterpret_cast<SgemmFn>(dlsym(handle, "cblas_sgemm"));
    lib.sgemv = reinterpret_cast<SgemvFn>(dlsym(handle, "cblas_sgemv"));
    lib.setThreads = reinterpret_cast<SetThreadsFn>(dlsym(handle, "openblas_set_num_threads"));
    lib.threads = reinterpret_cast<GetThreadsFn>(dlsym(handle, "openblas_get_num_threads"));
    if (!lib.sgemm || !lib.sgemv || !lib.setThreads || !lib.threads) {
        lib.error = "the OpenBLAS that was loaded lacks cblas_sgemm, cblas_sgemv, openblas_set_num_threads or "
                    "openblas_get_num_threads";
        return lib;
    }
    // The version from the configuration string ("OpenBLAS 0.3.21 DYNAMIC_ARCH …"), the kernels
    // from the core name OpenBLAS reports (what it really runs, whatever was asked).
    std::string version = "OpenBLAS";
    if (auto config = reinterpret_cast<NameFn>(dlsym(handle, "openblas_get_config"))) {
        const std::string text = config();
        const size_t space = text.find(' ', text.find(' ') + 1);
        version = text.substr(0, space);
    }
    std::string core = "unknown";
    if (auto name = reinterpret_cast<NameFn>(dlsym(handle, "openblas_get_corename"))) core = name();
    lib.description = version + ", " + core + " kernels (" + reason + ")";
    return lib;
}

const Library& library() {
    static std::once_flag once;
    static Library lib;
    std::call_once(once, [] { lib = load(); });
    if (!lib.error.empty()) throw std::runtime_error(lib.error);
    return lib;
}

} // namespace

void sgemm(bool bTransposed, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
           float beta, float* c, int ldc) {
    library().sgemm(kRowMajor, kNoTrans, bTransposed ? kTrans : kNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c,
                    ldc);
}

void sgemv(int m, int n, float alpha, const float* a, int lda, const float* x, float beta, float* y) {
    library().sgemv(kRowMajor, kNoTrans, m, n, alpha, a, lda, x, 1, beta, y, 1);
}

void setThreads(int threads) { library().setThreads(threads); }

int threads() { return library().threads(); }

void require() { library(); }

std::string describe() { return library().description; }

} // namespace hearsay::blas

#endif // HEARSAY_BUILTIN_BLAS
