// The commit policy of live transcription on scripted hypotheses (no model): LocalAgreement-2
// agreement, word boundaries, timestamps that differ between hypotheses, end of utterance,
// trimming at a committed segment boundary, a forced commit, AlignAtt's stable prefix, and the
// latency summary.
#include "core/streaming/commit_policy.h"
#include "core/streaming/local_agreement.h"
#include "core/streaming/streaming_session.h"
#include "core/streaming/window_policy.h"

#include <QtTest>

using namespace hearsay;

namespace {

// Token ids of the script: 100.. begin a word (" the"), 200.. continue one ("ing"), 1000.. are
// timestamps (0.02 s steps).
constexpr int kTs = 1000;
int ts(int steps) { return kTs + steps; }
int w(int i) { return 100 + i; }   // a word-starting token
int c(int i) { return 200 + i; }   // a continuation

LocalAgreement policy() {
    return LocalAgreement(kTs, [](int token) { return token >= 100 && token < 200; });
}

using Tokens = std::vector<int>;

} // namespace

class TestStreamingPolicy : public QObject {
    Q_OBJECT
private slots:
    void firstHypothesisIsTentative() {
        auto p = policy();
        auto u = p.update({ts(0), w(1), w(2)});
        QVERIFY(u.committed.empty());
        QCOMPARE(u.tentative, (Tokens{ts(0), w(1), w(2)}));
        QVERIFY(p.committedInWindow().empty());
    }

    void agreedPrefixIsCommittedUpToAWordBoundary() {
        auto p = policy();
        p.update({ts(0), w(1), w(2), w(3)});
        // The second hypothesis agrees on w1 w2 w3 and goes on: w3 may still grow (the first
        // hypothesis ends there), so the commit stops before it.
        auto u = p.update({ts(0), w(1), w(2), w(3), w(4)});
        QCOMPARE(u.committed, (Tokens{ts(0), w(1), w(2)}));
        QCOMPARE(u.tentative, (Tokens{w(3), w(4)}));
        QCOMPARE(p.committedInWindow(), (Tokens{ts(0), w(1), w(2)}));
        // The next hypothesis continues after the committed prefix and agrees on w3 w4.
        u = p.update({w(3), w(4), w(5)});
        QCOMPARE(u.committed, (Tokens{w(3)}));
        QCOMPARE(u.tentative, (Tokens{w(4), w(5)}));
    }

    void disagreementCommitsNothing() {
        auto p = policy();
        p.update({ts(0), w(1), w(2)});
        auto u = p.update({ts(0), w(7), w(2), w(3)});
        QVERIFY(u.committed.empty());
        QCOMPARE(u.tentative, (Tokens{ts(0), w(7), w(2), w(3)}));
        // Agreement is always with the newest hypothesis, not the first: w7 w2 agree, and both go
        // on with a new word (w3 / w9), so w2 is complete.
        u = p.update({ts(0), w(7), w(2), w(9)});
        QCOMPARE(u.committed, (Tokens{ts(0), w(7), w(2)}));
        QCOMPARE(u.tentative, (Tokens{w(9)}));
    }

    void neverCutsInsideAWord() {
        auto p = policy();
        // "w1 w2c2 w3": the hypotheses agree on w1 w2 and part of the next word's tokens differ.
        p.update({ts(0), w(1), w(2), c(2), w(3)});
        auto u = p.update({ts(0), w(1), w(2), c(5), w(3)});
        // Agreed text: w1 w2; the token after them (c2 / c5) does not start a word: w2 stays tentative.
        QCOMPARE(u.committed, (Tokens{ts(0), w(1)}));
        QCOMPARE(u.tentative, (Tokens{w(2), c(5), w(3)}));
    }

    void timestampsThatDifferDoNotBlockAgreement() {
        auto p = policy();
        p.update({ts(0), w(1), w(2), ts(70), ts(70), w(3), w(4)});
        auto u = p.update({ts(1), w(1), w(2), ts(72), ts(72), w(3), w(4), w(5)});
        // Text agrees on w1..w4; commits up to before w4 (the first hypothesis ends after it),
        // with the current hypothesis' timestamps.
        QCOMPARE(u.committed, (Tokens{ts(1), w(1), w(2), ts(72), ts(72), w(3)}));
        QCOMPARE(u.tentative, (Tokens{w(4), w(5)}));
    }

    void endOfUtteranceCommitsEverything() {
        auto p = policy();
        p.update({ts(0), w(1), w(2)});
        p.update({ts(0), w(1), w(2), w(3)});
        QCOMPARE(p.committedInWindow(), (Tokens{ts(0), w(1)}));
        const Tokens rest = p.commitAll();
        QCOMPARE(rest, (Tokens{w(2), w(3)}));
        QCOMPARE(p.committedInWindow(), (Tokens{ts(0), w(1), w(2), w(3)}));
        QVERIFY(p.tentative().empty());
        // The next hypothesis has no previous one to agree with: it is tentative.
        auto u = p.update({ts(200), w(8)});
        QVERIFY(u.committed.empty());
        p.reset();
        QVERIFY(p.committedInWindow().empty() && p.tentative().empty());
    }

    void trimsAtTheLastCommittedSegmentBoundary() {
        auto p = policy();
        const Tokens h = {ts(0), w(1), w(2), ts(50), ts(50), w(3), w(4), ts(90), ts(91), w(5), w(6)};
        p.update(h);
        Tokens more = h;
        more.push_back(w(7));
        p.update(more);
        // Committed through w5; boundaries inside: (50, 50) and (90, 91).
        QCOMPARE(p.committedInWindow(), (Tokens{ts(0), w(1), w(2), ts(50), ts(50), w(3), w(4), ts(90), ts(91), w(5)}));
        LocalAgreement::Boundary b;
        QVERIFY(p.lastCommittedBoundary(b));
        QCOMPARE(b.index, size_t(8));  // the opening timestamp of the last committed segment
        QCOMPARE(b.steps, 90);         // the closing time before it: the new window starts there
        p.trimTo(b);
        // What remains moves back by 1.80 s: its segment starts at 0.02 s.
        QCOMPARE(p.committedInWindow(), (Tokens{ts(1), w(5)}));
        QCOMPARE(p.tentative(), (Tokens{w(6), w(7)}));
        QVERIFY(!p.lastCommittedBoundary(b));
    }

    void forcedCommitThroughTheHypothesisBoundary() {
        auto p = policy();
        p.update({ts(0), w(1), w(2), ts(60), ts(60), w(3)});
        LocalAgreement::Boundary b;
        QVERIFY(!p.lastCommittedBoundary(b));
        QVERIFY(p.lastBoundary(b));
        QCOMPARE(b.index, size_t(4));
        const Tokens forced = p.commitThrough(b.index);
        QCOMPARE(forced, (Tokens{ts(0), w(1), w(2), ts(60)}));
        QCOMPARE(p.tentative(), (Tokens{ts(60), w(3)}));
        QVERIFY(!p.lastCommittedBoundary(b));  // the pair is split: the committed part holds only its closing half
        QVERIFY(p.lastBoundary(b));
        p.trimTo(b);  // the window now starts at 1.20 s: the open segment's start moves to 0.00
        QVERIFY(p.committedInWindow().empty());
        QCOMPARE(p.tentative(), (Tokens{ts(0), w(3)}));
    }

    // Where the window is cut (window_policy.h): kept up to trimSeconds; beyond, at the last
    // committed boundary; at maxWindowSeconds without one, by force through the hypothesis's
    // last boundary, or whole; a boundary placed past the window's audio is none.
    void windowCuts() {
        StreamingOptions options;
        options.trimSeconds = 20.0;
        options.maxWindowSeconds = 28.0;
        const uint64_t start = 16000 * 100, second = 16000;  // a window starting at 100 s
        auto p = policy();
        const Tokens h = {ts(0), w(1), w(2), ts(50), ts(50), w(3), w(4), ts(90), ts(91), w(5), w(6)};
        p.update(h);
        Tokens more = h;
        more.push_back(w(7));
        p.update(more);  // committed through w5: boundaries (50, 50) and (90, 91) inside
        QCOMPARE(planWindowCut(p, start, start + 20 * second, options).kind, WindowCut::Kind::Keep);
        const WindowCut atCommitted = planWindowCut(p, start, start + 21 * second, options);
        QCOMPARE(atCommitted.kind, WindowCut::Kind::AtCommittedBoundary);
        QCOMPARE(atCommitted.boundary.steps, 90);
        QCOMPARE(atCommitted.boundary.index, size_t(8));

        auto open = policy();  // nothing committed: a boundary only in the hypothesis
        open.update({ts(0), w(1), w(2), ts(60), ts(60), w(3)});
        QCOMPARE(planWindowCut(open, start, start + 25 * second, options).kind, WindowCut::Kind::Keep);
        const WindowCut forced = planWindowCut(open, start, start + 29 * second, options);
        QCOMPARE(forced.kind, WindowCut::Kind::CommitThroughBoundary);
        QCOMPARE(forced.boundary.index, size_t(4));
        QCOMPARE(forced.boundary.steps, 60);

        auto noBoundary = policy();
        noBoundary.update({ts(0), w(1), w(2)});
        QCOMPARE(planWindowCut(noBoundary, start, start + 29 * second, options).kind, WindowCut::Kind::CommitAll);
        // A boundary at 1.20 s lies past a window whose audio ends before it: none, so all is committed.
        options.trimSeconds = 0.5;
        options.maxWindowSeconds = 1.0;
        QCOMPARE(planWindowCut(open, start, start + second + second / 10, options).kind, WindowCut::Kind::CommitAll);
        QCOMPARE(planWindowCut(open, start, start + 2 * second, options).kind, WindowCut::Kind::CommitThroughBoundary);
    }

    void silenceHypothesesCommitNothing() {
        auto p = policy();
        p.update({});
        auto u = p.update({});
        QVERIFY(u.committed.empty() && u.tentative.empty());
    }

    // AlignAtt: whole aligned words that end before the limit, never the last word, never an
    // estimated (unaligned) one; the timestamps after a stable word go with it.
    void alignAttCommitsWordsAlignedClearOfTheEnd() {
        auto isWordStart = [](int token) { return token >= 100 && token < 200; };
        auto time = [](double start, double end, int word) { return TokenTime{start, end, word, 0.9}; };
        // committed: ts(0) w1 | hypothesis: w2 c2 ts ts w3 w4 (w2c2 is one word)
        const Tokens window = {ts(0), w(1), w(2), c(2), ts(50), ts(50), w(3), w(4)};
        const std::vector<TokenTime> times = {time(0, 0, -1), time(0.0, 0.4, 0), time(0.4, 0.6, 1), time(0.6, 0.9, 1),
                                              time(1, 1, -1), time(1, 1, -1), time(1.0, 1.5, 2), time(1.5, 2.0, 3)};
        const size_t first = 2;
        // Limit 1.6: w2c2 (ends 0.9) and w3 (ends 1.5) are stable; w4 is the last word.
        QCOMPARE(stableWordPrefix(window, times, first, 1.6, kTs, isWordStart), size_t(5));  // w2 c2 ts ts w3
        // Limit 1.2: only w2c2, with the segment boundary after it.
        QCOMPARE(stableWordPrefix(window, times, first, 1.2, kTs, isWordStart), size_t(4));
        // Limit 0.8: c2 ends at 0.9, so w2c2 is not stable: nothing.
        QCOMPARE(stableWordPrefix(window, times, first, 0.8, kTs, isWordStart), size_t(0));
        // Far limit: everything but the last word.
        QCOMPARE(stableWordPrefix(window, times, first, 100.0, kTs, isWordStart), size_t(5));
        // An estimated word (no alignment) stops the prefix.
        std::vector<TokenTime> estimated = times;
        estimated[6].word = -1;
        QCOMPARE(stableWordPrefix(window, estimated, first, 100.0, kTs, isWordStart), size_t(4));
        // A one-word hypothesis commits nothing.
        QCOMPARE(stableWordPrefix(Tokens{w(1)}, {time(0, 0.2, 0)}, 0, 100.0, kTs, isWordStart), size_t(0));
    }

    void latencySummary() {
        const LatencySummary s = summariseLatencies({0.5, 0.1, 0.3, 0.2, 0.4, 1.0, 0.6, 0.7, 0.8, 0.9});
        QCOMPARE(s.count, 10);
        QVERIFY(std::abs(s.median - 0.55) < 1e-12);
        QVERIFY(std::abs(s.p90 - 0.91) < 1e-12);
        QCOMPARE(s.max, 1.0);
        QCOMPARE(summariseLatencies({}).count, 0);
    }
};

QTEST_APPLESS_MAIN(TestStreamingPolicy)
#include "tst_streaming_policy.moc"
