// The operations the Whisper network needs, over backend-owned float32 buffers. The network
// (core/nn) is written once against this interface; CpuBackend implements it with OpenBLAS,
// a CUDA backend can implement it with device memory, since network code never sees a pointer.
#pragma once

#include "core/model/tensor.h"
#include "core/util/result.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hearsay {

// Storage owned by a backend (host memory for the CPU, device memory for CUDA). Elements
// are float32, except weight matrices a backend keeps as IEEE half or, on the CPU, in ggml's q8_0
// blocks (loadWeight()), which only the ops that read weights accept. The network only passes these around.
class DeviceBuffer {
public:
    virtual ~DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    size_t elements() const { return m_elements; }
    size_t bytes() const { return m_bytes; }   // what the buffer occupies

protected:
    explicit DeviceBuffer(size_t elements, size_t elementBytes = sizeof(float))
        : m_elements(elements), m_bytes(elements * elementBytes) {}
    // A block format (ggml's q8_0: 34 bytes per 32 elements); elements is a multiple of blockElements.
    DeviceBuffer(size_t elements, size_t blockBytes, size_t blockElements)
        : m_elements(elements), m_bytes(elements / blockElements * blockBytes) {}

private:
    size_t m_elements;
    size_t m_bytes;
};

// A contiguous run of elements of a DeviceBuffer: what the ops take. Offsets count floats.
struct BufferView {
    DeviceBuffer* buffer = nullptr;
    size_t offset = 0;
    size_t size = 0;

    BufferView() = default;
    BufferView(DeviceBuffer* b) : buffer(b), offset(0), size(b ? b->elements() : 0) {}
    BufferView(DeviceBuffer* b, size_t off, size_t n) : buffer(b), offset(off), size(n) {}

    bool empty() const { return buffer == nullptr || size == 0; }
    // The sub-range [first, first + count) of this view (checked by the backend on use).
    BufferView slice(size_t first, size_t count) const { return BufferView(buffer, offset + first, count); }
};

// Small int32 arrays owned by a backend (host memory for the CPU, device memory for CUDA):
// per-step values (token ids, positions, cache rows) that ops read when they RUN, not when they
// are called, so a recorded step (Backend::record) replays with the values uploaded before it.
class IndexBuffer {
public:
    virtual ~IndexBuffer() = default;
    IndexBuffer(const IndexBuffer&) = delete;
    IndexBuffer& operator=(const IndexBuffer&) = delete;

    size_t elements() const { return m_elements; }
    size_t bytes() const { return m_elements * sizeof(int32_t); }

protected:
    explicit IndexBuffer(size_t elements) : m_elements(elements) {}

private:
    size_t m_elements;
};

// A contiguous run of an IndexBuffer (offsets count int32s). Empty: "no per-step values".
struct IndexView {
    IndexBuffer* buffer = nullptr;
    size_t offset = 0;
    size_t size = 0;

    IndexView() = default;
    IndexView(IndexBuffer* b) : buffer(b), offset(0), size(b ? b->elements() : 0) {}
    IndexView(IndexBuffer* b, size_t off, size_t n) : buffer(b), offset(off), size(n) {}

    bool empty() const { return buffer == nullptr || size == 0; }
    IndexView slice(size_t first, size_t count) const { return IndexView(buffer, offset + first, count); }
};

// Work recorded by Backend::record(): the ops with the buffers and arguments they were called
// with (a CUDA graph on the GPU, a tape of op closures on the CPU). replay() runs them again in
// order, reading the current contents of every buffer and index buffer. A recording must not
// outlive the backend or any buffer it uses.
class RecordedWork {
public:
    virtual ~RecordedWork() = default;
    // Enqueues the recorded ops (the CPU runs them before returning; CUDA launches the graph
    // on the backend's stream). A logic error while the backend is recording.
    virtual void replay() = 0;
    // Ops recorded (CPU: closures; CUDA: graph nodes).
    virtual size_t operations() const = 0;
};

// One block of rows moved by copyRows: rows [srcRow, srcRow + count) -> [dstRow, dstRow + count).
struct RowCopy {
    size_t srcRow = 0;
    size_t dstRow = 0;
    size_t count = 1;
};

// One product of Backend::linearMany: y[rows][out] = x · w[out][in]ᵀ + bias (+ y), or with
// gelu: y = GELU(x · wᵀ + bias) (exact GELU, as Backend::gelu; not with accumulate).
struct LinearTarget {
    BufferView w;
    BufferView bias;   // may be empty
    BufferView y;
    int out = 0;
    bool accumulate = false;
    bool gelu = false;
};

// One independent attention problem inside an attention() call (one beam, or the encoder).
// Query j (0-based within the batch) attends to keys [0, keyCount) when not causal, and to
// keys [0, keyCount - queryCount + j] when causal (the queries are the last positions).
struct AttentionBatch {
    int queryRow = 0;    // first row of this batch in q and out
    int queryCount = 0;
    size_t keyRow = 0;   // first row of this batch in k and v
    int keyCount = 0;
};

// Multi-head scaled dot-product attention: out = softmax(scale · q kᵀ [+ causal mask]) v, per
// head h on columns [h·headDim, (h+1)·headDim). Rows are strided (stride in floats).
struct AttentionArgs {
    BufferView q;            // [rows][qStride], query rows of all batches
    int qStride = 0;
    BufferView k;            // [rows][kvStride]
    BufferView v;            // [rows][kvStride]
    int kvStride = 0;
    BufferView out;          // [rows][outStride]
    int outStride = 0;
    int heads = 0;
    int headDim = 0;
    float scale = 1.0f;      // applied to q·k (Whisper: headDim^-0.5)
    bool causal = false;
    std::span<const AttentionBatch> batches;
    BufferView workspace;    // ≥ Backend::attentionWorkspaceElements(max queries, max keys)
    // Optional per-step values, one per entry of `batches`, read when the op runs: batch i uses
    // keyRow + keyRowOffsets[i] and keyCount + keyCountOffsets[i] (a decode step: keyCount 1,
    // offset = the beam's position; keyRow 0, offset = the beam's first cache row). The host
    // checks the static parts; the run-time values are checked where the op runs (CPU: throws
    // on replay; CUDA: the kernel writes NaN rows for a batch whose keys fall outside k/v).
    IndexView keyRowOffsets;
    IndexView keyCountOffsets;
    // Optional (> 0): no batch has more keys than this, offsets included (a decode step: the
    // cache's capacity). A batch above it is an error (CPU: throws; CUDA: NaN rows when the
    // count comes from an offset). CUDA sizes its split-key attention by it.
    int maxKeys = 0;
};

enum class BackendKind { Auto, Cpu, Cuda };

// The memory a backend's buffers live in, at one moment (Backend::memoryInfo).
struct DeviceMemory {
    bool known = false;      // false: the figures could not be read (both 0)
    bool gpu = false;        // a GPU's device memory (true) or the host's RAM (false)
    std::string name;        // "GPU 0 (NVIDIA H100 80GB HBM3)" or "system RAM"
    size_t totalBytes = 0;
    size_t freeBytes = 0;    // GPU: free device memory; host: MemAvailable (what can be had without swapping)
};

std::string_view backendKindName(BackendKind kind);
// "auto", "cpu", "cuda" (case-insensitive); anything else is an error naming the choices.
Result<BackendKind> parseBackendKind(std::string_view text);

// What a backend's matrix products read their weights as. Fp16: weight matrices (linear and
// conv weights, embedding tables) kept as IEEE half, GEMMs on tensor cores with fp32
// accumulation (the CUDA default); Fp32: float32 weights and arithmetic, for exact comparisons.
// Activations, layer norms, attention and the KV caches are float32 either way.
enum class Precision { Fp16, Fp32 };

std::string_view precisionName(Precision precision);
// "fp16", "fp32" (case-insensitive); anything else is an error naming the choices.
Result<Precision> parsePrecision(std::string_view text);

class Backend {
public:
    virtual ~Backend() = default;

    virtual std::string name() const = 0;   // "cpu (OpenBLAS, 2 threads)"
    virtual BackendKind kind() const = 0;
    // The precision the matrix products run at. The CPU backend computes in float32 (an f16
    // weight matrix is read as stored and widened exactly), so its precision is Fp32.
    virtual Precision precision() const { return Precision::Fp32; }

    // Worker threads for the ops (0 = all cores). Applies to later calls.
    virtual void setThreads(int threads) = 0;
    virtual int threads() const = 0;

    // Storage. allocate() throws std::bad_alloc when the memory cannot be had; the session
    // turns that into an error. Contents of a fresh buffer are zero.
    virtual std::unique_ptr<DeviceBuffer> allocate(size_t elements) = 0;
    // Storage for attention keys and values that linear()/linearMany() write (not accumulate)
    // and attention() reads: the cross-attention cache. The backend picks the element type:
    // float32 by default; CUDA in fp16 mode keeps IEEE half (half the bytes a decode step reads).
    // upload() and download() convert; other ops refuse such a buffer.
    virtual std::unique_ptr<DeviceBuffer> allocateKv(size_t elements) { return allocate(elements); }
    // Bytes per element of allocateKv()'s buffers.
    virtual size_t kvElementBytes() const { return sizeof(float); }
    // A float32 copy of a weight tensor (any dtype, dequantised); the CPU backend may use an
    // aligned float32 tensor in place (the view's memory must then outlive the buffer). Counted
    // in weightUploads(); the backend's own work is createWeight().
    std::unique_ptr<DeviceBuffer> loadWeight(const TensorView& view);
    // Weight buffers loadWeight() has made on this backend since it was created (copies, or
    // tensors used in place) and the bytes they occupy: how often model weights reached the
    // backend. An Engine uploads a model once, however many sessions it makes. Any thread.
    struct WeightUploads {
        size_t buffers = 0;
        size_t bytes = 0;
    };
    WeightUploads weightUploads() const;
    // Host <-> backend copies of `count` floats (count ≤ view size).
    virtual void upload(BufferView dst, const float* src, size_t count) = 0;
    virtual void download(BufferView src, float* dst, size_t count) = 0;
    // Index buffers (zeroed), and a host -> backend copy of values.size() ints into dst
    // (ordered before later ops; the caller may reuse `values` at once).
    virtual std::unique_ptr<IndexBuffer> allocateIndices(size_t count) = 0;
    virtual void uploadIndices(IndexView dst, std::span<const int32_t> values) = 0;

    // y[rows][out] = x[rows][in] · w[out][in]ᵀ + bias[out]   (bias may be empty);
    // accumulate: y += ... (a fused residual connection).
    virtual void linear(BufferView x, BufferView w, BufferView bias, BufferView y, int rows, int in, int out,
                        bool accumulate) = 0;
    // Several products of the same x (an attention block's q, k and v): each target as linear()
    // states it; no target's y may overlap x. The default runs linear() per target; a backend may
    // run them as one pass (CUDA: one launch for a decode step's rows).
    virtual void linearMany(BufferView x, std::span<const LinearTarget> targets, int rows, int in) {
        for (const LinearTarget& t : targets) {
            if (t.gelu && t.accumulate) throw std::logic_error("linearMany: GELU with accumulate");
            linear(x, t.w, t.bias, t.y, rows, in, t.out, t.accumulate);
            if (t.gelu) gelu(t.y.slice(0, static_cast<size_t>(rows) * static_cast<size_t>(t.out)));
        }
    }
    // y[rows][cols] = (x - mean) / sqrt(var + eps) · gamma + beta, per row. y may equal x.
    virtual void layerNorm(BufferView x, BufferView gamma, BufferView beta, BufferView y, int rows, int cols,
                           float eps) = 0;
    // x = x · Φ(x) = 0.5 x (1 + erf(x / √2)), in place (exact GELU, as Whisper).
    virtual void gelu(BufferView x) = 0;
    // x += y elementwise (sizes equal).
    virtual void add(BufferView x, BufferView y) = 0;
    // 1-D convolution, kernel 3, padding 1, time-major layout:
    // x [length][inChannels], w [outChannels][inChannels][3] (PyTorch order), bias [outChannels],
    // y [outLength][outChannels] with outLength = (length - 1) / stride + 1.
    // workspace ≥ outLength · inChannels · 3 elements (im2col).
    virtual void conv1d(BufferView x, int length, int inChannels, BufferView w, BufferView bias, BufferView y,
                        int outChannels, int stride, BufferView workspace) = 0;
    // y[i][:] = tokenTable[tokens[i]][:] + positionTable[positions[i]][:], i < count, with the
    // ids read from index buffers when the op runs (the caller checks them against the tables
    // before uploading; CPU: an id outside a table throws when the op runs; CUDA: that row of y
    // becomes NaN, nothing outside the tables is read).
    virtual void embed(IndexView tokens, IndexView positions, int count, BufferView tokenTable,
                       BufferView positionTable, int width, BufferView y) = 0;
    // Row block copies between (or within) buffers; blocks must not overlap each other.
    // dstRowOffsets (optional, one per entry of copies): block i writes at dstRow +
    // dstRowOffsets[i], read when the op runs (a decode step's write at each beam's cursor).
    // The host checks everything static; with offsets the destination rows are checked when
    // the op runs (CPU: throws; CUDA: rows outside dst are not written).
    virtual void copyRows(BufferView src, int srcStride, BufferView dst, int dstStride, int width,
                          std::span<const RowCopy> copies, IndexView dstRowOffsets = {}) = 0;
    virtual void attention(const AttentionArgs& args) = 0;
    // Workspace attention() needs for batches of at most `queries` queries and `keys` keys.
    virtual size_t attentionWorkspaceElements(int queries, int keys) const = 0;

    // Waits for queued work (a no-op on the CPU).
    virtual void synchronize() {}

    // Total and free memory where this backend allocates. Cheap (a few calls a second are fine),
    // callable from any thread, never throws; `known` is false where the figures cannot be read.
    virtual DeviceMemory memoryInfo() const { return {}; }

    // Records the ops `work` calls on this backend from this thread, WITHOUT running them, and
    // returns them as RecordedWork for replay (one decoder step, replayed per token). Buffers
    // and arguments are those of the calls; per-step values must come from index buffers.
    // While recording, allocate(), allocateIndices(), loadWeight(), upload(), uploadIndices(),
    // download(), synchronize() and replay() throw std::logic_error. Any exception from `work`
    // (an op's check, a forbidden call) ends the recording, discards it and is rethrown; the
    // backend stays usable. Other threads must not use the backend meanwhile (CUDA: one stream).
    std::unique_ptr<RecordedWork> record(const std::function<void()>& work);
    // True while this thread is inside record() on this backend.
    virtual bool recording() const = 0;
    // Changes whenever memory the backend keeps for its own ops (scratch that a recording holds
    // by address) is reallocated: recordings made before must not be replayed after.
    virtual uint64_t scratchGeneration() const { return 0; }

protected:
    // The parts of record(): begin (a logic error when already recording), end (the recorded
    // work), abandon (after an exception: leave recording mode, keep nothing; never throws).
    virtual void beginRecording() = 0;
    virtual std::unique_ptr<RecordedWork> endRecording() = 0;
    virtual void abandonRecording() noexcept = 0;
    // loadWeight()'s work on this backend (conversion, upload), as loadWeight() states it.
    virtual std::unique_ptr<DeviceBuffer> createWeight(const TensorView& view) = 0;

private:
    std::atomic<size_t> m_weightBuffers{0};
    std::atomic<size_t> m_weightBytes{0};
};

struct BackendOptions {
    int threads = 0;   // CPU worker threads, 0 = all cores
    int device = 0;    // GPU index for CUDA
    Precision precision = Precision::Fp16;  // CUDA weights and GEMMs; the CPU backend is float32 always
};

// Backends are made by createBackend() (core/engine/backend_factory.h), above the kernels library.

} // namespace hearsay
