// The reference backend: float32 on the host, GEMMs through OpenBLAS (cblas_sgemm, and
// cblas_sgemv for single rows, called single-threaded on each pool thread's slice of the
// output), attention and elementwise ops split over the same thread pool. Every op checks its
// arguments when called and then runs its work, or, inside record(), appends that work to a
// tape (nothing runs): the CPU twin of a CUDA graph, as strict about per-step values. The ops'
// checks are Backend's (backend_ops.cpp), the same as CUDA's.
#pragma once

#include "core/backend/backend.h"
#include "core/backend/thread_pool.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace hearsay {

class CpuBackend final : public Backend {
public:
    explicit CpuBackend(int threads = 0);
    ~CpuBackend() override;

    std::string name() const override;
    BackendKind kind() const override { return BackendKind::Cpu; }
    // Safe while other threads run ops on this backend (they finish on the previous pool).
    void setThreads(int threads) override;
    int threads() const override;

    std::unique_ptr<DeviceBuffer> allocate(size_t elements) override;
    std::unique_ptr<IndexBuffer> allocateIndices(size_t count) override;
    size_t attentionWorkspaceElements(int queries, int keys) const override;
    // System RAM (MemTotal, MemAvailable): the buffers live there.
    DeviceMemory memoryInfo() const override;

    void synchronize() override;
    bool recording() const override;

    // Batches with at least this many queries use the GEMM path (scores through sgemm).
    static constexpr int kGemmAttentionQueries = 32;
    // linear() with 2..kSmallBatchRows rows uses the dot-product path instead of sgemm.
    static constexpr int kSmallBatchRows = 8;

protected:
    void runUpload(BufferView dst, const float* src, size_t count) override;
    void runDownload(BufferView src, float* dst, size_t count) override;
    void runUploadIndices(IndexView dst, std::span<const int32_t> values) override;
    void runLinear(BufferView x, BufferView w, BufferView bias, BufferView y, int rows, int in, int out,
                   bool accumulate) override;
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
    void refuseWhileRecording(const char* what) const override;
    bool owns(const DeviceBuffer& buffer) const override;
    bool owns(const IndexBuffer& buffer) const override;
    void beginRecording() override;
    std::unique_ptr<RecordedWork> endRecording() override;
    void abandonRecording() noexcept override;
    std::unique_ptr<DeviceBuffer> createWeight(const TensorView& view) override;

private:
    // Runs `work` now, or appends it to the tape when this thread is recording.
    template <class Work>
    void submit(Work&& work);
    void attentionGemm(const AttentionArgs& args, const AttentionBatch& batch);
    // The work of attention() on checked batches (offsets applied).
    void attentionNow(const AttentionArgs& args, std::span<const AttentionBatch> batches);

    ThreadPool& pool() const { return *m_pool.load(std::memory_order_acquire); }

    std::atomic<ThreadPool*> m_pool{nullptr};         // the pool new ops use
    std::vector<std::unique_ptr<ThreadPool>> m_pools;  // every pool made (setThreads), kept alive
    std::mutex m_poolsMutex;
    std::atomic<std::thread::id> m_recorder{};          // the thread inside record(), or none
    std::vector<std::function<void()>> m_tape;           // its ops so far (only that thread touches it)
};

} // namespace hearsay
