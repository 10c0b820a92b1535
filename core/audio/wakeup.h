// Wakes a consumer thread blocked waiting for audio, from a producer that must not lock:
// the audio callback. A Linux futex on a sequence number (what std::atomic::wait uses inside,
// but with the timeout that C++20's wait lacks).
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <ctime>

namespace hearsay {

// notify(): any thread, real-time safe (no lock, no allocation; one futex syscall, and only
// when someone waits). waitUntil(): any thread; returns when notified, at the deadline, or
// spuriously: callers re-check their condition in a loop.
//
// The protocol that loses no wake-up:
//   const auto ticket = wakeup.prepare();       // before checking the condition
//   if (!condition()) wakeup.wait(ticket, deadline);
//   wakeup.done();
// A notify() after prepare() either makes wait() return at once (the sequence moved on) or
// finds the waiter counted and wakes it. All four operations are sequentially consistent, so
// "the producer saw no waiter" implies "the consumer's condition check sees the producer's data".
class Wakeup {
public:
    using Clock = std::chrono::steady_clock;

    void notify() noexcept {
        m_sequence.fetch_add(1, std::memory_order_seq_cst);
        if (m_waiters.load(std::memory_order_seq_cst) > 0) {
            syscall(SYS_futex, futexWord(), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
        }
    }

    uint32_t prepare() noexcept {
        m_waiters.fetch_add(1, std::memory_order_seq_cst);
        return m_sequence.load(std::memory_order_seq_cst);
    }

    // Blocks until notify() (after prepare() returned `ticket`) or the deadline.
    void wait(uint32_t ticket, Clock::time_point deadline) noexcept {
        const auto left = deadline - Clock::now();
        if (left <= Clock::duration::zero()) return;
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
        timespec timeout{};
        timeout.tv_sec = time_t(ns / 1000000000);
        timeout.tv_nsec = long(ns % 1000000000);
        // Returns at once if the sequence is no longer `ticket` (a notify came in between).
        syscall(SYS_futex, futexWord(), FUTEX_WAIT_PRIVATE, ticket, &timeout, nullptr, 0);
    }

    void done() noexcept { m_waiters.fetch_sub(1, std::memory_order_seq_cst); }

private:
    uint32_t* futexWord() noexcept { return reinterpret_cast<uint32_t*>(&m_sequence); }

    static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) && std::atomic<uint32_t>::is_always_lock_free);
    std::atomic<uint32_t> m_sequence{0};
    std::atomic<uint32_t> m_waiters{0};
};

} // namespace hearsay
