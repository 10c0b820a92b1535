// Helpers for the CUDA suites: every op runs on the CUDA backend and on CpuBackend (the
// reference) from the same host data, and the results are compared by relative error.
#pragma once

#include "core/backend/backend.h"
#include "core/engine_test_model.h"
#include "kernels/device_info.h"

#include <QString>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

namespace hearsay::test {

// Why the CUDA suites cannot run here ("no GPU: <runtime's reason>"), or empty when a GPU is
// present. Suites QSKIP with it in initTestCase.
inline QString missingGpuReason() {
    const auto query = cuda::queryDevices();
    return query.devices.empty() ? QString("no GPU: %1").arg(QString::fromStdString(query.error)) : QString();
}

// n floats uniform in [lo, hi), the same for the same seed.
inline std::vector<float> randomFloats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
    std::mt19937 engine(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = dist(engine);
    return v;
}

// The same contents in a buffer of each backend.
struct Mirrored {
    std::unique_ptr<DeviceBuffer> cpu;
    std::unique_ptr<DeviceBuffer> gpu;
};

inline Mirrored mirror(Backend& cpu, Backend& gpu, const std::vector<float>& host) {
    Mirrored m{cpu.allocate(host.size()), gpu.allocate(host.size())};
    cpu.upload(BufferView(m.cpu.get()), host.data(), host.size());
    gpu.upload(BufferView(m.gpu.get()), host.data(), host.size());
    return m;
}

// The same int32 values in an index buffer of each backend.
struct MirroredIds {
    std::unique_ptr<IndexBuffer> cpu;
    std::unique_ptr<IndexBuffer> gpu;
};

inline MirroredIds mirrorIds(Backend& cpu, Backend& gpu, const std::vector<int32_t>& values) {
    MirroredIds m{cpu.allocateIndices(values.size()), gpu.allocateIndices(values.size())};
    cpu.uploadIndices(IndexView(m.cpu.get()), values);
    gpu.uploadIndices(IndexView(m.gpu.get()), values);
    return m;
}

inline void uploadIds(Backend& cpu, Backend& gpu, const MirroredIds& ids, const std::vector<int32_t>& values) {
    cpu.uploadIndices(IndexView(ids.cpu.get()), values);
    gpu.uploadIndices(IndexView(ids.gpu.get()), values);
}

inline std::vector<float> readBack(Backend& backend, DeviceBuffer& buffer) {
    std::vector<float> host(buffer.elements());
    backend.download(BufferView(&buffer), host.data(), host.size());
    return host;
}

} // namespace hearsay::test
