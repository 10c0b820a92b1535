// CudaBackend: the Backend interface on one NVIDIA GPU. Buffers in device memory (cudaMalloc):
// float32, or IEEE half for weight matrices in fp16 mode; GEMMs through cuBLAS (fp16 weights on
// tensor cores with fp32 accumulation, or fp32 with TF32 only when asked for), the other ops as
// the kernels of this folder, everything ordered on one stream. Shape violations throw
// std::logic_error (Backend's checks, the same as CpuBackend's), CUDA failures cuda::CudaError, and an allocation the GPU
// cannot satisfy cuda::CudaOutOfMemory (a std::bad_alloc naming the bytes requested).
#pragma once

#include "core/backend/backend.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>

#include <cuda_runtime.h>

namespace hearsay::cuda {

class CublasHandle;

struct CudaBackendOptions {
    int device = 0;          // CUDA device index
    bool allowTf32 = false;  // float32 weights' GEMMs on TF32 tensor cores (≈1e-3 relative); off: exact fp32
    // Fp16: loadWeight() keeps matrices (≥ 2 dims) as half and their GEMMs run on fp16 tensor
    // cores with fp32 accumulation (≈1e-3 relative); Fp32: every weight float32.
    Precision precision = Precision::Fp16;
    // linear() with a half weight and at most kSmallLinearMaxRows rows (a decode step) runs
    // kernels/small_linear: one pass, x kept float32, bias and residual fused. Off: cast x to
    // half, bias kernel, cublasGemmEx (three launches), as for more rows.
    bool smallLinear = true;
    // Fp16 mode: attention slices of ≥ 16 queries with head dimension 64 and no mask (the
    // encoder, the decoder's cross-attention over a prompt) run kernels/tensor_attention (WMMA,
    // fp16 products, fp32 softmax). Off, and always in fp32 mode: kernels/attention (fp32).
    bool tensorAttention = true;
    // Attention slices of ≤ 8 queries (decode steps) run kernels/decode_attention, split over
    // the keys (fp32, both modes). Off: kernels/attention, one block per (slice, head).
    bool splitAttention = true;
    // Fp16 mode, linear() with a bias and more rows (encoder, prompts): the bias added in
    // cuBLASLt's epilogue (one pass over y). Off: a bias broadcast into y, then GemmEx with β = 1.
    bool ltBias = true;
    // Fp16 mode: allocateKv() (the cross-attention cache) keeps half: the projection writes it
    // through a float32 scratch and a cast, attention reads half keys and values. Off: float32.
    bool halfKv = true;
};

// The names HEARSAY_CUDA_DISABLE takes (comma-separated) and the options they turn off:
// "small-linear", "tensor-attention", "split-attention", "lt-bias", "half-kv". False for an
// unknown name (*unknown set).
bool disableCudaKernels(CudaBackendOptions& options, const std::string& list, std::string* unknown);

// Thrown by CudaBackend::allocate when the GPU has too little free memory.
class CudaOutOfMemory : public std::bad_alloc {
public:
    explicit CudaOutOfMemory(std::string message) : m_message(std::move(message)) {}
    const char* what() const noexcept override { return m_message.c_str(); }

private:
    std::string m_message;
};

class CudaBackend final : public Backend {
public:
    // Throws cuda::CudaError when the device cannot be used.
    explicit CudaBackend(CudaBackendOptions options = {});
    ~CudaBackend() override;

    std::string name() const override { return m_name; }
    BackendKind kind() const override { return BackendKind::Cuda; }
    Precision precision() const override { return m_precision; }
    // CPU threads do not apply to the GPU; the value is kept and reported, nothing else.
    void setThreads(int threads) override { m_threads = threads; }
    int threads() const override { return m_threads; }

    std::unique_ptr<DeviceBuffer> allocate(size_t elements) override;
    std::unique_ptr<DeviceBuffer> allocateKv(size_t elements) override;
    size_t kvElementBytes() const override { return halfKv() ? 2 : sizeof(float); }
    std::unique_ptr<IndexBuffer> allocateIndices(size_t count) override;
    // The fused kernel needs no workspace.
    size_t attentionWorkspaceElements(int queries, int keys) const override;

    void synchronize() override;
    // cudaMemGetInfo on this backend's device, made current on the calling thread.
    DeviceMemory memoryInfo() const override;

    // Recording is CUDA stream capture (kernels/cuda_graph.h): the ops of record() become one
    // graph, launched by replay(). While a thread records, no other thread may use the backend
    // (the stream would capture its work too); the forbidden calls throw for every thread.
    bool recording() const override;
    // Launches an instantiated graph on the stream (CudaGraph::replay()).
    void launchGraph(cudaGraphExec_t graph);
    // The fp16 cast buffer of linear() is the one scratch a graph captures by address.
    uint64_t scratchGeneration() const override { return m_scratchGeneration.load(); }

    int device() const { return m_device; }

protected:
    void runUpload(BufferView dst, const float* src, size_t count) override;
    void runDownload(BufferView src, float* dst, size_t count) override;
    void runUploadIndices(IndexView dst, std::span<const int32_t> values) override;
    void runLinear(BufferView x, BufferView w, BufferView bias, BufferView y, int rows, int in, int out,
                   bool accumulate) override;
    void runLinearMany(BufferView x, std::span<const LinearTarget> targets, int rows, int in) override;
    void runLayerNorm(BufferView x, BufferView gamma, BufferView beta, BufferView y, int rows, int cols,
                      float eps) override;
    void runGelu(BufferView x) override;
    void runAdd(BufferView x, BufferView y) override;
    void runConv1d(BufferView x, int length, int inChannels, BufferView w, BufferView bias, BufferView y,
                   int outChannels, int stride, BufferView workspace) override;
    void runEmbed(IndexView tokens, IndexView positions, int count, BufferView tokenTable, BufferView positionTable,
                  int width, BufferView y) override;
    void runCopyRows(BufferView src, int srcStride, BufferView dst, int dstStride, int width,
                     std::span<const RowCopy> copies, IndexView dstRowOffsets) override;
    void runAttention(const AttentionArgs& args) override;
    // A logic error naming `what` while any thread records (allocations, host copies, waits).
    void refuseWhileRecording(const char* what) const override;
    bool owns(const DeviceBuffer& buffer) const override;
    bool owns(const IndexBuffer& buffer) const override;
    void beginRecording() override;
    std::unique_ptr<RecordedWork> endRecording() override;
    void abandonRecording() noexcept override;
    std::unique_ptr<DeviceBuffer> createWeight(const TensorView& view) override;

private:
    // Makes this backend's device current on the calling thread (sessions run on worker threads).
    void useDevice() const;
    bool halfKv() const { return m_precision == Precision::Fp16 && m_halfKv; }
    // The cuBLAS product of linear() (x cast to half for a half weight; bias in the epilogue or
    // broadcast) into float32 y. The caller holds m_mutex.
    void productLocked(const float* x, const void* wHalf, const float* wFloat, const float* bias, float* y, int rows,
                       int in, int out, bool accumulate);
    // Device scratch that grows on demand (in 1 MiB steps) and never while the stream is being
    // captured into a CUDA graph (a graph records its address; that is a std::logic_error: the
    // session runs every shape eagerly once before recording it). Growing bumps
    // scratchGeneration(): graphs recorded before are stale. The caller holds m_mutex.
    struct Scratch {
        void* data = nullptr;
        size_t bytes = 0;
    };
    void* grow(Scratch& scratch, size_t bytes, const char* what);
    // y = bias (+ y), then y += x · wᵀ (+ y): the GEMM of linear() and conv1d(). x and w are
    // both half (wHalf) or both float32. The caller holds m_mutex.
    void gemmWithBias(const void* x, const void* w, bool wHalf, const float* bias, float* y, int rows, int in, int out,
                      bool accumulate);

    int m_device = 0;
    int m_threads = 1;
    Precision m_precision = Precision::Fp16;
    bool m_smallLinear = true;
    bool m_tensorAttention = true;
    bool m_splitAttention = true;
    bool m_ltBias = true;
    bool m_halfKv = true;
    std::string m_name;
    std::string m_memoryName;      // "GPU 0 (NVIDIA H100 80GB HBM3)"
    std::unique_ptr<CublasHandle> m_cublas;
    std::mutex m_mutex;            // guards the cuBLAS handle and the scratch buffers
    Scratch m_halfScratch;         // [rows][in] half: linear()'s x cast for an fp16 GEMM
    Scratch m_attentionScratch;    // decode attention's partial results per split
    Scratch m_outScratch;          // linear()'s float32 result before the cast into a half KV buffer
    std::atomic<uint64_t> m_scratchGeneration{0};  // bumped when a scratch buffer moves
    std::atomic<std::thread::id> m_recorder{};  // the thread inside record(), or none
};

} // namespace hearsay::cuda
