// The reference backend: float32 on the host, GEMMs through OpenBLAS (cblas_sgemm, and
// cblas_sgemv for single rows, called single-threaded on each pool thread's slice of the
// output), attention and elementwise ops split over the same thread pool. Every op checks its
// arguments when called and then runs its work, or, inside record(), appends that work to a
// tape (nothing runs): the CPU twin of a CUDA graph, as strict about per-step values. The ops'
// checks are Backend's (backend_ops.cpp), the same as CUDA's.
#pragma once

#include "core/backend/backend.h"
#include "core/backend/flush_denormals.h"
#include "core/backend/huge_pages.h"
#include "core/backend/thread_pool.h"
#include "core/util/stopwatch.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace hearsay {

class CpuBackend final : public Backend {
public:
    // Fp16: the cross-attention cache is kept in IEEE half (allocateKv), half the bytes a decode
    // step reads from it; Fp32: float32 throughout, for exact comparisons (the tests' default).
    // Either way the products run in float32 and f16 weight matrices stay as stored.
    explicit CpuBackend(int threads = 0, Precision precision = Precision::Fp32);
    ~CpuBackend() override;

    std::string name() const override;
    BackendKind kind() const override { return BackendKind::Cpu; }
    Precision precision() const override { return m_precision; }
    // Safe while other threads run ops on this backend (they finish on the previous pool).
    void setThreads(int threads) override;
    int threads() const override;

    std::unique_ptr<DeviceBuffer> allocate(size_t elements) override;
    // With Fp16 the cross-attention cache in IEEE half: half the bytes a decode step reads from
    // it (and keeps). Written by linear() (rounded to nearest), read by attention() (widened
    // exactly). With Fp32 float32, as allocate().
    std::unique_ptr<DeviceBuffer> allocateKv(size_t elements) override;
    size_t kvElementBytes() const override { return m_precision == Precision::Fp16 ? sizeof(uint16_t) : sizeof(float); }
    std::unique_ptr<IndexBuffer> allocateIndices(size_t count) override;
    size_t attentionWorkspaceElements(int queries, int keys) const override;
    // Half the output rows' columns: runConv1d takes the rows in blocks that fit its workspace.
    size_t conv1dWorkspaceElements(int length, int inChannels, int stride) const override;
    // System RAM (MemTotal, MemAvailable): the buffers live there.
    DeviceMemory memoryInfo() const override;

    void synchronize() override;
    bool recording() const override;
    void setOpProfiling(bool on) override { m_profiling.store(on, std::memory_order_relaxed); }
    std::vector<OpTime> takeOpProfile() override { return m_profile.take(); }
    bool profiling() const { return m_profiling.load(std::memory_order_relaxed); }
    void addToProfile(const OpInfo& info, double ms) { m_profile.add(info, ms); }

    // One op of a recording: what it is, and its work.
    struct TapedOp {
        OpInfo info;
        std::function<void()> work;
    };

    // Batches with at least this many queries use the GEMM path (scores through sgemm).
    static constexpr int kGemmAttentionQueries = 32;
    // ... and take their queries this many at a time (the score matrix of one block per thread).
    static constexpr int kAttentionQueryBlock = 128;
    // A few-query batch's query splits its keys into parts of at least this many, one per thread.
    static constexpr size_t kAttentionPartKeys = 32;
    // linear() with 2..kSmallBatchRows rows uses the dot-product path instead of sgemm.
    static constexpr int kSmallBatchRows = 8;
    // linearMany() of one row runs up to this many products as one pass.
    static constexpr size_t kMaxFusedTargets = 4;
    // The integer GEMM keeps at most this many bytes of x's integers a pass (1500 rows of 512
    // int8: an encoder's q, k, v at base's width in one pass, its MLP's 1500 rows of 4d in 3 to 4;
    // half as many rows where they are int16, simd::int8RowBytes).
    static constexpr size_t kInt8GemmBytes = size_t(1500) * 512;
    // A half y (a cross cache's keys or values: the encoder's 1500 rows) takes its products this
    // many rows at a time in a float32 scratch, each block rounded as soon as it is done, instead of
    // all rows at once (1500 × d floats: 2.3 MiB for tiny, 7.7 for large-v3, held while the encoder's
    // activations are, at the peak of a transcription). Fewer rows a block cost more: the BLAS
    // packs the weights again for every call (128 rows: the projection 1.09 to 1.15 times the
    // float32 y's time on a Zen 3, against 1.00 to 1.05 for all rows at once; 512: 1.04 to 1.07).
    static constexpr size_t kHalfYRows = 512;

protected:
    void runUpload(BufferView dst, const float* src, size_t count) override;
    void runDownload(BufferView src, float* dst, size_t count) override;
    void runUploadIndices(IndexView dst, std::span<const int32_t> values) override;
    void runLinear(BufferView x, BufferView w, BufferView bias, BufferView y, int rows, int in, int out,
                   bool accumulate) override;
    void runLinearMany(BufferView x, std::span<const LinearTarget> targets, int rows, int in) override;
    // A q16 split table (Fp16 precision): each row's sketch first, then both planes for the
    // columns `reach` cannot rule out (cpu_logits.cpp). Other tables: runLinear().
    void runLogits(BufferView x, BufferView table, BufferView y, int rows, int in, int out, LogitsReach reach) override;
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
    // With Fp16 an f16 table becomes q16 split (q16_split.h) where simd::usingLogitsSketch() (AVX-512
    // with BW, HEARSAY_LOGITS_SKETCH not 0): its logits read half the bytes. Otherwise (Fp32's exact
    // comparisons; q8_0 and other tables; other CPUs) as createWeight().
    std::unique_ptr<DeviceBuffer> createLogitsTable(const TensorView& view) override;

private:
    // Runs `work` now, or appends it to the tape when this thread is recording. `describe()`
    // returns the op's OpInfo; it is called only when the op is taped or timed.
    template <class Describe, class Work>
    void submit(const Describe& describe, Work&& work) {
        if (recording()) {
            m_tape.push_back({describe(), std::forward<Work>(work)});
            return;
        }
        const ScopedFlushDenormals flush;  // the pool's workers run with it always (ThreadPool)
        if (!profiling()) return work();
        const auto start = std::chrono::steady_clock::now();
        work();
        addToProfile(describe(), msSince(start));
    }
    // A view of a half cross cache (allocateKv with Fp16), not a weight.
    static bool isHalfKv(const BufferView& view);
    void attentionGemm(const AttentionArgs& args, const AttentionBatch& batch);
    // attentionGemm() on AVX-512: one head at a time in register tiles (cpu_attention_tiles.h).
    void attentionTiles(const AttentionArgs& args, const AttentionBatch& batch);
    // The work of attention() on checked batches (offsets applied).
    void attentionNow(const AttentionArgs& args, std::span<const AttentionBatch> batches);

    ThreadPool& pool() const { return *m_pool.load(std::memory_order_acquire); }

    std::atomic<ThreadPool*> m_pool{nullptr};         // the pool new ops use
    std::vector<std::unique_ptr<ThreadPool>> m_pools;  // every pool made (setThreads), kept alive
    std::mutex m_poolsMutex;
    std::atomic<std::thread::id> m_recorder{};          // the thread inside record(), or none
    std::vector<TapedOp> m_tape;                         // its ops so far (only that thread touches it)
    std::atomic<bool> m_profiling{false};
    Precision m_precision;
    OpProfile m_profile;
    HugePageArena m_weights;  // every weight createWeight() makes
    // Every allocateKv() buffer: a model's cross cache (2 · layers buffers, 147 MB for medium in
    // half) in chunks of 64 MiB, of which only each chunk's end lies in 4 KiB pages.
    HugePageArena m_crossCaches{size_t(64) << 20};
};

} // namespace hearsay
