// A small fixed pool of worker threads for the CPU backend's elementwise ops and attention:
// parallelFor splits an index range in chunks; the calling thread works too.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <functional>
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
    // done. Concurrent callers are served one after the other.
    using Body = std::function<void(size_t begin, size_t end, int threadIndex)>;
    void parallelFor(size_t count, size_t minChunk, const Body& fn);

private:
    void workerLoop(int index);
    void runChunks(int threadIndex);

    std::vector<std::thread> m_workers;
    std::mutex m_callMutex;           // one parallelFor at a time
    std::mutex m_mutex;               // guards the job fields below and the wake-up
    std::condition_variable m_wake;
    std::condition_variable m_done;
    const Body* m_body = nullptr;
    size_t m_count = 0;
    size_t m_chunk = 1;
    std::atomic<size_t> m_next{0};
    uint64_t m_generation = 0;
    int m_busy = 0;                   // workers still inside the current job
    bool m_stop = false;
};

} // namespace hearsay
