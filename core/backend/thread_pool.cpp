// Fixed worker pool: workers sleep on a condition variable between jobs and take chunks of
// the index range from an atomic counter, so uneven chunks balance themselves.
#include "core/backend/thread_pool.h"

#include <algorithm>

namespace hearsay {

ThreadPool::ThreadPool(int threads) {
    const int workers = std::max(0, threads - 1);
    m_workers.reserve(static_cast<size_t>(workers));
    for (int i = 0; i < workers; ++i) m_workers.emplace_back([this, i] { workerLoop(i + 1); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (auto& t : m_workers) t.join();
}

void ThreadPool::runChunks(int threadIndex) {
    for (;;) {
        const size_t begin = m_next.fetch_add(m_chunk, std::memory_order_relaxed);
        if (begin >= m_count) return;
        (*m_body)(begin, std::min(m_count, begin + m_chunk), threadIndex);
    }
}

void ThreadPool::workerLoop(int index) {
    uint64_t seen = 0;
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop) return;
            seen = m_generation;
        }
        runChunks(index);
        {
            std::lock_guard lock(m_mutex);
            if (--m_busy == 0) m_done.notify_one();
        }
    }
}

void ThreadPool::parallelFor(size_t count, size_t minChunk, const Body& fn) {
    if (count == 0) return;
    minChunk = std::max<size_t>(1, minChunk);
    if (m_workers.empty() || count <= minChunk) {
        fn(0, count, 0);
        return;
    }
    std::lock_guard call(m_callMutex);
    const size_t threads = m_workers.size() + 1;
    // About four chunks per thread balance uneven work without much counter traffic.
    const size_t chunk = std::max(minChunk, (count + threads * 4 - 1) / (threads * 4));
    {
        std::lock_guard lock(m_mutex);
        m_body = &fn;
        m_count = count;
        m_chunk = chunk;
        m_next.store(0, std::memory_order_relaxed);
        m_busy = static_cast<int>(m_workers.size());
        ++m_generation;
    }
    m_wake.notify_all();
    runChunks(0);
    std::unique_lock lock(m_mutex);
    m_done.wait(lock, [&] { return m_busy == 0; });
    m_body = nullptr;
}

} // namespace hearsay
