// Device buffers of the CUDA backend (see cuda_buffer.h).
#include "kernels/cuda_buffer.h"

#include "kernels/cuda_backend.h"  // CudaOutOfMemory
#include "kernels/cuda_check.h"

#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

namespace hearsay::cuda {
namespace {

std::string gib(size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / double(size_t(1) << 30));
    return text;
}

// Frees `data` on `device`, whichever device the calling thread is on.
void freeOn(int device, void* data) {
    int current = -1;
    cudaGetDevice(&current);
    if (current != device) cudaSetDevice(device);
    cudaFree(data);  // synchronises the device: no pending op still reads it
}

} // namespace

CudaBuffer::CudaBuffer(size_t elements, int device, cudaStream_t stream, ElementType element)
    : DeviceBuffer(elements, element), m_device(device) {
    if (elements == 0) return;
    if (elements > std::numeric_limits<size_t>::max() / sizeof(float)) throw CudaOutOfMemory("CUDA buffer too large");
    const size_t bytes = elements * (element == ElementType::F16 ? sizeof(__half) : sizeof(float));
    void* data = nullptr;
    const cudaError_t status = cudaMalloc(&data, bytes);
    if (status == cudaErrorMemoryAllocation) {
        cudaGetLastError();  // not sticky, but clear it for the next check
        size_t freeBytes = 0, totalBytes = 0;
        cudaMemGetInfo(&freeBytes, &totalBytes);
        throw CudaOutOfMemory("CUDA out of memory: cannot allocate " + std::to_string(bytes) + " bytes (" +
                              gib(bytes) + ") on GPU " + std::to_string(device) + ", " + gib(freeBytes) +
                              " free of " + gib(totalBytes));
    }
    HEARSAY_CUDA_CHECK(status);
    // Ordered before every later op on the stream, which is the only one that touches it.
    const cudaError_t zeroed = cudaMemsetAsync(data, 0, bytes, stream);
    if (zeroed != cudaSuccess) {
        cudaFree(data);  // the destructor does not run for a constructor that throws
        HEARSAY_CUDA_CHECK(zeroed);
    }
    setAddress(data);
}

CudaBuffer::~CudaBuffer() {
    if (address()) freeOn(m_device, address());
}

CudaIndexBuffer::CudaIndexBuffer(size_t elements, int device, cudaStream_t stream)
    : IndexBuffer(elements), m_device(device) {
    if (elements == 0) return;
    const size_t bytes = elements * sizeof(int32_t);
    int32_t* data = nullptr;
    const cudaError_t status = cudaMalloc(&data, bytes);
    if (status == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        throw CudaOutOfMemory("CUDA out of memory: cannot allocate " + std::to_string(bytes) +
                              " bytes of indices on GPU " + std::to_string(device));
    }
    HEARSAY_CUDA_CHECK(status);
    const cudaError_t zeroed = cudaMemsetAsync(data, 0, bytes, stream);
    if (zeroed != cudaSuccess) {
        cudaFree(data);
        HEARSAY_CUDA_CHECK(zeroed);
    }
    setAddress(data);
}

CudaIndexBuffer::~CudaIndexBuffer() {
    if (address()) freeOn(m_device, address());
}

} // namespace hearsay::cuda
