// The operations the Whisper network needs, over backend-owned float32 buffers. The network
// (core/nn) is written once against this interface; CpuBackend implements it with OpenBLAS,
// a CUDA backend can implement it with device memory, since network code never sees a pointer.
#pragma once

#include "core/backend/op_profile.h"
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
#include <vector>

namespace hearsay {

// What a buffer's elements are: float32 (everything allocate() makes, most weights), IEEE half
// (weight matrices a backend keeps as half; CUDA's half KV buffers from allocateKv()) or ggml's
// q8_0 blocks (32 int8 with an f16 scale, 34 bytes), q5_0 blocks (32 five-bit integers with an
// f16 scale, 22 bytes) or q5_1 blocks (the same with an f16 minimum, 24 bytes): weight matrices the
// CPU keeps as stored; or the CPU's q16 split logits table (two int8 planes and an f16 scale per 32
// elements, 2.0625 bytes an element: core/backend/q16_split.h), only ever viewed whole.
enum class ElementType { F32, F16, Q8_0, Q5_0, Q5_1, Q16Split };
inline constexpr size_t kQ8_0BlockElements = 32;
inline constexpr size_t kQ8_0BlockBytes = 34;
inline constexpr size_t kQ5_0BlockElements = 32;
inline constexpr size_t kQ5_0BlockBytes = 22;
inline constexpr size_t kQ5_1BlockBytes = 24;
inline constexpr bool isBlockType(ElementType e) {
    return e == ElementType::Q8_0 || e == ElementType::Q5_0 || e == ElementType::Q5_1 || e == ElementType::Q16Split;
}
// Bytes of `elements` elements of type e (whole blocks for the block types).
inline constexpr size_t elementsBytes(ElementType e, size_t elements) {
    switch (e) {
    case ElementType::Q8_0: return elements / kQ8_0BlockElements * kQ8_0BlockBytes;
    case ElementType::Q5_0: return elements / kQ5_0BlockElements * kQ5_0BlockBytes;
    case ElementType::Q5_1: return elements / kQ5_0BlockElements * kQ5_1BlockBytes;
    case ElementType::F16: return elements * 2;
    case ElementType::Q16Split: return 2 * elements + elements / 32 * 2;
    case ElementType::F32: break;
    }
    return elements * 4;
}

// Storage owned by a backend (host memory for the CPU, device memory for CUDA). Elements are
// float32 except the weight and KV buffers above, which only the ops that read weights or keys
// and values accept. The network only passes these around; the owning backend alone reads or
// writes through address().
class DeviceBuffer {
public:
    virtual ~DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    size_t elements() const { return m_elements; }
    size_t bytes() const { return m_bytes; }   // what the buffer occupies
    ElementType element() const { return m_element; }
    void* address() const { return m_address; }  // host or device memory; null when empty

protected:
    // q8_0, q5_0, q5_1: elements is a multiple of their 32-element blocks.
    DeviceBuffer(size_t elements, ElementType element)
        : m_elements(elements), m_bytes(elementsBytes(element, elements)), m_element(element) {}
    void setAddress(void* address) { m_address = address; }

private:
    size_t m_elements;
    size_t m_bytes;
    ElementType m_element;
    void* m_address = nullptr;
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
    int32_t* address() const { return m_address; }  // host or device memory; null when empty

protected:
    explicit IndexBuffer(size_t elements) : m_elements(elements) {}
    void setAddress(int32_t* address) { m_address = address; }

private:
    size_t m_elements;
    int32_t* m_address = nullptr;
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

// Which logits Backend::logits() must give exactly: every column at or above exactFrom (Whisper's
// special and timestamp tokens), and below it every column that could be among the `top` largest
// of its row below exactFrom (what a filter may remove plus what a search picks from, with room).
// Other columns may be approximate. The default, exactFrom 0, asks for every column.
struct LogitsReach {
    int exactFrom = 0;
    int top = 0;
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

// A read-only operand that may be a weight kept in another element type than float32: exactly
// one pointer is set (blocks points at the block holding the view's first element, of blockType;
// for a Q16Split table at the table, whose elements are `tableElements`).
struct WeightPointer {
    const float* f32 = nullptr;
    const uint16_t* f16 = nullptr;  // IEEE half bits
    const uint8_t* blocks = nullptr;
    ElementType blockType = ElementType::F32;  // Q8_0, Q5_0, Q5_1 or Q16Split where blocks is set
    size_t tableElements = 0;                  // Q16Split
    const void* address() const {
        if (f32) return f32;
        if (f16) return f16;
        return blocks;
    }
};

// Elements spanned by `rows` rows of `width` with row stride `stride`.
inline size_t spanOf(size_t rows, size_t stride, size_t width) { return rows == 0 ? 0 : (rows - 1) * stride + width; }
// Whole rows of `width` with row stride `stride` inside `elements` (the inverse of spanOf).
inline size_t rowsIn(size_t elements, size_t stride, size_t width) {
    return elements < width ? 0 : (elements - width) / stride + 1;
}

// A backend call that breaks the contract (a programming error): std::logic_error
// "<kind> backend: what". Sessions turn these into error results, never an abort.
[[noreturn]] void throwBackendError(BackendKind kind, const std::string& what);

class Backend {
public:
    virtual ~Backend() = default;

    virtual std::string name() const = 0;   // "cpu (OpenBLAS, 2 threads)"
    virtual BackendKind kind() const = 0;
    // The precision asked for. CUDA: what the matrix products run at. The CPU computes in float32
    // either way (an f16 weight matrix is read as stored and widened exactly); Fp16 keeps its
    // cross-attention cache in half.
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
    // A copy of a weight tensor: float32 (any dtype, dequantised), or the dtype as stored where
    // the backend has kernels for it (f16 matrices; q8_0, q5_0 and q5_1 on the CPU). The view's
    // memory may go once this returns. Counted in weightUploads(); the backend's own work is
    // createWeight().
    std::unique_ptr<DeviceBuffer> loadWeight(const TensorView& view);
    // Weight buffers loadWeight() has made on this backend since it was created and the bytes
    // they occupy: how often model weights reached the backend. An Engine uploads a model once,
    // however many sessions it makes. Any thread.
    struct WeightUploads {
        size_t buffers = 0;
        size_t bytes = 0;
    };
    WeightUploads weightUploads() const;
    // loadWeight() for the table logits() reads (the tied token embedding, also embed()'s token
    // table): a backend may keep it in a form of its own (the CPU in fp16 precision keeps an f16
    // table as q16 split). Counted in weightUploads().
    std::unique_ptr<DeviceBuffer> loadLogitsTable(const TensorView& view);
    // The ops below are checked here, once for every backend, before the backend's own work
    // (the protected run*() functions) sees them: dimensions, views inside buffers of this
    // backend holding what the op reads or writes, the element types every backend requires,
    // and the rules between operands (copyRows' blocks never overlap). A violation is a
    // std::logic_error naming the op and the operand; nothing has run then.

    // Host <-> backend copies of `count` floats (count ≤ view size).
    void upload(BufferView dst, const float* src, size_t count);
    void download(BufferView src, float* dst, size_t count);
    // Index buffers (zeroed), and a host -> backend copy of values.size() ints into dst
    // (ordered before later ops; the caller may reuse `values` at once).
    virtual std::unique_ptr<IndexBuffer> allocateIndices(size_t count) = 0;
    void uploadIndices(IndexView dst, std::span<const int32_t> values);

    // y[rows][out] = x[rows][in] · w[out][in]ᵀ + bias[out]   (bias may be empty);
    // accumulate: y += ... (a fused residual connection).
    void linear(BufferView x, BufferView w, BufferView bias, BufferView y, int rows, int in, int out, bool accumulate);
    // Several products of the same x (an attention block's q, k and v): each target as linear()
    // states it; no target's y may overlap x. A backend may run them as one pass (CUDA: one
    // launch for a decode step's rows); by default linear() runs per target.
    void linearMany(BufferView x, std::span<const LinearTarget> targets, int rows, int in);
    // y[rows][out] = x[rows][in] · table[out][in]ᵀ: the logits through the tied token embedding,
    // as linear() without bias computes them in the columns `reach` asks for; the others within
    // the backend's stated error (the CPU's q16 split table: its sketch's bound, q16_split.h). By
    // default linear(), every column exact.
    void logits(BufferView x, BufferView table, BufferView y, int rows, int in, int out, LogitsReach reach);
    // y[rows][cols] = (x - mean) / sqrt(var + eps) · gamma + beta, per row. y may equal x.
    void layerNorm(BufferView x, BufferView gamma, BufferView beta, BufferView y, int rows, int cols, float eps);
    // x = x · Φ(x) = 0.5 x (1 + erf(x / √2)), in place (exact GELU, as Whisper).
    void gelu(BufferView x);
    // x += y elementwise (sizes equal).
    void add(BufferView x, BufferView y);
    // 1-D convolution, kernel 3, padding 1, time-major layout:
    // x [length][inChannels], w [outChannels][inChannels][3] (PyTorch order), bias [outChannels],
    // y [outLength][outChannels] with outLength = (length - 1) / stride + 1.
    // workspace ≥ conv1dWorkspaceElements(length, inChannels, stride) elements (im2col).
    void conv1d(BufferView x, int length, int inChannels, BufferView w, BufferView bias, BufferView y, int outChannels,
                int stride, BufferView workspace);
    // y[i][:] = tokenTable[tokens[i]][:] + positionTable[positions[i]][:], i < count, with the
    // ids read from index buffers when the op runs (the caller checks them against the tables
    // before uploading; CPU: an id outside a table throws when the op runs; CUDA: that row of y
    // becomes NaN, nothing outside the tables is read).
    void embed(IndexView tokens, IndexView positions, int count, BufferView tokenTable, BufferView positionTable,
               int width, BufferView y);
    // Row block copies between (or within) buffers of float32. Within one buffer no block may
    // write what any block reads (the blocks may run in parallel), and per-step offsets need
    // distinct buffers. dstRowOffsets (optional, one per entry of copies): block i writes at
    // dstRow + dstRowOffsets[i], read when the op runs (a decode step's write at each beam's
    // cursor). With offsets the destination rows are checked when the op runs (CPU: throws;
    // CUDA: rows outside dst are not written).
    void copyRows(BufferView src, int srcStride, BufferView dst, int dstStride, int width,
                  std::span<const RowCopy> copies, IndexView dstRowOffsets = {});
    void attention(const AttentionArgs& args);
    // Workspace attention() needs for batches of at most `queries` queries and `keys` keys.
    virtual size_t attentionWorkspaceElements(int queries, int keys) const = 0;
    // Workspace conv1d() needs: by default the im2col columns of every output row,
    // outLength · inChannels · 3 elements; a backend that takes the rows in blocks asks for less.
    virtual size_t conv1dWorkspaceElements(int length, int inChannels, int stride) const;

    // Waits for queued work (a no-op on the CPU).
    virtual void synchronize() {}

    // Total and free memory where this backend allocates. Cheap (a few calls a second are fine),
    // callable from any thread, never throws; `known` is false where the figures cannot be read.
    virtual DeviceMemory memoryInfo() const { return {}; }

    // Op timing, for the bench's profile of a decode step: while on, each op's run (replayed ops
    // included) is timed and added to a table by op kind and shape; takeOpProfile() returns the
    // table and starts a new one. The CPU backend times its ops; a backend that does not returns
    // an empty table. Timing adds two clock reads per op.
    virtual void setOpProfiling(bool) {}
    virtual std::vector<OpTime> takeOpProfile() { return {}; }

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
    // The ops' work on this backend, called once the op's checks passed. What only one backend
    // needs it checks itself (the CPU: float32 outputs; CUDA: the kernels' head dimension).
    virtual void runUpload(BufferView dst, const float* src, size_t count) = 0;
    virtual void runDownload(BufferView src, float* dst, size_t count) = 0;
    virtual void runUploadIndices(IndexView dst, std::span<const int32_t> values) = 0;
    virtual void runLinear(BufferView x, BufferView w, BufferView bias, BufferView y, int rows, int in, int out,
                           bool accumulate) = 0;
    // By default linear() (and gelu()) per target.
    virtual void runLinearMany(BufferView x, std::span<const LinearTarget> targets, int rows, int in);
    // By default runLinear() without bias: every column exact.
    virtual void runLogits(BufferView x, BufferView table, BufferView y, int rows, int in, int out, LogitsReach reach);
    virtual void runLayerNorm(BufferView x, BufferView gamma, BufferView beta, BufferView y, int rows, int cols,
                              float eps) = 0;
    virtual void runGelu(BufferView x) = 0;
    virtual void runAdd(BufferView x, BufferView y) = 0;
    virtual void runConv1d(BufferView x, int length, int inChannels, BufferView w, BufferView bias, BufferView y,
                           int outChannels, int stride, BufferView workspace) = 0;
    virtual void runEmbed(IndexView tokens, IndexView positions, int count, BufferView tokenTable,
                          BufferView positionTable, int width, BufferView y) = 0;
    virtual void runCopyRows(BufferView src, int srcStride, BufferView dst, int dstStride, int width,
                             std::span<const RowCopy> copies, IndexView dstRowOffsets) = 0;
    virtual void runAttention(const AttentionArgs& args) = 0;

    // A logic error naming `what` (an allocation, a host copy, a wait) while recording.
    virtual void refuseWhileRecording(const char* what) const = 0;
    // Whether a buffer was made by this backend (a view of another backend's buffer is refused).
    virtual bool owns(const DeviceBuffer& buffer) const = 0;
    virtual bool owns(const IndexBuffer& buffer) const = 0;

    // The checks, for the ops above and the backends' run-time checks.
    [[noreturn]] void fail(const std::string& what) const { throwBackendError(kind(), what); }
    std::string kindName() const;  // "cpu", "cuda"
    // The buffer of a view of this backend after checking that the view lies inside it and
    // holds `needed` elements.
    const DeviceBuffer& checkedBuffer(BufferView view, size_t needed, const char* what) const;
    // The address of a float32 view holding `needed` elements; another element type is refused.
    float* floatPointer(BufferView view, size_t needed, const char* what) const;
    // The address of a read-only operand that may be a weight (float32, half, q8_0, q5_0 or q5_1;
    // a view of blocks starts on a block).
    WeightPointer weightPointer(BufferView view, size_t needed, const char* what) const;
    // The address of an index view of this backend holding `needed` ints.
    int32_t* indexPointer(IndexView view, size_t needed, const char* what) const;
    // A batch's keys inside k and v, and within maxKeys (with per-step offsets: when the op runs).
    void checkAttentionKeys(const AttentionArgs& args, const AttentionBatch& batch) const;
    // The addresses of views the op's checks passed (float32 views; index views).
    static float* floats(BufferView view) { return static_cast<float*>(view.buffer->address()) + view.offset; }
    static int32_t* indices(IndexView view) { return view.buffer->address() + view.offset; }

    // The parts of record(): begin (a logic error when already recording), end (the recorded
    // work), abandon (after an exception: leave recording mode, keep nothing; never throws).
    virtual void beginRecording() = 0;
    virtual std::unique_ptr<RecordedWork> endRecording() = 0;
    virtual void abandonRecording() noexcept = 0;
    // loadWeight()'s work on this backend (conversion, upload), as loadWeight() states it.
    virtual std::unique_ptr<DeviceBuffer> createWeight(const TensorView& view) = 0;
    // loadLogitsTable()'s work; by default createWeight().
    virtual std::unique_ptr<DeviceBuffer> createLogitsTable(const TensorView& view) { return createWeight(view); }

private:
    // A weight buffer the load functions made, counted in weightUploads().
    std::unique_ptr<DeviceBuffer> countedWeight(std::unique_ptr<DeviceBuffer> buffer);

    std::atomic<size_t> m_weightBuffers{0};
    std::atomic<size_t> m_weightBytes{0};
};

struct BackendOptions {
    int threads = 0;   // CPU worker threads, 0 = all cores
    int device = 0;    // GPU index for CUDA
    Precision precision = Precision::Fp16;  // CUDA weights and GEMMs; the CPU's cross cache (CpuBackend)
};

// Backends are made by createBackend() (core/engine/backend_factory.h), above the kernels library.

} // namespace hearsay
