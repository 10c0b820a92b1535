// KvCache: allocation, cursors, beam reordering through a slot map, and exact accounting.
#include "core/nn/kv_cache.h"

#include "core/backend/backend_error.h"

#include <algorithm>
#include <cstdio>
#include <new>
#include <numeric>
#include <stdexcept>

namespace hearsay {

KvCache::KvCache(std::string name, Geometry geometry)
    : m_name(std::move(name)), m_geometry(geometry), m_slot(static_cast<size_t>(std::max(geometry.beams, 0))),
      m_lengths(std::make_unique<std::atomic<int>[]>(static_cast<size_t>(std::max(geometry.beams, 0)))) {
    std::iota(m_slot.begin(), m_slot.end(), 0);
    for (int b = 0; b < m_geometry.beams; ++b) m_lengths[static_cast<size_t>(b)].store(0);
}

Result<void> KvCache::allocate(Backend& backend) {
    if (allocated()) return {};
    const Geometry& g = m_geometry;
    if (g.layers <= 0 || g.beams <= 0 || g.capacity <= 0 || g.width <= 0) {
        return makeError("the " + m_name + " cache has invalid dimensions");
    }
    const size_t perBuffer = static_cast<size_t>(g.beams) * static_cast<size_t>(g.capacity) * static_cast<size_t>(g.width);
    const size_t elementBytes = g.backendKvType ? backend.kvElementBytes() : sizeof(float);
    try {
        m_keys.clear();
        m_values.clear();
        for (int l = 0; l < g.layers; ++l) {
            m_keys.push_back(g.backendKvType ? backend.allocateKv(perBuffer) : backend.allocate(perBuffer));
            m_values.push_back(g.backendKvType ? backend.allocateKv(perBuffer) : backend.allocate(perBuffer));
        }
    } catch (const std::exception& e) {
        m_keys.clear();
        m_values.clear();
        // K and V of every layer: what the cache needed, next to the backend's word on what failed.
        const double bytes = 2.0 * static_cast<double>(g.layers) * static_cast<double>(perBuffer) *
                             static_cast<double>(elementBytes);
        char needed[160];
        std::snprintf(needed, sizeof needed, "%d layers x %d beam(s) x %d positions x %d x K,V %s = %.0f bytes, %.1f MiB",
                      g.layers, g.beams, g.capacity, g.width, elementBytes == 2 ? "half" : "float32", bytes,
                      bytes / 1048576.0);
        return makeError("cannot allocate the " + m_name + " cache (" + needed + "): " + describeBackendException(e),
                         backendErrorKind(e));
    }
    std::iota(m_slot.begin(), m_slot.end(), 0);
    clear();
    m_elementBytes.store(m_keys.empty() ? elementBytes : m_keys.front()->bytes() / std::max<size_t>(1, perBuffer));
    m_allocated.store(true, std::memory_order_release);
    return {};
}

void KvCache::release() {
    m_allocated.store(false, std::memory_order_release);
    clear();
    m_keys.clear();
    m_values.clear();
}

BufferView KvCache::keys(int layer) const {
    if (!allocated()) return {};
    return BufferView(m_keys.at(static_cast<size_t>(layer)).get());
}

BufferView KvCache::values(int layer) const {
    if (!allocated()) return {};
    return BufferView(m_values.at(static_cast<size_t>(layer)).get());
}

size_t KvCache::row(int beam, int position) const {
    return static_cast<size_t>(m_slot.at(static_cast<size_t>(beam))) * static_cast<size_t>(m_geometry.capacity) +
           static_cast<size_t>(position);
}

void KvCache::setLength(int beam, int length) {
    if (beam < 0 || beam >= m_geometry.beams || length < 0 || length > m_geometry.capacity) {
        throw std::out_of_range(m_name + " cache: length " + std::to_string(length) + " for beam " +
                                std::to_string(beam) + " out of range");
    }
    m_lengths[static_cast<size_t>(beam)].store(length, std::memory_order_relaxed);
}

void KvCache::clear() {
    for (int b = 0; b < m_geometry.beams; ++b) m_lengths[static_cast<size_t>(b)].store(0, std::memory_order_relaxed);
}

Result<void> KvCache::reorder(Backend& backend, std::span<const int> sourceBeam) {
    const int beams = m_geometry.beams;
    if (sourceBeam.empty() || static_cast<int>(sourceBeam.size()) > beams) {
        return makeError(m_name + " cache: reorder to " + std::to_string(sourceBeam.size()) + " beams, capacity is " +
                         std::to_string(beams));
    }
    for (int s : sourceBeam) {
        if (s < 0 || s >= beams) return makeError(m_name + " cache: reorder names beam " + std::to_string(s));
    }
    const std::vector<int> oldSlot = m_slot;
    std::vector<int> oldLength(static_cast<size_t>(beams));
    for (int b = 0; b < beams; ++b) oldLength[static_cast<size_t>(b)] = length(b);

    // Each source slot goes to the first new beam that continues it; later ones need a copy.
    std::vector<char> claimed(static_cast<size_t>(beams), 0);
    std::vector<int> newSlot(static_cast<size_t>(beams), -1);
    std::vector<int> needsCopy;
    for (size_t b = 0; b < sourceBeam.size(); ++b) {
        const int slot = oldSlot[static_cast<size_t>(sourceBeam[b])];
        if (!claimed[static_cast<size_t>(slot)]) {
            claimed[static_cast<size_t>(slot)] = 1;
            newSlot[b] = slot;
        } else {
            needsCopy.push_back(static_cast<int>(b));
        }
    }
    std::vector<int> freeSlots;
    for (int s = 0; s < beams; ++s) {
        if (!claimed[static_cast<size_t>(s)]) freeSlots.push_back(s);
    }
    // Copies read claimed slots and write free ones, so no copy overwrites a source.
    std::vector<RowCopy> copies;
    for (size_t i = 0; i < needsCopy.size(); ++i) {
        const size_t b = static_cast<size_t>(needsCopy[i]);
        const int target = freeSlots[i];
        newSlot[b] = target;
        const int from = sourceBeam[b];
        const size_t rows = static_cast<size_t>(oldLength[static_cast<size_t>(from)]);
        if (rows > 0 && allocated()) {
            const size_t capacity = static_cast<size_t>(m_geometry.capacity);
            copies.push_back({static_cast<size_t>(oldSlot[static_cast<size_t>(from)]) * capacity,
                              static_cast<size_t>(target) * capacity, rows});
        }
    }
    if (!copies.empty()) {
        for (int l = 0; l < m_geometry.layers; ++l) {
            backend.copyRows(keys(l), m_geometry.width, keys(l), m_geometry.width, m_geometry.width, copies);
            backend.copyRows(values(l), m_geometry.width, values(l), m_geometry.width, m_geometry.width, copies);
        }
    }
    // Beams past the new count keep the remaining free slots, empty.
    size_t nextFree = needsCopy.size();
    for (int b = static_cast<int>(sourceBeam.size()); b < beams; ++b) newSlot[static_cast<size_t>(b)] = freeSlots[nextFree++];
    m_slot = newSlot;
    for (int b = 0; b < beams; ++b) {
        const int len = b < static_cast<int>(sourceBeam.size()) ? oldLength[static_cast<size_t>(sourceBeam[static_cast<size_t>(b)])] : 0;
        m_lengths[static_cast<size_t>(b)].store(allocated() ? len : 0, std::memory_order_relaxed);
    }
    return {};
}

size_t KvCache::layerAllocatedBytes() const {
    if (!allocated()) return 0;
    return static_cast<size_t>(m_geometry.beams) * static_cast<size_t>(m_geometry.capacity) * rowBytes();
}

size_t KvCache::layerInUseBytes() const {
    size_t positions = 0;
    for (int b = 0; b < m_geometry.beams; ++b) positions += static_cast<size_t>(length(b));
    return positions * rowBytes();
}

int KvCache::longestBeam() const {
    int longest = 0;
    for (int b = 0; b < m_geometry.beams; ++b) longest = std::max(longest, length(b));
    return longest;
}

int KvCache::beamsInUse() const {
    int n = 0;
    for (int b = 0; b < m_geometry.beams; ++b) n += length(b) > 0 ? 1 : 0;
    return n;
}

} // namespace hearsay
