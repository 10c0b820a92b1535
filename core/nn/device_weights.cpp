// Upload of a model's weights to a backend, once (see device_weights.h).
#include "core/nn/device_weights.h"

namespace hearsay {

Result<std::shared_ptr<const DeviceWeights>> DeviceWeights::upload(std::shared_ptr<const WhisperModel> model,
                                                                   std::shared_ptr<Backend> backend) {
    if (!model) return makeError("cannot upload weights without a model");
    if (!backend) return makeError("cannot upload weights without a backend");
    auto network = NetworkWeights::load(*model, *backend);
    if (!network) return network.error().prefixed("cannot use model " + model->path().string() + ": ");
    // What the backend copied (a GPU's weights, unaligned or converted tensors) need not stay
    // resident in the map as well.
    model->releaseResidentPages();
    return std::shared_ptr<const DeviceWeights>(
        std::make_shared<const DeviceWeights>(std::move(model), std::move(backend), std::move(network).value()));
}

} // namespace hearsay
