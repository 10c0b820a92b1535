// CudaBackend (see cuda_backend.h): checks every view as CpuBackend does, then enqueues the
// op's kernel (or cuBLAS call) on the backend's stream. Only download() and synchronize()
// wait for the GPU. In fp16 mode weight matrices are half buffers; the ops that read weights
// (linear, conv1d, embed, add) take either element type, every other view must be float32.
#include "kernels/cuda_backend.h"

#include "kernels/attention.h"
#include "kernels/conv1d.h"
#include "kernels/convert.h"
#include "kernels/copy_rows.h"
#include "kernels/cublas_handle.h"
#include "kernels/cuda_check.h"
#include "kernels/cuda_graph.h"
#include "kernels/decode_attention.h"
#include "kernels/elementwise.h"
#include "kernels/embedding.h"
#include "kernels/layer_norm.h"
#include "kernels/small_linear.h"
#include "kernels/tensor_attention.h"

#include "core/util/half.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

namespace hearsay::cuda {
namespace {

std::string gib(size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / double(size_t(1) << 30));
    return text;
}

// What a buffer's elements are: float32 (everything allocate() makes, all weights in fp32 mode)
// or IEEE half (weight matrices in fp16 mode).
enum class Element { F32, F16 };

// Device memory of one backend, zeroed at allocation. Offsets and sizes count elements of the
// buffer's own type.
class CudaBuffer final : public DeviceBuffer {
public:
    CudaBuffer(size_t elements, int device, cudaStream_t stream, Element element = Element::F32)
        : DeviceBuffer(elements, element == Element::F16 ? sizeof(__half) : sizeof(float)), m_device(device),
          m_element(element) {
        if (elements == 0) return;
        if (elements > std::numeric_limits<size_t>::max() / sizeof(float)) throw CudaOutOfMemory("CUDA buffer too large");
        const size_t bytes = elements * (element == Element::F16 ? sizeof(__half) : sizeof(float));
        const cudaError_t status = cudaMalloc(&m_data, bytes);
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
        const cudaError_t zeroed = cudaMemsetAsync(m_data, 0, bytes, stream);
        if (zeroed != cudaSuccess) {
            cudaFree(m_data);  // the destructor does not run for a constructor that throws
            HEARSAY_CUDA_CHECK(zeroed);
        }
    }
    ~CudaBuffer() override {
        if (!m_data) return;
        int current = -1;
        cudaGetDevice(&current);
        if (current != m_device) cudaSetDevice(m_device);
        cudaFree(m_data);  // synchronises the device: no pending op still reads it
    }
    Element element() const { return m_element; }
    void* raw() const { return m_data; }
    float* data() const { return static_cast<float*>(m_data); }
    __half* halfData() const { return static_cast<__half*>(m_data); }

private:
    void* m_data = nullptr;
    int m_device = 0;
    Element m_element = Element::F32;
};

[[noreturn]] void fail(const std::string& what) { throw std::logic_error("cuda backend: " + what); }

// The buffer of a view after checking that the view holds `needed` elements.
const CudaBuffer* checkedBuffer(BufferView view, size_t needed, const char* what) {
    if (!view.buffer) fail(std::string(what) + ": no buffer");
    const auto* buffer = dynamic_cast<const CudaBuffer*>(view.buffer);
    if (!buffer) fail(std::string(what) + ": the buffer does not belong to a CUDA backend");
    if (view.offset > buffer->elements() || view.size > buffer->elements() - view.offset) {
        fail(std::string(what) + ": view [" + std::to_string(view.offset) + ", +" + std::to_string(view.size) +
             ") outside a buffer of " + std::to_string(buffer->elements()));
    }
    if (needed > view.size) {
        fail(std::string(what) + ": needs " + std::to_string(needed) + " elements, view holds " +
             std::to_string(view.size));
    }
    return buffer;
}

// The device address of a float32 view after checking that it holds `needed` elements. A half
// weight where only float32 is handled is a programming error, reported like a bad view.
float* devicePointer(BufferView view, size_t needed, const char* what) {
    const CudaBuffer* buffer = checkedBuffer(view, needed, what);
    if (buffer->element() != Element::F32) {
        fail(std::string(what) + ": a half buffer (an fp16 weight or KV cache) where float32 is needed");
    }
    return buffer->data() + view.offset;
}

// A read-only operand that may be a half weight: exactly one of the pointers is set.
struct WeightPointer {
    const float* f32 = nullptr;
    const __half* f16 = nullptr;
    const void* address() const { return f16 ? static_cast<const void*>(f16) : static_cast<const void*>(f32); }
};

WeightPointer weightPointer(BufferView view, size_t needed, const char* what) {
    const CudaBuffer* buffer = checkedBuffer(view, needed, what);
    if (buffer->element() == Element::F16) return {nullptr, buffer->halfData() + view.offset};
    return {buffer->data() + view.offset, nullptr};
}

// Elements spanned by `rows` rows of `width` with row stride `stride`.
size_t spanOf(size_t rows, size_t stride, size_t width) { return rows == 0 ? 0 : (rows - 1) * stride + width; }

// Whole rows of `width` with row stride `stride` inside `elements` (the inverse of spanOf).
size_t rowsIn(size_t elements, size_t stride, size_t width) { return elements < width ? 0 : (elements - width) / stride + 1; }

// int32 device memory for per-step values (IndexBuffer), zeroed at allocation.
class CudaIndexBuffer final : public IndexBuffer {
public:
    CudaIndexBuffer(size_t elements, int device, cudaStream_t stream) : IndexBuffer(elements), m_device(device) {
        if (elements == 0) return;
        const size_t bytes = elements * sizeof(int32_t);
        const cudaError_t status = cudaMalloc(&m_data, bytes);
        if (status == cudaErrorMemoryAllocation) {
            cudaGetLastError();
            throw CudaOutOfMemory("CUDA out of memory: cannot allocate " + std::to_string(bytes) +
                                  " bytes of indices on GPU " + std::to_string(device));
        }
        HEARSAY_CUDA_CHECK(status);
        const cudaError_t zeroed = cudaMemsetAsync(m_data, 0, bytes, stream);
        if (zeroed != cudaSuccess) {
            cudaFree(m_data);
            HEARSAY_CUDA_CHECK(zeroed);
        }
    }
    ~CudaIndexBuffer() override {
        if (!m_data) return;
        int current = -1;
        cudaGetDevice(&current);
        if (current != m_device) cudaSetDevice(m_device);
        cudaFree(m_data);
    }
    int32_t* data() const { return m_data; }

private:
    int32_t* m_data = nullptr;
    int m_device = 0;
};

// The device address of an index view after checking that it holds `needed` ints.
int32_t* indexPointer(IndexView view, size_t needed, const char* what) {
    if (!view.buffer) fail(std::string(what) + ": no index buffer");
    const auto* buffer = dynamic_cast<const CudaIndexBuffer*>(view.buffer);
    if (!buffer) fail(std::string(what) + ": the index buffer does not belong to a CUDA backend");
    if (view.offset > buffer->elements() || view.size > buffer->elements() - view.offset) {
        fail(std::string(what) + ": index view [" + std::to_string(view.offset) + ", +" + std::to_string(view.size) +
             ") outside a buffer of " + std::to_string(buffer->elements()));
    }
    if (needed > view.size) {
        fail(std::string(what) + ": needs " + std::to_string(needed) + " ints, view holds " + std::to_string(view.size));
    }
    return buffer->data() + view.offset;
}

} // namespace

bool disableCudaKernels(CudaBackendOptions& options, const std::string& list, std::string* unknown) {
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        const std::string name = list.substr(start, comma - start);
        if (name == "small-linear") {
            options.smallLinear = false;
        } else if (name == "tensor-attention") {
            options.tensorAttention = false;
        } else if (name == "split-attention") {
            options.splitAttention = false;
        } else if (name == "lt-bias") {
            options.ltBias = false;
        } else if (name == "half-kv") {
            options.halfKv = false;
        } else if (!name.empty()) {
            if (unknown) *unknown = name;
            return false;
        }
        start = comma + 1;
    }
    return true;
}

CudaBackend::CudaBackend(CudaBackendOptions options)
    : m_device(options.device),
      m_precision(options.precision),
      m_smallLinear(options.smallLinear),
      m_tensorAttention(options.tensorAttention),
      m_splitAttention(options.splitAttention),
      m_ltBias(options.ltBias),
      m_halfKv(options.halfKv) {
    int count = 0;
    HEARSAY_CUDA_CHECK(cudaGetDeviceCount(&count));
    if (options.device < 0 || options.device >= count) {
        throw CudaError("GPU " + std::to_string(options.device) + " does not exist (" + std::to_string(count) +
                        (count == 1 ? " device)" : " devices)"));
    }
    HEARSAY_CUDA_CHECK(cudaSetDevice(m_device));
    cudaDeviceProp prop{};
    HEARSAY_CUDA_CHECK(cudaGetDeviceProperties(&prop, m_device));
    m_cublas = std::make_unique<CublasHandle>(options.allowTf32);
    std::string disabled;  // kernels turned off (HEARSAY_CUDA_DISABLE), for reports
    for (auto [on, kernel] : {std::pair{m_smallLinear || m_precision == Precision::Fp32, "small-linear"},
                              std::pair{m_tensorAttention || m_precision == Precision::Fp32, "tensor-attention"},
                              std::pair{m_splitAttention, "split-attention"},
                              std::pair{m_ltBias || m_precision == Precision::Fp32, "lt-bias"},
                              std::pair{m_halfKv || m_precision == Precision::Fp32, "half-kv"}}) {
        if (!on) disabled += std::string(disabled.empty() ? ", without " : ",") + kernel;
    }
    m_name = std::string("cuda (") + prop.name + ", sm_" + std::to_string(prop.major) + std::to_string(prop.minor) +
             (m_precision == Precision::Fp16 ? std::string(", fp16 weights")
                                             : std::string(", fp32 weights, cuBLAS ") + (options.allowTf32 ? "tf32" : "fp32")) +
             disabled + ")";
    m_memoryName = "GPU " + std::to_string(m_device) + " (" + prop.name + ")";
}

CudaBackend::~CudaBackend() {
    useDevice();
    if (m_halfScratch.data) cudaFree(m_halfScratch.data);
    if (m_outScratch.data) cudaFree(m_outScratch.data);
    if (m_attentionScratch.data) cudaFree(m_attentionScratch.data);
}

void CudaBackend::useDevice() const {
    int current = -1;
    if (cudaGetDevice(&current) != cudaSuccess || current != m_device) HEARSAY_CUDA_CHECK(cudaSetDevice(m_device));
}

bool CudaBackend::recording() const { return m_recorder.load() == std::this_thread::get_id(); }

void CudaBackend::refuseWhileRecording(const char* what) const {
    if (m_recorder.load() == std::thread::id()) return;
    fail(std::string(what) + (recording() ? " while recording (recorded work must not allocate, copy to or from the "
                                            "host, or wait)"
                                          : " while another thread records on this backend's stream"));
}

void CudaBackend::beginRecording() {
    std::thread::id none;
    if (!m_recorder.compare_exchange_strong(none, std::this_thread::get_id())) {
        fail(recording() ? "record() inside record()" : "another thread is recording on this backend");
    }
    try {
        useDevice();
        beginStreamCapture(m_cublas->stream());
    } catch (...) {
        m_recorder.store(std::thread::id());
        throw;
    }
}

std::unique_ptr<RecordedWork> CudaBackend::endRecording() {
    if (!recording()) fail("endRecording() without beginRecording()");
    CapturedGraph graph;
    try {
        graph = endStreamCapture(m_cublas->stream());
    } catch (...) {
        m_recorder.store(std::thread::id());
        throw;
    }
    m_recorder.store(std::thread::id());
    return std::make_unique<CudaGraph>(*this, graph);
}

void CudaBackend::abandonRecording() noexcept {
    if (!recording()) return;
    abandonStreamCapture(m_cublas->stream());
    m_recorder.store(std::thread::id());
}

void CudaBackend::launchGraph(cudaGraphExec_t graph) {
    refuseWhileRecording("replay()");
    useDevice();
    HEARSAY_CUDA_CHECK(cudaGraphLaunch(graph, m_cublas->stream()));
}

std::unique_ptr<IndexBuffer> CudaBackend::allocateIndices(size_t count) {
    refuseWhileRecording("allocateIndices()");
    useDevice();
    return std::make_unique<CudaIndexBuffer>(count, m_device, m_cublas->stream());
}

void CudaBackend::uploadIndices(IndexView dst, std::span<const int32_t> values) {
    refuseWhileRecording("uploadIndices()");
    int32_t* d = indexPointer(dst, values.size(), "uploadIndices");
    if (values.empty()) return;
    useDevice();
    // Staged from pageable memory before the call returns (as upload()), ordered on the stream
    // before the ops (or the replayed graph) that read the values.
    HEARSAY_CUDA_CHECK(cudaMemcpyAsync(d, values.data(), values.size_bytes(), cudaMemcpyHostToDevice, m_cublas->stream()));
}

DeviceMemory CudaBackend::memoryInfo() const {
    DeviceMemory memory;
    memory.gpu = true;
    memory.name = m_memoryName;
    // The device is per thread: the GUI asks from another thread than the one decoding.
    int current = -1;
    if ((cudaGetDevice(&current) != cudaSuccess || current != m_device) && cudaSetDevice(m_device) != cudaSuccess) {
        cudaGetLastError();  // not sticky; clear it so that it is not reported by a later check
        return memory;
    }
    size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) != cudaSuccess) {
        cudaGetLastError();
        return memory;
    }
    memory.known = true;
    memory.freeBytes = freeBytes;
    memory.totalBytes = totalBytes;
    return memory;
}

std::unique_ptr<DeviceBuffer> CudaBackend::allocate(size_t elements) {
    refuseWhileRecording("allocate()");
    useDevice();
    return std::make_unique<CudaBuffer>(elements, m_device, m_cublas->stream());
}

std::unique_ptr<DeviceBuffer> CudaBackend::allocateKv(size_t elements) {
    if (!halfKv()) return allocate(elements);
    refuseWhileRecording("allocateKv()");
    useDevice();
    return std::make_unique<CudaBuffer>(elements, m_device, m_cublas->stream(), Element::F16);
}

std::unique_ptr<DeviceBuffer> CudaBackend::createWeight(const TensorView& view) {
    const int64_t elements = view.elements();
    const int64_t expected = dtypeBytes(view.dtype, elements);
    if (view.empty() || expected < 0 || static_cast<size_t>(expected) != view.bytes) {
        fail("weight " + view.name + " " + view.shapeString() + " holds " + std::to_string(view.bytes) +
             " bytes, expected " + std::to_string(expected));
    }
    const size_t n = static_cast<size_t>(elements);
    if (m_precision == Precision::Fp16 && view.shape.size() >= 2) {
        // Matrices (linear and conv weights, embedding tables) as half: f16 as stored, anything
        // else through float32 on the host, rounded to nearest even. Vectors stay float32.
        useDevice();
        auto buffer = std::make_unique<CudaBuffer>(n, m_device, m_cublas->stream(), Element::F16);
        std::vector<uint16_t> halves;
        const void* source = view.data;
        if (view.dtype != DType::F16) {
            std::vector<float> host(n);
            convertToFloat(view, host.data());
            halves.resize(n);
            for (size_t i = 0; i < n; ++i) {
                halves[i] = floatToHalf(host[i]);
                if ((halves[i] & 0x7FFF) == 0x7C00 && std::isfinite(host[i])) {
                    char value[32];
                    std::snprintf(value, sizeof value, "%g", double(host[i]));
                    fail("weight " + view.name + " " + view.shapeString() + ": element " + std::to_string(i) + " = " +
                         value + " is outside the fp16 range (±65504); use --precision fp32");
                }
            }
            source = halves.data();
        }
        // Staged from pageable memory before the call returns (see upload()).
        HEARSAY_CUDA_CHECK(cudaMemcpyAsync(buffer->raw(), source, n * sizeof(__half), cudaMemcpyHostToDevice,
                                           m_cublas->stream()));
        return buffer;
    }
    auto buffer = allocate(n);
    if (view.dtype == DType::F32) {
        upload(BufferView(buffer.get()), reinterpret_cast<const float*>(view.data), static_cast<size_t>(elements));
    } else {
        std::vector<float> host(static_cast<size_t>(elements));
        convertToFloat(view, host.data());
        upload(BufferView(buffer.get()), host.data(), host.size());
    }
    return buffer;
}

void CudaBackend::upload(BufferView dst, const float* src, size_t count) {
    refuseWhileRecording("upload()");
    const CudaBuffer* buffer = checkedBuffer(dst, count, "upload");
    if (count == 0) return;
    useDevice();
    if (buffer->element() == Element::F16) {
        // Rounded to half on the host (nearest even), then copied (staged before returning).
        std::vector<uint16_t> halves(count);
        for (size_t i = 0; i < count; ++i) halves[i] = floatToHalf(src[i]);
        HEARSAY_CUDA_CHECK(cudaMemcpyAsync(buffer->halfData() + dst.offset, halves.data(), count * sizeof(uint16_t),
                                           cudaMemcpyHostToDevice, m_cublas->stream()));
        return;
    }
    float* d = buffer->data() + dst.offset;
    // From pageable memory the source is staged before the call returns, so the caller may
    // reuse it at once; the copy itself is ordered on the stream.
    HEARSAY_CUDA_CHECK(cudaMemcpyAsync(d, src, count * sizeof(float), cudaMemcpyHostToDevice, m_cublas->stream()));
}

void CudaBackend::download(BufferView src, float* dst, size_t count) {
    refuseWhileRecording("download()");
    const CudaBuffer* buffer = checkedBuffer(src, count, "download");
    if (count == 0) return;
    useDevice();
    if (buffer->element() == Element::F16) {
        std::vector<uint16_t> halves(count);
        HEARSAY_CUDA_CHECK(cudaMemcpyAsync(halves.data(), buffer->halfData() + src.offset, count * sizeof(uint16_t),
                                           cudaMemcpyDeviceToHost, m_cublas->stream()));
        HEARSAY_CUDA_CHECK(cudaStreamSynchronize(m_cublas->stream()));
        for (size_t i = 0; i < count; ++i) dst[i] = halfToFloat(halves[i]);
        return;
    }
    const float* s = buffer->data() + src.offset;
    HEARSAY_CUDA_CHECK(cudaMemcpyAsync(dst, s, count * sizeof(float), cudaMemcpyDeviceToHost, m_cublas->stream()));
    HEARSAY_CUDA_CHECK(cudaStreamSynchronize(m_cublas->stream()));
}

void* CudaBackend::grow(Scratch& scratch, size_t bytes, const char* what) {
    if (bytes <= scratch.bytes) return scratch.data;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    HEARSAY_CUDA_CHECK(cudaStreamIsCapturing(m_cublas->stream(), &capture));
    if (capture != cudaStreamCaptureStatusNone) {
        fail(std::string(what) + " would have to grow from " + std::to_string(scratch.bytes) + " to " +
             std::to_string(bytes) + " bytes while the stream is being captured into a CUDA graph; run every "
             "shape once before capturing it");
    }
    // cudaFree waits for the kernels that still use the old buffer.
    if (scratch.data) HEARSAY_CUDA_CHECK(cudaFree(scratch.data));
    m_scratchGeneration.fetch_add(1);
    scratch = {};
    const size_t granule = size_t(1) << 20;
    const size_t capacity = (bytes + granule - 1) / granule * granule;
    void* data = nullptr;
    const cudaError_t status = cudaMalloc(&data, capacity);
    if (status == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        throw CudaOutOfMemory("CUDA out of memory: cannot allocate " + std::to_string(capacity) + " bytes for " + what +
                              " on GPU " + std::to_string(m_device));
    }
    HEARSAY_CUDA_CHECK(status);
    scratch = {data, capacity};
    return data;
}

void CudaBackend::gemmWithBias(const void* x, const void* w, bool wHalf, const float* bias, float* y, int rows, int in,
                               int out, bool accumulate) {
    float beta = accumulate ? 1.0f : 0.0f;
    // fp16: the bias in cuBLASLt's epilogue, one pass over y (when cuBLASLt has an algorithm).
    if (bias && wHalf && m_ltBias && m_cublas->gemmHalfBiasRowsByWeightsT(x, w, bias, y, rows, in, out, beta)) return;
    if (bias) {
        // y = bias (+ y), then y += x · Wᵀ: the order of CpuBackend.
        broadcastBias(y, bias, rows, out, accumulate, m_cublas->stream());
        beta = 1.0f;
    }
    if (wHalf) {
        m_cublas->gemmHalfRowsByWeightsT(x, w, y, rows, in, out, beta);
    } else {
        m_cublas->gemmRowsByWeightsT(static_cast<const float*>(x), static_cast<const float*>(w), y, rows, in, out, beta);
    }
}

void CudaBackend::linear(BufferView x, BufferView w, BufferView bias, BufferView y, int rows, int in, int out,
                         bool accumulate) {
    if (rows <= 0 || in <= 0 || out <= 0) fail("linear: bad dimensions");
    const size_t r = static_cast<size_t>(rows), n = static_cast<size_t>(in), m = static_cast<size_t>(out);
    const float* xp = devicePointer(x, r * n, "linear x");
    const WeightPointer wp = weightPointer(w, m * n, "linear weight");
    const CudaBuffer* yb = checkedBuffer(y, r * m, "linear y");
    const float* bp = bias.empty() ? nullptr : devicePointer(bias, m, "linear bias");
    useDevice();
    if (yb->element() == Element::F16) {
        // A half KV buffer (allocateKv): the product in float32 scratch, then rounded into it.
        if (accumulate) fail("linear: cannot accumulate into a half buffer");
        std::lock_guard lock(m_mutex);
        auto* tmp = static_cast<float*>(grow(m_outScratch, r * m * sizeof(float), "the KV projection buffer"));
        productLocked(xp, wp.f16, wp.f32, bp, tmp, rows, in, out, false);
        castToHalf(tmp, yb->halfData() + y.offset, r * m, m_cublas->stream());
        return;
    }
    float* yp = yb->data() + y.offset;
    // Decode steps: x stays float32 and the product, bias and residual are one pass.
    if (wp.f16 && m_smallLinear && rows <= cuda::kSmallLinearMaxRows) {
        cuda::smallLinear(xp, wp.f16, bp, yp, rows, in, out, accumulate, m_cublas->stream());
        return;
    }
    std::lock_guard lock(m_mutex);
    productLocked(xp, wp.f16, wp.f32, bp, yp, rows, in, out, accumulate);
}

void CudaBackend::productLocked(const float* x, const void* wHalf, const float* wFloat, const float* bias, float* y,
                                int rows, int in, int out, bool accumulate) {
    if (wHalf) {
        // An fp16 weight: x [rows][in] cast to half first (both GEMM inputs must be half).
        const size_t elements = static_cast<size_t>(rows) * static_cast<size_t>(in);
        auto* xh = static_cast<__half*>(grow(m_halfScratch, elements * sizeof(__half), "the fp16 cast buffer"));
        castToHalf(x, xh, elements, m_cublas->stream());
        gemmWithBias(xh, wHalf, true, bias, y, rows, in, out, accumulate);
    } else {
        gemmWithBias(x, wFloat, false, bias, y, rows, in, out, accumulate);
    }
}

void CudaBackend::linearMany(BufferView x, std::span<const LinearTarget> targets, int rows, int in) {
    // A decode step's q, k and v (half weights, ≤ 8 rows): one launch, blockIdx.y per target.
    const bool oneLaunch = m_smallLinear && rows >= 1 && rows <= cuda::kSmallLinearMaxRows && in > 0 &&
                           !targets.empty() && targets.size() <= size_t(cuda::kSmallLinearMaxTargets);
    if (!oneLaunch) return Backend::linearMany(x, targets, rows, in);
    const size_t r = static_cast<size_t>(rows), n = static_cast<size_t>(in);
    const float* xp = devicePointer(x, r * n, "linear x");
    std::vector<cuda::SmallLinearTarget> launch;
    for (const LinearTarget& t : targets) {
        if (t.out <= 0) fail("linear: bad dimensions");
        const size_t m = static_cast<size_t>(t.out);
        const WeightPointer wp = weightPointer(t.w, m * n, "linear weight");
        const CudaBuffer* yb = checkedBuffer(t.y, r * m, "linear y");
        // fp32 mode (cuBLAS) or a half KV output (scratch and cast): one linear() per target.
        if (!wp.f16 || yb->element() != Element::F32) return Backend::linearMany(x, targets, rows, in);
        float* yp = yb->data() + t.y.offset;
        if (t.y.buffer == x.buffer && t.y.offset < x.offset + r * n && x.offset < t.y.offset + r * m) {
            fail("linearMany: an output overlaps x");
        }
        if (t.gelu && t.accumulate) fail("linearMany: GELU with accumulate");
        launch.push_back({wp.f16, t.bias.empty() ? nullptr : devicePointer(t.bias, m, "linear bias"), yp, t.out,
                          t.accumulate, t.gelu});
    }
    useDevice();
    cuda::smallLinear(xp, launch.data(), static_cast<int>(launch.size()), rows, in, m_cublas->stream());
}

void CudaBackend::layerNorm(BufferView x, BufferView gamma, BufferView beta, BufferView y, int rows, int cols,
                            float eps) {
    if (rows <= 0 || cols <= 0) fail("layerNorm: bad dimensions");
    const size_t r = static_cast<size_t>(rows), c = static_cast<size_t>(cols);
    const float* xp = devicePointer(x, r * c, "layerNorm x");
    const float* gp = devicePointer(gamma, c, "layerNorm gamma");
    const float* bp = devicePointer(beta, c, "layerNorm beta");
    float* yp = devicePointer(y, r * c, "layerNorm y");
    useDevice();
    cuda::layerNorm(xp, gp, bp, yp, rows, cols, eps, m_cublas->stream());
}

void CudaBackend::gelu(BufferView x) {
    float* p = devicePointer(x, x.size, "gelu");
    useDevice();
    cuda::gelu(p, x.size, m_cublas->stream());
}

void CudaBackend::add(BufferView x, BufferView y) {
    if (x.size != y.size) fail("add: sizes differ");
    float* xp = devicePointer(x, x.size, "add x");
    const WeightPointer yp = weightPointer(y, y.size, "add y");  // half for an fp16 positional table
    useDevice();
    if (yp.f16) {
        cuda::add(xp, yp.f16, x.size, m_cublas->stream());
    } else {
        cuda::add(xp, yp.f32, x.size, m_cublas->stream());
    }
}

void CudaBackend::conv1d(BufferView x, int length, int inChannels, BufferView w, BufferView bias, BufferView y,
                         int outChannels, int stride, BufferView workspace) {
    if (length <= 0 || inChannels <= 0 || outChannels <= 0 || stride <= 0) fail("conv1d: bad dimensions");
    const int outLength = (length - 1) / stride + 1;
    const size_t cin = static_cast<size_t>(inChannels);
    const float* xp = devicePointer(x, static_cast<size_t>(length) * cin, "conv1d x");
    float* col = devicePointer(workspace, static_cast<size_t>(outLength) * cin * 3, "conv1d workspace");
    const WeightPointer wp = weightPointer(w, static_cast<size_t>(outChannels) * cin * 3, "conv1d weight");
    if (!wp.f16) {
        useDevice();
        im2col3(xp, length, inChannels, stride, outLength, col, m_cublas->stream());
        linear(workspace, w, bias, y, outLength, inChannels * 3, outChannels, false);
        return;
    }
    // An fp16 weight: the columns go into the workspace as half (half the bytes of its float32
    // capacity), then the fp16 GEMM.
    float* yp = devicePointer(y, static_cast<size_t>(outLength) * static_cast<size_t>(outChannels), "conv1d y");
    const float* bp = bias.empty() ? nullptr : devicePointer(bias, static_cast<size_t>(outChannels), "conv1d bias");
    useDevice();
    auto* colHalf = reinterpret_cast<__half*>(col);
    im2col3(xp, length, inChannels, stride, outLength, colHalf, m_cublas->stream());
    std::lock_guard lock(m_mutex);
    gemmWithBias(colHalf, wp.f16, true, bp, yp, outLength, inChannels * 3, outChannels, false);
}

void CudaBackend::embed(IndexView tokens, IndexView positions, int count, BufferView tokenTable,
                        BufferView positionTable, int width, BufferView y) {
    if (count < 0 || width <= 0) fail("embed: bad dimensions");
    if (count == 0) return;
    const size_t d = static_cast<size_t>(width), n = static_cast<size_t>(count);
    const int32_t* ids = indexPointer(tokens, n, "embed tokens");
    const int32_t* pos = indexPointer(positions, n, "embed positions");
    const WeightPointer tp = weightPointer(tokenTable, tokenTable.size, "embed tokens");
    const WeightPointer pp = weightPointer(positionTable, positionTable.size, "embed positions");
    float* yp = devicePointer(y, n * d, "embed y");
    // The ids are read by the kernel (device memory): a bad id gives a NaN row, never a read
    // outside the tables; the decoder checks ids and positions before uploading them.
    const auto rows = [d](size_t elements) { return static_cast<int>(std::min<size_t>(elements / d, INT32_MAX)); };
    useDevice();
    cuda::embed(ids, pos, count, {tp.address(), tp.f16 != nullptr, rows(tokenTable.size)},
                {pp.address(), pp.f16 != nullptr, rows(positionTable.size)}, width, yp, m_cublas->stream());
}

void CudaBackend::copyRows(BufferView src, int srcStride, BufferView dst, int dstStride, int width,
                           std::span<const RowCopy> copies, IndexView dstRowOffsets) {
    if (width <= 0 || srcStride < width || dstStride < width) fail("copyRows: bad strides");
    const size_t ss = static_cast<size_t>(srcStride), ds = static_cast<size_t>(dstStride), w = static_cast<size_t>(width);
    if (copies.empty()) return;
    const float* s = devicePointer(src, 0, "copyRows src");
    float* d = devicePointer(dst, 0, "copyRows dst");
    // Per-step destination offsets: read by the kernel, which skips rows outside dst. Overlap
    // cannot be checked on the host then, so offsets within one buffer are refused.
    const int32_t* offsets =
        dstRowOffsets.buffer ? indexPointer(dstRowOffsets, copies.size(), "copyRows dstRowOffsets") : nullptr;
    if (offsets && src.buffer == dst.buffer) fail("copyRows: row offsets need distinct source and destination buffers");
    std::vector<RowBlock> blocks;
    blocks.reserve(copies.size());
    for (size_t index = 0; index < copies.size(); ++index) {
        const RowCopy& c = copies[index];
        if (c.count == 0) continue;
        devicePointer(src, spanOf(c.srcRow + c.count, ss, w), "copyRows src");
        if (!offsets) devicePointer(dst, spanOf(c.dstRow + c.count, ds, w), "copyRows dst");
        // The blocks run in parallel: a block must not write what any block reads.
        if (src.buffer == dst.buffer) {
            const float* dBegin = d + c.dstRow * ds;
            const float* dEnd = dBegin + spanOf(c.count, ds, w);
            for (const RowCopy& o : copies) {
                if (o.count == 0) continue;
                const float* sBegin = s + o.srcRow * ss;
                const float* sEnd = sBegin + spanOf(o.count, ss, w);
                if (dBegin < sEnd && sBegin < dEnd) fail("copyRows: a destination block overlaps a source block");
            }
        }
        blocks.push_back({c.srcRow, c.dstRow, c.count, static_cast<int>(index)});
    }
    useDevice();
    cuda::copyRows(s, ss, d, ds, rowsIn(dst.size, ds, w), width, blocks.data(), blocks.size(), offsets,
                   m_cublas->stream());
}

size_t CudaBackend::attentionWorkspaceElements(int, int) const { return 0; }

void CudaBackend::attention(const AttentionArgs& a) {
    if (a.heads <= 0 || a.headDim <= 0) fail("attention: bad head dimensions");
    if (a.headDim > kMaxAttentionHeadDim) {
        fail("attention: head dimension " + std::to_string(a.headDim) + " above the kernel's " +
             std::to_string(kMaxAttentionHeadDim));
    }
    const size_t width = static_cast<size_t>(a.heads) * static_cast<size_t>(a.headDim);
    if (a.qStride < 0 || a.kvStride < 0 || a.outStride < 0 || static_cast<size_t>(a.qStride) < width ||
        static_cast<size_t>(a.kvStride) < width || static_cast<size_t>(a.outStride) < width) {
        fail("attention: row stride smaller than heads × headDim");
    }
    // Per-step key offsets: applied and checked by the kernel (NaN rows for keys outside k/v).
    const int32_t* rowOffsets =
        a.keyRowOffsets.buffer ? indexPointer(a.keyRowOffsets, a.batches.size(), "attention keyRowOffsets") : nullptr;
    const int32_t* countOffsets = a.keyCountOffsets.buffer
                                      ? indexPointer(a.keyCountOffsets, a.batches.size(), "attention keyCountOffsets")
                                      : nullptr;
    const bool offsets = rowOffsets || countOffsets;
    std::vector<AttentionSlice> slices;
    slices.reserve(a.batches.size());
    for (size_t index = 0; index < a.batches.size(); ++index) {
        const AttentionBatch& b = a.batches[index];
        if (b.queryCount <= 0) continue;
        if (b.queryRow < 0) fail("attention: negative query row");
        if (!offsets && (b.keyCount <= 0 || (a.causal && b.keyCount < b.queryCount))) {
            fail("attention: batch has too few keys");
        }
        if (!offsets && a.maxKeys > 0 && b.keyCount > a.maxKeys) fail("attention: batch has more keys than maxKeys");
        devicePointer(a.q, spanOf(static_cast<size_t>(b.queryRow + b.queryCount), static_cast<size_t>(a.qStride), width),
                      "attention q");
        devicePointer(a.out,
                      spanOf(static_cast<size_t>(b.queryRow + b.queryCount), static_cast<size_t>(a.outStride), width),
                      "attention out");
        if (!offsets) {
            const size_t kvSpan =
                spanOf(b.keyRow + static_cast<size_t>(b.keyCount), static_cast<size_t>(a.kvStride), width);
            checkedBuffer(a.k, kvSpan, "attention k");
            checkedBuffer(a.v, kvSpan, "attention v");
        }
        slices.push_back({b.queryRow, b.queryCount, b.keyRow, b.keyCount, static_cast<int>(index)});
    }
    if (slices.empty()) return;
    AttentionShape shape;
    shape.q = devicePointer(a.q, 0, "attention q");
    // Keys and values: both float32, or both half (a KV buffer from allocateKv).
    const CudaBuffer* kb = checkedBuffer(a.k, 0, "attention k");
    const CudaBuffer* vb = checkedBuffer(a.v, 0, "attention v");
    if (kb->element() != vb->element()) fail("attention: k and v of different element types");
    shape.kvHalf = kb->element() == Element::F16;
    if (shape.kvHalf) {
        shape.k = kb->halfData() + a.k.offset;
        shape.v = vb->halfData() + a.v.offset;
    } else {
        shape.k = kb->data() + a.k.offset;
        shape.v = vb->data() + a.v.offset;
    }
    shape.out = devicePointer(a.out, 0, "attention out");
    shape.qStride = static_cast<size_t>(a.qStride);
    shape.kvStride = static_cast<size_t>(a.kvStride);
    shape.outStride = static_cast<size_t>(a.outStride);
    shape.heads = a.heads;
    shape.headDim = a.headDim;
    shape.scale = a.scale;
    shape.causal = a.causal;
    shape.keyRowOffsets = rowOffsets;
    shape.keyCountOffsets = countOffsets;
    shape.kvRows = std::min(rowsIn(a.k.size, shape.kvStride, width), rowsIn(a.v.size, shape.kvStride, width));
    useDevice();
    // Each slice to one kernel: many queries on tensor cores (fp16 mode), few queries split over
    // their keys (decode steps), the rest (and everything with those switched off) one block per
    // (slice, head, 8 queries).
    const bool tensor = m_precision == Precision::Fp16 && m_tensorAttention && cuda::tensorAttentionApplies(shape);
    std::vector<AttentionSlice> few, rest;
    int fewKeys = 0;
    for (const AttentionSlice& slice : slices) {
        if (tensor && slice.queryCount >= cuda::kTensorAttentionMinQueries) {
            cuda::tensorAttention(shape, slice, m_cublas->stream());
        } else if (m_splitAttention && cuda::decodeAttentionApplies(a.headDim, slice.queryCount)) {
            few.push_back(slice);
            fewKeys = std::max(fewKeys, slice.keyCount);
        } else {
            rest.push_back(slice);
        }
    }
    if (!few.empty()) {
        // With per-step offsets the key counts are known only on the device: the caller's bound
        // (the cache capacity), else every row of k/v.
        const int maxKeys = !offsets ? fewKeys
                            : a.maxKeys > 0
                                ? a.maxKeys
                                : static_cast<int>(std::min<size_t>(shape.kvRows, std::numeric_limits<int>::max()));
        const size_t floats = cuda::decodeAttentionScratchFloats(static_cast<int>(few.size()), a.heads, a.headDim, maxKeys);
        std::lock_guard lock(m_mutex);
        auto* scratch = static_cast<float*>(grow(m_attentionScratch, floats * sizeof(float), "the attention scratch"));
        cuda::decodeAttention(shape, few.data(), few.size(), maxKeys, scratch, m_cublas->stream());
    }
    if (!rest.empty()) cuda::attention(shape, rest.data(), rest.size(), m_cublas->stream());
}

void CudaBackend::synchronize() {
    refuseWhileRecording("synchronize()");
    useDevice();
    HEARSAY_CUDA_CHECK(cudaStreamSynchronize(m_cublas->stream()));
}

} // namespace hearsay::cuda
