// What every backend shares: the names of the kinds and precisions (--backend, --precision),
// record() around the per-backend recording, and the count of weight uploads.
#include "core/backend/backend.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace hearsay {

std::string_view backendKindName(BackendKind kind) {
    switch (kind) {
    case BackendKind::Auto: return "auto";
    case BackendKind::Cpu: return "cpu";
    case BackendKind::Cuda: return "cuda";
    }
    return "unknown";
}

Result<BackendKind> parseBackendKind(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (BackendKind kind : {BackendKind::Auto, BackendKind::Cpu, BackendKind::Cuda}) {
        if (lower == backendKindName(kind)) return kind;
    }
    return makeError("unknown backend '" + std::string(text) + "' (choices: auto, cpu, cuda)");
}

std::unique_ptr<RecordedWork> Backend::record(const std::function<void()>& work) {
    beginRecording();
    try {
        work();
    } catch (...) {
        abandonRecording();
        throw;
    }
    return endRecording();
}

std::string_view precisionName(Precision precision) {
    switch (precision) {
    case Precision::Fp16: return "fp16";
    case Precision::Fp32: return "fp32";
    }
    return "unknown";
}

Result<Precision> parsePrecision(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (Precision precision : {Precision::Fp16, Precision::Fp32}) {
        if (lower == precisionName(precision)) return precision;
    }
    return makeError("unknown precision '" + std::string(text) + "' (choices: fp16, fp32)");
}

std::unique_ptr<DeviceBuffer> Backend::loadWeight(const TensorView& view) { return countedWeight(createWeight(view)); }

std::unique_ptr<DeviceBuffer> Backend::loadLogitsTable(const TensorView& view) {
    return countedWeight(createLogitsTable(view));
}

std::unique_ptr<DeviceBuffer> Backend::countedWeight(std::unique_ptr<DeviceBuffer> buffer) {
    if (buffer) {
        m_weightBuffers.fetch_add(1, std::memory_order_relaxed);
        m_weightBytes.fetch_add(buffer->bytes(), std::memory_order_relaxed);
    }
    return buffer;
}

Backend::WeightUploads Backend::weightUploads() const {
    return {m_weightBuffers.load(std::memory_order_relaxed), m_weightBytes.load(std::memory_order_relaxed)};
}

} // namespace hearsay
