// A lock-free single-producer/single-consumer ring buffer of float samples: the only thing the
// audio callback touches. Samples that do not fit are counted (never silently lost).
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

namespace hearsay {

// One producer thread calls write(); one consumer thread calls read(); any thread may read the
// counters. Capacity is a power of two, allocated once in the constructor; write() and read()
// never lock, never allocate and never block (they are safe in a real-time audio callback).
//
// Indices are 64-bit and only grow (position = index & mask), so "full" and "empty" need no
// spare slot and never wrap in practice (2^64 samples at 48 kHz is millions of years).
// The producer publishes its index with release after copying the samples; the consumer reads
// it with acquire before copying them out (and the reverse for the consumer's index): each side
// sees the other's data complete.
class RingBuffer {
public:
    // Capacity: `minCapacity` rounded up to a power of two (at least 2).
    explicit RingBuffer(size_t minCapacity)
        : m_capacity(std::bit_ceil(std::max<size_t>(minCapacity, 2))),
          m_mask(m_capacity - 1),
          m_data(new float[m_capacity]()) {}

    RingBuffer(const RingBuffer&) = delete;
    RingBuffer& operator=(const RingBuffer&) = delete;

    size_t capacity() const noexcept { return m_capacity; }

    // --- producer thread ---
    // Copies whole units of `unit` samples (an interleaved frame: unit = channels) from `data`,
    // as many as fit. Returns the samples written; what did not fit is added to droppedSamples()
    // and counts one overflow event. n should be a multiple of unit.
    size_t write(const float* data, size_t n, size_t unit = 1) noexcept {
        const uint64_t w = m_write.load(std::memory_order_relaxed);
        const uint64_t r = m_read.load(std::memory_order_acquire);
        const size_t space = m_capacity - size_t(w - r);
        const size_t count = std::min(n, space - space % unit);
        copyIn(size_t(w & m_mask), data, count);
        m_write.store(w + count, std::memory_order_release);
        if (count < n) {
            // Single writer: a plain read-modify-store is enough, relaxed because the counters
            // carry no data with them.
            m_dropped.store(m_dropped.load(std::memory_order_relaxed) + (n - count), std::memory_order_relaxed);
            m_overflows.store(m_overflows.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        }
        return count;
    }
    // Free space in samples (exact for the producer; a lower bound seen from elsewhere).
    size_t writeAvailable() const noexcept {
        return m_capacity - size_t(m_write.load(std::memory_order_relaxed) - m_read.load(std::memory_order_acquire));
    }

    // --- consumer thread ---
    // Copies up to n samples into out; returns how many.
    size_t read(float* out, size_t n) noexcept {
        const uint64_t r = m_read.load(std::memory_order_relaxed);
        const uint64_t w = m_write.load(std::memory_order_acquire);
        const size_t count = std::min(n, size_t(w - r));
        copyOut(size_t(r & m_mask), out, count);
        m_read.store(r + count, std::memory_order_release);
        return count;
    }
    // Samples waiting to be read (exact for the consumer; a lower bound seen from elsewhere).
    size_t readAvailable() const noexcept {
        return size_t(m_write.load(std::memory_order_acquire) - m_read.load(std::memory_order_relaxed));
    }

    // --- any thread ---
    uint64_t totalWritten() const noexcept { return m_write.load(std::memory_order_acquire); }
    uint64_t totalRead() const noexcept { return m_read.load(std::memory_order_acquire); }
    uint64_t droppedSamples() const noexcept { return m_dropped.load(std::memory_order_relaxed); }
    uint64_t overflowEvents() const noexcept { return m_overflows.load(std::memory_order_relaxed); }

private:
    void copyIn(size_t at, const float* data, size_t count) noexcept {
        if (count == 0) return;
        const size_t first = std::min(count, m_capacity - at);
        std::memcpy(m_data.get() + at, data, first * sizeof(float));
        std::memcpy(m_data.get(), data + first, (count - first) * sizeof(float));
    }
    void copyOut(size_t at, float* out, size_t count) const noexcept {
        if (count == 0) return;
        const size_t first = std::min(count, m_capacity - at);
        std::memcpy(out, m_data.get() + at, first * sizeof(float));
        std::memcpy(out + first, m_data.get(), (count - first) * sizeof(float));
    }

    static constexpr size_t kLine = 64;  // keep the two sides' indices on separate cache lines

    const size_t m_capacity;
    const size_t m_mask;
    const std::unique_ptr<float[]> m_data;  // [capacity] samples
    alignas(kLine) std::atomic<uint64_t> m_write{0};      // written by the producer only
    alignas(kLine) std::atomic<uint64_t> m_read{0};       // written by the consumer only
    alignas(kLine) std::atomic<uint64_t> m_dropped{0};    // producer only: samples that did not fit
    std::atomic<uint64_t> m_overflows{0};                 // producer only: writes that dropped samples
};

} // namespace hearsay
