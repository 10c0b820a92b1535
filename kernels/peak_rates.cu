// GPU peak probe (see peak_rates.h): a cuBLAS fp16 GEMM for FLOP/s, a read kernel and a
// cudaMemcpy for bandwidth, best of several event-timed runs after a warm-up.
#include "kernels/peak_rates.h"

#include "kernels/cuda_check.h"

#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

namespace hearsay::cuda {
namespace {

// x[i] = a value in [-1, 1) hashed from i: non-zero data, so the tensor cores do real work.
__global__ void fillHalf(__half* x, size_t n, uint32_t seed) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        uint32_t h = uint32_t(i) * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = __float2half(float(h & 0xffff) / 32768.0f - 1.0f);
    }
}

// Reads data[0, count) once, 16 bytes per load, four independent loads in flight per thread.
// The XOR of everything is stored only if it equals a magic value, so the loads cannot be
// removed and (almost) nothing is written.
__global__ void readAll(const uint4* __restrict__ data, size_t count, uint32_t* __restrict__ sink) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    uint32_t acc = 0;
    for (; i + 3 * stride < count; i += 4 * stride) {
        const uint4 a = data[i], b = data[i + stride], c = data[i + 2 * stride], d = data[i + 3 * stride];
        acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
    }
    for (; i < count; i += stride) {
        const uint4 a = data[i];
        acc ^= a.x ^ a.y ^ a.z ^ a.w;
    }
    if (acc == 0x9e3779b9u) *sink = acc;
}

// Device memory freed on every path out of the probe.
struct DeviceMemory {
    void* p = nullptr;
    explicit DeviceMemory(size_t bytes) { HEARSAY_CUDA_CHECK(cudaMalloc(&p, bytes)); }
    ~DeviceMemory() { cudaFree(p); }
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;
};

struct Events {
    cudaEvent_t start = nullptr, stop = nullptr;
    Events() {
        HEARSAY_CUDA_CHECK(cudaEventCreate(&start));
        HEARSAY_CUDA_CHECK(cudaEventCreate(&stop));
    }
    ~Events() {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
    Events(const Events&) = delete;
    Events& operator=(const Events&) = delete;
};

struct Stream {
    cudaStream_t s = nullptr;
    Stream() { HEARSAY_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(s); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
};

struct Cublas {
    cublasHandle_t h = nullptr;
    Cublas() { HEARSAY_CUBLAS_CHECK(cublasCreate(&h)); }
    ~Cublas() { cublasDestroy(h); }
    Cublas(const Cublas&) = delete;
    Cublas& operator=(const Cublas&) = delete;
};

// Milliseconds of the fastest of `trials` runs of `work` (each enqueuing `perTrial` repetitions),
// after `warmup` untimed runs.
template <typename Work>
double bestMs(cudaStream_t stream, int warmup, int trials, Work work) {
    Events events;
    for (int i = 0; i < warmup; ++i) work();
    HEARSAY_CUDA_CHECK(cudaStreamSynchronize(stream));
    float best = 1e30f;
    for (int t = 0; t < trials; ++t) {
        HEARSAY_CUDA_CHECK(cudaEventRecord(events.start, stream));
        work();
        HEARSAY_CUDA_CHECK(cudaEventRecord(events.stop, stream));
        HEARSAY_CUDA_CHECK(cudaEventSynchronize(events.stop));
        float ms = 0.0f;
        HEARSAY_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start, events.stop));
        best = std::min(best, ms);
    }
    return double(best);
}

std::string gib(size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f GiB", double(bytes) / double(size_t(1) << 30));
    return text;
}

GpuPeakProbe measure(int device) {
    GpuPeakProbe probe;
    auto info = describeGpu(device);
    if (!info) throw CudaError(info.message());
    probe.gpu = info.value();
    HEARSAY_CUDA_CHECK(cudaSetDevice(device));
    Stream stream;
    const size_t bandwidthBytes = size_t(1) << 30;

    {  // C[n][n] = A · B in fp16 with fp32 accumulation (cuBLAS picks tensor-core kernels for it)
        const int n = 8192;
        const size_t elements = size_t(n) * n;
        DeviceMemory a(elements * sizeof(__half)), b(elements * sizeof(__half)), c(elements * sizeof(__half));
        const int blocks = probe.gpu.multiprocessors * 4;
        fillHalf<<<blocks, 256, 0, stream.s>>>(static_cast<__half*>(a.p), elements, 1u);
        HEARSAY_CUDA_CHECK_LAUNCH();
        fillHalf<<<blocks, 256, 0, stream.s>>>(static_cast<__half*>(b.p), elements, 2u);
        HEARSAY_CUDA_CHECK_LAUNCH();
        Cublas cublas;
        HEARSAY_CUBLAS_CHECK(cublasSetStream(cublas.h, stream.s));
        const float alpha = 1.0f / 8192.0f, beta = 0.0f;  // keeps the fp16 outputs in range
        const int perTrial = 10;
        auto gemms = [&] {
            for (int i = 0; i < perTrial; ++i) {
                HEARSAY_CUBLAS_CHECK(cublasGemmEx(cublas.h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a.p, CUDA_R_16F, n,
                                                  b.p, CUDA_R_16F, n, &beta, c.p, CUDA_R_16F, n, CUBLAS_COMPUTE_32F,
                                                  CUBLAS_GEMM_DEFAULT));
            }
        };
        const double ms = bestMs(stream.s, 1, 3, gemms);
        probe.gemmFlopsPerSecond = perTrial * 2.0 * double(n) * n * n / (ms * 1e-3);
    }
    {  // bandwidth over 1 GiB: a read kernel, and a device-to-device copy (reads and writes 1 GiB each)
        const size_t bytes = bandwidthBytes;
        DeviceMemory src(bytes), dst(bytes), sink(sizeof(uint32_t));
        HEARSAY_CUDA_CHECK(cudaMemsetAsync(src.p, 0x5a, bytes, stream.s));
        HEARSAY_CUDA_CHECK(cudaMemsetAsync(dst.p, 0, bytes, stream.s));
        const size_t count = bytes / sizeof(uint4);
        const int blocks = probe.gpu.multiprocessors * 8;
        auto read = [&] {
            readAll<<<blocks, 256, 0, stream.s>>>(static_cast<const uint4*>(src.p), count, static_cast<uint32_t*>(sink.p));
            HEARSAY_CUDA_CHECK_LAUNCH();
        };
        probe.readBytesPerSecond = double(bytes) / (bestMs(stream.s, 2, 5, read) * 1e-3);
        auto copy = [&] { HEARSAY_CUDA_CHECK(cudaMemcpyAsync(dst.p, src.p, bytes, cudaMemcpyDeviceToDevice, stream.s)); };
        probe.copyBytesPerSecond = 2.0 * double(bytes) / (bestMs(stream.s, 2, 5, copy) * 1e-3);
        HEARSAY_CUDA_CHECK(cudaStreamSynchronize(stream.s));
    }

    probe.flopsPerSecond = probe.gemmFlopsPerSecond;
    probe.flopsSource = "measured: cublasGemmEx fp16 in/out, fp32 compute, 8192x8192x8192, best of 3 x 10 on " + probe.gpu.name;
    const bool readWins = probe.readBytesPerSecond >= probe.copyBytesPerSecond;
    probe.bytesPerSecond = std::max(probe.readBytesPerSecond, probe.copyBytesPerSecond);
    char other[96];
    std::snprintf(other, sizeof other, " (%s %.0f GB/s)", readWins ? "copy" : "read",
                  (readWins ? probe.copyBytesPerSecond : probe.readBytesPerSecond) / 1e9);
    probe.bytesSource = std::string("measured: ") +
                              (readWins ? "read kernel over " + gib(bandwidthBytes)
                                        : "device-to-device copy of " + gib(bandwidthBytes) + ", read + written counted") +
                              ", best of 5" + other;
    return probe;
}

} // namespace

Result<GpuInfo> describeGpu(int device) {
    GpuInfo g;
    g.index = device;
    cudaDriverGetVersion(&g.driverVersion);
    cudaRuntimeGetVersion(&g.runtimeVersion);
    cudaDeviceProp prop{};
    const cudaError_t status = cudaGetDeviceProperties(&prop, device);
    if (status != cudaSuccess) {
        cudaGetLastError();
        return makeError("CUDA device " + std::to_string(device) + ": " + cudaGetErrorString(status));
    }
    g.name = prop.name;
    g.computeMajor = prop.major;
    g.computeMinor = prop.minor;
    g.memoryBytes = prop.totalGlobalMem;
    g.multiprocessors = prop.multiProcessorCount;
    int value = 0;
    if (cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, device) == cudaSuccess) g.smClockMhz = value / 1000.0;
    if (cudaDeviceGetAttribute(&value, cudaDevAttrMemoryClockRate, device) == cudaSuccess) g.memoryClockMhz = value / 1000.0;
    if (cudaDeviceGetAttribute(&value, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess) g.memoryBusBits = value;
    if (cudaSetDevice(device) == cudaSuccess) {
        size_t freeBytes = 0, totalBytes = 0;
        if (cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess) g.freeMemoryBytes = freeBytes;
    }
    cudaGetLastError();  // an attribute the runtime lacks leaves no sticky error behind
    return g;
}

Result<GpuPeakProbe> measureGpuPeakRates(int device) {
    try {
        return measure(device);
    } catch (const std::exception& e) {
        cudaGetLastError();
        return makeError(std::string("GPU peak probe failed: ") + e.what());
    }
}

} // namespace hearsay::cuda
