// CpuBackend: float32 host buffers (f16 weight matrices kept as f16); projections through
// OpenBLAS or f16 dot products; layer norm, GELU, im2col and attention on a thread pool. Shape
// violations are programming errors and throw std::logic_error (the session turns them into
// error results, never an abort). Each op checks its arguments, then hands its work (a closure
// over pointers and values) to submit(): run now, or taped while record() is active.
#include "core/backend/cpu_backend.h"
#include "core/backend/flush_denormals.h"

#include "core/backend/cpu_simd.h"
#include "core/backend/cpu_vector_math.h"
#include "core/util/half.h"

#include "core/backend/blas.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

namespace hearsay {
namespace {

// Host memory from /proc/meminfo (MemTotal, MemAvailable); sysconf's page counts elsewhere.
DeviceMemory systemMemory() {
    DeviceMemory memory;
    memory.name = "system RAM";
    if (std::FILE* file = std::fopen("/proc/meminfo", "r")) {
        char line[256];
        unsigned long long total = 0, available = 0, value = 0;
        bool haveTotal = false, haveAvailable = false;
        while (std::fgets(line, sizeof line, file) && !(haveTotal && haveAvailable)) {
            if (std::sscanf(line, "MemTotal: %llu kB", &value) == 1) {
                total = value;
                haveTotal = true;
            } else if (std::sscanf(line, "MemAvailable: %llu kB", &value) == 1) {
                available = value;
                haveAvailable = true;
            }
        }
        std::fclose(file);
        if (haveTotal && haveAvailable) {
            memory.known = true;
            memory.totalBytes = static_cast<size_t>(total) * 1024;
            memory.freeBytes = static_cast<size_t>(available) * 1024;
            return memory;
        }
    }
    const long pages = sysconf(_SC_PHYS_PAGES), free = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && free >= 0 && size > 0) {
        memory.known = true;
        memory.totalBytes = static_cast<size_t>(pages) * static_cast<size_t>(size);
        memory.freeBytes = static_cast<size_t>(free) * static_cast<size_t>(size);
    }
    return memory;
}

std::string gib(size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / double(size_t(1) << 30));
    return text;
}

// What an allocation the host cannot satisfy throws: a std::bad_alloc naming the bytes requested
// and the memory available, for the session's error message.
class HostOutOfMemory final : public std::bad_alloc {
public:
    // `bytes` as a double: a request may exceed what size_t holds.
    explicit HostOutOfMemory(double bytes) {
        char text[96];
        std::snprintf(text, sizeof text, "%.0f bytes (%.2f GiB)", bytes, bytes / double(size_t(1) << 30));
        m_message = std::string("out of memory: cannot allocate ") + text + " of system RAM";
        const DeviceMemory memory = systemMemory();
        if (memory.known) m_message += ", " + gib(memory.freeBytes) + " available of " + gib(memory.totalBytes);
    }
    const char* what() const noexcept override { return m_message.c_str(); }

private:
    std::string m_message;
};

// What a buffer's elements are: float32 (everything the backend allocates, most weights) or
// IEEE half (f16 weight matrices as the model stores them: half the bytes a decode step reads).
// Q8_0: ggml's blocks of 32 int8 with an f16 scale (34 bytes), for q8_0 weight matrices kept
// as stored: a quarter of float32's bytes, read by dotQ8 and widened block by block for GEMMs.
enum class Element { F32, F16, Q8_0 };

size_t elementBytes(Element element) { return element == Element::F16 ? sizeof(uint16_t) : sizeof(float); }

// Host memory, 64-byte aligned and zeroed; or a non-owning view of weights in a map.
// Offsets and sizes count elements of the buffer's own type.
class CpuBuffer final : public DeviceBuffer {
public:
    explicit CpuBuffer(size_t elements, Element element = Element::F32)
        : DeviceBuffer(elements, elementBytes(element)), m_element(element) {
        if (elements == 0) return;
        if (elements > std::numeric_limits<size_t>::max() / sizeof(float) - 64)
            throw HostOutOfMemory(double(elements) * double(elementBytes(element)));
        const size_t bytes = (elements * elementBytes(element) + 63) / 64 * 64;
        if (bytes >= kMappedBytes) {
            // Large buffers (caches, activations) are mapped: zeroed by the kernel and given back
            // to the system when freed. From the heap, switching a cache off and on again left
            // the freed blocks in the allocator and resident memory grew with every switch.
            void* mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (mapped == MAP_FAILED) throw HostOutOfMemory(double(bytes));
            m_data = mapped;
            m_mappedBytes = bytes;
        } else {
            m_data = std::aligned_alloc(64, bytes);
            if (!m_data) throw HostOutOfMemory(double(bytes));
            std::memset(m_data, 0, bytes);
        }
        m_owned = true;
    }
    // Weights are never written through a buffer made here (the backend only reads weights).
    CpuBuffer(const void* external, size_t elements, Element element)
        : DeviceBuffer(elements, elementBytes(element)), m_data(const_cast<void*>(external)), m_element(element),
          m_owned(false) {}
    // q8_0 blocks in the map (never written).
    static std::unique_ptr<CpuBuffer> q8(const void* external, size_t elements) {
        return std::unique_ptr<CpuBuffer>(new CpuBuffer(external, elements));
    }
    ~CpuBuffer() override {
        if (!m_owned) return;
        if (m_mappedBytes > 0) ::munmap(m_data, m_mappedBytes);
        else std::free(m_data);
    }
    Element element() const { return m_element; }
    void* raw() const { return m_data; }
    float* data() const { return static_cast<float*>(m_data); }
    const uint16_t* halfData() const { return static_cast<const uint16_t*>(m_data); }
    const uint8_t* q8Data() const { return static_cast<const uint8_t*>(m_data); }

private:
    CpuBuffer(const void* external, size_t elements)
        : DeviceBuffer(elements, simd::kQ8BlockBytes, simd::kQ8Block), m_data(const_cast<void*>(external)),
          m_element(Element::Q8_0), m_owned(false) {}

    void* m_data = nullptr;
    Element m_element = Element::F32;
    bool m_owned = false;
    size_t m_mappedBytes = 0;  // > 0: m_data is an anonymous mapping of this many bytes
    static constexpr size_t kMappedBytes = size_t(1) << 20;
};

[[noreturn]] void fail(const std::string& what) { throw std::logic_error("cpu backend: " + what); }

// int32 host memory, zeroed.
class CpuIndexBuffer final : public IndexBuffer {
public:
    explicit CpuIndexBuffer(size_t elements) : IndexBuffer(elements), m_data(elements, 0) {}
    int32_t* data() { return m_data.data(); }

private:
    std::vector<int32_t> m_data;
};

// The host address of an index view after checking that it holds `needed` ints.
int32_t* indexPointer(IndexView view, size_t needed, const char* what) {
    if (!view.buffer) fail(std::string(what) + ": no index buffer");
    auto* buffer = dynamic_cast<CpuIndexBuffer*>(view.buffer);
    if (!buffer) fail(std::string(what) + ": the index buffer does not belong to a CPU backend");
    if (view.offset > buffer->elements() || view.size > buffer->elements() - view.offset) {
        fail(std::string(what) + ": index view [" + std::to_string(view.offset) + ", +" + std::to_string(view.size) +
             ") outside a buffer of " + std::to_string(buffer->elements()));
    }
    if (needed > view.size) {
        fail(std::string(what) + ": needs " + std::to_string(needed) + " ints, view holds " +
             std::to_string(view.size));
    }
    return buffer->data() + view.offset;
}

// The tape of one record() call, run again by replay().
class CpuRecording final : public RecordedWork {
public:
    CpuRecording(const CpuBackend& backend, std::vector<std::function<void()>> tape)
        : m_backend(backend), m_tape(std::move(tape)) {}
    void replay() override {
        if (m_backend.recording()) fail("replay() while recording");
        const ScopedFlushDenormals flush;
        for (const auto& op : m_tape) op();
    }
    size_t operations() const override { return m_tape.size(); }

private:
    const CpuBackend& m_backend;
    std::vector<std::function<void()>> m_tape;
};

// The buffer of a view after checking that the view holds `needed` elements.
const CpuBuffer* checkedBuffer(BufferView view, size_t needed, const char* what) {
    if (!view.buffer) fail(std::string(what) + ": no buffer");
    if (view.offset > view.buffer->elements() || view.size > view.buffer->elements() - view.offset) {
        fail(std::string(what) + ": view [" + std::to_string(view.offset) + ", +" + std::to_string(view.size) +
             ") outside a buffer of " + std::to_string(view.buffer->elements()));
    }
    if (needed > view.size) {
        fail(std::string(what) + ": needs " + std::to_string(needed) + " elements, view holds " +
             std::to_string(view.size));
    }
    return static_cast<const CpuBuffer*>(view.buffer);
}

// The host address of a float32 view after checking that it holds `needed` elements. An f16
// weight where only float32 is handled is a programming error, reported like a bad view.
float* hostPointer(BufferView view, size_t needed, const char* what) {
    const CpuBuffer* buffer = checkedBuffer(view, needed, what);
    if (buffer->element() != Element::F32) fail(std::string(what) + ": an f16 or q8_0 weight where float32 is needed");
    return buffer->data() + view.offset;
}

// A read-only operand that may be an f16 or q8_0 weight: exactly one of the pointers is set.
// q8 points at the block holding element 0 of the view (views of q8_0 buffers start on a block).
struct WeightPointer {
    const float* f32 = nullptr;
    const uint16_t* f16 = nullptr;
    const uint8_t* q8 = nullptr;
    float operator[](size_t i) const {
        if (f32) return f32[i];
        if (f16) return halfToFloat(f16[i]);
        const uint8_t* block = q8 + i / simd::kQ8Block * simd::kQ8BlockBytes;
        uint16_t scale;
        std::memcpy(&scale, block, sizeof scale);
        return halfToFloat(scale) * float(static_cast<int8_t>(block[2 + i % simd::kQ8Block]));
    }
    // The q8_0 blocks of elements [first, first + n), first a multiple of 32.
    const uint8_t* q8At(size_t first) const { return q8 + first / simd::kQ8Block * simd::kQ8BlockBytes; }
};

WeightPointer weightPointer(BufferView view, size_t needed, const char* what) {
    const CpuBuffer* buffer = checkedBuffer(view, needed, what);
    if (buffer->element() == Element::F16) return {nullptr, buffer->halfData() + view.offset, nullptr};
    if (buffer->element() == Element::Q8_0) {
        if (view.offset % simd::kQ8Block) fail(std::string(what) + ": a q8_0 view must start on a block");
        return {nullptr, nullptr, buffer->q8Data() + view.offset / simd::kQ8Block * simd::kQ8BlockBytes};
    }
    return {buffer->data() + view.offset, nullptr, nullptr};
}

// Elements spanned by `rows` rows of `width` with row stride `stride`.
size_t spanOf(size_t rows, size_t stride, size_t width) { return rows == 0 ? 0 : (rows - 1) * stride + width; }

// Checks that a batch's keys lie inside k and v (the rest of attention()'s checks are static).
void checkAttentionKeys(const AttentionArgs& a, const AttentionBatch& b) {
    if (b.keyCount <= 0 || (a.causal && b.keyCount < b.queryCount)) fail("attention: batch has too few keys");
    if (a.maxKeys > 0 && b.keyCount > a.maxKeys) {
        fail("attention: batch has " + std::to_string(b.keyCount) + " keys, more than maxKeys " +
             std::to_string(a.maxKeys));
    }
    const size_t width = static_cast<size_t>(a.heads) * static_cast<size_t>(a.headDim);
    const size_t kvSpan = spanOf(b.keyRow + static_cast<size_t>(b.keyCount), static_cast<size_t>(a.kvStride), width);
    hostPointer(a.k, kvSpan, "attention k");
    hostPointer(a.v, kvSpan, "attention v");
}

int hardwareThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

} // namespace

CpuBackend::CpuBackend(int threads) { setThreads(threads); }

CpuBackend::~CpuBackend() = default;

DeviceMemory CpuBackend::memoryInfo() const { return systemMemory(); }

std::string CpuBackend::name() const {
    return "cpu (OpenBLAS, " + std::to_string(threads()) + (threads() == 1 ? " thread)" : " threads)");
}

void CpuBackend::setThreads(int threads) {
    const int n = threads > 0 ? threads : hardwareThreads();
    std::lock_guard lock(m_poolsMutex);
    ThreadPool* current = m_pool.load(std::memory_order_acquire);
    if (current && current->threads() == n) return;
    // Another session may be running an op on the current pool: it stays alive (idle) until
    // the backend goes, and new ops use the new one.
    m_pools.push_back(std::make_unique<ThreadPool>(n));
    m_pool.store(m_pools.back().get(), std::memory_order_release);
    // All parallelism is ours: each pool thread calls single-threaded OpenBLAS on its slice.
    // (OpenBLAS's own workers spin after every call and would fight the pool for the cores.)
    openblas_set_num_threads(1);
}

int CpuBackend::threads() const { return pool().threads(); }

bool CpuBackend::recording() const {
    return m_recorder.load(std::memory_order_relaxed) == std::this_thread::get_id();
}

void CpuBackend::refuseWhileRecording(const char* what) const {
    if (recording()) {
        fail(std::string(what) +
             " while recording (recorded work must not allocate, copy to or from the host, or wait)");
    }
}

void CpuBackend::beginRecording() {
    std::thread::id none;
    if (!m_recorder.compare_exchange_strong(none, std::this_thread::get_id())) {
        fail(recording() ? "record() inside record()" : "another thread is recording on this backend");
    }
    m_tape.clear();
}

std::unique_ptr<RecordedWork> CpuBackend::endRecording() {
    if (!recording()) fail("endRecording() without beginRecording()");
    std::vector<std::function<void()>> tape = std::move(m_tape);
    m_tape.clear();
    m_recorder.store(std::thread::id(), std::memory_order_relaxed);
    return std::make_unique<CpuRecording>(*this, std::move(tape));
}

void CpuBackend::abandonRecording() noexcept {
    if (!recording()) return;
    m_tape.clear();
    m_recorder.store(std::thread::id(), std::memory_order_relaxed);
}

template <class Work> void CpuBackend::submit(Work&& work) {
    if (recording()) {
        m_tape.emplace_back(std::forward<Work>(work));
        return;
    }
    const ScopedFlushDenormals flush;  // the pool's workers run with it always (ThreadPool)
    work();
}

void CpuBackend::synchronize() {
    refuseWhileRecording("synchronize()");
}

std::unique_ptr<DeviceBuffer> CpuBackend::allocate(size_t elements) {
    refuseWhileRecording("allocate()");
    return std::make_unique<CpuBuffer>(elements);
}

std::unique_ptr<IndexBuffer> CpuBackend::allocateIndices(size_t count) {
    refuseWhileRecording("allocateIndices()");
    return std::make_unique<CpuIndexBuffer>(count);
}

void CpuBackend::uploadIndices(IndexView dst, std::span<const int32_t> values) {
    refuseWhileRecording("uploadIndices()");
    int32_t* d = indexPointer(dst, values.size(), "uploadIndices");
    if (!values.empty()) std::memcpy(d, values.data(), values.size_bytes());
}

std::unique_ptr<DeviceBuffer> CpuBackend::createWeight(const TensorView& view) {
    refuseWhileRecording("loadWeight()");
    const int64_t elements = view.elements();
    const int64_t expected = dtypeBytes(view.dtype, elements);
    if (view.empty() || expected < 0 || static_cast<size_t>(expected) != view.bytes) {
        fail("weight " + view.name + " " + view.shapeString() + " holds " + std::to_string(view.bytes) +
             " bytes, expected " + std::to_string(expected));
    }
    const auto address = reinterpret_cast<uintptr_t>(view.data);
    // f16 matrices (Linear and conv weights, embedding tables) stay f16, in the map when aligned:
    // linear() reads them directly for a few rows and widens them for GEMMs; vectors (biases,
    // layer norms) become float32 like everything else.
    if (view.dtype == DType::F16 && view.shape.size() >= 2) {
        if (address % alignof(uint16_t) == 0) {
            return std::make_unique<CpuBuffer>(view.data, static_cast<size_t>(elements), Element::F16);
        }
        auto buffer = std::make_unique<CpuBuffer>(static_cast<size_t>(elements), Element::F16);
        std::memcpy(buffer->raw(), view.data, view.bytes);
        return buffer;
    }
    // q8_0 matrices stay in their blocks (rows of whole blocks: in % 32 == 0), in the map.
    if (view.dtype == DType::Q8_0 && view.shape.size() >= 2 && view.shape.back() % int64_t(simd::kQ8Block) == 0) {
        return CpuBuffer::q8(view.data, static_cast<size_t>(elements));
    }
    if (view.dtype == DType::F32 && address % alignof(float) == 0) {
        return std::make_unique<CpuBuffer>(view.data, static_cast<size_t>(elements), Element::F32);
    }
    auto buffer = std::make_unique<CpuBuffer>(static_cast<size_t>(elements));
    convertToFloat(view, buffer->data());
    return buffer;
}

void CpuBackend::upload(BufferView dst, const float* src, size_t count) {
    refuseWhileRecording("upload()");
    float* d = hostPointer(dst, count, "upload");
    if (count) std::memcpy(d, src, count * sizeof(float));
}

void CpuBackend::download(BufferView src, float* dst, size_t count) {
    refuseWhileRecording("download()");
    const float* s = hostPointer(src, count, "download");
    if (count) std::memcpy(dst, s, count * sizeof(float));
}

void CpuBackend::linear(BufferView x, BufferView w, BufferView bias, BufferView y, int rows, int in, int out,
                        bool accumulate) {
    if (rows <= 0 || in <= 0 || out <= 0) fail("linear: bad dimensions");
    const size_t r = static_cast<size_t>(rows), n = static_cast<size_t>(in), m = static_cast<size_t>(out);
    const float* xp = hostPointer(x, r * n, "linear x");
    const WeightPointer weight = weightPointer(w, m * n, "linear weight");
    const float* wp = weight.f32;       // [out][in] float32, or
    const uint16_t* hp = weight.f16;    // [out][in] f16, or
    const uint8_t* qp = weight.q8;      // [out][in / 32] q8_0 blocks
    if (qp && n % simd::kQ8Block) fail("linear: a q8_0 weight needs in to be a multiple of 32");
    const size_t qRow = n / simd::kQ8Block * simd::kQ8BlockBytes;  // bytes of one q8_0 row
    float* yp = hostPointer(y, r * m, "linear y");
    const float* bp = bias.empty() ? nullptr : hostPointer(bias, m, "linear bias");
    submit([=, this] {
        float beta = accumulate ? 1.0f : 0.0f;
        if (bp) {
            for (size_t i = 0; i < r; ++i) {
                float* row = yp + i * m;
                if (accumulate) {
                    for (size_t j = 0; j < m; ++j) row[j] += bp[j];
                } else {
                    std::memcpy(row, bp, m * sizeof(float));
                }
            }
            beta = 1.0f;
        }
        // Work is split over the output features (rows of w): every thread reads its own part of
        // the weights once, which is what the memory-bound single-token steps need.
        const size_t threads = static_cast<size_t>(pool().threads());
        const bool small = r * n * m < (size_t(1) << 16);
        if (rows == 1 && qp) {
            // y = W x (+ y) straight from the q8_0 blocks: a quarter of the float32 product's bytes.
            const size_t chunk = small ? m : std::max<size_t>(64, (m + threads - 1) / threads);
            pool().parallelFor(m, chunk, [&](size_t b, size_t e, int) {
                for (size_t o = b; o < e; ++o) {
                    const float dot = simd::dotQ8(xp, qp + o * qRow, n);
                    yp[o] = beta == 0.0f ? dot : yp[o] + dot;
                }
            });
        } else if (rows == 1 && hp) {
            // y = W x (+ y) straight from the f16 rows: half the bytes of the float32 product.
            const size_t chunk = small ? m : std::max<size_t>(64, (m + threads - 1) / threads);
            pool().parallelFor(m, chunk, [&](size_t b, size_t e, int) {
                for (size_t o = b; o < e; ++o) {
                    const float dot = simd::dotHalf(xp, hp + o * n, n);
                    yp[o] = beta == 0.0f ? dot : yp[o] + dot;
                }
            });
        } else if (rows == 1) {
            // y = W x (+ y): a matrix-vector product per slice of W.
            const size_t chunk = small ? m : std::max<size_t>(64, (m + threads - 1) / threads);
            pool().parallelFor(m, chunk, [&](size_t b, size_t e, int) {
                cblas_sgemv(CblasRowMajor, CblasNoTrans, static_cast<int>(e - b), in, 1.0f, wp + b * n, in, xp, 1,
                            beta, yp + b, 1);
            });
        } else if (rows <= kSmallBatchRows) {
            // A few rows (beams): each weight row is read once and dotted with every input row;
            // a packed GEMM would copy all of W first.
            pool().parallelFor(m, small ? m : 64, [&](size_t b, size_t e, int) {
                for (size_t o = b; o < e; ++o) {
                    if (qp) {
                        // The row's blocks stay in L1 across the input rows.
                        for (size_t i = 0; i < r; ++i) {
                            const float dot = simd::dotQ8(xp + i * n, qp + o * qRow, n);
                            float& target = yp[i * m + o];
                            target = beta == 0.0f ? dot : target + dot;
                        }
                        continue;
                    }
                    if (hp) {
                        // The f16 row is read once per 4 input rows; the sums are dot()'s on its float32 copy.
                        float dots[kSmallBatchRows];
                        simd::dotHalfRows(xp, n, r, hp + o * n, n, dots);
                        for (size_t i = 0; i < r; ++i) {
                            float& target = yp[i * m + o];
                            target = beta == 0.0f ? dots[i] : target + dots[i];
                        }
                        continue;
                    }
                    const float* wRow = wp + o * n;
                    for (size_t i = 0; i < r; ++i) {
                        const float dot = simd::dot(xp + i * n, wRow, n);
                        float& target = yp[i * m + o];
                        target = beta == 0.0f ? dot : target + dot;
                    }
                }
            });
        } else {
            // One GEMM per thread on a block of output columns: y[:, b:e] = x · W[b:e]ᵀ (+ y[:, b:e]).
            const size_t block = small ? m : (m + threads - 1) / threads;
            // An f16 W[b:e] is widened first into the thread's scratch (O(weights), next to the
            // O(rows × weights) product), so the GEMM is the float32 one.
            pool().parallelFor(m, block, [&](size_t b, size_t e, int) {
                thread_local std::vector<float> widened; // [e - b][in]
                const float* wBlock = wp ? wp + b * n : nullptr;
                if (hp || qp) {
                    if (widened.size() < (e - b) * n) widened.resize((e - b) * n);
                    if (hp) simd::convertHalf(hp + b * n, widened.data(), (e - b) * n);
                    else simd::convertQ8(qp + b * qRow, widened.data(), (e - b) * n);
                    wBlock = widened.data();
                }
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, static_cast<int>(e - b), in, 1.0f, xp, in,
                            wBlock, in, beta, yp + b, out);
            });
        }
    });
}

void CpuBackend::layerNorm(BufferView x, BufferView gamma, BufferView beta, BufferView y, int rows, int cols,
                           float eps) {
    if (rows <= 0 || cols <= 0) fail("layerNorm: bad dimensions");
    const size_t r = static_cast<size_t>(rows), c = static_cast<size_t>(cols);
    const float* xp = hostPointer(x, r * c, "layerNorm x");
    const float* gp = hostPointer(gamma, c, "layerNorm gamma");
    const float* bp = hostPointer(beta, c, "layerNorm beta");
    float* yp = hostPointer(y, r * c, "layerNorm y");
    submit([=, this] {
        pool().parallelFor(r, std::max<size_t>(1, 16384 / c), [&](size_t begin, size_t end, int) {
            for (size_t i = begin; i < end; ++i) {
                const float* row = xp + i * c;
                double sum = 0.0;
                for (size_t j = 0; j < c; ++j) sum += row[j];
                const double mean = sum / static_cast<double>(c);
                double squares = 0.0;
                for (size_t j = 0; j < c; ++j) {
                    const double d = row[j] - mean;
                    squares += d * d;
                }
                const float inv = static_cast<float>(1.0 / std::sqrt(squares / static_cast<double>(c) + eps));
                const float m = static_cast<float>(mean);
                float* out = yp + i * c;
                for (size_t j = 0; j < c; ++j) out[j] = (row[j] - m) * inv * gp[j] + bp[j];
            }
        });
    });
}

void CpuBackend::gelu(BufferView x) {
    float* p = hostPointer(x, x.size, "gelu");
    const size_t n = x.size;
    submit([=, this] {
        pool().parallelFor(n, 8192, [&](size_t begin, size_t end, int) { simd::gelu(p + begin, end - begin); });
    });
}

void CpuBackend::add(BufferView x, BufferView y) {
    if (x.size != y.size) fail("add: sizes differ");
    float* xp = hostPointer(x, x.size, "add x");
    const WeightPointer yp = weightPointer(y, y.size, "add y");  // f16 for positional tables
    if (yp.q8) fail("add: a q8_0 operand");
    const size_t n = x.size;
    submit([=, this] {
        pool().parallelFor(n, 32768, [&](size_t begin, size_t end, int) {
            if (yp.f32) {
                for (size_t i = begin; i < end; ++i) xp[i] += yp.f32[i];
            } else {
                for (size_t i = begin; i < end; ++i) xp[i] += halfToFloat(yp.f16[i]);
            }
        });
    });
}

void CpuBackend::conv1d(BufferView x, int length, int inChannels, BufferView w, BufferView bias, BufferView y,
                        int outChannels, int stride, BufferView workspace) {
    if (length <= 0 || inChannels <= 0 || outChannels <= 0 || stride <= 0) fail("conv1d: bad dimensions");
    const int outLength = (length - 1) / stride + 1;
    const size_t cin = static_cast<size_t>(inChannels), width = cin * 3;
    const float* xp = hostPointer(x, static_cast<size_t>(length) * cin, "conv1d x");
    float* col = hostPointer(workspace, static_cast<size_t>(outLength) * width, "conv1d workspace");
    // im2col: col[t][c·3 + k] = x[t·stride + k - 1][c], zero outside [0, length).
    submit([=, this] {
        pool().parallelFor(static_cast<size_t>(outLength), 16, [&](size_t begin, size_t end, int) {
            for (size_t t = begin; t < end; ++t) {
                float* row = col + t * width;
                for (int k = 0; k < 3; ++k) {
                    const long source = static_cast<long>(t) * stride + k - 1;
                    if (source < 0 || source >= length) {
                        for (size_t c = 0; c < cin; ++c) row[c * 3 + static_cast<size_t>(k)] = 0.0f;
                    } else {
                        const float* in = xp + static_cast<size_t>(source) * cin;
                        for (size_t c = 0; c < cin; ++c) row[c * 3 + static_cast<size_t>(k)] = in[c];
                    }
                }
            }
        });
    });
    linear(workspace, w, bias, y, outLength, inChannels * 3, outChannels, false);
}

void CpuBackend::embed(IndexView tokens, IndexView positions, int count, BufferView tokenTable,
                       BufferView positionTable, int width, BufferView y) {
    if (count < 0 || width <= 0) fail("embed: bad dimensions");
    const size_t d = static_cast<size_t>(width), n = static_cast<size_t>(count);
    if (n == 0) return;
    const int32_t* ids = indexPointer(tokens, n, "embed tokens");
    const int32_t* pos = indexPointer(positions, n, "embed positions");
    const WeightPointer tp = weightPointer(tokenTable, tokenTable.size, "embed tokens");
    const WeightPointer pp = weightPointer(positionTable, positionTable.size, "embed positions");
    float* yp = hostPointer(y, n * d, "embed y");
    const size_t tokenRows = tokenTable.size / d, positionRows = positionTable.size / d;
    // The ids are read when the work runs (a replayed step sees the ids uploaded before it).
    submit([=] {
        for (size_t i = 0; i < n; ++i) {
            if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= tokenRows) {
                fail("embed: token id " + std::to_string(ids[i]) + " outside a table of " + std::to_string(tokenRows));
            }
            if (pos[i] < 0 || static_cast<size_t>(pos[i]) >= positionRows) {
                fail("embed: position " + std::to_string(pos[i]) + " outside a table of " +
                     std::to_string(positionRows));
            }
            const size_t token = static_cast<size_t>(ids[i]), position = static_cast<size_t>(pos[i]);
            float* out = yp + i * d;
            for (size_t j = 0; j < d; ++j) out[j] = tp[token * d + j] + pp[position * d + j];
        }
    });
}

void CpuBackend::copyRows(BufferView src, int srcStride, BufferView dst, int dstStride, int width,
                          std::span<const RowCopy> copies, IndexView dstRowOffsets) {
    if (width <= 0 || srcStride < width || dstStride < width) fail("copyRows: bad strides");
    const size_t ss = static_cast<size_t>(srcStride), ds = static_cast<size_t>(dstStride),
                 w = static_cast<size_t>(width);
    if (copies.empty()) return;
    const int32_t* offsets =
        dstRowOffsets.buffer ? indexPointer(dstRowOffsets, copies.size(), "copyRows dstRowOffsets") : nullptr;
    const float* s = hostPointer(src, 0, "copyRows src");
    float* d = hostPointer(dst, 0, "copyRows dst");
    for (const RowCopy& c : copies) {
        if (c.count == 0) continue;
        hostPointer(src, spanOf(c.srcRow + c.count, ss, w), "copyRows src");
        // With offsets the destination rows are known only when the work runs.
        if (!offsets) hostPointer(dst, spanOf(c.dstRow + c.count, ds, w), "copyRows dst");
    }
    const size_t dstSize = dst.size;
    submit([=, blocks = std::vector<RowCopy>(copies.begin(), copies.end())] {
        const size_t bytes = w * sizeof(float);
        for (size_t b = 0; b < blocks.size(); ++b) {
            const RowCopy& c = blocks[b];
            if (c.count == 0) continue;
            size_t dstRow = c.dstRow;
            if (offsets) {
                const long long row = static_cast<long long>(c.dstRow) + offsets[b];
                if (row < 0 || spanOf(static_cast<size_t>(row) + c.count, ds, w) > dstSize) {
                    fail("copyRows: block " + std::to_string(b) + " at destination row " + std::to_string(row) +
                         " (offset " + std::to_string(offsets[b]) + ") outside a view of " + std::to_string(dstSize) +
                         " elements");
                }
                dstRow = static_cast<size_t>(row);
            }
            const float* from = s + c.srcRow * ss;
            float* to = d + dstRow * ds;
            if (ss == ds && ss == w) {
                std::memmove(to, from, c.count * bytes);
            } else {
                for (size_t i = 0; i < c.count; ++i) std::memmove(to + i * ds, from + i * ss, bytes);
            }
        }
    });
}

size_t CpuBackend::attentionWorkspaceElements(int queries, int keys) const {
    if (queries < kGemmAttentionQueries) return 0;
    // One [queries][keys] score matrix per thread (heads run in parallel).
    return static_cast<size_t>(threads()) * static_cast<size_t>(queries) * static_cast<size_t>(std::max(keys, 0));
}

void CpuBackend::attentionGemm(const AttentionArgs& a, const AttentionBatch& batch) {
    const int qc = batch.queryCount, kc = batch.keyCount, hd = a.headDim;
    const size_t qs = static_cast<size_t>(a.qStride), ks = static_cast<size_t>(a.kvStride),
                 os = static_cast<size_t>(a.outStride);
    const size_t matrix = static_cast<size_t>(qc) * static_cast<size_t>(kc);
    float* scores = hostPointer(a.workspace, matrix, "attention workspace");
    const float* q = hostPointer(a.q, a.q.size, "attention q") + static_cast<size_t>(batch.queryRow) * qs;
    const float* k = hostPointer(a.k, a.k.size, "attention k") + batch.keyRow * ks;
    const float* v = hostPointer(a.v, a.v.size, "attention v") + batch.keyRow * ks;
    float* out = hostPointer(a.out, a.out.size, "attention out") + static_cast<size_t>(batch.queryRow) * os;
    // Heads are split into as many groups as there are score matrices in the workspace (at most
    // one per thread); group g uses matrix g, so no two running heads share one.
    const size_t groups = std::min({a.workspace.size / matrix, static_cast<size_t>(threads()), static_cast<size_t>(a.heads)});
    pool().parallelFor(groups, 1, [&](size_t begin, size_t end, int) {
        for (size_t g = begin; g < end; ++g) {
            float* s = scores + g * matrix;
            for (size_t h = g; h < static_cast<size_t>(a.heads); h += groups) {
                const size_t col = h * static_cast<size_t>(hd);
                // s[qc][kc] = scale · q_h k_hᵀ
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, qc, kc, hd, a.scale, q + col, a.qStride, k + col,
                            a.kvStride, 0.0f, s, kc);
                for (int j = 0; j < qc; ++j) {
                    float* row = s + static_cast<size_t>(j) * static_cast<size_t>(kc);
                    const int visible = a.causal ? kc - qc + j + 1 : kc;
                    simd::softmax(row, static_cast<size_t>(visible));
                    std::fill(row + visible, row + kc, 0.0f);
                }
                // out_h[qc][hd] = s · v_h
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, qc, hd, kc, 1.0f, s, kc, v + col, a.kvStride,
                            0.0f, out + col, a.outStride);
            }
        }
    });
}

void CpuBackend::attention(const AttentionArgs& a) {
    if (a.heads <= 0 || a.headDim <= 0) fail("attention: bad head dimensions");
    const size_t width = static_cast<size_t>(a.heads) * static_cast<size_t>(a.headDim);
    if (a.qStride < 0 || a.kvStride < 0 || a.outStride < 0 || static_cast<size_t>(a.qStride) < width ||
        static_cast<size_t>(a.kvStride) < width || static_cast<size_t>(a.outStride) < width) {
        fail("attention: row stride smaller than heads × headDim");
    }
    const size_t batchCount = a.batches.size();
    const int32_t* rowOffsets =
        a.keyRowOffsets.buffer ? indexPointer(a.keyRowOffsets, batchCount, "attention keyRowOffsets") : nullptr;
    const int32_t* countOffsets =
        a.keyCountOffsets.buffer ? indexPointer(a.keyCountOffsets, batchCount, "attention keyCountOffsets") : nullptr;
    // Check every batch against its views before any work runs; keys that depend on per-step
    // offsets are checked when the work runs.
    bool work = false;
    for (const AttentionBatch& b : a.batches) {
        if (b.queryCount <= 0) continue;
        if (b.queryRow < 0) fail("attention: negative query row");
        hostPointer(a.q, spanOf(static_cast<size_t>(b.queryRow + b.queryCount), static_cast<size_t>(a.qStride), width),
                    "attention q");
        hostPointer(a.out,
                    spanOf(static_cast<size_t>(b.queryRow + b.queryCount), static_cast<size_t>(a.outStride), width),
                    "attention out");
        if (!rowOffsets && !countOffsets) checkAttentionKeys(a, b);
        work = true;
    }
    if (!work) return;
    AttentionArgs args = a;
    args.batches = {}; // the caller's span: the work keeps its own copy
    args.keyRowOffsets = {};
    args.keyCountOffsets = {};
    submit([this, args, rowOffsets, countOffsets,
            batches = std::vector<AttentionBatch>(a.batches.begin(), a.batches.end())] {
        if (!rowOffsets && !countOffsets) return attentionNow(args, batches);
        std::vector<AttentionBatch> effective = batches;
        for (size_t i = 0; i < effective.size(); ++i) {
            AttentionBatch& b = effective[i];
            if (b.queryCount <= 0) continue;
            const long long keyRow = static_cast<long long>(b.keyRow) + (rowOffsets ? rowOffsets[i] : 0);
            const long long keyCount = static_cast<long long>(b.keyCount) + (countOffsets ? countOffsets[i] : 0);
            if (keyRow < 0 || keyCount > std::numeric_limits<int>::max()) {
                fail("attention: batch " + std::to_string(i) + " has key row " + std::to_string(keyRow) +
                     " and key count " + std::to_string(keyCount) + " after its offsets");
            }
            b.keyRow = static_cast<size_t>(keyRow);
            b.keyCount = static_cast<int>(keyCount);
            checkAttentionKeys(args, b);
        }
        attentionNow(args, effective);
    });
}

void CpuBackend::attentionNow(const AttentionArgs& a, std::span<const AttentionBatch> batches) {
    struct Task {
        const AttentionBatch* batch;
        int head;
        int query;
    };
    size_t smallTasks = 0;
    for (const AttentionBatch& b : batches) {
        if (b.queryCount <= 0) continue;
        if (b.queryCount >= kGemmAttentionQueries) {
            attentionGemm(a, b);
        } else {
            smallTasks += static_cast<size_t>(b.queryCount) * static_cast<size_t>(a.heads);
        }
    }
    if (smallTasks == 0) return;

    size_t work = 0;
    for (const AttentionBatch& b : batches) {
        if (b.queryCount <= 0 || b.queryCount >= kGemmAttentionQueries) continue;
        work += static_cast<size_t>(b.queryCount) * static_cast<size_t>(a.heads) * static_cast<size_t>(b.keyCount);
    }
    // Task t is (batch, head, query) in batch order; found by a scan over the (few) batches.
    auto taskAt = [&](size_t t) {
        for (const AttentionBatch& b : batches) {
            if (b.queryCount <= 0 || b.queryCount >= kGemmAttentionQueries) continue;
            const size_t n = static_cast<size_t>(b.queryCount) * static_cast<size_t>(a.heads);
            if (t < n) {
                return Task{&b, static_cast<int>(t / static_cast<size_t>(b.queryCount)),
                            static_cast<int>(t % static_cast<size_t>(b.queryCount))};
            }
            t -= n;
        }
        return Task{nullptr, 0, 0};
    };
    const float* q = hostPointer(a.q, a.q.size, "attention q");
    const float* k = hostPointer(a.k, a.k.size, "attention k");
    const float* v = hostPointer(a.v, a.v.size, "attention v");
    float* out = hostPointer(a.out, a.out.size, "attention out");
    const int hd = a.headDim;
    // Small problems run inline: waking the workers costs more than they save.
    const size_t minChunk = work * static_cast<size_t>(hd) < 65536 ? smallTasks : 1;
    pool().parallelFor(smallTasks, minChunk, [&](size_t begin, size_t end, int) {
        thread_local std::vector<float> scores;
        for (size_t t = begin; t < end; ++t) {
            const Task task = taskAt(t);
            const AttentionBatch& b = *task.batch;
            const size_t col = static_cast<size_t>(task.head) * static_cast<size_t>(hd);
            const size_t row = static_cast<size_t>(b.queryRow + task.query);
            const int visible = a.causal ? b.keyCount - b.queryCount + task.query + 1 : b.keyCount;
            if (scores.size() < static_cast<size_t>(visible)) scores.resize(static_cast<size_t>(visible));
            const float* qv = q + row * static_cast<size_t>(a.qStride) + col;
            for (int i = 0; i < visible; ++i) {
                const float* kv = k + (b.keyRow + static_cast<size_t>(i)) * static_cast<size_t>(a.kvStride) + col;
                scores[static_cast<size_t>(i)] = simd::dot(qv, kv, static_cast<size_t>(hd)) * a.scale;
            }
            simd::softmax(scores.data(), static_cast<size_t>(visible));
            float* o = out + row * static_cast<size_t>(a.outStride) + col;
            std::fill(o, o + hd, 0.0f);
            for (int i = 0; i < visible; ++i) {
                const float* vv = v + (b.keyRow + static_cast<size_t>(i)) * static_cast<size_t>(a.kvStride) + col;
                simd::axpy(o, scores[static_cast<size_t>(i)], vv, static_cast<size_t>(hd));
            }
        }
    });
}

} // namespace hearsay
