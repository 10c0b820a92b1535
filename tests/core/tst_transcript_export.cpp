// Transcript exports: time stamp formatting and rounding, SRT/VTT structure and escaping, TXT,
// and JSON that parses back with every field.
#include "core/transcript/timestamp_format.h"
#include "core/transcript/transcript_export.h"
#include "core/util/json_text.h"

#include <QtTest>

using nlohmann::json;

using namespace hearsay;

namespace {
Transcript sample() {
    Transcript t;
    t.source = "clip.wav";
    t.language = "en";
    t.text = " Hello <world> & you --> there. Second";
    Segment a;
    a.id = 0;
    a.start = 0.0;
    a.end = 2.5;
    a.text = " Hello <world> & you --> there.";
    a.tokens = {50364, 15947, 50489};
    a.avgLogprob = -0.25;
    a.noSpeechProb = 0.01;
    a.compressionRatio = 1.1;
    Segment empty;
    empty.id = 1;
    empty.start = 2.5;
    empty.end = 2.5;
    Segment b;
    b.id = 2;
    b.start = 3661.0014;
    b.end = 3662.5;
    b.text = " Second\nline";
    b.tokens = {1, 2};
    b.temperature = 0.2f;
    t.segments = {a, empty, b};
    t.statistics.audioSeconds = 10.0;
    t.statistics.wallSeconds = 2.0;
    t.statistics.encoderMs = 123.5;
    t.statistics.decodeMs = 50.0;
    t.statistics.decodeCalls = 25;
    t.statistics.decodeMsPerToken = 2.0;
    t.statistics.selfCacheBytes = 1024;
    t.statistics.crossCacheBytes = 2048;
    return t;
}
} // namespace

class TestTranscriptExport : public QObject {
    Q_OBJECT
private slots:
    void formatsTimestamps() {
        QCOMPARE(formatTimestamp(0.0, true, ','), std::string("00:00:00,000"));
        QCOMPARE(formatTimestamp(2.5, false, '.'), std::string("00:02.500"));
        QCOMPARE(formatTimestamp(61.0014, true, ','), std::string("00:01:01,001"));
        QCOMPARE(formatTimestamp(3661.9996, false, '.'), std::string("01:01:02.000"));  // carries into seconds
        QCOMPARE(formatTimestamp(59.9999, true, ','), std::string("00:01:00,000"));
        QCOMPARE(formatTimestamp(-1.0, true, ','), std::string("00:00:00,000"));
        QCOMPARE(formatTimestamp(36000.0, false, '.'), std::string("10:00:00.000"));
    }

    void writesSrt() {
        const std::string srt = toSrt(sample());
        const std::string expected = "1\n00:00:00,000 --> 00:00:02,500\nHello <world> & you -> there.\n\n"
                                     "2\n01:01:01,001 --> 01:01:02,500\nSecond line\n\n";
        QCOMPARE(srt, expected);
    }

    void writesVtt() {
        const std::string vtt = toVtt(sample());
        const std::string expected = "WEBVTT\n\n00:00.000 --> 00:02.500\nHello &lt;world&gt; &amp; you -&gt; there.\n\n"
                                     "01:01:01.001 --> 01:01:02.500\nSecond line\n\n";
        QCOMPARE(vtt, expected);
    }

    void writesTxt() { QCOMPARE(toTxt(sample()), std::string("Hello <world> & you -> there.\nSecond line\n")); }

    void writesJsonThatParsesBack() {
        auto doc = parseJson(toJson(sample()));
        QVERIFY2(doc.ok(), doc.ok() ? "" : doc.message().c_str());
        const json& j = doc.value();
        QCOMPARE(j["language"].get<std::string>(), std::string("en"));
        QCOMPARE(j["source"].get<std::string>(), std::string("clip.wav"));
        const auto& segments = j["segments"];
        QCOMPARE(segments.size(), size_t(3));
        QCOMPARE(segments[0]["text"].get<std::string>(), std::string(" Hello <world> & you --> there."));
        QCOMPARE(segments[0]["end"].get<double>(), 2.5);
        QCOMPARE(segments[0]["tokens"].size(), size_t(3));
        QCOMPARE(segments[0]["tokens"][1].get<int64_t>(), int64_t(15947));
        QCOMPARE(segments[0]["avg_logprob"].get<double>(), -0.25);
        QCOMPARE(segments[0]["no_speech_prob"].get<double>(), 0.01);
        QCOMPARE(segments[2]["text"].get<std::string>(), std::string(" Second\nline"));
        QVERIFY(std::abs(segments[2]["temperature"].get<double>() - 0.2) < 1e-6);
        const json& stats = j["statistics"];
        QCOMPARE(stats["encoder_ms"].get<double>(), 123.5);
        QCOMPARE(stats["decode_ms_per_token"].get<double>(), 2.0);
        QCOMPARE(stats["real_time_factor"].get<double>(), 0.2);
        QCOMPARE(stats["self_cache_bytes"].get<int64_t>(), int64_t(1024));
        QCOMPARE(stats["cross_cache_bytes"].get<int64_t>(), int64_t(2048));
    }

    void parsesFormats() {
        QVERIFY(parseExportFormat("srt").ok());
        QCOMPARE(int(parseExportFormat("vtt").value()), int(ExportFormat::Vtt));
        auto bad = parseExportFormat("docx");
        QVERIFY(!bad.ok());
        QVERIFY(bad.message().find("docx") != std::string::npos);
        QCOMPARE(std::string(fileExtension(ExportFormat::Json)), std::string("json"));
    }
};

QTEST_APPLESS_MAIN(TestTranscriptExport)
#include "tst_transcript_export.moc"
