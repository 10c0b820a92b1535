// The long-form policy pieces with real numbers: gzip compression ratio (values from Python's
// zlib), temperature schedule, fallback and silence decisions, window segmentation and seek,
// and the repetition-loop detector.
#include "core/decoding/compression_ratio.h"
#include "core/decoding/repetition_detector.h"
#include "core/decoding/fallback_policy.h"
#include "core/decoding/window_segmenter.h"

#include <QtTest>

#include <cmath>

using namespace hearsay;

namespace {
constexpr int kTb = 50364;  // <|0.00|>
int ts(int index) { return kTb + index; }
DecodingResult result(double compression, double avgLogprob, double noSpeech) {
    DecodingResult r;
    r.compressionRatio = compression;
    r.avgLogprob = avgLogprob;
    r.noSpeechProb = noSpeech;
    return r;
}
} // namespace

class TestDecodingLongform : public QObject {
    Q_OBJECT
private slots:
    void compressionRatioMatchesPythonZlib() {
        // len(b) / len(zlib.compress(b)) computed with CPython's zlib.
        QCOMPARE(compressionRatio("And so my fellow Americans, ask not what your country can do for you, ask what you "
                                  "can do for your country."),
                 107.0 / 79.0);
        std::string loop;
        for (int i = 0; i < 30; ++i) loop += i ? " the" : "the";
        QCOMPARE(compressionRatio(loop), 119.0 / 15.0);
        QCOMPARE(compressionRatio("a"), 1.0 / 9.0);
        QCOMPARE(compressionRatio("\xc3\x87" "a va tr\xc3\xa8s bien, merci! \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae"
                                  "\xe3\x83\x86\xe3\x82\xad\xe3\x82\xb9\xe3\x83\x88"),
                 50.0 / 61.0);
    }

    void temperatureScheduleIsNumpyArange() {
        auto t = fallbackTemperatures(0.0f, 0.2f);
        QCOMPARE(t.size(), size_t(6));
        QCOMPARE(t.front(), 0.0f);
        QCOMPARE(t.back(), 1.0f);
        QVERIFY(std::abs(t[3] - 0.6f) < 1e-6f);
        QCOMPARE(fallbackTemperatures(0.5f, 0.25f), (std::vector<float>{0.5f, 0.75f, 1.0f}));
        QCOMPARE(fallbackTemperatures(0.3f, 0.0f), (std::vector<float>{0.3f}));
    }

    void fallbackDecisions() {
        FallbackThresholds th;  // 2.4, -1.0, 0.6
        QVERIFY(!needsFallback(result(1.5, -0.5, 0.1), th));
        QVERIFY(needsFallback(result(2.5, -0.5, 0.1), th));   // too repetitive
        QVERIFY(needsFallback(result(1.5, -1.2, 0.1), th));   // too improbable
        QVERIFY(!needsFallback(result(1.5, -1.2, 0.7), th));  // silence: not retried
        QVERIFY(needsFallback(result(2.5, -0.5, 0.7), th));   // repetitive and confident: retried
        FallbackThresholds none{std::nullopt, std::nullopt, std::nullopt};
        QVERIFY(!needsFallback(result(9.0, -9.0, 0.0), none));

        QVERIFY(isSilentWindow(result(1.0, -1.5, 0.7), th));
        QVERIFY(!isSilentWindow(result(1.0, -0.5, 0.7), th));  // confident text despite no-speech
        QVERIFY(!isSilentWindow(result(1.0, -1.5, 0.5), th));
        FallbackThresholds noLogprob{2.4, std::nullopt, 0.6};
        QVERIFY(isSilentWindow(result(1.0, -0.1, 0.7), noLogprob));
    }

    void splitsAtConsecutiveTimestampsAndSeeksToTheLastPair() {
        // <0.00> a b <1.00><1.00> c <2.50><2.50> d   (the last segment is unfinished)
        std::vector<int> tokens = {ts(0), 10, 11, ts(50), ts(50), 12, ts(125), ts(125), 13};
        auto split = splitWindow(tokens, kTb, 5.0, 3000);
        QCOMPARE(split.slices.size(), size_t(2));
        QCOMPARE(split.slices[0].tokens, (std::vector<int>{ts(0), 10, 11, ts(50)}));
        QCOMPARE(split.slices[0].start, 5.0);
        QCOMPARE(split.slices[0].end, 6.0);
        QCOMPARE(split.slices[1].tokens, (std::vector<int>{ts(50), 12, ts(125)}));
        QVERIFY(std::abs(split.slices[1].end - 7.5) < 1e-9);
        QCOMPARE(split.seekAdvance, 250);  // 2.50 s = 125 steps × 2 frames
    }

    void singleTimestampEndingConsumesTheWindow() {
        // <0.00> a <1.00><1.00> b <3.00>  -> both segments closed, seek by the whole window
        std::vector<int> tokens = {ts(0), 10, ts(50), ts(50), 11, ts(150)};
        auto split = splitWindow(tokens, kTb, 0.0, 1100);
        QCOMPARE(split.slices.size(), size_t(2));
        QCOMPARE(split.slices[1].tokens, (std::vector<int>{ts(50), 11, ts(150)}));
        QCOMPARE(split.slices[1].end, 3.0);
        QCOMPARE(split.seekAdvance, 1100);
    }

    void noPairMakesOneSegment() {
        // <0.00> a b <4.20>: one segment ending at the last timestamp.
        auto split = splitWindow({ts(0), 10, 11, ts(210)}, kTb, 30.0, 3000);
        QCOMPARE(split.slices.size(), size_t(1));
        QCOMPARE(split.slices[0].start, 30.0);
        QVERIFY(std::abs(split.slices[0].end - 34.2) < 1e-9);
        QCOMPARE(split.seekAdvance, 3000);
        // Without timestamps, the segment spans the window's audio.
        auto text = splitWindow({10, 11, 12}, kTb, 0.0, 1100);
        QCOMPARE(text.slices[0].end, 11.0);
        QCOMPARE(text.seekAdvance, 1100);
        // Empty output still advances.
        auto empty = splitWindow({}, kTb, 0.0, 3000);
        QCOMPARE(empty.seekAdvance, 3000);
    }

    void detectsTrailingLoops() {
        // "x y z" then "a b c d" repeated 4 times at the end, with timestamps interleaved.
        std::vector<int> tokens = {ts(0), 1, 2, 3};
        for (int i = 0; i < 4; ++i) tokens.insert(tokens.end(), {20, 21, 22, 23});
        tokens.push_back(20);  // a partial fifth repeat
        auto loop = findTrailingLoop(tokens, kTb);
        QCOMPARE(loop.period, 4);
        QCOMPARE(loop.repeats, 4);
        QCOMPARE(loop.keepUntil, size_t(8));  // keep <0.00> 1 2 3 and one "20 21 22 23"
        // Not a loop: varied text, or a repetition too short to matter.
        std::vector<int> varied;
        for (int i = 0; i < 40; ++i) varied.push_back(100 + (i * 7) % 23);
        QCOMPARE(findTrailingLoop(varied, kTb).repeats, 0);
        QCOMPARE(findTrailingLoop({5, 6, 7, 7, 7}, kTb).repeats, 0);
        // Timestamps between the repeats do not hide the loop.
        std::vector<int> stamped;
        for (int i = 0; i < 13; ++i) stamped.insert(stamped.end(), {ts(2 * i), 42, ts(2 * i + 1)});
        auto l2 = findTrailingLoop(stamped, kTb);
        QCOMPARE(l2.period, 1);
        QCOMPARE(l2.repeats, 13);
        QCOMPARE(l2.keepUntil, size_t(2));
    }
};

QTEST_APPLESS_MAIN(TestDecodingLongform)
#include "tst_decoding_longform.moc"
