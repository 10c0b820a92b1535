// A file played as live input through the ring buffer: at 10× real time it delivers exactly the
// file (count and values) with no overflow and never ahead of its schedule; as fast as
// possible it waits for a slow consumer instead of dropping; paced, a stalled consumer loses
// audio that is counted, not hidden; stop drains, restart continues the numbering; a
// truncated file fails with what came before it kept; the level meter reads a known tone.
#include <QtTest>

#ifdef HEARSAY_HAVE_AUDIO  // hearsay_audio is not built with HEARSAY_ENGINE_ONLY

#include "core/audio/audio_writer.h"
#include "core/audio/simulated_live_source.h"
#include "wav_reader.h"

#include <cmath>
#include <numbers>
#include <random>
#include <thread>

using namespace hearsay;
using Clock = std::chrono::steady_clock;

namespace {

const QString kJfk = QStringLiteral(HEARSAY_SHARED_DATA_DIR) + "/jfk.wav";

std::vector<float> jfkSamples() {
    const Pcm16Wav wav = readPcm16Wav(kJfk);
    std::vector<float> out(wav.samples.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = float(wav.samples[i]) / 32768.0f;
    return out;
}

// Reads until the source's end (or the timeout); calls `each` after every read.
template <class Each>
bool readToEnd(AudioSource& source, std::vector<float>& out, int timeoutMs, Each each) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
    while (!source.atEnd()) {
        if (Clock::now() > deadline) return false;
        source.waitForData(std::chrono::milliseconds(100));
        source.readAll(out);
        each();
    }
    return true;
}
bool readToEnd(AudioSource& source, std::vector<float>& out, int timeoutMs = 120000) {
    return readToEnd(source, out, timeoutMs, [] {});
}

} // namespace

class TestSimulatedLiveSource : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY2(QFile::exists(kJfk), qPrintable("missing " + kJfk + " (the shared test data, ../shared/data)"));
    }

    void tenTimesRealTimeDeliversTheFileExactly() {
        SimulatedLiveOptions options;
        options.speed = 10.0;
        auto opened = SimulatedLiveSource::open(kJfk.toStdString(), options);
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.message().c_str());
        SimulatedLiveSource& source = *opened.value();
        QCOMPARE(source.status().state, SourceState::Idle);
        QVERIFY(!source.timeOfSample(0));

        const size_t chunk = 320;  // 20 ms, the default
        const double rate = 16000.0 * options.speed;
        // Read before start(): the feeder may push its first chunks while start() returns (a slow
        // start under a sanitizer), and the lower bound below is counted from the start.
        const auto started = Clock::now();
        QVERIFY(source.start().ok());
        QCOMPARE(source.status().state, SourceState::Running);
        std::vector<float> got;
        uint64_t aheadOfSchedule = 0;
        // Never ahead of schedule: by any moment t, at most (t - start) × 16000 × 10 samples
        // (+ the chunk in flight) can have been pushed. Counted before the clock is read, so
        // a loaded machine can only make this looser, never fail it.
        QVERIFY(readToEnd(source, got, 120000, [&] {
            const uint64_t captured = source.counters().capturedSamples;
            const auto anchor = source.timeOfSample(0);
            if (!anchor) return;
            const double elapsed = std::chrono::duration<double>(Clock::now() - *anchor).count();
            if (double(captured) > elapsed * rate + double(chunk)) ++aheadOfSchedule;
        }));
        const double seconds = std::chrono::duration<double>(Clock::now() - started).count();

        const std::vector<float> jfk = jfkSamples();
        QCOMPARE(got.size(), jfk.size());
        QVERIFY2(got == jfk, "the samples differ from jfk.wav's");
        const SourceCounters c = source.counters();
        QCOMPARE(c.capturedSamples, uint64_t(jfk.size()));
        QCOMPARE(c.readSamples, uint64_t(jfk.size()));
        QCOMPARE(c.overflowEvents, uint64_t(0));
        QCOMPARE(c.droppedSamples, uint64_t(0));
        QCOMPARE(source.status().state, SourceState::Finished);
        QCOMPARE(source.status().message, std::string("end of file"));
        QCOMPARE(aheadOfSchedule, uint64_t(0));
        // 11 s at 10×: not before its last chunk was due (1.08 s); how much later depends on the machine.
        qDebug("11 s of audio at 10x took %.2f s", seconds);
        QVERIFY(seconds >= double(jfk.size() - chunk) / rate);
        // The sample clock: sample n was "captured" n / 160000 s after sample 0.
        const double span = std::chrono::duration<double>(*source.timeOfSample(160000) - *source.timeOfSample(0)).count();
        QVERIFY(std::abs(span - 1.0) < 1e-6);
        QCOMPARE(source.waitForData(std::chrono::milliseconds(10)), WaitResult::Ended);
    }

    // As fast as possible through a tiny ring and a slow consumer: the feeder waits, nothing
    // is dropped, and the samples are exact.
    void asFastAsPossibleWaitsForTheConsumer() {
        SimulatedLiveOptions options;
        options.speed = 0.0;
        options.ringSeconds = 0.1;
        auto opened = SimulatedLiveSource::open(kJfk.toStdString(), options);
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.message().c_str());
        SimulatedLiveSource& source = *opened.value();
        QVERIFY(source.start().ok());
        std::vector<float> got;
        std::vector<float> piece(700);
        while (!source.atEnd()) {
            source.waitForData(std::chrono::milliseconds(100), 500);
            const size_t n = source.read(piece);
            got.insert(got.end(), piece.begin(), piece.begin() + long(n));
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        QVERIFY(got == jfkSamples());
        QCOMPARE(source.counters().overflowEvents, uint64_t(0));
        QCOMPARE(source.counters().droppedSamples, uint64_t(0));
        QVERIFY(!source.timeOfSample(0));  // unpaced: no real-time clock
    }

    // Paced like a microphone, with a consumer that stops reading: the ring fills, the rest is
    // dropped and counted, and what was kept is the file's beginning, exact.
    void pacedSourceCountsWhatAStalledConsumerLoses() {
        SimulatedLiveOptions options;
        options.speed = 40.0;
        options.ringSeconds = 0.5;  // 8000 samples, rounded up to 8192
        auto opened = SimulatedLiveSource::open(kJfk.toStdString(), options);
        QVERIFY(opened.ok());
        SimulatedLiveSource& source = *opened.value();
        QVERIFY(source.start().ok());
        const auto deadline = Clock::now() + std::chrono::seconds(60);
        while (source.status().running() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        QCOMPARE(source.status().state, SourceState::Finished);
        std::vector<float> got;
        QVERIFY(readToEnd(source, got));
        const std::vector<float> jfk = jfkSamples();
        const SourceCounters c = source.counters();
        qDebug("kept %zu samples, dropped %llu in %llu overflow events", got.size(), (unsigned long long)c.droppedSamples,
               (unsigned long long)c.overflowEvents);
        QCOMPARE(got.size(), size_t(8192));
        QVERIFY(std::equal(got.begin(), got.end(), jfk.begin()));
        QCOMPARE(c.droppedSamples, uint64_t(jfk.size() - got.size()));
        QVERIFY(c.overflowEvents > 0);
        QCOMPARE(c.capturedSamples, uint64_t(got.size()));
        QCOMPARE(c.readSamples, uint64_t(got.size()));
    }

    // stop() drains (everything pushed stays readable); start() plays the file again and the
    // sample numbering goes on.
    void stopDrainsAndRestartContinues() {
        SimulatedLiveOptions options;
        options.speed = 5.0;
        auto opened = SimulatedLiveSource::open(kJfk.toStdString(), options);
        QVERIFY(opened.ok());
        SimulatedLiveSource& source = *opened.value();
        QVERIFY(source.start().ok());
        QCOMPARE(source.waitForData(std::chrono::seconds(30), 16000), WaitResult::Ready);
        std::vector<float> first(4000);
        QCOMPARE(source.read(first), size_t(4000));  // part read while running...
        source.stop();
        QCOMPARE(source.status().state, SourceState::Finished);
        QCOMPARE(source.status().message, std::string("stopped"));
        QVERIFY(readToEnd(source, first, 10000));  // ...the rest after the stop
        const std::vector<float> jfk = jfkSamples();
        QVERIFY(first.size() >= 16000 && first.size() < jfk.size());
        QVERIFY(std::equal(first.begin(), first.end(), jfk.begin()));
        QCOMPARE(source.counters().readSamples, uint64_t(first.size()));
        QCOMPARE(source.counters().capturedSamples, uint64_t(first.size()));
        const auto endOfFirst = *source.timeOfSample(first.size() - 1);

        QVERIFY(source.start().ok());
        std::vector<float> second;
        QVERIFY(readToEnd(source, second));
        QVERIFY(second == jfk);
        QCOMPARE(source.counters().readSamples, uint64_t(first.size() + jfk.size()));
        QCOMPARE(source.counters().capturedSamples, uint64_t(first.size() + jfk.size()));
        QVERIFY(*source.timeOfSample(first.size()) > endOfFirst);  // the second run began later
    }

    void waitsWithATimeout() {
        SimulatedLiveOptions options;
        options.speed = 1.0;
        auto opened = SimulatedLiveSource::open(kJfk.toStdString(), options);
        QVERIFY(opened.ok());
        SimulatedLiveSource& source = *opened.value();
        QCOMPARE(source.waitForData(std::chrono::milliseconds(10)), WaitResult::Ended);  // not started
        QVERIFY(source.start().ok());
        // Asking for more than the whole file while it plays in real time: a timeout, not a hang.
        const auto before = Clock::now();
        QCOMPARE(source.waitForData(std::chrono::milliseconds(200), 1'000'000), WaitResult::Timeout);
        QVERIFY(Clock::now() - before >= std::chrono::milliseconds(200));
        QCOMPARE(source.waitForData(std::chrono::seconds(30), 3200), WaitResult::Ready);  // 0.2 s of audio
        std::vector<float> got;
        QVERIFY(source.readAll(got) >= 3200);
        // A stop from another thread wakes a consumer waiting for more than will come.
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            source.stop();
        });
        const WaitResult r = source.waitForData(std::chrono::seconds(60), 1'000'000);
        stopper.join();
        QVERIFY(r == WaitResult::Ready || r == WaitResult::Ended);
        QVERIFY(readToEnd(source, got, 10000));
        QVERIFY(std::equal(got.begin(), got.end(), jfkSamples().begin()));
    }

    void truncatedFileFailsAndKeepsWhatCameBefore() {
        QTemporaryDir dir;
        const QString path = dir.filePath("cut.flac");
        std::mt19937 rng(5);
        std::normal_distribution<float> noise(0.0f, 0.1f);
        std::vector<float> samples(16000 * 4);
        for (auto& s : samples) s = noise(rng);
        QVERIFY(writeAudioFile(path.toStdString(), samples.data(), samples.size(), 16000, 1, AudioFileFormat::Flac16).ok());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.resize(file.size() / 2));
        file.close();
        SimulatedLiveOptions options;
        options.speed = 0.0;
        auto opened = SimulatedLiveSource::open(path.toStdString(), options);
        QVERIFY2(opened.ok(), "a truncated file opens: the damage is found while reading");
        SimulatedLiveSource& source = *opened.value();
        QVERIFY(source.start().ok());
        std::vector<float> got;
        QVERIFY(readToEnd(source, got));
        qDebug("%s; %zu samples kept", source.status().message.c_str(), got.size());
        QCOMPARE(source.status().state, SourceState::Failed);
        QVERIFY(QString::fromStdString(source.status().message).contains("truncated"));
        QVERIFY(QString::fromStdString(source.status().message).contains(path));
        QVERIFY(got.size() > 8000 && got.size() < samples.size());
        for (size_t i = 0; i < got.size(); ++i) {
            if (std::abs(got[i] - samples[i]) > 1e-4f) QFAIL(qPrintable(QString("sample %1 differs").arg(i)));
        }
    }

    // The level meter over a known tone: a 0.5 sine has rms 0.354 and peak 0.5.
    void levelMeterReadsATone() {
        QTemporaryDir dir;
        const QString path = dir.filePath("tone.wav");
        std::vector<float> tone(16000);
        for (size_t i = 0; i < tone.size(); ++i) tone[i] = float(0.5 * std::sin(2.0 * std::numbers::pi * 1000.0 * double(i) / 16000));
        QVERIFY(writeAudioFile(path.toStdString(), tone.data(), tone.size(), 16000, 1, AudioFileFormat::WavFloat).ok());
        SimulatedLiveOptions options;
        options.speed = 0.0;
        auto opened = SimulatedLiveSource::open(path.toStdString(), options);
        QVERIFY(opened.ok());
        QCOMPARE(opened.value()->level().windows, uint64_t(0));
        QVERIFY(opened.value()->start().ok());
        std::vector<float> got;
        QVERIFY(readToEnd(*opened.value(), got));
        const InputLevel level = opened.value()->level();
        qDebug("rms %.5f peak %.5f after %llu windows", double(level.rms), double(level.peak), (unsigned long long)level.windows);
        QCOMPARE(level.windows, uint64_t(20));  // 1 s in 50 ms windows
        QVERIFY(std::abs(level.rms - 0.5f / std::sqrt(2.0f)) < 1e-3f);
        QVERIFY(std::abs(level.peak - 0.5f) < 1e-3f);
    }

    void badInputIsRefused() {
        SimulatedLiveOptions options;
        auto missing = SimulatedLiveSource::open("/nonexistent/file.wav", options);
        QVERIFY(!missing.ok());
        QVERIFY(QString::fromStdString(missing.message()).contains("/nonexistent/file.wav"));
        options.speed = -1.0;
        QVERIFY(!SimulatedLiveSource::open(kJfk.toStdString(), options).ok());
        options.speed = 1.0;
        options.ringSeconds = 0.0;
        QVERIFY(!SimulatedLiveSource::open(kJfk.toStdString(), options).ok());
    }
};

#else

class TestSimulatedLiveSource : public QObject {
    Q_OBJECT
private slots:
    void audioLibraryMissing() { QSKIP("built with HEARSAY_ENGINE_ONLY: no hearsay_audio"); }
};

#endif

QTEST_APPLESS_MAIN(TestSimulatedLiveSource)
#include "tst_simulated_live_source.moc"
