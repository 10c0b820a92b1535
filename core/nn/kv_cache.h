// The decoder's key/value cache for one attention kind (self or cross), all layers: K and V
// per layer as [slot][capacity][width] float32 rows on the backend, allocated once, written at
// a per-beam cursor and never grown. Byte accounting is atomic, readable from any thread.
#pragma once

#include "core/backend/backend.h"
#include "core/util/result.h"

#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace hearsay {

class KvCache {
public:
    struct Geometry {
        int layers = 0;    // decoder layers
        int beams = 1;     // beam slots (self: maxBeams; cross: 1, shared by all beams)
        int capacity = 0;  // positions per beam (self: n_text_ctx; cross: n_audio_ctx)
        int width = 0;     // d_model
        // Storage from Backend::allocateKv (the backend's KV element type: half on CUDA in fp16
        // mode) instead of float32. Only for a cache written by linear() and never row-copied
        // (the cross cache); the self cache takes rows through copyRows, which moves float32.
        bool backendKvType = false;
    };

    // Nothing is allocated until allocate(). `name` appears in error messages.
    KvCache(std::string name, Geometry geometry);
    KvCache(const KvCache&) = delete;
    KvCache& operator=(const KvCache&) = delete;

    // Allocates K and V for every layer (2 · layers · beams · capacity · width elements of
    // float32, or of the backend's KV type with backendKvType); a no-op when already allocated.
    // Fails cleanly when the memory cannot be had.
    Result<void> allocate(Backend& backend);
    // Frees the memory; every beam becomes empty.
    void release();
    bool allocated() const { return m_allocated.load(std::memory_order_acquire); }

    const Geometry& geometry() const { return m_geometry; }
    const std::string& name() const { return m_name; }

    // K or V of one layer: [beams][capacity][width]; rows addressed through row().
    BufferView keys(int layer) const;
    BufferView values(int layer) const;
    // Row of (beam, position) in keys()/values(). Beams live in physical slots, so a beam
    // reorder moves rows only where a beam is duplicated.
    size_t row(int beam, int position) const;

    // Positions held by `beam` (its cursor).
    int length(int beam) const { return m_lengths[static_cast<size_t>(beam)].load(std::memory_order_relaxed); }
    void setLength(int beam, int length);
    // Every beam empty (memory kept).
    void clear();

    // New beam b continues old beam sourceBeam[b]; beams past sourceBeam.size() become empty.
    // Rows of a source used by several new beams are copied into free slots (valid prefix only).
    Result<void> reorder(Backend& backend, std::span<const int> sourceBeam);

    // Accounting (any thread): K + V bytes, all layers, or one layer (every layer holds the same).
    size_t allocatedBytes() const { return layerAllocatedBytes() * static_cast<size_t>(m_geometry.layers); }
    size_t inUseBytes() const { return layerInUseBytes() * static_cast<size_t>(m_geometry.layers); }
    size_t layerAllocatedBytes() const;
    size_t layerInUseBytes() const;
    int longestBeam() const;
    int beamsInUse() const;

private:
    size_t rowBytes() const { return 2 * static_cast<size_t>(m_geometry.width) * m_elementBytes.load(); }

    std::string m_name;
    Geometry m_geometry;
    std::vector<std::unique_ptr<DeviceBuffer>> m_keys;    // [layer] -> [slot][capacity][width]
    std::vector<std::unique_ptr<DeviceBuffer>> m_values;  // [layer] -> [slot][capacity][width]
    std::vector<int> m_slot;                               // beam -> physical slot
    std::unique_ptr<std::atomic<int>[]> m_lengths;         // [beam] positions held
    std::atomic<bool> m_allocated{false};
    std::atomic<size_t> m_elementBytes{sizeof(float)};    // of the buffers allocated
};

} // namespace hearsay
