// The device memory of a CudaBackend: DeviceBuffer (float32 or half) and IndexBuffer (int32) on
// one GPU, each one cudaMalloc, zeroed on the backend's stream at allocation and freed on its own
// device. An allocation the GPU cannot satisfy throws CudaOutOfMemory naming the bytes asked
// for (and, for activations and weights, the memory free).
#pragma once

#include "core/backend/backend.h"

#include <cstddef>

#include <cuda_runtime.h>

namespace hearsay::cuda {

// float32 (everything Backend::allocate() makes, all weights in fp32 mode) or IEEE half (weight
// matrices in fp16 mode, half KV buffers). Offsets and sizes count elements of the buffer's own type.
class CudaBuffer final : public DeviceBuffer {
public:
    CudaBuffer(size_t elements, int device, cudaStream_t stream, ElementType element = ElementType::F32);
    ~CudaBuffer() override;

private:
    int m_device = 0;
};

// int32 device memory for per-step values (token ids, positions, offsets).
class CudaIndexBuffer final : public IndexBuffer {
public:
    CudaIndexBuffer(size_t elements, int device, cudaStream_t stream);
    ~CudaIndexBuffer() override;

private:
    int m_device = 0;
};

} // namespace hearsay::cuda
