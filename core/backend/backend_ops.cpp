// The checks of Backend's ops, written once for every backend: each op checks its arguments
// here and then hands them to the backend's run*() work, so the CPU and CUDA backends accept
// and refuse the same calls with the same messages.
#include "core/backend/backend.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace hearsay {
namespace {

const char* elementName(ElementType element) {
    switch (element) {
    case ElementType::F32: return "float32";
    case ElementType::F16: return "f16";
    case ElementType::Q8_0: return "q8_0";
    case ElementType::Q5_0: return "q5_0";
    case ElementType::Q5_1: return "q5_1";
    case ElementType::Q16Split: return "q16 split";
    }
    return "?";
}

size_t rowCount(int rows) { return static_cast<size_t>(rows); }

} // namespace

void throwBackendError(BackendKind kind, const std::string& what) {
    throw std::logic_error(std::string(backendKindName(kind)) + " backend: " + what);
}

std::string Backend::kindName() const { return std::string(backendKindName(kind())); }

const DeviceBuffer& Backend::checkedBuffer(BufferView view, size_t needed, const char* what) const {
    if (!view.buffer) fail(std::string(what) + ": no buffer");
    if (!owns(*view.buffer)) fail(std::string(what) + ": the buffer does not belong to a " + kindName() + " backend");
    const size_t elements = view.buffer->elements();
    if (view.offset > elements || view.size > elements - view.offset) {
        fail(std::string(what) + ": view [" + std::to_string(view.offset) + ", +" + std::to_string(view.size) +
             ") outside a buffer of " + std::to_string(elements));
    }
    if (needed > view.size) {
        fail(std::string(what) + ": needs " + std::to_string(needed) + " elements, view holds " +
             std::to_string(view.size));
    }
    return *view.buffer;
}

float* Backend::floatPointer(BufferView view, size_t needed, const char* what) const {
    const DeviceBuffer& buffer = checkedBuffer(view, needed, what);
    if (buffer.element() != ElementType::F32) {
        fail(std::string(what) + ": a buffer of " + elementName(buffer.element()) + " (a weight or KV cache) where " +
             "float32 is needed");
    }
    return static_cast<float*>(buffer.address()) + view.offset;
}

WeightPointer Backend::weightPointer(BufferView view, size_t needed, const char* what) const {
    const DeviceBuffer& buffer = checkedBuffer(view, needed, what);
    switch (buffer.element()) {
    case ElementType::F16: {
        WeightPointer w;
        w.f16 = static_cast<const uint16_t*>(buffer.address()) + view.offset;
        return w;
    }
    case ElementType::Q8_0:
    case ElementType::Q5_0:
    case ElementType::Q5_1: {
        if (view.offset % kQ8_0BlockElements) {
            fail(std::string(what) + ": a " + elementName(buffer.element()) + " view must start on a block");
        }
        WeightPointer w;
        w.blocks = static_cast<const uint8_t*>(buffer.address()) + elementsBytes(buffer.element(), view.offset);
        w.blockType = buffer.element();
        return w;
    }
    case ElementType::Q16Split: {
        // Its planes lie apart (q16_split.h): only the whole table has an address.
        if (view.offset != 0 || view.size != buffer.elements()) {
            fail(std::string(what) + ": a view of a q16 split table must be the whole table");
        }
        WeightPointer w;
        w.blocks = static_cast<const uint8_t*>(buffer.address());
        w.blockType = ElementType::Q16Split;
        w.tableElements = buffer.elements();
        return w;
    }
    case ElementType::F32: break;
    }
    WeightPointer w;
    w.f32 = static_cast<const float*>(buffer.address()) + view.offset;
    return w;
}

int32_t* Backend::indexPointer(IndexView view, size_t needed, const char* what) const {
    if (!view.buffer) fail(std::string(what) + ": no index buffer");
    if (!owns(*view.buffer)) {
        fail(std::string(what) + ": the index buffer does not belong to a " + kindName() + " backend");
    }
    const size_t elements = view.buffer->elements();
    if (view.offset > elements || view.size > elements - view.offset) {
        fail(std::string(what) + ": index view [" + std::to_string(view.offset) + ", +" + std::to_string(view.size) +
             ") outside a buffer of " + std::to_string(elements));
    }
    if (needed > view.size) {
        fail(std::string(what) + ": needs " + std::to_string(needed) + " ints, view holds " +
             std::to_string(view.size));
    }
    return view.buffer->address() + view.offset;
}

void Backend::checkAttentionKeys(const AttentionArgs& a, const AttentionBatch& b) const {
    if (b.keyCount <= 0 || (a.causal && b.keyCount < b.queryCount)) fail("attention: batch has too few keys");
    if (a.maxKeys > 0 && b.keyCount > a.maxKeys) {
        fail("attention: batch has " + std::to_string(b.keyCount) + " keys, more than maxKeys " +
             std::to_string(a.maxKeys));
    }
    const size_t width = static_cast<size_t>(a.heads) * static_cast<size_t>(a.headDim);
    const size_t kvSpan = spanOf(b.keyRow + static_cast<size_t>(b.keyCount), static_cast<size_t>(a.kvStride), width);
    checkedBuffer(a.k, kvSpan, "attention k");
    checkedBuffer(a.v, kvSpan, "attention v");
}

void Backend::upload(BufferView dst, const float* src, size_t count) {
    refuseWhileRecording("upload()");
    checkedBuffer(dst, count, "upload");
    runUpload(dst, src, count);
}

void Backend::download(BufferView src, float* dst, size_t count) {
    refuseWhileRecording("download()");
    checkedBuffer(src, count, "download");
    runDownload(src, dst, count);
}

void Backend::uploadIndices(IndexView dst, std::span<const int32_t> values) {
    refuseWhileRecording("uploadIndices()");
    indexPointer(dst, values.size(), "uploadIndices");
    runUploadIndices(dst, values);
}

void Backend::linear(BufferView x, BufferView w, BufferView bias, BufferView y, int rows, int in, int out,
                     bool accumulate) {
    if (rows <= 0 || in <= 0 || out <= 0) fail("linear: bad dimensions");
    const size_t r = rowCount(rows), n = static_cast<size_t>(in), m = static_cast<size_t>(out);
    floatPointer(x, r * n, "linear x");
    const WeightPointer weight = weightPointer(w, m * n, "linear weight");
    if (weight.blocks && n % kQ8_0BlockElements) fail("linear: a block weight needs in to be a multiple of 32");
    const DeviceBuffer& yBuffer = checkedBuffer(y, r * m, "linear y");
    // y is float32, or a half KV buffer (allocateKv) where the backend keeps one.
    if (isBlockType(yBuffer.element())) fail("linear y: a buffer of blocks");
    if (yBuffer.element() == ElementType::F16 && accumulate) fail("linear: cannot accumulate into a half buffer");
    if (!bias.empty()) floatPointer(bias, m, "linear bias");
    runLinear(x, w, bias, y, rows, in, out, accumulate);
}

void Backend::logits(BufferView x, BufferView table, BufferView y, int rows, int in, int out, LogitsReach reach) {
    if (rows <= 0 || in <= 0 || out <= 0) fail("logits: bad dimensions");
    if (reach.exactFrom < 0 || reach.exactFrom > out || reach.top < 0) fail("logits: bad reach");
    const size_t r = rowCount(rows), n = static_cast<size_t>(in), m = static_cast<size_t>(out);
    floatPointer(x, r * n, "logits x");
    const WeightPointer weight = weightPointer(table, m * n, "logits table");
    if (weight.blocks && n % kQ8_0BlockElements) fail("logits: a block table needs in to be a multiple of 32");
    floatPointer(y, r * m, "logits y");
    runLogits(x, table, y, rows, in, out, reach);
}

void Backend::runLogits(BufferView x, BufferView table, BufferView y, int rows, int in, int out, LogitsReach) {
    runLinear(x, table, {}, y, rows, in, out, false);
}

void Backend::linearMany(BufferView x, std::span<const LinearTarget> targets, int rows, int in) {
    if (rows <= 0 || in <= 0) fail("linear: bad dimensions");
    const size_t r = rowCount(rows), n = static_cast<size_t>(in);
    floatPointer(x, r * n, "linear x");
    for (const LinearTarget& t : targets) {
        if (t.out <= 0) fail("linear: bad dimensions");
        if (t.gelu && t.accumulate) fail("linearMany: GELU with accumulate");
        const size_t m = static_cast<size_t>(t.out);
        weightPointer(t.w, m * n, "linear weight");
        checkedBuffer(t.y, r * m, "linear y");
        if (t.y.buffer == x.buffer && t.y.offset < x.offset + r * n && x.offset < t.y.offset + r * m) {
            fail("linearMany: an output overlaps x");
        }
        if (!t.bias.empty()) floatPointer(t.bias, m, "linear bias");
    }
    runLinearMany(x, targets, rows, in);
}

void Backend::runLinearMany(BufferView x, std::span<const LinearTarget> targets, int rows, int in) {
    for (const LinearTarget& t : targets) {
        linear(x, t.w, t.bias, t.y, rows, in, t.out, t.accumulate);
        if (t.gelu) gelu(t.y.slice(0, rowCount(rows) * static_cast<size_t>(t.out)));
    }
}

void Backend::layerNorm(BufferView x, BufferView gamma, BufferView beta, BufferView y, int rows, int cols,
                        float eps) {
    if (rows <= 0 || cols <= 0) fail("layerNorm: bad dimensions");
    const size_t r = rowCount(rows), c = static_cast<size_t>(cols);
    floatPointer(x, r * c, "layerNorm x");
    floatPointer(gamma, c, "layerNorm gamma");
    floatPointer(beta, c, "layerNorm beta");
    floatPointer(y, r * c, "layerNorm y");
    runLayerNorm(x, gamma, beta, y, rows, cols, eps);
}

void Backend::gelu(BufferView x) {
    floatPointer(x, x.size, "gelu");
    runGelu(x);
}

void Backend::add(BufferView x, BufferView y) {
    if (x.size != y.size) fail("add: sizes differ");
    floatPointer(x, x.size, "add x");
    if (weightPointer(y, y.size, "add y").blocks) fail("add: an operand of blocks");  // half for positional tables
    runAdd(x, y);
}

void Backend::conv1d(BufferView x, int length, int inChannels, BufferView w, BufferView bias, BufferView y,
                     int outChannels, int stride, BufferView workspace) {
    if (length <= 0 || inChannels <= 0 || outChannels <= 0 || stride <= 0) fail("conv1d: bad dimensions");
    const size_t outLength = static_cast<size_t>((length - 1) / stride + 1);
    const size_t cin = static_cast<size_t>(inChannels), cout = static_cast<size_t>(outChannels);
    floatPointer(x, static_cast<size_t>(length) * cin, "conv1d x");
    floatPointer(workspace, conv1dWorkspaceElements(length, inChannels, stride), "conv1d workspace");
    weightPointer(w, cout * cin * 3, "conv1d weight");
    floatPointer(y, outLength * cout, "conv1d y");
    if (!bias.empty()) floatPointer(bias, cout, "conv1d bias");
    runConv1d(x, length, inChannels, w, bias, y, outChannels, stride, workspace);
}

size_t Backend::conv1dWorkspaceElements(int length, int inChannels, int stride) const {
    if (length <= 0 || inChannels <= 0 || stride <= 0) return 0;
    return static_cast<size_t>((length - 1) / stride + 1) * static_cast<size_t>(inChannels) * 3;
}

void Backend::embed(IndexView tokens, IndexView positions, int count, BufferView tokenTable,
                    BufferView positionTable, int width, BufferView y) {
    if (count < 0 || width <= 0) fail("embed: bad dimensions");
    if (count == 0) return;
    const size_t n = static_cast<size_t>(count);
    indexPointer(tokens, n, "embed tokens");
    indexPointer(positions, n, "embed positions");
    weightPointer(tokenTable, tokenTable.size, "embed tokens");
    weightPointer(positionTable, positionTable.size, "embed positions");
    floatPointer(y, n * static_cast<size_t>(width), "embed y");
    runEmbed(tokens, positions, count, tokenTable, positionTable, width, y);
}

void Backend::copyRows(BufferView src, int srcStride, BufferView dst, int dstStride, int width,
                       std::span<const RowCopy> copies, IndexView dstRowOffsets) {
    if (width <= 0 || srcStride < width || dstStride < width) fail("copyRows: bad strides");
    if (copies.empty()) return;
    const size_t ss = static_cast<size_t>(srcStride), ds = static_cast<size_t>(dstStride),
                 w = static_cast<size_t>(width);
    const bool offsets = dstRowOffsets.buffer != nullptr;
    if (offsets) indexPointer(dstRowOffsets, copies.size(), "copyRows dstRowOffsets");
    floatPointer(src, 0, "copyRows src");
    floatPointer(dst, 0, "copyRows dst");
    const bool oneBuffer = src.buffer == dst.buffer;
    // With offsets the destination rows are known only when the op runs: within one buffer no
    // overlap could be ruled out, so offsets need two buffers.
    if (offsets && oneBuffer) fail("copyRows: row offsets need distinct source and destination buffers");
    for (const RowCopy& c : copies) {
        if (c.count == 0) continue;
        floatPointer(src, spanOf(c.srcRow + c.count, ss, w), "copyRows src");
        if (!offsets) floatPointer(dst, spanOf(c.dstRow + c.count, ds, w), "copyRows dst");
        if (!oneBuffer) continue;
        // Blocks may run in parallel: a block must not write what any block reads.
        const size_t dBegin = dst.offset + c.dstRow * ds, dEnd = dBegin + spanOf(c.count, ds, w);
        for (const RowCopy& o : copies) {
            if (o.count == 0) continue;
            const size_t sBegin = src.offset + o.srcRow * ss, sEnd = sBegin + spanOf(o.count, ss, w);
            if (dBegin < sEnd && sBegin < dEnd) fail("copyRows: a destination block overlaps a source block");
        }
    }
    runCopyRows(src, srcStride, dst, dstStride, width, copies, dstRowOffsets);
}

void Backend::attention(const AttentionArgs& a) {
    if (a.heads <= 0 || a.headDim <= 0) fail("attention: bad head dimensions");
    const size_t width = static_cast<size_t>(a.heads) * static_cast<size_t>(a.headDim);
    if (a.qStride < 0 || a.kvStride < 0 || a.outStride < 0 || static_cast<size_t>(a.qStride) < width ||
        static_cast<size_t>(a.kvStride) < width || static_cast<size_t>(a.outStride) < width) {
        fail("attention: row stride smaller than heads × headDim");
    }
    const bool offsets = a.keyRowOffsets.buffer || a.keyCountOffsets.buffer;
    if (a.keyRowOffsets.buffer) indexPointer(a.keyRowOffsets, a.batches.size(), "attention keyRowOffsets");
    if (a.keyCountOffsets.buffer) indexPointer(a.keyCountOffsets, a.batches.size(), "attention keyCountOffsets");
    // Every batch against its views; keys that depend on per-step offsets are checked when the
    // op runs.
    bool work = false;
    for (const AttentionBatch& b : a.batches) {
        if (b.queryCount <= 0) continue;
        if (b.queryRow < 0) fail("attention: negative query row");
        const size_t queryEnd = static_cast<size_t>(b.queryRow) + static_cast<size_t>(b.queryCount);
        floatPointer(a.q, spanOf(queryEnd, static_cast<size_t>(a.qStride), width), "attention q");
        floatPointer(a.out, spanOf(queryEnd, static_cast<size_t>(a.outStride), width), "attention out");
        if (!offsets) checkAttentionKeys(a, b);
        work = true;
    }
    if (!work) return;
    // Keys and values: both float32, or both half (a KV buffer from allocateKv).
    if (checkedBuffer(a.k, 0, "attention k").element() != checkedBuffer(a.v, 0, "attention v").element()) {
        fail("attention: k and v of different element types");
    }
    if (isBlockType(a.k.buffer->element())) fail("attention: keys and values in blocks");
    runAttention(a);
}

} // namespace hearsay
