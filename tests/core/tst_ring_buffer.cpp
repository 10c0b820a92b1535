// The SPSC ring buffer under the audio callback: capacity, wrap-around, whole-frame writes,
// overflow counting, and two threads streaming millions of samples that must all arrive in
// order (or, when the consumer falls behind, be counted as dropped, never corrupted).
#include <QtTest>

#include "core/audio/ring_buffer.h"
#include "core/audio/wakeup.h"

#include <atomic>
#include <random>
#include <thread>

using namespace hearsay;

namespace {

// Sample i of a test stream: exact in float (integers below 2^24), so order is checkable.
float valueAt(uint64_t i) { return float(i % (1u << 24)); }

} // namespace

class TestRingBuffer : public QObject {
    Q_OBJECT
private slots:
    void capacityIsAPowerOfTwo() {
        QCOMPARE(RingBuffer(1).capacity(), size_t(2));
        QCOMPARE(RingBuffer(1000).capacity(), size_t(1024));
        QCOMPARE(RingBuffer(1024).capacity(), size_t(1024));
        QCOMPARE(RingBuffer(1025).capacity(), size_t(2048));
    }

    void wrapsAroundInOrder() {
        RingBuffer ring(16);
        std::vector<float> out(16);
        uint64_t next = 0, expected = 0;
        // Odd sizes walk the indices across the end of the storage many times.
        for (int round = 0; round < 200; ++round) {
            const size_t n = size_t(1 + (round * 7) % 13);
            std::vector<float> in(n);
            for (auto& v : in) v = valueAt(next++);
            QCOMPARE(ring.write(in.data(), n), n);
            QCOMPARE(ring.readAvailable(), n);
            QCOMPARE(ring.read(out.data(), 16), n);
            for (size_t i = 0; i < n; ++i) QCOMPARE(out[i], valueAt(expected++));
        }
        QCOMPARE(ring.read(out.data(), 16), size_t(0));
        QCOMPARE(ring.totalWritten(), next);
        QCOMPARE(ring.totalRead(), next);
        QCOMPARE(ring.droppedSamples(), uint64_t(0));
        QCOMPARE(ring.overflowEvents(), uint64_t(0));
    }

    void countsWhatDoesNotFit() {
        RingBuffer ring(8);
        std::vector<float> in(12);
        for (size_t i = 0; i < in.size(); ++i) in[i] = float(i);
        QCOMPARE(ring.write(in.data(), 12), size_t(8));  // 4 dropped, one event
        QCOMPARE(ring.droppedSamples(), uint64_t(4));
        QCOMPARE(ring.overflowEvents(), uint64_t(1));
        QCOMPARE(ring.writeAvailable(), size_t(0));
        QCOMPARE(ring.write(in.data(), 3), size_t(0));  // full: all 3 dropped, a second event
        QCOMPARE(ring.droppedSamples(), uint64_t(7));
        QCOMPARE(ring.overflowEvents(), uint64_t(2));
        // What fitted is intact and in order: the oldest samples are kept, the newest dropped.
        std::vector<float> out(8);
        QCOMPARE(ring.read(out.data(), 8), size_t(8));
        for (size_t i = 0; i < 8; ++i) QCOMPARE(out[i], float(i));
        // Room again: writes succeed and the counters stay where they were.
        QCOMPARE(ring.write(in.data(), 5), size_t(5));
        QCOMPARE(ring.overflowEvents(), uint64_t(2));
    }

    void writesWholeFramesOnly() {
        RingBuffer ring(8);
        const float frames[] = {1, -1, 2, -2, 3, -3, 4, -4, 5, -5};  // 5 stereo frames
        QCOMPARE(ring.write(frames, 6, 2), size_t(6));  // 3 frames, 2 samples free
        QCOMPARE(ring.write(frames + 6, 4, 2), size_t(2));  // only one more frame fits
        QCOMPARE(ring.droppedSamples(), uint64_t(2));
        float out[8];
        QCOMPARE(ring.read(out, 8), size_t(8));
        for (int f = 0; f < 4; ++f) {
            QCOMPARE(out[2 * f], float(f + 1));
            QCOMPARE(out[2 * f + 1], -float(f + 1));
        }
        // Three channels in a power-of-two ring: 8 samples hold two frames, never a part of one.
        RingBuffer odd(8);
        const float rgb[] = {1, 1, 1, 2, 2, 2, 3, 3, 3};
        QCOMPARE(odd.write(rgb, 9, 3), size_t(6));
        QCOMPARE(odd.readAvailable(), size_t(6));
    }

    // Producer and consumer on two threads, random block sizes, a small ring: every sample
    // arrives, in order, with nothing dropped (the producer writes only what fits).
    void twoThreadsLoseNothing() {
        RingBuffer ring(4096);
        const uint64_t total = 20'000'000;
        std::atomic<bool> producerDone{false};
        std::atomic<uint64_t> shortWrites{0};  // QTest macros are for the test's own thread
        std::thread producer([&] {
            std::mt19937 rng(1);
            std::vector<float> block(1500);
            uint64_t next = 0;
            while (next < total) {
                const size_t want = std::min<uint64_t>(1 + rng() % block.size(), total - next);
                const size_t n = std::min(want, ring.writeAvailable());
                if (n == 0) {
                    std::this_thread::yield();
                    continue;
                }
                for (size_t i = 0; i < n; ++i) block[i] = valueAt(next + i);
                shortWrites += ring.write(block.data(), n) != n;
                next += n;
            }
            producerDone.store(true);
        });
        std::mt19937 rng(2);
        std::vector<float> out(2000);
        uint64_t expected = 0;
        uint64_t mismatches = 0;
        while (expected < total) {
            const size_t got = ring.read(out.data(), 1 + rng() % out.size());
            if (got == 0) {
                std::this_thread::yield();
                continue;
            }
            for (size_t i = 0; i < got; ++i) mismatches += out[i] != valueAt(expected + i);
            expected += got;
        }
        producer.join();
        QCOMPARE(mismatches, uint64_t(0));
        QCOMPARE(shortWrites.load(), uint64_t(0));
        QCOMPARE(expected, total);
        QCOMPARE(ring.readAvailable(), size_t(0));
        QCOMPARE(ring.droppedSamples(), uint64_t(0));
        QCOMPARE(ring.overflowEvents(), uint64_t(0));
        QVERIFY(producerDone.load());
    }

    // The audio-callback pattern: the producer writes blindly (stereo frames) and a slow
    // consumer falls behind. What arrives is an in-order subsequence of whole frames, and
    // arrived + dropped = written, exactly.
    void overflowLosesOnlyWhatItCounts() {
        RingBuffer ring(1024);
        const uint64_t frames = 400'000;
        std::atomic<bool> done{false};
        std::thread producer([&] {
            std::vector<float> block(2 * 256);
            for (uint64_t f = 0; f < frames;) {
                const size_t n = size_t(std::min<uint64_t>(256, frames - f));
                for (size_t i = 0; i < n; ++i) {
                    block[2 * i] = valueAt(f + i);
                    block[2 * i + 1] = -valueAt(f + i);
                }
                ring.write(block.data(), 2 * n, 2);
                f += n;
                std::this_thread::sleep_for(std::chrono::microseconds(10));  // callbacks come at intervals
            }
            done.store(true);
        });
        std::vector<float> out(2 * 64);
        uint64_t arrived = 0, disorder = 0, torn = 0;
        double last = -1.0;
        auto drain = [&] {
            const size_t got = ring.read(out.data(), out.size());
            torn += got % 2;
            for (size_t i = 0; i + 1 < got; i += 2) {
                torn += out[i + 1] != -out[i];
                disorder += !(out[i] > last);  // frames < 2^24: the values do not wrap
                last = out[i];
            }
            arrived += got / 2;
            return got;
        };
        while (!done.load()) {
            drain();
            std::this_thread::sleep_for(std::chrono::microseconds(50));  // a consumer that is too slow
        }
        while (drain() > 0) {
        }
        producer.join();
        QCOMPARE(torn, uint64_t(0));
        QCOMPARE(disorder, uint64_t(0));
        QVERIFY2(ring.overflowEvents() > 0, "the consumer was meant to fall behind");
        QVERIFY2(arrived > ring.capacity(), "the consumer was meant to keep up partly");
        QCOMPARE(ring.droppedSamples() % 2, uint64_t(0));
        QCOMPARE(arrived + ring.droppedSamples() / 2, frames);
        qDebug("%llu frames arrived, %llu dropped in %llu overflow events", (unsigned long long)arrived,
               (unsigned long long)(ring.droppedSamples() / 2), (unsigned long long)ring.overflowEvents());
    }

    // The wake-up protocol the consumer blocks on: a waiter is woken by notify(), and a
    // notify() that lands between prepare() and wait() is not lost (wait returns at once).
    void wakeupLosesNoNotification() {
        Wakeup wakeup;
        const auto ticket = wakeup.prepare();
        wakeup.notify();  // before the wait: the sequence moved, so wait must not block
        const auto before = std::chrono::steady_clock::now();
        wakeup.wait(ticket, before + std::chrono::seconds(30));
        wakeup.done();
        QVERIFY(std::chrono::steady_clock::now() - before < std::chrono::seconds(20));

        std::atomic<int> flag{0};
        std::thread other([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            flag.store(1);
            wakeup.notify();
        });
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (flag.load() == 0 && std::chrono::steady_clock::now() < deadline) {
            const auto t = wakeup.prepare();
            if (flag.load() == 0) wakeup.wait(t, deadline);
            wakeup.done();
        }
        other.join();
        QVERIFY(std::chrono::steady_clock::now() < deadline);
        // A timeout with nobody notifying returns at the deadline.
        const auto t = wakeup.prepare();
        const auto start = std::chrono::steady_clock::now();
        wakeup.wait(t, start + std::chrono::milliseconds(20));
        wakeup.done();
        QVERIFY(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(20));
    }
};

QTEST_APPLESS_MAIN(TestRingBuffer)
#include "tst_ring_buffer.moc"
