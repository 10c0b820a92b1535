// Fixed worker pool: workers take chunks of the index range from an atomic counter, so uneven
// chunks balance themselves; they spin for up to 300 µs between jobs (pausing, then yielding),
// then sleep.
#include "core/backend/thread_pool.h"
#include "core/backend/flush_denormals.h"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HEARSAY_PAUSE() _mm_pause()
#else
#define HEARSAY_PAUSE() std::this_thread::yield()
#endif

namespace hearsay {
namespace {
// How long a worker waiting for the next job, or the caller waiting for the workers, spins before
// it sleeps: longer than the gaps between the ops of a decode step (a layer norm, a small attention
// on one thread, one thread finishing its half of a product later than the other), far shorter
// than anything a user would notice. Bounded by time, not by pauses, since a pause's length
// differs several-fold between CPUs: 2000 pauses were 22 µs on an Intel Xeon (11 ns each), where
// the pool slept and woke in a quarter of a decode step's jobs and each wake-up cost the step tens
// of µs (RESULTS.md, "CPU run 18"). After kPauseTime the spinning thread yields between its checks,
// so a thread of another process that wants the core gets it: spinning on alone, two processes of
// two threads on two cores took three times as long a token.
constexpr auto kSpinTime = std::chrono::microseconds(300);
constexpr auto kPauseTime = std::chrono::microseconds(20);

// Spins until ready() holds or kSpinTime has passed (pausing, then yielding); returns ready().
template <class Ready>
bool spinUntil(Ready&& ready) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        for (int i = 0; i < 32; ++i) {
            if (ready()) return true;
            HEARSAY_PAUSE();
        }
        const auto spun = std::chrono::steady_clock::now() - start;
        if (spun >= kSpinTime) return ready();
        if (spun >= kPauseTime) std::this_thread::yield();
    }
}
} // namespace

ThreadPool::ThreadPool(int threads) {
    const int workers = std::max(0, threads - 1);
    m_workers.reserve(static_cast<size_t>(workers));
    // The workers run the CPU backend's ops only: denormals flushed for their whole life, as the
    // backend does for the calling thread while it runs an op (flush_denormals.h).
    for (int i = 0; i < workers; ++i) m_workers.emplace_back([this, i] {
        const ScopedFlushDenormals flush;
        workerLoop(i + 1);
    });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard lock(m_mutex);
        m_stop.store(true);
    }
    m_wake.notify_all();
    for (auto& t : m_workers) t.join();
}

void ThreadPool::runChunks(int threadIndex) {
    for (;;) {
        const size_t begin = m_next.fetch_add(m_chunk, std::memory_order_relaxed);
        if (begin >= m_count) return;
        m_call(m_target, begin, std::min(m_count, begin + m_chunk), threadIndex);
    }
}

void ThreadPool::workerLoop(int index) {
    uint64_t seen = 0;
    for (;;) {
        const bool ready = spinUntil([&] {
            return m_generation.load(std::memory_order_acquire) != seen || m_stop.load(std::memory_order_relaxed);
        });
        if (!ready) {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop.load() || m_generation.load(std::memory_order_acquire) != seen; });
        }
        if (m_stop.load()) return;
        seen = m_generation.load(std::memory_order_acquire);
        runChunks(index);
        if (m_busy.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            std::lock_guard lock(m_mutex);  // pairs with the caller's wait: no lost wake-up
            m_done.notify_one();
        }
    }
}

void ThreadPool::run(size_t count, size_t minChunk, Trampoline call, void* target) {
    if (count == 0) return;
    minChunk = std::max<size_t>(1, minChunk);
    if (m_workers.empty() || count <= minChunk) {
        call(target, 0, count, 0);
        return;
    }
    std::lock_guard serial(m_callMutex);
    const size_t threads = m_workers.size() + 1;
    // About four chunks per thread balance uneven work without much counter traffic.
    m_call = call;
    m_target = target;
    m_count = count;
    m_chunk = std::max(minChunk, (count + threads * 4 - 1) / (threads * 4));
    m_next.store(0, std::memory_order_relaxed);
    m_busy.store(static_cast<int>(m_workers.size()), std::memory_order_relaxed);
    {
        std::lock_guard lock(m_mutex);  // a worker between its check and its sleep cannot miss this
        m_generation.fetch_add(1, std::memory_order_release);
    }
    m_wake.notify_all();
    runChunks(0);
    if (!spinUntil([&] { return m_busy.load(std::memory_order_acquire) == 0; })) {
        std::unique_lock lock(m_mutex);
        m_done.wait(lock, [&] { return m_busy.load(std::memory_order_acquire) == 0; });
    }
    m_call = nullptr;
    m_target = nullptr;
}

} // namespace hearsay
