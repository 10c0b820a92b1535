// Stream capture and graph launch for CudaBackend::record() (see cuda_graph.h).
#include "kernels/cuda_graph.h"

#include "kernels/cuda_backend.h"
#include "kernels/cuda_check.h"

namespace hearsay::cuda {

void beginStreamCapture(cudaStream_t stream) {
    HEARSAY_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
}

CapturedGraph endStreamCapture(cudaStream_t stream) {
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    if (ended != cudaSuccess) {
        if (graph) cudaGraphDestroy(graph);
        cudaGetLastError();  // the capture failure is reported by the throw below, not by a later check
        throwCudaError(ended, "cudaStreamEndCapture(stream, &graph)", __FILE__, __LINE__);
    }
    CapturedGraph captured;
    cudaError_t status = cudaGraphGetNodes(graph, nullptr, &captured.nodes);
    if (status == cudaSuccess) status = cudaGraphInstantiate(&captured.exec, graph, 0);
    // The executable graph is independent of the graph it was made from.
    cudaGraphDestroy(graph);
    HEARSAY_CUDA_CHECK(status);
    return captured;
}

void abandonStreamCapture(cudaStream_t stream) noexcept {
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &capturing) != cudaSuccess || capturing == cudaStreamCaptureStatusNone) {
        cudaGetLastError();
        return;
    }
    cudaGraph_t graph = nullptr;
    cudaStreamEndCapture(stream, &graph);  // an invalidated capture ends with an error and no graph
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();
}

CudaGraph::~CudaGraph() {
    if (m_graph.exec) cudaGraphExecDestroy(m_graph.exec);
}

void CudaGraph::replay() { m_backend.launchGraph(m_graph.exec); }

} // namespace hearsay::cuda
