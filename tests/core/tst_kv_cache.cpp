// KvCache on its own (allocation, cursors, reorder through the slot map, release) and the
// session's exact accounting: 2·layers·448·d·4·beams bytes for the self cache and
// 2·layers·1500·d·4 for the cross cache, for several sizes, following the switches, and
// readable from another thread while decoding.
#include "core/nn/kv_cache.h"
#include "engine_test_model.h"

#include <QtTest>

#include <atomic>
#include <thread>

using namespace hearsay;

namespace {

// A value that identifies (layer, K or V, beam, position, column).
float tag(int layer, int kv, int beam, int position, int column) {
    return float(layer * 1000000 + kv * 100000 + beam * 10000 + position * 10 + column % 10);
}

void fillBeam(Backend& backend, KvCache& cache, int beam, int positions) {
    const int width = cache.geometry().width;
    std::vector<float> row(static_cast<size_t>(width));
    for (int l = 0; l < cache.geometry().layers; ++l) {
        for (int kv = 0; kv < 2; ++kv) {
            for (int p = 0; p < positions; ++p) {
                for (int c = 0; c < width; ++c) row[size_t(c)] = tag(l, kv, beam, p, c);
                BufferView target = (kv ? cache.values(l) : cache.keys(l)).slice(cache.row(beam, p) * size_t(width), size_t(width));
                backend.upload(target, row.data(), row.size());
            }
        }
    }
    cache.setLength(beam, positions);
}

// True when beam `beam` of the cache holds old beam `from`'s rows for all its positions.
bool holds(Backend& backend, const KvCache& cache, int beam, int from) {
    const int width = cache.geometry().width;
    std::vector<float> row(static_cast<size_t>(width));
    for (int l = 0; l < cache.geometry().layers; ++l) {
        for (int kv = 0; kv < 2; ++kv) {
            for (int p = 0; p < cache.length(beam); ++p) {
                BufferView source = (kv ? cache.values(l) : cache.keys(l)).slice(cache.row(beam, p) * size_t(width), size_t(width));
                backend.download(source, row.data(), row.size());
                for (int c = 0; c < width; ++c) {
                    if (row[size_t(c)] != tag(l, kv, from, p, c)) return false;
                }
            }
        }
    }
    return true;
}

} // namespace

class TestKvCache : public QObject {
    Q_OBJECT
private slots:
    void allocationAndCursors() {
        auto backend = test::cpuBackend(1);
        KvCache cache("self-attention", {3, 4, 448, 40});
        QCOMPARE(cache.allocatedBytes(), size_t(0));
        QVERIFY(cache.keys(0).empty());
        QVERIFY(cache.allocate(*backend).ok());
        QCOMPARE(cache.allocatedBytes(), size_t(2) * 3 * 448 * 40 * 4 * 4);
        QCOMPARE(cache.layerAllocatedBytes(), size_t(2) * 448 * 40 * 4 * 4);
        QCOMPARE(cache.inUseBytes(), size_t(0));
        cache.setLength(0, 10);
        cache.setLength(2, 448);
        QCOMPARE(cache.inUseBytes(), size_t(2) * 3 * (10 + 448) * 40 * 4);
        QCOMPARE(cache.longestBeam(), 448);
        QCOMPARE(cache.beamsInUse(), 2);
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, cache.setLength(1, 449));
        QVERIFY(cache.allocate(*backend).ok());  // no-op: stays as is
        QCOMPARE(cache.inUseBytes(), size_t(2) * 3 * (10 + 448) * 40 * 4);
        cache.clear();
        QCOMPARE(cache.inUseBytes(), size_t(0));
        cache.release();
        QCOMPARE(cache.allocatedBytes(), size_t(0));
        QVERIFY(!cache.allocated());
    }

    void allocationFailureIsAnError() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
        QSKIP("the sanitizers abort on impossible allocations instead of failing them");
#endif
        auto backend = test::cpuBackend(1);
        KvCache huge("self-attention", {128, 64, 448, 1 << 30});  // far beyond any memory
        auto ok = huge.allocate(*backend);
        QVERIFY(!ok.ok());
        QVERIFY2(ok.message().find("self-attention") != std::string::npos, ok.message().c_str());
        // The message names what the cache needed (K and V of every layer) and what the backend
        // could not allocate (the first buffer, [64][448][2^30] floats), with the memory available.
        const size_t needed = size_t(2) * 128 * 64 * 448 * (size_t(1) << 30) * sizeof(float);
        const size_t buffer = size_t(64) * 448 * (size_t(1) << 30) * sizeof(float);
        QVERIFY2(ok.message().find(std::to_string(needed) + " bytes") != std::string::npos, ok.message().c_str());
        QVERIFY2(ok.message().find("cannot allocate " + std::to_string(buffer) + " bytes") != std::string::npos,
                 ok.message().c_str());
        QVERIFY2(ok.message().find("available of") != std::string::npos, ok.message().c_str());
        QCOMPARE(huge.allocatedBytes(), size_t(0));
    }

    void reorderMovesRows_data() {
        QTest::addColumn<std::vector<int>>("source");
        QTest::newRow("swap") << std::vector<int>{1, 0, 2, 3};
        QTest::newRow("cycle") << std::vector<int>{3, 0, 1, 2};
        QTest::newRow("duplicates") << std::vector<int>{2, 2, 0, 2};
        QTest::newRow("fewer") << std::vector<int>{3, 3};
        QTest::newRow("one to all") << std::vector<int>{1, 1, 1, 1};
    }
    void reorderMovesRows() {
        QFETCH(std::vector<int>, source);
        auto backend = test::cpuBackend(1);
        KvCache cache("self-attention", {2, 4, 16, 12});
        QVERIFY(cache.allocate(*backend).ok());
        const int lengths[] = {5, 16, 3, 9};
        for (int b = 0; b < 4; ++b) fillBeam(*backend, cache, b, lengths[b]);
        QVERIFY(cache.reorder(*backend, source).ok());
        for (int b = 0; b < 4; ++b) {
            if (b < int(source.size())) {
                QCOMPARE(cache.length(b), lengths[source[size_t(b)]]);
                QVERIFY2(holds(*backend, cache, b, source[size_t(b)]), qPrintable(QString("beam %1").arg(b)));
            } else {
                QCOMPARE(cache.length(b), 0);
            }
        }
        // Invalid reorders are errors, not crashes.
        QVERIFY(!cache.reorder(*backend, std::vector<int>{4}).ok());
        QVERIFY(!cache.reorder(*backend, std::vector<int>{0, 0, 0, 0, 0}).ok());
        QVERIFY(!cache.reorder(*backend, std::vector<int>{}).ok());
    }

    void sessionAccountingFollowsTheFormulas_data() {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("beams");
        QTest::newRow("64x2x2, 1 beam") << 64 << 2 << 2 << 1;
        QTest::newRow("96x3x4, 5 beams") << 96 << 3 << 4 << 5;
        QTest::newRow("tiny 384x4x6, 2 beams") << 384 << 4 << 6 << 2;
    }
    void sessionAccountingFollowsTheFormulas() {
        QFETCH(int, width);
        QFETCH(int, layers);
        QFETCH(int, heads);
        QFETCH(int, beams);
        auto model = test::makeRandomModel(test::customConfig(width, layers, heads), 3);
        SessionOptions options;
        options.maxBeams = beams;
        auto created = InferenceSession::create(model, test::cpuBackend(2), options);
        QVERIFY(created.ok());
        InferenceSession& session = *created.value();
        const size_t d = size_t(width), l = size_t(layers), b = size_t(beams);
        const size_t selfBytes = 2 * l * 448 * d * 4 * b, crossBytes = 2 * l * 1500 * d * 4;

        KvCacheStats stats = session.cacheStats();
        QCOMPARE(stats.selfAllocated, selfBytes);
        QCOMPARE(stats.crossAllocated, crossBytes);
        QCOMPARE(stats.selfInUse, size_t(0));
        QCOMPARE(stats.crossInUse, size_t(0));
        QCOMPARE(stats.layers.size(), l);
        QCOMPARE(stats.layers[0].selfAllocated, selfBytes / l);

        QVERIFY(session.encode(test::syntheticMel(80, 3000, 1)).ok());
        QCOMPARE(session.cacheStats().crossInUse, crossBytes);

        // Beam k holds 3 + k positions.
        std::vector<std::vector<int>> sequences;
        for (int k = 0; k < beams; ++k) {
            sequences.push_back({50258, 50259, 50359});
            for (int i = 0; i < k; ++i) sequences.back().push_back(10 + i);
        }
        std::vector<float> logits;
        QVERIFY(session.decode(sequences, logits).ok());
        size_t positions = 0;
        for (const auto& s : sequences) positions += s.size();
        stats = session.cacheStats();
        QCOMPARE(stats.selfInUse, 2 * l * positions * d * 4);
        QCOMPARE(stats.layers.back().selfInUse, 2 * positions * d * 4);
        QCOMPARE(stats.positions, 3 + beams - 1);
        QCOMPARE(stats.beams, beams);

        // Switches off: nothing allocated. On again: the same formulas.
        const size_t workspace = stats.workspaceBytes;
        QVERIFY(workspace > 0);
        session.setSelfAttentionCache(false);
        session.setCrossAttentionCache(false);
        stats = session.cacheStats();
        QCOMPARE(stats.selfAllocated + stats.selfInUse + stats.crossAllocated + stats.crossInUse, size_t(0));
        QVERIFY(session.decode(sequences, logits).ok());
        QCOMPARE(session.cacheStats().selfAllocated, size_t(0));
        // The cross cache off re-projects one layer at a time into a scratch of 2 · 1500 · d floats.
        QCOMPARE(session.cacheStats().workspaceBytes, workspace + 2 * 1500 * d * 4);
        session.setSelfAttentionCache(true);
        session.setCrossAttentionCache(true);
        stats = session.cacheStats();
        QCOMPARE(stats.selfAllocated, selfBytes);
        QCOMPARE(stats.crossAllocated, crossBytes);
        QCOMPARE(stats.crossInUse, crossBytes);  // re-projected from the kept encoder output
        QCOMPARE(stats.selfInUse, size_t(0));
        session.resetDecoder();
        QCOMPARE(session.cacheStats().selfInUse, size_t(0));
    }

    void statsReadableFromAnotherThread() {
        auto model = test::makeRandomModel(test::customConfig(64, 2, 2, 64), 3);
        SessionOptions options;
        options.maxBeams = 2;
        auto created = InferenceSession::create(model, test::cpuBackend(2), options);
        QVERIFY(created.ok());
        InferenceSession& session = *created.value();
        QVERIFY(session.encode(test::syntheticMel(80, 128, 1)).ok());
        const size_t selfBytes = 2 * 2 * 448 * 64 * 4 * 2;
        std::atomic<bool> stop{false};
        std::atomic<int> reads{0}, bad{0};
        std::thread reader([&] {
            while (!stop.load()) {
                const KvCacheStats s = session.cacheStats();
                if (s.selfAllocated != 0 && s.selfAllocated != selfBytes) ++bad;
                if (s.selfInUse > selfBytes || s.selfInUse % (2 * 2 * 64 * 4) != 0) ++bad;
                ++reads;
            }
        });
        std::vector<std::vector<int>> beams = {{50258}, {50258}};
        std::vector<float> logits;
        for (int step = 0; step < 60; ++step) {
            if (step % 20 == 10) session.setSelfAttentionCache(step % 40 != 10);
            if (!session.decode(beams, logits).ok()) break;
            beams[0].push_back(step + 1);
            beams[1].push_back(step + 2);
        }
        stop = true;
        reader.join();
        QCOMPARE(bad.load(), 0);
        QVERIFY(reads.load() > 0);
        QCOMPARE(int(beams[0].size()), 61);
    }
};

QTEST_APPLESS_MAIN(TestKvCache)
#include "tst_kv_cache.moc"
