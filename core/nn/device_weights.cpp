// Upload of a model's weights to a backend, once (see device_weights.h).
#include "core/nn/device_weights.h"

#include <atomic>
#include <map>
#include <mutex>
#include <utility>

namespace hearsay {
namespace {

std::atomic<size_t> g_residentBytes{0};
std::atomic<size_t> g_residentPeak{0};

void raisePeak(size_t bytes) {
    size_t peak = g_residentPeak.load(std::memory_order_relaxed);
    while (bytes > peak && !g_residentPeak.compare_exchange_weak(peak, bytes, std::memory_order_relaxed)) {
    }
}

// The weights alive per (model, backend), registered by upload() for shared(). Entries whose
// weights have gone are dropped at the next upload. Keys are
// addresses: live weights hold their model and backend, so a key with live weights is never
// reused by another object.
struct SharedWeights {
    std::mutex mutex;
    std::map<std::pair<const void*, const void*>, std::weak_ptr<const DeviceWeights>> alive;
};

SharedWeights& sharedWeights() {
    static SharedWeights instance;
    return instance;
}

} // namespace

DeviceWeights::DeviceWeights(std::shared_ptr<const WhisperModel> model, std::shared_ptr<Backend> backend,
                             NetworkWeights network)
    : m_model(std::move(model)), m_backend(std::move(backend)), m_network(std::move(network)) {
    raisePeak(g_residentBytes.fetch_add(m_network.bytes(), std::memory_order_relaxed) + m_network.bytes());
}

DeviceWeights::~DeviceWeights() { g_residentBytes.fetch_sub(m_network.bytes(), std::memory_order_relaxed); }

DeviceWeights::Resident DeviceWeights::resident() {
    return {g_residentBytes.load(std::memory_order_relaxed), g_residentPeak.load(std::memory_order_relaxed)};
}

void DeviceWeights::resetResidentPeak() { g_residentPeak.store(g_residentBytes.load(std::memory_order_relaxed)); }

Result<std::shared_ptr<const DeviceWeights>> DeviceWeights::upload(std::shared_ptr<const WhisperModel> model,
                                                                   std::shared_ptr<Backend> backend) {
    if (!model) return makeError("cannot upload weights without a model");
    if (!backend) return makeError("cannot upload weights without a backend");
    auto network = NetworkWeights::load(*model, *backend);
    if (!network) return network.error().prefixed("cannot use model " + model->path().string() + ": ");
    // The backend has its copies (each tensor's pages were given back as it was copied); whatever
    // else of the map was read need not stay resident either.
    model->releaseResidentPages();
    const std::pair<const void*, const void*> key{model.get(), backend.get()};
    auto weights = std::shared_ptr<const DeviceWeights>(
        std::make_shared<const DeviceWeights>(std::move(model), std::move(backend), std::move(network).value()));
    SharedWeights& registry = sharedWeights();
    std::lock_guard lock(registry.mutex);
    std::erase_if(registry.alive, [](const auto& entry) { return entry.second.expired(); });
    registry.alive[key] = weights;  // the newest upload of a pair is the one shared() finds
    return weights;
}

Result<std::shared_ptr<const DeviceWeights>> DeviceWeights::shared(std::shared_ptr<const WhisperModel> model,
                                                                   std::shared_ptr<Backend> backend) {
    if (!model) return makeError("cannot upload weights without a model");
    if (!backend) return makeError("cannot upload weights without a backend");
    {
        SharedWeights& registry = sharedWeights();
        std::lock_guard lock(registry.mutex);
        if (auto it = registry.alive.find({model.get(), backend.get()}); it != registry.alive.end()) {
            if (auto weights = it->second.lock()) return weights;
        }
    }
    // Not held during the upload: two threads asking for a new pair at once may both upload.
    return upload(std::move(model), std::move(backend));
}

} // namespace hearsay
