// kernels/cuda_graph: stream capture into a CUDA graph and its instantiated form, the
// CudaBackend's RecordedWork (a decoder step captured once and launched per token).
#pragma once

#include "core/backend/backend.h"

#include <cuda_runtime.h>

#include <cstddef>

namespace hearsay::cuda {

class CudaBackend;

// Starts capturing `stream` (cudaStreamCaptureModeThreadLocal: this thread may not make
// capture-unsafe calls meanwhile; other threads are unaffected). Throws CudaError.
void beginStreamCapture(cudaStream_t stream);

// Ends the capture of `stream` and instantiates the graph. The capture is over when this
// returns or throws (CudaError, e.g. when an unsupported call invalidated the capture).
struct CapturedGraph {
    cudaGraphExec_t exec = nullptr;
    size_t nodes = 0;
};
CapturedGraph endStreamCapture(cudaStream_t stream);

// After an exception: ends the capture of `stream` if one is active and drops the graph.
void abandonStreamCapture(cudaStream_t stream) noexcept;

// An instantiated graph; replay() launches it on the backend's stream (CudaBackend checks
// that no recording is active). Destroyed with cudaGraphExecDestroy.
class CudaGraph final : public RecordedWork {
public:
    CudaGraph(CudaBackend& backend, CapturedGraph graph) : m_backend(backend), m_graph(graph) {}
    ~CudaGraph() override;
    CudaGraph(const CudaGraph&) = delete;
    CudaGraph& operator=(const CudaGraph&) = delete;

    void replay() override;
    size_t operations() const override { return m_graph.nodes; }

private:
    CudaBackend& m_backend;
    CapturedGraph m_graph;
};

} // namespace hearsay::cuda
