// Soak: the real tiny.en model transcribing a long stream of speech and pauses played at real-time
// pace (SimulatedLiveSource, speed 1 by default), the cache switches flipped every few seconds from
// another thread, as a user at the settings panel would. Resident memory after a whole cycle must
// not grow by more than 5 MB, the decoded windows must stay trimmed, no audio may be dropped.
// HEARSAY_SOAK_MINUTES (default 5; scripts/test.sh runs 3, and 5 with --full), HEARSAY_SOAK_SPEED (default 1) and
// HEARSAY_SOAK_CSV (a file for one row per step: time, RSS, latency, switches, window) set the run;
// (HEARSAY_SOAK_FLIP_SECONDS: a fifteenth of the run) scripts/soak.sh runs the 60-minute version.
// CTest labels `real` and `soak` (scripts/test.sh runs it alone, after the rest).
#include "real_models.h"

#include "core/audio/audio_writer.h"
#include "core/audio/simulated_live_source.h"
#include "core/bench/peak_memory.h"
#include "core/engine/engine.h"
#include "core/streaming/streaming_session.h"

#include <QtTest>

#include <algorithm>
#include <cstdio>
#include <thread>

using namespace hearsay;
namespace fs = std::filesystem;

namespace {

double envDouble(const char* name, double fallback) {
    const QByteArray v = qgetenv(name);
    bool ok = false;
    const double d = v.toDouble(&ok);
    return ok && d > 0 ? d : fallback;
}

struct Row {
    double streamSeconds = 0;
    double wallSeconds = 0;
    size_t rss = 0;
    double behind = 0;
    double stepMs = 0;
    double windowSeconds = 0;  // audio in the decoded window: the work a step does
    bool decoded = false, selfCache = true, crossCache = true;
    size_t cacheBytes = 0;
};

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

class TestStreamingSoak : public QObject {
    Q_OBJECT
    QTemporaryDir m_tmp;

private slots:
    void soak() {
        QVERIFY(m_tmp.isValid());
        const QString missing = real_models::missing("tiny.en");
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
        const double minutes = envDouble("HEARSAY_SOAK_MINUTES", 5.0);
        const double speed = envDouble("HEARSAY_SOAK_SPEED", 1.0);
        // The switches change every `flip` seconds of audio (20 s in the 5-minute run, 4 minutes
        // in the hour), cycling through both on, self off, both off, cross off.
        // (Below 3 minutes the periods get too short for the steps to compare: 3 is the shortest.)
        const double flip = envDouble("HEARSAY_SOAK_FLIP_SECONDS", minutes * 60.0 / 15.0);

        // Speech and pauses, in turns, until the wanted length: the shared clips and the
        // rendered story paragraphs, each followed by 1 to 6 s of silence.
        const QString rendered = real_models::renderSpeech(m_tmp.path());
        QVERIFY2(rendered.isEmpty(), qPrintable(rendered));
        std::vector<std::vector<float>> clips;
        for (const char* name : {"jfk.wav", "speech-30s-a.wav", "speech-30s-b.wav"})
            clips.push_back(real_models::readClip(QStringLiteral(HEARSAY_SHARED_DATA_DIR "/") + name));
        for (const QString& name : QDir(m_tmp.path()).entryList({"story-*.wav"}, QDir::Files, QDir::Name))
            clips.push_back(real_models::readClip(m_tmp.path() + "/" + name));
        for (const auto& c : clips) QVERIFY(!c.empty());
        std::vector<float> audio;
        const size_t total = size_t(minutes * 60.0 * 16000.0);
        for (size_t i = 0; audio.size() < total; ++i) {
            const auto& c = clips[i % clips.size()];
            audio.insert(audio.end(), c.begin(), c.end());
            audio.insert(audio.end(), size_t(16000 * (1 + i % 6)), 0.0f);
        }
        audio.resize(total);
        const fs::path file = fs::path(m_tmp.path().toStdString()) / "soak.wav";
        QVERIFY(writeAudioFile(file, audio.data(), audio.size(), 16000, 1, AudioFileFormat::Wav16));
        std::vector<float>().swap(audio);

        auto engine = Engine::load(real_models::directory() / "tiny.en", EngineOptions{BackendKind::Cpu, BackendOptions{1, 0}});
        QVERIFY2(engine, engine ? "" : engine.message().c_str());
        SimulatedLiveOptions live;
        live.speed = speed;
        auto source = SimulatedLiveSource::open(file, live);
        QVERIFY2(source, source ? "" : source.message().c_str());

        std::vector<Row> rows;
        std::vector<std::pair<double, double>> commitLatency;  // (stream seconds, latency)
        QElapsedTimer wall;
        wall.start();
        StreamingCallbacks callbacks;
        callbacks.step = [&](const StreamingStep& s) {
            Row r;
            r.streamSeconds = s.streamSeconds;
            r.wallSeconds = double(wall.elapsed()) / 1000.0;
            r.rss = currentResidentBytes();
            r.behind = s.behindSeconds;
            r.stepMs = s.stepMs;
            r.decoded = s.decoded;
            r.windowSeconds = s.windowSeconds;
            r.selfCache = s.selfCache;
            r.crossCache = s.crossCache;
            r.cacheBytes = s.cache.selfAllocated + s.cache.crossAllocated + s.cache.workspaceBytes;
            rows.push_back(r);
        };
        callbacks.committed = [&](const CommittedText& c) {
            for (double l : c.commitLatency) commitLatency.emplace_back(c.end, l);
        };
        auto controls = std::make_shared<SessionControls>();
        const StreamingOptions streaming;
        auto session = StreamingSession::create(engine.value(), *source.value(), streaming, callbacks, controls);
        QVERIFY2(session, session ? "" : session.message().c_str());

        // The user at the settings panel: every `flip` seconds, the next switch state.
        std::atomic<bool> done{false};
        std::thread user([&] {
            const auto start = std::chrono::steady_clock::now();
            for (int k = 1; !done; ++k) {
                const auto at = start + std::chrono::duration<double>(flip * k / speed);
                while (!done && std::chrono::steady_clock::now() < at) std::this_thread::sleep_for(std::chrono::milliseconds(50));
                controls->selfCache = (k % 4 == 0 || k % 4 == 3);
                controls->crossCache = (k % 4 == 0 || k % 4 == 1);
            }
        });
        const StreamingSummary summary = session.value()->run();
        done = true;
        user.join();

        QVERIFY2(summary.error.empty(), summary.error.c_str());
        QCOMPARE(summary.droppedSamples, uint64_t(0));
        QCOMPARE(summary.samplesProcessed, summary.samplesRead);
        QVERIFY(summary.decodedSteps > 0 && !summary.text.empty());
        QVERIFY(!rows.empty());
        int flips = 0;
        for (size_t i = 1; i < rows.size(); ++i)
            flips += rows[i].selfCache != rows[i - 1].selfCache || rows[i].crossCache != rows[i - 1].crossCache;
        QVERIFY2(flips >= int(minutes * 60.0 / flip) - 2, qPrintable(QString("%1 switch changes seen").arg(flips)));

        if (const QByteArray csv = qgetenv("HEARSAY_SOAK_CSV"); !csv.isEmpty()) {
            QFile out(QString::fromLocal8Bit(csv));
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write("stream_s,wall_s,rss_mb,behind_s,step_ms,decoded,self_cache,cross_cache,cache_mb,window_s\n");
            for (const Row& r : rows)
                out.write(QString::asprintf("%.2f,%.2f,%.3f,%.3f,%.1f,%d,%d,%d,%.3f,%.2f\n", r.streamSeconds, r.wallSeconds,
                                            double(r.rss) / 1048576.0, r.behind, r.stepMs, int(r.decoded), int(r.selfCache),
                                            int(r.crossCache), double(r.cacheBytes) / 1048576.0, r.windowSeconds)
                              .toUtf8());
            QFile lat(QString::fromLocal8Bit(csv) + ".latency.csv");
            QVERIFY(lat.open(QIODevice::WriteOnly | QIODevice::Truncate));
            lat.write("stream_s,commit_latency_s\n");
            for (const auto& [t, l] : commitLatency) lat.write(QString::asprintf("%.2f,%.3f\n", t, l).toUtf8());
        }

        // Like is compared with like: the periods with both caches on (the memory and the speed
        // of each switch state differ); the last is compared with a baseline after the warm-up.
        // The resident set may not grow by more than 5 MB between them, nor the audio a decoded
        // step works on (windows that stop being trimmed are what would make latency grow). The
        // commit latency is printed, not asserted: it depends on the machine's speed and load,
        // and the streaming benchmark (hearsay-cli bench --streaming) is where it is measured.
        std::vector<std::pair<size_t, size_t>> bothOn;  // [first, last) rows
        for (size_t i = 0; i < rows.size();) {
            if (!(rows[i].selfCache && rows[i].crossCache)) {
                ++i;
                continue;
            }
            size_t j = i;
            while (j < rows.size() && rows[j].selfCache && rows[j].crossCache) ++j;
            if (j - i >= 5) bothOn.emplace_back(i, j);
            i = j;
        }
        QVERIFY2(bothOn.size() >= 3, qPrintable(QString("%1 periods with both caches on").arg(bothOn.size())));
        auto rssMedian = [&](std::pair<size_t, size_t> period) {
            std::vector<double> v;
            for (size_t i = period.first; i < period.second; ++i) v.push_back(double(rows[i].rss));
            return median(v);
        };
        auto latencyMedian = [&](std::pair<size_t, size_t> period) {
            const double from = rows[period.first].streamSeconds, to = rows[period.second - 1].streamSeconds;
            std::vector<double> v;
            for (const auto& [t, l] : commitLatency)
                if (t >= from && t <= to) v.push_back(l);
            return median(v);
        };
        // The baseline is the middle period: the first half of the run is the warm-up (every
        // switch state visited at least once, the prompt grown to its longest, the caches' pages
        // touched as deep as the context goes).
        const auto baseline = bothOn[bothOn.size() / 2], lastPeriod = bothOn.back();
        const double warm = rssMedian(baseline), last = rssMedian(lastPeriod);
        const double growthMb = (last - warm) / 1048576.0;
        const double early = latencyMedian(baseline), late = latencyMedian(lastPeriod);
        auto windowMedian = [&](std::pair<size_t, size_t> period) {
            std::vector<double> v;
            for (size_t i = period.first; i < period.second; ++i)
                if (rows[i].decoded) v.push_back(rows[i].windowSeconds);
            return v.empty() ? 0.0 : median(v);
        };
        const double windowEarly = windowMedian(baseline), windowLate = windowMedian(lastPeriod);
        double maxBehind = 0.0;
        for (const Row& r : rows) maxBehind = std::max(maxBehind, r.behind);
        qInfo("soak %.1f min at %.1fx: %d steps (%d decoded), %d switch changes, RSS %.1f MB after the warm-up -> %.1f MB at the end "
              "(%+.2f MB, both caches on), commit latency median %.2f s then %.2f s, most behind %.2f s, RTF %.3f, dropped %llu",
              rows.back().streamSeconds / 60.0, speed, summary.steps, summary.decodedSteps, flips, warm / 1048576.0, last / 1048576.0, growthMb,
              early, late, maxBehind, summary.realTimeFactor, static_cast<unsigned long long>(summary.droppedSamples));
        QVERIFY2(growthMb <= 5.0, qPrintable(QString("resident memory grew %1 MB after warm-up").arg(growthMb)));
        // Windows are trimmed once longer than trimSeconds (20 s), at their last committed segment
        // boundary, and forced at maxWindowSeconds (28 s) when they have none. Through pauses a
        // window stays short and through continuous speech it sits between the two: the periods'
        // medians differ with what is said in them and with the machine (17.7 to 23.4 s late
        // medians on 2-core VMs, the higher ones on a slower or loaded one, with 1.4 s of new audio
        // a step). A window that stopped being trimmed is forced at 28 s every time; the late
        // median must stay clear of that by 2 s.
        const double windowBound = streaming.maxWindowSeconds - 2.0;
        qInfo("decoded window median %.2f s then %.2f s (trimmed past %.0f s, forced at %.0f s; bound %.0f s)",
              windowEarly, windowLate, streaming.trimSeconds, streaming.maxWindowSeconds, windowBound);
        QVERIFY2(windowLate <= windowBound,
                 qPrintable(QString("decoded windows grew from %1 s to %2 s").arg(windowEarly).arg(windowLate)));
    }
};

QTEST_GUILESS_MAIN(TestStreamingSoak)
#include "tst_streaming_soak.moc"
