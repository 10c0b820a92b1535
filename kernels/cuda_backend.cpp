// CudaBackend (see cuda_backend.h): Backend checks every op as it does for the CPU
// (core/backend/backend_ops.cpp); the run*() work here enqueues the op's kernel (or cuBLAS
// call) on the backend's stream. Only download() and synchronize()
// wait for the GPU. In fp16 mode weight matrices are half buffers; the ops that read weights
// (linear, conv1d, embed, add) take either element type, every other view must be float32.
#include "kernels/cuda_backend.h"

#include "kernels/attention.h"
#include "kernels/conv1d.h"
#include "kernels/convert.h"
#include "kernels/copy_rows.h"
#include "kernels/cublas_handle.h"
#include "kernels/cuda_buffer.h"
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

// The half elements of a view of a half buffer (a weight in fp16 mode, a half KV buffer).
__half* halves(BufferView view) { return static_cast<__half*>(view.buffer->address()) + view.offset; }
const __half* halves(const uint16_t* bits) { return reinterpret_cast<const __half*>(bits); }

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

bool CudaBackend::owns(const DeviceBuffer& buffer) const {
    return dynamic_cast<const CudaBuffer*>(&buffer) != nullptr;
}

bool CudaBackend::owns(const IndexBuffer& buffer) const {
    return dynamic_cast<const CudaIndexBuffer*>(&buffer) != nullptr;
}

void CudaBackend::runUploadIndices(IndexView dst, std::span<const int32_t> values) {
    int32_t* d = indices(dst);
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
    return std::make_unique<CudaBuffer>(elements, m_device, m_cublas->stream(), ElementType::F16);
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
        auto buffer = std::make_unique<CudaBuffer>(n, m_device, m_cublas->stream(), ElementType::F16);
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
        HEARSAY_CUDA_CHECK(cudaMemcpyAsync(buffer->address(), source, n * sizeof(__half), cudaMemcpyHostToDevice,
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

void CudaBackend::runUpload(BufferView dst, const float* src, size_t count) {
    if (count == 0) return;
    useDevice();
    if (dst.buffer->element() == ElementType::F16) {
        // Rounded to half on the host (nearest even), then copied (staged before returning).
        std::vector<uint16_t> halves(count);
        for (size_t i = 0; i < count; ++i) halves[i] = floatToHalf(src[i]);
        HEARSAY_CUDA_CHECK(cudaMemcpyAsync(cuda::halves(dst), halves.data(), count * sizeof(uint16_t),
                                           cudaMemcpyHostToDevice, m_cublas->stream()));
        return;
    }
    float* d = floatPointer(dst, count, "upload");
    // From pageable memory the source is staged before the call returns, so the caller may
    // reuse it at once; the copy itself is ordered on the stream.
    HEARSAY_CUDA_CHECK(cudaMemcpyAsync(d, src, count * sizeof(float), cudaMemcpyHostToDevice, m_cublas->stream()));
}

void CudaBackend::runDownload(BufferView src, float* dst, size_t count) {
    if (count == 0) return;
    useDevice();
    if (src.buffer->element() == ElementType::F16) {
        std::vector<uint16_t> halves(count);
        HEARSAY_CUDA_CHECK(cudaMemcpyAsync(halves.data(), cuda::halves(src), count * sizeof(uint16_t),
                                           cudaMemcpyDeviceToHost, m_cublas->stream()));
        HEARSAY_CUDA_CHECK(cudaStreamSynchronize(m_cublas->stream()));
        for (size_t i = 0; i < count; ++i) dst[i] = halfToFloat(halves[i]);
        return;
    }
    const float* s = floatPointer(src, count, "download");
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

void CudaBackend::runLinear(BufferView x, BufferView w, BufferView bias, BufferView y, int rows, int in, int out,
                            bool accumulate) {
    const size_t r = static_cast<size_t>(rows), n = static_cast<size_t>(in), m = static_cast<size_t>(out);
    const float* xp = floats(x);
    const WeightPointer wp = weightPointer(w, m * n, "linear weight");
    const __half* wHalf = halves(wp.f16);
    const float* bp = bias.empty() ? nullptr : floats(bias);
    useDevice();
    if (y.buffer->element() == ElementType::F16) {
        // A half KV buffer (allocateKv): the product in float32 scratch, then rounded into it
        // (Backend refuses accumulating into it).
        std::lock_guard lock(m_mutex);
        auto* tmp = static_cast<float*>(grow(m_outScratch, r * m * sizeof(float), "the KV projection buffer"));
        productLocked(xp, wHalf, wp.f32, bp, tmp, rows, in, out, false);
        castToHalf(tmp, halves(y), r * m, m_cublas->stream());
        return;
    }
    float* yp = floats(y);
    // Decode steps: x stays float32 and the product, bias and residual are one pass.
    if (wHalf && m_smallLinear && rows <= cuda::kSmallLinearMaxRows) {
        cuda::smallLinear(xp, wHalf, bp, yp, rows, in, out, accumulate, m_cublas->stream());
        return;
    }
    std::lock_guard lock(m_mutex);
    productLocked(xp, wHalf, wp.f32, bp, yp, rows, in, out, accumulate);
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

void CudaBackend::runLinearMany(BufferView x, std::span<const LinearTarget> targets, int rows, int in) {
    // A decode step's q, k and v (half weights, ≤ 8 rows): one launch, blockIdx.y per target.
    const bool oneLaunch = m_smallLinear && rows <= cuda::kSmallLinearMaxRows && !targets.empty() &&
                           targets.size() <= size_t(cuda::kSmallLinearMaxTargets);
    if (!oneLaunch) return Backend::runLinearMany(x, targets, rows, in);
    const size_t n = static_cast<size_t>(in);
    std::vector<cuda::SmallLinearTarget> launch;
    for (const LinearTarget& t : targets) {
        const WeightPointer wp = weightPointer(t.w, static_cast<size_t>(t.out) * n, "linear weight");
        // fp32 mode (cuBLAS) or a half KV output (scratch and cast): one linear() per target.
        if (!wp.f16 || t.y.buffer->element() != ElementType::F32) return Backend::runLinearMany(x, targets, rows, in);
        launch.push_back({halves(wp.f16), t.bias.empty() ? nullptr : floats(t.bias), floats(t.y), t.out, t.accumulate,
                          t.gelu});
    }
    useDevice();
    cuda::smallLinear(floats(x), launch.data(), static_cast<int>(launch.size()), rows, in, m_cublas->stream());
}

void CudaBackend::runLayerNorm(BufferView x, BufferView gamma, BufferView beta, BufferView y, int rows, int cols,
                               float eps) {
    useDevice();
    cuda::layerNorm(floats(x), floats(gamma), floats(beta), floats(y), rows, cols, eps, m_cublas->stream());
}

void CudaBackend::runGelu(BufferView x) {
    useDevice();
    cuda::gelu(floats(x), x.size, m_cublas->stream());
}

void CudaBackend::runAdd(BufferView x, BufferView y) {
    const WeightPointer yp = weightPointer(y, y.size, "add y");  // half for an fp16 positional table
    useDevice();
    if (yp.f16) {
        cuda::add(floats(x), halves(yp.f16), x.size, m_cublas->stream());
    } else {
        cuda::add(floats(x), yp.f32, x.size, m_cublas->stream());
    }
}

void CudaBackend::runConv1d(BufferView x, int length, int inChannels, BufferView w, BufferView bias, BufferView y,
                            int outChannels, int stride, BufferView workspace) {
    const int outLength = (length - 1) / stride + 1;
    const size_t cin = static_cast<size_t>(inChannels);
    const float* xp = floats(x);
    float* col = floats(workspace);
    const WeightPointer wp = weightPointer(w, static_cast<size_t>(outChannels) * cin * 3, "conv1d weight");
    if (!wp.f16) {
        useDevice();
        im2col3(xp, length, inChannels, stride, outLength, col, m_cublas->stream());
        linear(workspace, w, bias, y, outLength, inChannels * 3, outChannels, false);
        return;
    }
    // An fp16 weight: the columns go into the workspace as half (half the bytes of its float32
    // capacity), then the fp16 GEMM.
    float* yp = floats(y);
    const float* bp = bias.empty() ? nullptr : floats(bias);
    useDevice();
    auto* colHalf = reinterpret_cast<__half*>(col);
    im2col3(xp, length, inChannels, stride, outLength, colHalf, m_cublas->stream());
    std::lock_guard lock(m_mutex);
    gemmWithBias(colHalf, halves(wp.f16), true, bp, yp, outLength, inChannels * 3, outChannels, false);
}

void CudaBackend::runEmbed(IndexView tokens, IndexView positions, int count, BufferView tokenTable,
                           BufferView positionTable, int width, BufferView y) {
    const size_t d = static_cast<size_t>(width);
    const int32_t* ids = indices(tokens);
    const int32_t* pos = indices(positions);
    const WeightPointer tp = weightPointer(tokenTable, tokenTable.size, "embed tokens");
    const WeightPointer pp = weightPointer(positionTable, positionTable.size, "embed positions");
    float* yp = floats(y);
    // The ids are read by the kernel (device memory): a bad id gives a NaN row, never a read
    // outside the tables; the decoder checks ids and positions before uploading them.
    const auto rows = [d](size_t elements) { return static_cast<int>(std::min<size_t>(elements / d, INT32_MAX)); };
    useDevice();
    cuda::embed(ids, pos, count, {tp.address(), tp.f16 != nullptr, rows(tokenTable.size)},
                {pp.address(), pp.f16 != nullptr, rows(positionTable.size)}, width, yp, m_cublas->stream());
}

void CudaBackend::runCopyRows(BufferView src, int srcStride, BufferView dst, int dstStride, int width,
                              std::span<const RowCopy> copies, IndexView dstRowOffsets) {
    const size_t ss = static_cast<size_t>(srcStride), ds = static_cast<size_t>(dstStride), w = static_cast<size_t>(width);
    // Per-step destination offsets: read by the kernel, which skips rows outside dst.
    const int32_t* offsets = dstRowOffsets.buffer ? indices(dstRowOffsets) : nullptr;
    std::vector<RowBlock> blocks;
    blocks.reserve(copies.size());
    for (size_t index = 0; index < copies.size(); ++index) {
        const RowCopy& c = copies[index];
        if (c.count > 0) blocks.push_back({c.srcRow, c.dstRow, c.count, static_cast<int>(index)});
    }
    useDevice();
    cuda::copyRows(floats(src), ss, floats(dst), ds, rowsIn(dst.size, ds, w), width, blocks.data(), blocks.size(),
                   offsets, m_cublas->stream());
}

size_t CudaBackend::attentionWorkspaceElements(int, int) const { return 0; }

void CudaBackend::runAttention(const AttentionArgs& a) {
    if (a.headDim > kMaxAttentionHeadDim) {
        fail("attention: head dimension " + std::to_string(a.headDim) + " above the kernel's " +
             std::to_string(kMaxAttentionHeadDim));
    }
    const size_t width = static_cast<size_t>(a.heads) * static_cast<size_t>(a.headDim);
    // Per-step key offsets: applied and checked by the kernel (NaN rows for keys outside k/v).
    const int32_t* rowOffsets = a.keyRowOffsets.buffer ? indices(a.keyRowOffsets) : nullptr;
    const int32_t* countOffsets = a.keyCountOffsets.buffer ? indices(a.keyCountOffsets) : nullptr;
    const bool offsets = rowOffsets || countOffsets;
    std::vector<AttentionSlice> slices;
    slices.reserve(a.batches.size());
    for (size_t index = 0; index < a.batches.size(); ++index) {
        const AttentionBatch& b = a.batches[index];
        if (b.queryCount <= 0) continue;
        slices.push_back({b.queryRow, b.queryCount, b.keyRow, b.keyCount, static_cast<int>(index)});
    }
    AttentionShape shape;
    shape.q = floats(a.q);
    // Keys and values: both float32, or both half (a KV buffer from allocateKv; Backend checked
    // that they agree).
    shape.kvHalf = a.k.buffer->element() == ElementType::F16;
    if (shape.kvHalf) {
        shape.k = halves(a.k);
        shape.v = halves(a.v);
    } else {
        shape.k = floats(a.k);
        shape.v = floats(a.v);
    }
    shape.out = floats(a.out);
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
