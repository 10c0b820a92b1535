// A small fixed pool of worker threads for the CPU backend's ops: parallelFor splits an index
// range in chunks; the calling thread works too. Workers spin a little between jobs (a decode
// step issues dozens of short jobs) and then sleep, so an idle pool costs nothing.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <mutex>
#include <thread>
#include <vector>

namespace hearsay {

class ThreadPool {
public:
    // `threads` counts the calling thread: 1 means no workers (everything runs inline).
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int threads() const { return static_cast<int>(m_workers.size()) + 1; }

    // Calls fn(begin, end, threadIndex) on disjoint chunks covering [0, count), with
    // threadIndex < threads(). Chunks hold at least minChunk indices. Returns when all are
    // done. Concurrent callers are served one after the other; fn must not call parallelFor.
    // fn is called by reference (never copied or allocated), so the decode loop stays
    // allocation-free.
    template <class Fn>
    void parallelFor(size_t count, size_t minChunk, Fn&& fn) {
        using Target = std::remove_reference_t<Fn>;
        run(count, minChunk,
            [](void* target, size_t begin, size_t end, int thread) { (*static_cast<Target*>(target))(begin, end, thread); },
            const_cast<void*>(static_cast<const void*>(&fn)));
    }

private:
    using Trampoline = void (*)(void* target, size_t begin, size_t end, int threadIndex);
    void run(size_t count, size_t minChunk, Trampoline call, void* target);
    void workerLoop(int index);
    void runChunks(int threadIndex);

    std::vector<std::thread> m_workers;
    std::mutex m_callMutex;                 // one parallelFor at a time
    // The current job, written by the caller before m_generation is bumped (release) and read
    // by the workers after they see the new generation (acquire).
    Trampoline m_call = nullptr;
    void* m_target = nullptr;
    size_t m_count = 0;
    size_t m_chunk = 1;
    std::atomic<size_t> m_next{0};          // next unclaimed index
    std::atomic<uint64_t> m_generation{0};  // bumped once per job
    std::atomic<int> m_busy{0};             // workers that have not finished the current job
    std::atomic<bool> m_stop{false};
    std::mutex m_mutex;                     // for sleeping and waking only
    std::condition_variable m_wake;         // workers sleep here between jobs
    std::condition_variable m_done;         // the caller sleeps here until m_busy is 0
};

} // namespace hearsay
