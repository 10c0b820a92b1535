// The streaming session's ordering invariant under random capture timing: committed audio is
// never committed twice. Runs the real session (Silero VAD, the engine with a small random-weight
// model and the real vocabulary, the mel stream, the commit policies) on speech cut from jfk.wav
// with pauses at random offsets, delivered in random bursts (a device block at a time, or seconds
// at once, as at a sound server's start or while a step runs late), with random steps, window
// lengths, VAD pauses and commit policies (LocalAgreement, AlignAtt, at utterance ends). Every run
// checks: each committed piece starts at or after the previous one's end, the session's guard
// against committing audio twice never had to act, every sample read was processed, and each
// utterance with committed text has its final latency. Seeded; bounded by a count of runs, never
// by time.
#include "burst_source.h"
#include "engine_test_model.h"

#include "core/engine/engine.h"
#include "core/streaming/streaming_session.h"

#include <QtTest>

#include <random>

using namespace hearsay;

namespace {

constexpr int kRuns = 1000;
constexpr uint64_t kSeed = 20261127;

struct Run {
    StreamingSummary summary;
    std::vector<CommittedText> committed;
};

} // namespace

class TestStreamingInvariants : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::optional<Engine> m_engine;
    std::vector<float> m_speech;

    // A clip: silence, then one to three pieces of speech (random parts of jfk.wav) with a pause
    // of random length after each.
    std::vector<float> clip(std::mt19937_64& rng) const {
        auto uniform = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
        auto samples = [](double seconds) { return size_t(seconds * 16000.0); };
        std::vector<float> out(samples(uniform(0.0, 0.6)), 0.0f);
        const int pieces = std::uniform_int_distribution<int>(1, 2)(rng);
        for (int p = 0; p < pieces; ++p) {
            const size_t length = samples(uniform(0.4, 2.0));
            const size_t from = std::uniform_int_distribution<size_t>(0, m_speech.size() - length)(rng);
            out.insert(out.end(), m_speech.begin() + std::ptrdiff_t(from), m_speech.begin() + std::ptrdiff_t(from + length));
            out.resize(out.size() + samples(uniform(0.05, 1.0)), 0.0f);
        }
        return out;
    }

    // Arrival sizes: mostly device blocks of 10 to 64 ms, now and then a burst of up to 4 s.
    static std::vector<size_t> arrivals(std::mt19937_64& rng, size_t total) {
        std::vector<size_t> out;
        const double burstChance = std::uniform_real_distribution<double>(0.0, 0.5)(rng);
        for (size_t sum = 0; sum < total;) {
            const bool burst = std::bernoulli_distribution(burstChance)(rng);
            const size_t size = burst ? std::uniform_int_distribution<size_t>(4000, 64000)(rng)
                                      : std::uniform_int_distribution<size_t>(160, 1024)(rng);
            out.push_back(size);
            sum += size;
        }
        return out;
    }

    static StreamingOptions options(std::mt19937_64& rng) {
        StreamingOptions o;
        const double steps[] = {0.1, 0.3, 0.5, 0.7, 1.0};
        o.stepSeconds = steps[std::uniform_int_distribution<int>(0, 4)(rng)];
        const CommitPolicy policies[] = {CommitPolicy::LocalAgreement, CommitPolicy::AlignAtt, CommitPolicy::UtteranceEnd};
        o.commit = policies[std::uniform_int_distribution<int>(0, 2)(rng)];
        o.alignAttGuardSeconds = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
        o.minCommitSeconds = std::uniform_real_distribution<double>(0.0, 1.5)(rng);
        o.minWindowSeconds = 0.1;
        o.maxWindowSeconds = std::uniform_real_distribution<double>(o.stepSeconds + 1.0, 6.0)(rng);
        o.trimSeconds = std::uniform_real_distribution<double>(0.5, o.maxWindowSeconds)(rng);
        o.contextSilenceSeconds = std::bernoulli_distribution(0.3)(rng) ? std::uniform_real_distribution<double>(0.1, 2.0)(rng) : 0.0;
        o.silenceKeepSeconds = std::uniform_real_distribution<double>(0.0, 1.5)(rng);
        const int pauses[] = {100, 200, 300, 500};
        o.vad.minSilenceMs = pauses[std::uniform_int_distribution<int>(0, 3)(rng)];
        o.vad.minSpeechMs = 100;
        o.audioContextPaddingSeconds = 0.0;  // encode only the window: the random model is there for its tokens
        o.maxSampledTokens = 2;
        o.decoding.language = "en";
        o.thresholds.noSpeech.reset();        // the random model's no-speech probability means nothing
        return o;
    }

    Run stream(std::vector<float> samples, std::vector<size_t> arrivals, const StreamingOptions& options) {
        Run run;
        test::BurstSource source(std::move(samples), std::move(arrivals));
        StreamingCallbacks callbacks;
        callbacks.committed = [&](const CommittedText& c) { run.committed.push_back(c); };
        auto session = StreamingSession::create(*m_engine, source, options, callbacks);
        if (!session) {
            run.summary.error = session.message();
            return run;
        }
        run.summary = session.value()->run();
        return run;
    }

    // Empty when the run keeps the invariant, else what broke it.
    static QString violation(const Run& run) {
        if (!run.summary.error.empty()) return "error: " + QString::fromStdString(run.summary.error);
        if (run.summary.samplesProcessed != run.summary.samplesRead) return "samples read but not processed";
        if (run.summary.recommitsPrevented != 0) {
            return QString("the guard against committing audio twice acted %1 times").arg(run.summary.recommitsPrevented);
        }
        for (size_t i = 0; i < run.committed.size(); ++i) {
            const CommittedText& c = run.committed[i];
            if (!(c.start <= c.end)) return QString("piece %1 ends (%2) before it starts (%3)").arg(i).arg(c.end).arg(c.start);
            if (i > 0 && c.start < run.committed[i - 1].end) {
                return QString("piece %1 (%2-%3 s) starts before the end of the piece before it (%4-%5 s)")
                    .arg(i).arg(c.start).arg(c.end).arg(run.committed[i - 1].start).arg(run.committed[i - 1].end);
            }
        }
        // The final latency: one per utterance whose words were committed (the stream's end
        // closes the last one), each the commit latency of a committed word.
        const LatencySummary& final = run.summary.finalLatency;
        if (!run.committed.empty() && final.count < 1) return "text was committed but no final latency was recorded";
        if (final.count > run.summary.utterances + 1) {
            return QString("%1 final latencies for %2 utterances").arg(final.count).arg(run.summary.utterances);
        }
        if (final.count > 0 && final.max > run.summary.commitLatency.max) return "a final latency that is no commit latency";
        return {};
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const std::string path = m_dir.filePath("model").toStdString();
        auto written = test::writeTestModel(path, "64x2x2", 11);
        QVERIFY2(written.ok(), written.ok() ? "" : written.message().c_str());
        EngineOptions engineOptions;
        engineOptions.backend = BackendKind::Cpu;
        engineOptions.backendOptions.threads = 1;
        auto engine = Engine::load(path, engineOptions);
        QVERIFY2(engine.ok(), engine.ok() ? "" : engine.message().c_str());
        m_engine = std::move(engine).value();
        auto speech = readPcm16Wav(std::string(HEARSAY_SHARED_DATA_DIR) + "/jfk.wav");
        QVERIFY2(speech.ok(), speech.ok() ? "" : speech.message().c_str());
        m_speech = std::move(speech).value();
    }

    // kRuns random runs; the first run that breaks the invariant fails with its seed and options.
    void committedAudioIsNeverCommittedTwice() {
        int committedPieces = 0, utterances = 0, bursts = 0;
        int policyRuns[3] = {0, 0, 0};
        for (int r = 0; r < kRuns; ++r) {
            std::mt19937_64 rng(kSeed + uint64_t(r));
            const StreamingOptions o = options(rng);
            std::vector<float> samples = clip(rng);
            std::vector<size_t> script = arrivals(rng, samples.size());
            for (size_t a : script) bursts += a >= 4000 ? 1 : 0;
            const Run run = stream(std::move(samples), std::move(script), o);
            const QString broken = violation(run);
            QVERIFY2(broken.isEmpty(), qPrintable(QString("run %1 (%2 commits, step %3 s, window %4/%5 s, context %6 s, VAD pause %7 ms): %8")
                                                      .arg(r).arg(commitPolicyName(o.commit)).arg(o.stepSeconds).arg(o.trimSeconds)
                                                      .arg(o.maxWindowSeconds).arg(o.contextSilenceSeconds).arg(o.vad.minSilenceMs)
                                                      .arg(broken)));
            ++policyRuns[int(o.commit)];
            committedPieces += int(run.committed.size());
            utterances += run.summary.utterances;
        }
        qInfo("%d runs: %d committed pieces, %d utterance ends, %d bursts", kRuns, committedPieces, utterances, bursts);
        // The runs exercise what they are for: text is committed, utterances end, bursts arrive.
        QVERIFY(committedPieces > kRuns);
        QVERIFY(utterances > kRuns);
        QVERIFY(bursts > kRuns);
        for (int runs : policyRuns) QVERIFY(runs > kRuns / 4);  // every commit policy is exercised
    }
};

QTEST_APPLESS_MAIN(TestStreamingInvariants)
#include "tst_streaming_invariants.moc"
