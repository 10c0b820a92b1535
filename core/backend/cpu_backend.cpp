// CpuBackend: float32 host buffers (f16 weight matrices kept as f16); projections through
// OpenBLAS or f16 dot products; layer norm, GELU, im2col and attention on a thread pool. Shape
// violations are programming errors and throw std::logic_error (the session turns them into
// error results, never an abort). Backend checks each op's arguments (backend_ops.cpp); the
// run*() work here hands a closure over pointers and values to submit(): run now, or taped while
// record() is active.
#include "core/backend/cpu_backend.h"
#include "core/backend/flush_denormals.h"

#include "core/backend/cpu_int8.h"
#include "core/backend/cpu_simd.h"
#include "core/backend/cpu_vector_math.h"
#include "core/backend/q16_split.h"
#include "core/util/half.h"
#include "core/util/stopwatch.h"

#include "core/backend/blas.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
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

size_t elementBytes(ElementType element) { return element == ElementType::F16 ? sizeof(uint16_t) : sizeof(float); }

// The bytes of `elements` of `element`, or the out-of-memory error where they would pass the
// address space.
size_t bufferBytes(size_t elements, ElementType element) {
    if (elements > std::numeric_limits<size_t>::max() / sizeof(float) - 64)
        throw HostOutOfMemory(double(elements) * double(elementBytes(element)));
    return elements * elementBytes(element);
}

// `bytes` of one of the backend's arenas of huge pages, or the out-of-memory error.
HugePageArena::Block arenaBlock(HugePageArena& arena, size_t bytes) {
    HugePageArena::Block block = arena.allocate(bytes);
    if (!block.data) throw HostOutOfMemory(double(bytes));
    return block;
}

static_assert(kQ8_0BlockElements == simd::kQ8Block && kQ8_0BlockBytes == simd::kQ8BlockBytes);
static_assert(kQ5_0BlockElements == simd::kQ5Block && kQ5_0BlockBytes == simd::kQ5BlockBytes &&
              kQ5_1BlockBytes == simd::kQ5_1BlockBytes);

// Host memory, 64-byte aligned and zeroed; or a weight or a cross cache's keys or values in one of
// the backend's arenas of huge pages (f16 matrices as the model stores them: half the bytes a decode
// step reads; q8_0, q5_0 and q5_1 matrices in their blocks: about a quarter and a sixth of
// float32's, read by their dot kernels and widened block by block for GEMMs).
// Offsets and sizes count elements of the buffer's own type.
class CpuBuffer final : public DeviceBuffer {
public:
    explicit CpuBuffer(size_t elements, ElementType element = ElementType::F32) : DeviceBuffer(elements, element) {
        if (elements == 0) return;
        const size_t bytes = (bufferBytes(elements, element) + 63) / 64 * 64;
        if (bytes >= kMappedBytes) {
            // Large buffers (caches, activations) are mapped: zeroed by the kernel and given back
            // to the system when freed. From the heap, switching a cache off and on again left
            // the freed blocks in the allocator and resident memory grew with every switch.
            void* mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (mapped == MAP_FAILED) throw HostOutOfMemory(double(bytes));
            setAddress(mapped);
            m_mappedBytes = bytes;
        } else {
            void* data = std::aligned_alloc(64, bytes);
            if (!data) throw HostOutOfMemory(double(bytes));
            std::memset(data, 0, bytes);
            setAddress(data);
        }
    }
    // A weight or a cross cache's keys or values: `block` of one of the backend's arenas of huge
    // pages, which it keeps alive. Weights are never written through their buffer (the backend
    // only reads weights); upload() and download() convert a half cache (`kv`) and refuse a weight.
    CpuBuffer(HugePageArena::Block block, size_t elements, ElementType element, bool kv = false)
        : DeviceBuffer(elements, element), m_kv(kv), m_pages(std::move(block.mapping)) {
        setAddress(block.data);
    }
    bool isKv() const { return m_kv; }
    ~CpuBuffer() override {
        // An arena buffer's pages go back now, whichever other buffers keep its chunk mapped.
        if (m_pages) {
            m_pages->discard(static_cast<std::byte*>(address()), bytes());
            return;
        }
        // Otherwise the buffer's own mapping or heap block (none for an empty buffer).
        if (m_mappedBytes > 0) ::munmap(address(), m_mappedBytes);
        else std::free(address());
    }

private:
    bool m_kv = false;
    size_t m_mappedBytes = 0;  // > 0: address() is an anonymous mapping of this many bytes
    std::shared_ptr<const HugePageMapping> m_pages;  // huge pages holding address(), shared in the arena
    static constexpr size_t kMappedBytes = size_t(1) << 20;
};

// int32 host memory, zeroed.
class CpuIndexBuffer final : public IndexBuffer {
public:
    explicit CpuIndexBuffer(size_t elements) : IndexBuffer(elements), m_data(elements, 0) { setAddress(m_data.data()); }

private:
    std::vector<int32_t> m_data;
};

// The tape of one record() call, run again by replay().
class CpuRecording final : public RecordedWork {
public:
    CpuRecording(CpuBackend& backend, std::vector<CpuBackend::TapedOp> tape)
        : m_backend(backend), m_tape(std::move(tape)) {}
    void replay() override {
        if (m_backend.recording()) throwBackendError(BackendKind::Cpu, "replay() while recording");
        const ScopedFlushDenormals flush;
        if (!m_backend.profiling()) {
            for (const auto& op : m_tape) op.work();
            return;
        }
        for (const auto& op : m_tape) {
            const auto start = std::chrono::steady_clock::now();
            op.work();
            m_backend.addToProfile(op.info, msSince(start));
        }
    }
    size_t operations() const override { return m_tape.size(); }

private:
    CpuBackend& m_backend;
    std::vector<CpuBackend::TapedOp> m_tape;
};

// Element i of a weight operand (float32, f16, q8_0, q5_0 or q5_1).
float weightAt(const WeightPointer& w, size_t i) {
    if (w.f32) return w.f32[i];
    if (w.f16) return halfAt(w.f16, i);
    if (w.blockType == ElementType::Q16Split) return simd::q16SplitElement(simd::q16SplitTable(w.blocks, 1, w.tableElements), i);
    if (w.blockType == ElementType::Q5_0) return simd::elementQ5(w.blocks, i);
    if (w.blockType == ElementType::Q5_1) return simd::elementQ5_1(w.blocks, i);
    const uint8_t* block = w.blocks + i / simd::kQ8Block * simd::kQ8BlockBytes;
    uint16_t scale;
    std::memcpy(&scale, block, sizeof scale);
    return halfToFloat(scale) * float(static_cast<int8_t>(block[2 + i % simd::kQ8Block]));
}

int hardwareThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

} // namespace

CpuBackend::CpuBackend(int threads, Precision precision) : m_precision(precision) { setThreads(threads); }

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
    blas::setThreads(1);
}

int CpuBackend::threads() const { return pool().threads(); }

bool CpuBackend::recording() const {
    return m_recorder.load(std::memory_order_relaxed) == std::this_thread::get_id();
}

bool CpuBackend::isHalfKv(const BufferView& view) {
    return view.buffer->element() == ElementType::F16 && static_cast<const CpuBuffer*>(view.buffer)->isKv();
}

bool CpuBackend::owns(const DeviceBuffer& buffer) const { return dynamic_cast<const CpuBuffer*>(&buffer) != nullptr; }

bool CpuBackend::owns(const IndexBuffer& buffer) const {
    return dynamic_cast<const CpuIndexBuffer*>(&buffer) != nullptr;
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
    std::vector<TapedOp> tape = std::move(m_tape);
    m_tape.clear();
    m_recorder.store(std::thread::id(), std::memory_order_relaxed);
    return std::make_unique<CpuRecording>(*this, std::move(tape));
}

void CpuBackend::abandonRecording() noexcept {
    if (!recording()) return;
    m_tape.clear();
    m_recorder.store(std::thread::id(), std::memory_order_relaxed);
}

void CpuBackend::synchronize() {
    refuseWhileRecording("synchronize()");
}

std::unique_ptr<DeviceBuffer> CpuBackend::allocate(size_t elements) {
    refuseWhileRecording("allocate()");
    return std::make_unique<CpuBuffer>(elements);
}

std::unique_ptr<DeviceBuffer> CpuBackend::allocateKv(size_t elements) {
    refuseWhileRecording("allocateKv()");
    const ElementType element = m_precision == Precision::Fp16 ? ElementType::F16 : ElementType::F32;
    return std::make_unique<CpuBuffer>(arenaBlock(m_crossCaches, bufferBytes(elements, element)), elements, element,
                                       true);
}

std::unique_ptr<IndexBuffer> CpuBackend::allocateIndices(size_t count) {
    refuseWhileRecording("allocateIndices()");
    return std::make_unique<CpuIndexBuffer>(count);
}

void CpuBackend::runUploadIndices(IndexView dst, std::span<const int32_t> values) {
    if (!values.empty()) std::memcpy(indices(dst), values.data(), values.size_bytes());
}

std::unique_ptr<DeviceBuffer> CpuBackend::createWeight(const TensorView& view) {
    refuseWhileRecording("loadWeight()");
    const int64_t elements = view.elements();
    const int64_t expected = dtypeBytes(view.dtype, elements);
    if (view.empty() || expected < 0 || static_cast<size_t>(expected) != view.bytes) {
        fail("weight " + view.name + " " + view.shapeString() + " holds " + std::to_string(view.bytes) +
             " bytes, expected " + std::to_string(expected));
    }
    // Every weight is copied once, into the arena of huge pages (huge_pages.h): f16 matrices
    // (Linear and conv weights, embedding tables; linear() reads them directly for a few rows and
    // widens them for GEMMs) and float32 tensors as they are; q8_0 matrices in their blocks (rows
    // of whole blocks: in % 32 == 0); q5_0 and q5_1 matrices likewise where the AVX-512 kernels
    // (cpu_q5.cpp) or the integer ones (cpu_int8.h: AVX-512 VNNI or AVX2) run, since the portable
    // ones would make a decode step slower than the float32 product of the widened matrix.
    // Everything else (vectors in f16, other block formats, bf16) becomes float32. The copy also
    // aligns what a file stores at an odd address (CTranslate2's token embedding).
    const bool matrix = view.shape.size() >= 2;
    std::optional<ElementType> kept;
    if (view.dtype == DType::F32) kept = ElementType::F32;
    else if (view.dtype == DType::F16 && matrix) kept = ElementType::F16;
    else if (view.dtype == DType::Q8_0 && matrix && view.shape.back() % int64_t(simd::kQ8Block) == 0)
        kept = ElementType::Q8_0;
    else if ((view.dtype == DType::Q5_0 || view.dtype == DType::Q5_1) && matrix &&
             view.shape.back() % int64_t(simd::kQ5Block) == 0 && (simd::usingAvx512() || simd::usingInt8Dots())) {
        kept = view.dtype == DType::Q5_0 ? ElementType::Q5_0 : ElementType::Q5_1;
    }
    const size_t bytes = kept ? view.bytes : static_cast<size_t>(elements) * sizeof(float);
    HugePageArena::Block block = arenaBlock(m_weights, bytes);
    if (kept) std::memcpy(block.data, view.data, view.bytes);
    else convertToFloat(view, reinterpret_cast<float*>(block.data));
    return std::make_unique<CpuBuffer>(std::move(block), static_cast<size_t>(elements),
                                       kept.value_or(ElementType::F32));
}

std::unique_ptr<DeviceBuffer> CpuBackend::createLogitsTable(const TensorView& view) {
    refuseWhileRecording("loadLogitsTable()");
    const int64_t elements = view.elements();
    const bool split = m_precision == Precision::Fp16 && simd::usingLogitsSketch() && view.dtype == DType::F16 &&
                       view.shape.size() == 2 &&
                       view.shape.back() % int64_t(simd::kQ16SplitBlock) == 0 &&
                       dtypeBytes(view.dtype, elements) == static_cast<int64_t>(view.bytes) && !view.empty();
    if (!split) return createWeight(view);
    const size_t rows = static_cast<size_t>(view.shape[0]), n = static_cast<size_t>(view.shape[1]);
    HugePageArena::Block block = arenaBlock(m_weights, simd::q16SplitBytes(rows * n));
    simd::splitHalfRows(reinterpret_cast<const uint16_t*>(view.data), rows, n, block.data);
    return std::make_unique<CpuBuffer>(std::move(block), rows * n, ElementType::Q16Split);
}

void CpuBackend::runUpload(BufferView dst, const float* src, size_t count) {
    if (isHalfKv(dst)) {  // rounded to nearest
        auto* d = const_cast<uint16_t*>(weightPointer(dst, count, "upload").f16);
        simd::roundToHalf(src, d, count);
        return;
    }
    float* d = floatPointer(dst, count, "upload");  // weights are never uploaded to
    if (count) std::memcpy(d, src, count * sizeof(float));
}

void CpuBackend::runDownload(BufferView src, float* dst, size_t count) {
    if (isHalfKv(src)) {
        simd::convertHalf(weightPointer(src, count, "download").f16, dst, count);
        return;
    }
    const float* s = floatPointer(src, count, "download");
    if (count) std::memcpy(dst, s, count * sizeof(float));
}

namespace {

// Σ term(x[j]), j < n, in double: eight partial sums, then added pairwise.
template <class Term>
double laneSum(const float* x, size_t n, Term term) {
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t j = 0;
    for (; j + 8 <= n; j += 8) {
        for (size_t k = 0; k < 8; ++k) s[k] += term(x[j + k]);
    }
    for (; j < n; ++j) s[0] += term(x[j]);
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

} // namespace

void CpuBackend::runLayerNorm(BufferView x, BufferView gamma, BufferView beta, BufferView y, int rows, int cols,
                              float eps) {
    const size_t r = static_cast<size_t>(rows), c = static_cast<size_t>(cols);
    const float* xp = floats(x);
    const float* gp = floats(gamma);
    const float* bp = floats(beta);
    float* yp = floats(y);
    const auto describe = [&] {
        return OpInfo{"layer norm " + std::to_string(rows) + "x" + std::to_string(cols), 8.0 * double(r * c)};
    };
    submit(describe, [=, this] {
        pool().parallelFor(r, std::max<size_t>(1, 16384 / c), [&](size_t begin, size_t end, int) {
            for (size_t i = begin; i < end; ++i) {
                const float* row = xp + i * c;
                // Sums in double over eight independent lanes: one running sum would wait on the
                // adder's latency at every element (4% of tiny's encoder went to these loops).
                const double mean = laneSum(row, c, [](float v) { return double(v); }) / static_cast<double>(c);
                const double squares = laneSum(row, c, [mean](float v) {
                    const double d = v - mean;
                    return d * d;
                });
                const float inv = static_cast<float>(1.0 / std::sqrt(squares / static_cast<double>(c) + eps));
                const float m = static_cast<float>(mean);
                float* out = yp + i * c;
                for (size_t j = 0; j < c; ++j) out[j] = (row[j] - m) * inv * gp[j] + bp[j];
            }
        });
    });
}

void CpuBackend::runGelu(BufferView x) {
    float* p = floats(x);
    const size_t n = x.size;
    const auto describe = [&] { return OpInfo{"gelu " + std::to_string(n), 4.0 * double(n)}; };
    submit(describe, [=, this] {
        pool().parallelFor(n, 8192, [&](size_t begin, size_t end, int) { simd::gelu(p + begin, end - begin); });
    });
}

void CpuBackend::runAdd(BufferView x, BufferView y) {
    float* xp = floats(x);
    const WeightPointer yp = weightPointer(y, y.size, "add y");  // f16 for positional tables
    const size_t n = x.size;
    const auto describe = [&] { return OpInfo{"add " + std::to_string(n), 4.0 * double(n) * (yp.f32 ? 2 : 1.5)}; };
    submit(describe, [=, this] {
        pool().parallelFor(n, 32768, [&](size_t begin, size_t end, int) {
            if (yp.f32) {
                for (size_t i = begin; i < end; ++i) xp[i] += yp.f32[i];
            } else {
                for (size_t i = begin; i < end; ++i) xp[i] += halfAt(yp.f16, i);
            }
        });
    });
}

size_t CpuBackend::conv1dWorkspaceElements(int length, int inChannels, int stride) const {
    if (length <= 0 || inChannels <= 0 || stride <= 0) return 0;
    const size_t outLength = static_cast<size_t>((length - 1) / stride + 1);
    return (outLength + 1) / 2 * static_cast<size_t>(inChannels) * 3;
}

void CpuBackend::runConv1d(BufferView x, int length, int inChannels, BufferView w, BufferView bias, BufferView y,
                           int outChannels, int stride, BufferView workspace) {
    const int outLength = (length - 1) / stride + 1;
    const size_t cin = static_cast<size_t>(inChannels), width = cin * 3, cout = static_cast<size_t>(outChannels);
    const float* xp = floats(x);
    float* col = floats(workspace);
    // The output rows in blocks, as many as the workspace's columns hold (the encoder's conv2 in
    // two: its columns for all 1500 rows would be as large as three [T][d] activations).
    const size_t blockRows = std::max<size_t>(1, workspace.size / width);
    for (size_t first = 0; first < static_cast<size_t>(outLength); first += blockRows) {
        const size_t count = std::min(blockRows, static_cast<size_t>(outLength) - first);
        // im2col: col[t - first][c·3 + k] = x[t·stride + k - 1][c], zero outside [0, length).
        const auto describe = [&] {
            return OpInfo{"im2col " + std::to_string(count) + "x" + std::to_string(inChannels) + "/" +
                              std::to_string(stride),
                          4.0 * double(count) * double(stride) * double(cin)};
        };
        submit(describe, [=, this] {
            pool().parallelFor(count, 16, [&](size_t begin, size_t end, int) {
                for (size_t i = begin; i < end; ++i) {
                    float* row = col + i * width;
                    const size_t t = first + i;
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
        linear(workspace.slice(0, count * width), w, bias, y.slice(first * cout, count * cout), static_cast<int>(count),
               inChannels * 3, outChannels, false);
    }
}

void CpuBackend::runEmbed(IndexView tokens, IndexView positions, int count, BufferView tokenTable,
                          BufferView positionTable, int width, BufferView y) {
    const size_t d = static_cast<size_t>(width), n = static_cast<size_t>(count);
    const int32_t* ids = indices(tokens);
    const int32_t* pos = indices(positions);
    const WeightPointer tp = weightPointer(tokenTable, tokenTable.size, "embed tokens");
    const WeightPointer pp = weightPointer(positionTable, positionTable.size, "embed positions");
    float* yp = floats(y);
    const size_t tokenRows = tokenTable.size / d, positionRows = positionTable.size / d;
    // The ids are read when the work runs (a replayed step sees the ids uploaded before it).
    const auto describe = [&] { return OpInfo{"embed " + std::to_string(count) + "x" + std::to_string(width), 0.0}; };
    submit(describe, [=, this] {
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
            for (size_t j = 0; j < d; ++j) out[j] = weightAt(tp, token * d + j) + weightAt(pp, position * d + j);
        }
    });
}

void CpuBackend::runCopyRows(BufferView src, int srcStride, BufferView dst, int dstStride, int width,
                             std::span<const RowCopy> copies, IndexView dstRowOffsets) {
    const size_t ss = static_cast<size_t>(srcStride), ds = static_cast<size_t>(dstStride),
                 w = static_cast<size_t>(width);
    const int32_t* offsets = dstRowOffsets.buffer ? indices(dstRowOffsets) : nullptr;
    const float* s = floats(src);
    float* d = floats(dst);
    const size_t dstSize = dst.size;
    // With offsets the destination rows are known, and checked, only when the work runs.
    const auto describe = [&] {
        size_t rows = 0;
        for (const RowCopy& c : copies) rows += c.count;
        return OpInfo{"copy rows " + std::to_string(copies.size()) + " blocks x" + std::to_string(width),
                      8.0 * double(rows * w)};
    };
    submit(describe, [=, this, blocks = std::vector<RowCopy>(copies.begin(), copies.end())] {
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
                std::memcpy(to, from, c.count * bytes);  // no block overlaps another (checked)
            } else {
                for (size_t i = 0; i < c.count; ++i) std::memcpy(to + i * ds, from + i * ss, bytes);
            }
        }
    });
}

void CpuBackend::runAttention(const AttentionArgs& a) {
    // Keys and values: float32, or both half (the cross cache; Backend checked they agree).
    const int32_t* rowOffsets = a.keyRowOffsets.buffer ? indices(a.keyRowOffsets) : nullptr;
    const int32_t* countOffsets = a.keyCountOffsets.buffer ? indices(a.keyCountOffsets) : nullptr;
    AttentionArgs args = a;
    args.batches = {}; // the caller's span: the work keeps its own copy
    args.keyRowOffsets = {};
    args.keyCountOffsets = {};
    // Keys and values read: known here for fixed key counts; a decode step's self-attention
    // (keys from an offset) is labelled as such and its bytes are not counted.
    const auto describe = [&] {
        int queries = 0;
        double keys = 0.0, pairs = 0.0;  // pairs: query-key products per head (a causal batch: about half)
        for (const AttentionBatch& b : a.batches) {
            queries += b.queryCount;
            keys += b.keyCount;
            pairs += double(b.queryCount) * double(b.keyCount) * (a.causal ? 0.5 : 1.0);
        }
        const bool cached = countOffsets != nullptr;
        const double element = a.k.buffer->element() == ElementType::F16 ? 2.0 : 4.0;
        const double bytes = cached ? 0.0 : 2.0 * keys * double(a.heads) * double(a.headDim) * element;
        const double flops = cached ? 0.0 : 4.0 * pairs * double(a.heads) * double(a.headDim);  // q·k and p·v
        return OpInfo{"attention " + std::to_string(queries) + "q" + (a.causal ? " causal" : "") +
                          (cached ? " over the cache" : " x " + std::to_string(int(keys / double(std::max<size_t>(1, a.batches.size())))) + "k") +
                          (element == 2.0 ? " f16" : "") +
                          ", " + std::to_string(a.heads) + " heads",
                      bytes, flops};
    };
    submit(describe, [this, args, rowOffsets, countOffsets,
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

} // namespace hearsay
