// One model's weights on one backend, uploaded once and read-only afterwards: what every session
// made from them shares (whisper.cpp's whisper_model beside the per-stream whisper_state;
// CTranslate2's const model shared by its workers). A session holds only state.
#pragma once

#include "core/backend/backend.h"
#include "core/model/whisper_model.h"
#include "core/nn/network_weights.h"
#include "core/util/result.h"

#include <memory>

namespace hearsay {

class DeviceWeights {
public:
    // Checks and converts every tensor of `model` on `backend` (NetworkWeights::load). Errors:
    // BadInput for a malformed model, OutOfMemory or Device when the backend cannot hold them;
    // the message names the model.
    static Result<std::shared_ptr<const DeviceWeights>> upload(std::shared_ptr<const WhisperModel> model,
                                                               std::shared_ptr<Backend> backend);
    // The weights of `model` on `backend` that are alive now (the latest upload() of the pair:
    // an Engine's, another session's), else a new upload as above.
    static Result<std::shared_ptr<const DeviceWeights>> shared(std::shared_ptr<const WhisperModel> model,
                                                               std::shared_ptr<Backend> backend);

    // Bytes of every DeviceWeights alive in this process (all backends together) and the most
    // there were at once since resetResidentPeak(): what a model or backend switch must keep at
    // max(old, new), never old + new. Any thread.
    struct Resident {
        size_t bytes = 0;
        size_t peakBytes = 0;
    };
    static Resident resident();
    static void resetResidentPeak();

    const WhisperModel& model() const { return *m_model; }
    const std::shared_ptr<const WhisperModel>& sharedModel() const { return m_model; }
    // The backend the buffers live on. Its ops are not const (they fill scratch and run work);
    // the weights themselves are never written after upload().
    Backend& backend() const { return *m_backend; }
    const std::shared_ptr<Backend>& sharedBackend() const { return m_backend; }
    const NetworkWeights& network() const { return m_network; }

    size_t buffers() const { return m_network.buffers(); }
    size_t bytes() const { return m_network.bytes(); }  // what the weights occupy on the backend

    // upload() is the way in; this takes a set NetworkWeights::load made from `model` on `backend`.
    DeviceWeights(std::shared_ptr<const WhisperModel> model, std::shared_ptr<Backend> backend, NetworkWeights network);
    ~DeviceWeights();
    DeviceWeights(const DeviceWeights&) = delete;
    DeviceWeights& operator=(const DeviceWeights&) = delete;

private:
    // Members are destroyed in reverse: the buffers first, then the backend they belong to, then
    // the model (whose mapped file CPU buffers may point into).
    std::shared_ptr<const WhisperModel> m_model;
    std::shared_ptr<Backend> m_backend;
    NetworkWeights m_network;
};

} // namespace hearsay
