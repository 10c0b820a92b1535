// Finding and loading libhearsay-cuda.so (see cuda_module.h).
#include "core/engine/cuda_module.h"

#ifdef HEARSAY_HAVE_CUDA
#include "kernels/cuda_module.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#endif

namespace hearsay::cuda_module {

#ifdef HEARSAY_HAVE_CUDA
namespace {

constexpr const char* kModuleFile = "libhearsay-cuda.so";

// bin/../lib/hearsay/ of the running program (tests live in tests/, beside bin/: the same parent).
std::filesystem::path defaultModulePath() {
    std::error_code error;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) return {};
    return exe.parent_path().parent_path() / "lib" / "hearsay" / kModuleFile;
}

struct Loaded {
    const cuda::ModuleApi* api = nullptr;
    std::string why;  // when api is null
};

const Loaded& module() {
    static const Loaded loaded = [] {
        Loaded result;
        const char* named = std::getenv("HEARSAY_CUDA_MODULE");
        const std::filesystem::path path = named && *named ? std::filesystem::path(named) : defaultModulePath();
        std::error_code error;
        if (path.empty() || !std::filesystem::exists(path, error)) {
            result.why = "the CUDA backend module is not installed (" +
                         (path.empty() ? std::string(kModuleFile) : path.string()) + " is missing)";
            return result;
        }
        void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* reason = dlerror();
            result.why = std::string("the CUDA backend cannot be loaded (the CUDA runtime and cuBLAS libraries it needs "
                                     "are missing or too old): ") + (reason ? reason : path.string());
            return result;
        }
        using Entry = const cuda::ModuleApi* (*)();
        auto entry = reinterpret_cast<Entry>(dlsym(handle, HEARSAY_CUDA_MODULE_ENTRY));
        const cuda::ModuleApi* api = entry ? entry() : nullptr;
        if (!api || api->abiVersion != cuda::ModuleApi::kAbiVersion) {
            result.why = "the CUDA backend module " + path.string() + " belongs to another version of Hearsay";
            dlclose(handle);
            return result;
        }
        result.api = api;  // the handle stays open for the life of the process
        return result;
    }();
    return loaded;
}

// The driver's traces: its /proc entry and control device (Linux), or WSL's GPU device.
bool nvidiaDriverPresent() {
    std::error_code error;
    for (const char* path : {"/proc/driver/nvidia/version", "/dev/nvidiactl", "/dev/dxg"}) {
        if (std::filesystem::exists(path, error)) return true;
    }
    return false;
}

} // namespace

bool built() { return true; }

bool loaded(std::string* why) {
    const Loaded& m = module();
    if (!m.api && why) *why = m.why;
    return m.api != nullptr;
}

bool deviceAvailable(int device, std::string* why) {
    // Without an NVIDIA driver there is no device to find, and loading the module would map and
    // relocate the CUDA runtime and cuBLAS for nothing (about 150 MiB resident in a CPU run).
    if (!nvidiaDriverPresent()) {
        if (why) *why = "no NVIDIA driver on this machine (no /proc/driver/nvidia, /dev/nvidiactl or /dev/dxg)";
        return false;
    }
    if (!loaded(why)) return false;
    return module().api->deviceAvailable(device, why);
}

Result<std::shared_ptr<Backend>> createBackend(const BackendOptions& options) {
    std::string why;
    if (!loaded(&why)) return makeError(why, ErrorKind::Device);
    return module().api->createBackend(options);
}

Result<GpuInfo> describeGpu(int device) {
    std::string why;
    if (!loaded(&why)) return makeError(why, ErrorKind::Device);
    return module().api->describeGpu(device);
}

Result<cuda::GpuPeakProbe> measurePeakRates(int device) {
    std::string why;
    if (!loaded(&why)) return makeError(why, ErrorKind::Device);
    return module().api->measurePeakRates(device);
}

#else

namespace {
constexpr const char* kNotBuilt = "the CUDA backend is not available in this build (built without CUDA)";
}

bool built() { return false; }

bool loaded(std::string* why) {
    if (why) *why = kNotBuilt;
    return false;
}

bool deviceAvailable(int, std::string* why) { return loaded(why); }

Result<std::shared_ptr<Backend>> createBackend(const BackendOptions&) { return makeError(kNotBuilt, ErrorKind::Device); }

Result<GpuInfo> describeGpu(int) { return makeError(kNotBuilt, ErrorKind::Device); }

#endif

} // namespace hearsay::cuda_module
