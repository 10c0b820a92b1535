// The reference's logit filters on hand-made logits: every rule has a case where it changes the
// token argmax would pick, and a case where it must leave the logits alone.
#include "core/decoding/greedy_decoder.h"
#include "core/decoding/initial_tokens.h"
#include "core/decoding/logit_filters.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace hearsay;

namespace {

const SpecialTokens kSpecial{};  // multilingual ids: eot 50257, <|0.00|> 50364
constexpr int kVocab = 51865;
constexpr int kBlank = 220;
constexpr int kWordA = 1000, kWordB = 2000;
const int kSampleBegin = 3;  // <|startoftranscript|><|en|><|transcribe|>

std::vector<float> baseLogits() { return std::vector<float>(size_t(kVocab), -10.0f); }
int ts(int index) { return kSpecial.timestampBegin + index; }
std::vector<int> start() { return {kSpecial.sot, kSpecial.firstLanguage, kSpecial.transcribe}; }
std::vector<int> withSampled(std::initializer_list<int> sampled) {
    auto t = start();
    t.insert(t.end(), sampled);
    return t;
}
bool isInf(float v) { return std::isinf(v) && v < 0; }
int argmax(const std::vector<float>& logits) { return GreedyDecoder::argmax(logits); }

} // namespace

class TestDecodingFilters : public QObject {
    Q_OBJECT
private slots:
    void suppressBlankOnlyAtFirstSampledPosition() {
        SuppressBlank filter({kBlank}, kSpecial.eot, kSampleBegin);
        auto logits = baseLogits();
        logits[kBlank] = 5.0f;
        logits[size_t(kSpecial.eot)] = 4.0f;
        logits[kWordA] = 3.0f;
        auto first = logits;
        filter.apply(first, start());
        QVERIFY(isInf(first[kBlank]));
        QVERIFY(isInf(first[size_t(kSpecial.eot)]));
        QCOMPARE(argmax(first), kWordA);  // changed from the blank
        auto later = logits;
        filter.apply(later, withSampled({kWordA}));
        QCOMPARE(later, logits);
        QCOMPARE(argmax(later), kBlank);
    }

    void suppressTokensResolvesLikeTheReference() {
        const std::vector<int> nonSpeech = {1, 2, 7, 7, 90};
        auto resolved = resolveSuppressTokens({-1, 5}, nonSpeech, kSpecial, kVocab);
        std::vector<int> expected = {1, 2, 5, 7, 90, kSpecial.sot, kSpecial.translate, kSpecial.transcribe,
                                     kSpecial.startOfLm, kSpecial.startOfPrev, kSpecial.noSpeech};
        std::sort(expected.begin(), expected.end());
        QCOMPARE(resolved, expected);
        // Without -1 the non-speech list is not added; the special tokens always are.
        auto plain = resolveSuppressTokens({5}, nonSpeech, kSpecial, kVocab);
        QVERIFY(std::find(plain.begin(), plain.end(), 90) == plain.end());
        QVERIFY(std::find(plain.begin(), plain.end(), kSpecial.noSpeech) != plain.end());

        SuppressTokens filter(resolved);
        auto logits = baseLogits();
        logits[size_t(kSpecial.transcribe)] = 9.0f;
        logits[90] = 8.0f;
        logits[kWordB] = 1.0f;
        filter.apply(logits, withSampled({kWordA}));
        QCOMPARE(argmax(logits), kWordB);
        QVERIFY(isInf(logits[size_t(kSpecial.noSpeech)]));
        QCOMPARE(logits[kWordA], -10.0f);
    }

    void timestampRuleSuppressesNoTimestamps() {
        ApplyTimestampRules rules(kSpecial, kSampleBegin, 50);
        auto logits = baseLogits();
        logits[size_t(kSpecial.noTimestamps)] = 9.0f;
        logits[kWordA] = 2.0f;
        filter(rules, logits, withSampled({ts(0), kWordB}));
        QVERIFY(isInf(logits[size_t(kSpecial.noTimestamps)]));
        QCOMPARE(argmax(logits), kWordA);
    }

    void firstTokenIsAnEarlyTimestamp() {
        ApplyTimestampRules rules(kSpecial, kSampleBegin, 50);
        auto logits = baseLogits();
        logits[kWordA] = 9.0f;     // text would win
        logits[size_t(ts(80))] = 8.0f;  // a timestamp beyond 1.00 s
        logits[size_t(ts(30))] = 1.0f;
        rules.apply(logits, start());
        QCOMPARE(argmax(logits), ts(30));
        QVERIFY(isInf(logits[kWordA]));
        QVERIFY(isInf(logits[size_t(ts(51))]));
        QVERIFY(!isInf(logits[size_t(ts(50))]));
        // Without a maximum initial timestamp, the late timestamp is allowed.
        ApplyTimestampRules unlimited(kSpecial, kSampleBegin, std::nullopt);
        auto free = baseLogits();
        free[kWordA] = 9.0f;
        free[size_t(ts(80))] = 8.0f;
        unlimited.apply(free, start());
        QCOMPARE(argmax(free), ts(80));
    }

    void timestampAfterTextMustBeClosedOrEnd() {
        // [<|0.00|> text <|1.00|>]: the next token is a timestamp (>= 1.00) or EOT, never text.
        ApplyTimestampRules rules(kSpecial, kSampleBegin, 50);
        auto logits = baseLogits();
        logits[kWordA] = 9.0f;
        logits[size_t(ts(40))] = 3.0f;  // earlier than the last timestamp: not allowed
        logits[size_t(ts(50))] = 2.0f;  // equal to the last: allowed (the next segment starts there)
        rules.apply(logits, withSampled({ts(0), kWordB, ts(50)}));
        QVERIFY(isInf(logits[kWordA]));
        QVERIFY(isInf(logits[size_t(ts(40))]));
        QCOMPARE(argmax(logits), ts(50));
        // EOT stays possible: when it beats the timestamps it is chosen over the text token.
        auto end = baseLogits();
        end[kWordA] = 9.0f;
        end[size_t(kSpecial.eot)] = 4.0f;
        end[size_t(ts(50))] = 2.0f;
        rules.apply(end, withSampled({ts(0), kWordB, ts(50)}));
        QCOMPARE(argmax(end), kSpecial.eot);
        QVERIFY(!isInf(end[size_t(ts(50))]));
    }

    void timestampPairMustBeFollowedByText() {
        // [<|0.00|> text <|1.00|> <|1.00|>]: a pair closed; no timestamp may follow.
        ApplyTimestampRules rules(kSpecial, kSampleBegin, 50);
        auto logits = baseLogits();
        logits[size_t(ts(120))] = 9.0f;
        logits[kWordA] = 1.0f;
        rules.apply(logits, withSampled({ts(0), kWordB, ts(50), ts(50)}));
        for (int i = kSpecial.timestampBegin; i < kVocab; ++i) QVERIFY(isInf(logits[size_t(i)]));
        QCOMPARE(argmax(logits), kWordA);
    }

    void timestampsNeverDecrease() {
        // [<|1.00|> text]: the closing timestamp must be later than 1.00.
        ApplyTimestampRules rules(kSpecial, kSampleBegin, 50);
        auto logits = baseLogits();
        logits[size_t(ts(50))] = 9.0f;  // same as the opening timestamp: a zero-length segment
        logits[size_t(ts(20))] = 8.0f;  // earlier
        logits[size_t(ts(75))] = 0.5f;
        logits[kWordA] = 5.0f;
        rules.apply(logits, withSampled({ts(50), kWordB}));
        QVERIFY(isInf(logits[size_t(ts(50))]));
        QVERIFY(isInf(logits[size_t(ts(20))]));
        QVERIFY(!isInf(logits[size_t(ts(75))]));
        QCOMPARE(argmax(logits), kWordA);
    }

    void forcesTimestampWhenTheirSumWins() {
        // 100 timestamps at 2.0 each: their total probability beats the single best text token (4.0).
        ApplyTimestampRules rules(kSpecial, kSampleBegin, 50);
        auto logits = baseLogits();
        logits[kWordA] = 4.0f;
        for (int i = 100; i < 200; ++i) logits[size_t(ts(i))] = 2.0f;
        rules.apply(logits, withSampled({ts(0), kWordB}));
        QVERIFY(isInf(logits[kWordA]));
        QVERIFY(argmax(logits) >= kSpecial.timestampBegin);
        // Two timestamps at 2.0 do not beat a text token at 4.0: unchanged.
        auto few = baseLogits();
        few[kWordA] = 4.0f;
        few[size_t(ts(100))] = 2.0f;
        few[size_t(ts(101))] = 2.0f;
        rules.apply(few, withSampled({ts(0), kWordB}));
        QCOMPARE(few[kWordA], 4.0f);
        QCOMPARE(argmax(few), kWordA);
    }

    void initialTokensFollowTheReference() {
        // Multilingual: [<|startofprev|> prompt] sot lang task [notimestamps].
        std::vector<int> prompt(300);
        for (int i = 0; i < 300; ++i) prompt[size_t(i)] = i + 1;
        auto t = buildInitialTokens(kSpecial, true, kSpecial.firstLanguage + 2, DecodingTaskKind::Translate, true,
                                    prompt, {}, 448, 224);
        QCOMPARE(t.tokens.size(), size_t(1 + 223 + 4));
        QCOMPARE(t.tokens[0], kSpecial.startOfPrev);
        QCOMPARE(t.tokens[1], 300 - 223 + 1);  // the 223 most recent prompt tokens
        QCOMPARE(t.tokens[223], 300);
        QCOMPARE(t.sotIndex, 224);
        QCOMPARE(t.tokens[224], kSpecial.sot);
        QCOMPARE(t.tokens[225], kSpecial.firstLanguage + 2);
        QCOMPARE(t.tokens[226], kSpecial.translate);
        QCOMPARE(t.tokens[227], kSpecial.noTimestamps);
        QCOMPARE(t.sampleBegin, 228);
        QCOMPARE(t.languageIndex, 225);
        // English-only: just <|startoftranscript|>, no language or task.
        SpecialTokens en{50256, 50257, 50258, 0, 50357, 50358, 50359, 50360, 50361, 50362, 50363};
        auto e = buildInitialTokens(en, false, -1, DecodingTaskKind::Transcribe, false, {}, {}, 448, 224);
        QCOMPARE(e.tokens, std::vector<int>{50257});
        QCOMPARE(e.sampleBegin, 1);
        QCOMPARE(e.languageIndex, -1);
        // A prefix follows the start sequence.
        auto p = buildInitialTokens(kSpecial, true, kSpecial.firstLanguage, DecodingTaskKind::Transcribe, false, {},
                                    {11, 12}, 448, 48);
        QCOMPARE(p.tokens, (std::vector<int>{kSpecial.sot, kSpecial.firstLanguage, kSpecial.transcribe, 11, 12}));
    }

    void optionsAreValidated() {
        DecodingOptions o;
        QVERIFY(validateDecodingOptions(o).ok());
        o.beamSize = 5;
        o.bestOf = 5;
        QVERIFY(!validateDecodingOptions(o).ok());
        o = {};
        o.bestOf = 3;  // at temperature 0
        QVERIFY(!validateDecodingOptions(o).ok());
        o.temperature = 0.5f;
        QVERIFY(validateDecodingOptions(o).ok());
        o = {};
        o.patience = 2.0f;
        QVERIFY(!validateDecodingOptions(o).ok());
        o.beamSize = 2;
        QVERIFY(validateDecodingOptions(o).ok());
        o.lengthPenalty = 1.5f;
        auto bad = validateDecodingOptions(o);
        QVERIFY(!bad.ok());
        QVERIFY(bad.message().find("length penalty") != std::string::npos);
    }

private:
    static void filter(const LogitFilter& f, std::vector<float>& logits, const std::vector<int>& tokens) {
        f.apply(logits, tokens);
    }
};

QTEST_APPLESS_MAIN(TestDecodingFilters)
#include "tst_decoding_filters.moc"
