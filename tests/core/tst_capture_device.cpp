// Microphone capture through real PortAudio from a real PulseAudio server started by each test
// (a null sink's monitor as the microphone, paplay playing jfk.wav into it): the captured
// 16 kHz audio must be jfk.wav (cross-correlation and level), nothing may overflow, and losing
// the device (sink unloaded, server killed, server frozen) must end in a clear error with the
// audio captured so far kept, then a restart must work. No devices at all: a clear message.
#include <QtTest>

#ifdef HEARSAY_HAVE_AUDIO  // hearsay_audio is not built with HEARSAY_ENGINE_ONLY

#include "core/audio/capture_device.h"
#include "pulse_server.h"
#include "wav_reader.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

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

// Iterative radix-2 FFT, written here so that the check shares nothing with the code tested.
void fft(std::vector<std::complex<double>>& a, bool inverse) {
    const size_t n = a.size();
    for (size_t i = 1, j = 0; i < n; ++i) {
        size_t bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) std::swap(a[i], a[j]);
    }
    for (size_t len = 2; len <= n; len <<= 1) {
        const double angle = 2.0 * std::numbers::pi / double(len) * (inverse ? 1.0 : -1.0);
        const std::complex<double> step(std::cos(angle), std::sin(angle));
        for (size_t i = 0; i < n; i += len) {
            std::complex<double> w(1.0);
            for (size_t k = 0; k < len / 2; ++k) {
                const auto u = a[i + k], v = a[i + k + len / 2] * w;
                a[i + k] = u + v;
                a[i + k + len / 2] = u - v;
                w *= step;
            }
        }
    }
    if (inverse) {
        for (auto& x : a) x /= double(n);
    }
}

struct Match {
    long lag = 0;              // captured[lag + i] lines up with reference[i]
    size_t overlap = 0;        // samples compared
    double correlation = 0.0;  // normalised, over the overlap
    double rmsRatio = 0.0;     // captured rms / reference rms, over the overlap
};

// Where `reference` sits in `captured` (it may start before the capture or be cut short).
Match locate(const std::vector<float>& captured, const std::vector<float>& reference) {
    size_t n = 1;
    while (n < captured.size() + reference.size()) n <<= 1;
    std::vector<std::complex<double>> a(n), b(n);
    for (size_t i = 0; i < captured.size(); ++i) a[i] = captured[i];
    for (size_t i = 0; i < reference.size(); ++i) b[i] = reference[i];
    fft(a, false);
    fft(b, false);
    for (size_t i = 0; i < n; ++i) a[i] *= std::conj(b[i]);
    fft(a, true);
    size_t best = 0;
    for (size_t i = 1; i < n; ++i) {
        if (a[i].real() > a[best].real()) best = i;
    }
    Match m;
    m.lag = best < n / 2 ? long(best) : long(best) - long(n);
    const long begin = std::max(0L, -m.lag);
    const long end = std::min(long(reference.size()), long(captured.size()) - m.lag);
    double xy = 0, xx = 0, yy = 0;
    for (long i = begin; i < end; ++i) {
        const double x = captured[size_t(i + m.lag)], y = reference[size_t(i)];
        xy += x * y;
        xx += x * x;
        yy += y * y;
    }
    m.overlap = end > begin ? size_t(end - begin) : 0;
    m.correlation = xx > 0 && yy > 0 ? xy / std::sqrt(xx * yy) : 0.0;
    m.rmsRatio = yy > 0 ? std::sqrt(xx / yy) : 0.0;
    return m;
}

double rms(const std::vector<float>& x, size_t begin = 0, size_t end = SIZE_MAX) {
    end = std::min(end, x.size());
    double sum = 0;
    for (size_t i = begin; i < end; ++i) sum += double(x[i]) * x[i];
    return end > begin ? std::sqrt(sum / double(end - begin)) : 0.0;
}

// Reads from the source into `out` until done() or the timeout; returns whether done() held.
template <class Done>
bool readUntil(AudioSource& source, std::vector<float>& out, Done done, int timeoutMs, float* peak = nullptr) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
    while (!done()) {
        if (Clock::now() > deadline) return false;
        source.waitForData(std::chrono::milliseconds(50));
        source.readAll(out);
        if (peak) *peak = std::max(*peak, source.level().peak);
    }
    return true;
}

// Reads everything left; false if the source does not reach its end within the timeout.
bool drain(AudioSource& source, std::vector<float>& out, int timeoutMs) {
    return readUntil(source, out, [&] { return source.atEnd(); }, timeoutMs);
}

// Starts capturing from the default input and waits until audio flows (a null sink's monitor
// gives its first audio about 2 s after the stream opens).
QString startAndWaitForAudio(CaptureDevice& device, std::vector<float>& out) {
    if (auto started = device.start(); !started) return QString::fromStdString(started.message());
    if (!readUntil(device, out, [&] { return !out.empty(); }, 20000)) {
        return "no audio within 20 s: " + QString::fromStdString(device.status().message);
    }
    return {};
}

#define START_SERVER(server, ...)                               \
    do {                                                        \
        const QString problem = (server).start(__VA_ARGS__);    \
        QVERIFY2(problem.isEmpty(), qPrintable(problem));       \
    } while (0)

} // namespace

class TestCaptureDevice : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY2(QFile::exists(kJfk), qPrintable("missing " + kJfk + " (the shared test data, ../shared/data)"));
    }

    // No sound server and no capture hardware: an empty list and a clear message. ALSA is
    // given a configuration with only the pulse plugin, so that the machine's own sound cards
    // (a developer's laptop) do not count; the same configuration with a server lists devices.
    // First, while no stream of another test can still hold PortAudio (its device list is
    // only re-read once every handle is gone).
    void noDevicesIsAClearError() {
        QTemporaryDir dir;
        QFile alsa(dir.filePath("asound.conf"));
        QVERIFY(alsa.open(QIODevice::WriteOnly));
        alsa.write("pcm.pulse { type pulse }\nctl.pulse { type pulse }\n"
                   "pcm.!default { type pulse }\nctl.!default { type pulse }\n");
        alsa.close();
        qputenv("ALSA_CONFIG_PATH", alsa.fileName().toUtf8());
        struct Restore {
            ~Restore() { qunsetenv("ALSA_CONFIG_PATH"); }
        } restore;
        {
            PulseServer server;
            START_SERVER(server);
            auto devices = listInputDevices();
            QVERIFY(devices.ok());
            QVERIFY2(!devices->empty(), "the test's ALSA configuration sees no pulse device even with a server");
        }
        // The server is gone; the environment still points at its socket.
        auto devices = listInputDevices();
        QVERIFY2(devices.ok(), devices.ok() ? "" : devices.message().c_str());
        QVERIFY(devices->empty());
        auto opened = CaptureDevice::open();
        QVERIFY(!opened.ok());
        qDebug("%s", opened.message().c_str());
        QVERIFY(QString::fromStdString(opened.message()).contains("no audio input device found"));
    }

    // A start with no JACK server (the usual desktop) prints nothing of JACK's probe: the CLI's
    // device list, run as a user would, has none of the lines libjack writes when it cannot
    // connect, and no other stderr line but its own.
    void quietStartWithoutAJackServer() {
        QProcess cli;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("JACK_NO_START_SERVER", "1");
        cli.setProcessEnvironment(env);
        cli.start(HEARSAY_CLI_PATH, {"audio", "devices"});
        QVERIFY(cli.waitForFinished(60000));
        const QString err = QString::fromUtf8(cli.readAllStandardError());
        for (const char* noise : {"Cannot connect to server", "jack server is not running", "JackShmReadWritePtr"}) {
            QVERIFY2(!err.contains(noise), qPrintable(err));
        }
        for (const QString& line : err.split('\n', Qt::SkipEmptyParts)) {
            QVERIFY2(line.startsWith("hearsay-cli") || line.startsWith("no input devices"), qPrintable(err));
        }
    }

    void listsAndFindsDevices() {
        PulseServer server;
        START_SERVER(server);
        auto devices = listInputDevices();
        QVERIFY2(devices.ok(), devices.ok() ? "" : devices.message().c_str());
        QStringList ids;
        int defaults = 0;
        for (const auto& d : devices.value()) {
            qDebug("%s", d.describe().c_str());
            ids << QString::fromStdString(d.id());
            defaults += d.isDefault;
            QVERIFY(d.maxInputChannels > 0 && d.defaultSampleRate > 0);
        }
        QVERIFY2(ids.contains("ALSA: pulse") && ids.contains("ALSA: default"), qPrintable(ids.join(", ")));
        QCOMPARE(defaults, 1);

        auto byDefault = CaptureDevice::open();
        QVERIFY2(byDefault.ok(), byDefault.ok() ? "" : byDefault.message().c_str());
        QVERIFY(byDefault.value()->device().isDefault);
        CaptureOptions named;
        named.device = "pulse";  // a bare name
        auto byName = CaptureDevice::open(named);
        QVERIFY2(byName.ok(), byName.ok() ? "" : byName.message().c_str());
        QCOMPARE(byName.value()->device().id(), std::string("ALSA: pulse"));
        named.device = "ALSA: pulse";  // an id
        QVERIFY(CaptureDevice::open(named).ok());

        named.device = "no such microphone";
        auto missing = CaptureDevice::open(named);
        QVERIFY(!missing.ok());
        qDebug("%s", missing.message().c_str());
        QVERIFY(QString::fromStdString(missing.message()).contains("no such microphone"));
        QVERIFY2(QString::fromStdString(missing.message()).contains("ALSA: default"), "the message lists the devices");
    }

    void capturesSpeechFromTheServer() {
        PulseServer server;
        START_SERVER(server);
        auto opened = CaptureDevice::open();
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.message().c_str());
        CaptureDevice& device = *opened.value();
        qDebug("%s", device.description().c_str());
        std::vector<float> captured;
        const QString problem = startAndWaitForAudio(device, captured);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(device.status().state, SourceState::Running);

        const auto playedAt = Clock::now();
        QVERIFY(server.play(kJfk));
        float peak = 0.0f;
        QVERIFY2(readUntil(device, captured, [&] { return !server.playing(); }, 60000, &peak),
                 "paplay did not finish");
        QCOMPARE(server.player().exitCode(), 0);
        const size_t afterPlay = captured.size();
        QVERIFY(readUntil(device, captured, [&] { return captured.size() >= afterPlay + 8000; }, 20000));  // 0.5 s more
        device.stop();
        QCOMPARE(device.status().state, SourceState::Finished);
        QVERIFY2(drain(device, captured, 10000), "the stopped source did not reach its end");

        const std::vector<float> jfk = jfkSamples();
        const Match m = locate(captured, jfk);
        qDebug("captured %.2f s; jfk.wav found at %.3f s: correlation %.5f, rms ratio %.4f, peak level %.3f",
               double(captured.size()) / 16000, double(m.lag) / 16000, m.correlation, m.rmsRatio, double(peak));
        QVERIFY2(m.lag >= 0 && m.overlap == jfk.size(), "jfk.wav was not captured whole");
        // Two resamplings (PulseAudio's to the sink's 44.1 kHz, ours back to 16 kHz) leave a
        // fractional-sample offset that costs some correlation: 0.983 to 1.000 measured; a
        // half-sample shift of jfk.wav alone gives 0.980. Unrelated audio gives about 0.
        QVERIFY(m.correlation > 0.95);
        QVERIFY(std::abs(m.rmsRatio - 1.0) < 0.05);
        QVERIFY(rms(captured, 0, size_t(m.lag)) < 0.01);  // silence before it
        QVERIFY(peak > 0.1f);                              // the level meter moved with the speech

        const SourceCounters c = device.counters();
        QCOMPARE(c.overflowEvents, uint64_t(0));
        QCOMPARE(c.droppedSamples, uint64_t(0));
        QCOMPARE(c.readSamples, uint64_t(captured.size()));
        QVERIFY2(std::llabs((long long)c.capturedSamples - (long long)c.readSamples) <= 2,
                 qPrintable(QString("%1 captured, %2 read").arg(c.capturedSamples).arg(c.readSamples)));

        // The sample clock: jfk's first sample cannot have been captured before paplay started.
        const auto first = device.timeOfSample(0), onset = device.timeOfSample(uint64_t(m.lag));
        QVERIFY(first && onset);
        const double onsetAfterPlay = std::chrono::duration<double>(*onset - playedAt).count();
        qDebug("jfk's first sample captured %.3f s after paplay started", onsetAfterPlay);
        QVERIFY(onsetAfterPlay > -0.3);
        QVERIFY(onsetAfterPlay < 15.0);
        QVERIFY(std::abs(std::chrono::duration<double>(*onset - *first).count() - double(m.lag) / 16000) < 1e-6);
    }

    // A consumer that stops reading for longer than the ring holds: the overflow is counted
    // (events and dropped samples), the stream goes on, and what was kept is all readable.
    void slowConsumerOverflowIsCounted() {
        PulseServer server;
        START_SERVER(server);
        CaptureOptions options;
        options.ringSeconds = 0.25;  // 44.1 kHz stereo: 22050 samples, rounded up to 32768 (0.37 s)
        auto opened = CaptureDevice::open(options);
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.message().c_str());
        CaptureDevice& device = *opened.value();
        std::vector<float> captured;
        const QString problem = startAndWaitForAudio(device, captured);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(device.counters().overflowEvents, uint64_t(0));
        QThread::msleep(1500);  // not reading
        QVERIFY(readUntil(device, captured, [&] { return device.counters().overflowEvents > 0; }, 10000));
        QVERIFY(device.status().running());  // an overflow is not a failure
        device.stop();
        QVERIFY(drain(device, captured, 10000));
        const SourceCounters c = device.counters();
        qDebug("%llu overflow events, %.2f s dropped, %.2f s kept", (unsigned long long)c.overflowEvents,
               double(c.droppedSamples) / 16000, double(captured.size()) / 16000);
        QVERIFY(c.droppedSamples > 16000 / 2);  // at least 0.5 s of the 1.5 s pause
        QCOMPARE(c.readSamples, uint64_t(captured.size()));
        QVERIFY(std::llabs((long long)c.capturedSamples - (long long)c.readSamples) <= 2);
    }

    // pactl unload-module removes the microphone mid-stream: the run fails with a clear error,
    // what was captured stays readable, and after the sink is back a restart captures again.
    void sinkUnloadedIsDeviceLostThenRestart() {
        PulseServer server;
        START_SERVER(server);
        auto opened = CaptureDevice::open();
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.message().c_str());
        CaptureDevice& device = *opened.value();
        std::vector<float> captured;
        QString problem = startAndWaitForAudio(device, captured);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(server.play(kJfk));
        const size_t before = captured.size();
        QVERIFY(readUntil(device, captured, [&] { return captured.size() >= before + 3 * 16000; }, 30000));
        QVERIFY2(server.pactl({"unload-module", "module-null-sink"}), qPrintable(server.lastOutput()));
        const auto unloaded = Clock::now();
        QVERIFY2(readUntil(device, captured, [&] { return !device.status().running(); }, 20000),
                 "the lost device was not noticed");
        const SourceStatus status = device.status();
        qDebug("noticed %.2f s after the unload: %s", std::chrono::duration<double>(Clock::now() - unloaded).count(),
               status.message.c_str());
        QCOMPARE(status.state, SourceState::Failed);
        QVERIFY(QString::fromStdString(status.message).contains("lost the audio input device 'ALSA: default'"));
        QVERIFY2(drain(device, captured, 10000), "the failed source did not reach its end");
        QCOMPARE(device.waitForData(std::chrono::milliseconds(10)), WaitResult::Ended);

        // Kept: the speech up to the unload, the start of jfk.wav. The server may hand over a
        // last buffer of silence as the source goes: the final 0.25 s are not compared.
        const std::vector<float> jfk = jfkSamples();
        const Match whole = locate(captured, jfk);
        const Match m = locate(std::vector<float>(captured.begin(), captured.end() - 4000), jfk);
        qDebug("kept %.2f s; jfk.wav at %.3f s, %.2f s of it, correlation %.5f (%.5f with the last 0.25 s)",
               double(captured.size()) / 16000, double(m.lag) / 16000, double(m.overlap) / 16000, m.correlation,
               whole.correlation);
        QVERIFY(m.lag >= 0 && m.overlap >= 2 * 16000);
        QVERIFY(m.correlation > 0.95);
        const SourceCounters lost = device.counters();
        QCOMPARE(lost.readSamples, uint64_t(captured.size()));
        QVERIFY(std::llabs((long long)lost.capturedSamples - (long long)lost.readSamples) <= 2);
        QCOMPARE(lost.overflowEvents, uint64_t(0));
        server.player().waitForFinished(10000);

        // The microphone comes back: the same device object captures again.
        QVERIFY2(server.pactl({"load-module", "module-null-sink", "sink_name=virt"}), qPrintable(server.lastOutput()));
        QVERIFY2(server.pactl({"set-default-source", "virt.monitor"}), qPrintable(server.lastOutput()));
        const size_t firstRun = captured.size();
        std::vector<float> second;
        problem = startAndWaitForAudio(device, second);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QCOMPARE(device.status().state, SourceState::Running);
        QVERIFY(server.play(kJfk));
        QVERIFY(readUntil(device, second, [&] { return !server.playing(); }, 60000));
        device.stop();
        QVERIFY(drain(device, second, 10000));
        const Match again = locate(second, jfk);
        qDebug("after the restart: jfk.wav at %.3f s, correlation %.5f, rms ratio %.4f", double(again.lag) / 16000,
               again.correlation, again.rmsRatio);
        QVERIFY(again.lag >= 0 && again.overlap == jfk.size());
        QVERIFY(again.correlation > 0.95);
        QVERIFY(std::abs(again.rmsRatio - 1.0) < 0.05);
        // Sample numbering went on from the first run.
        QCOMPARE(device.counters().readSamples, uint64_t(firstRun + second.size()));
        QVERIFY(*device.timeOfSample(firstRun) > *device.timeOfSample(firstRun - 1));
    }

    // The server is killed mid-capture: a clear error, not a hang; the audio is kept.
    void serverKilledIsDeviceLost() {
        PulseServer server;
        START_SERVER(server);
        auto opened = CaptureDevice::open();
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.message().c_str());
        CaptureDevice& device = *opened.value();
        std::vector<float> captured;
        const QString problem = startAndWaitForAudio(device, captured);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(server.play(kJfk));
        const size_t before = captured.size();
        QVERIFY(readUntil(device, captured, [&] { return captured.size() >= before + 16000; }, 30000));
        server.signal(SIGKILL);
        const auto killed = Clock::now();
        QVERIFY(server.waitForExit(10000));
        QVERIFY2(readUntil(device, captured, [&] { return !device.status().running(); }, 20000),
                 "the dead server was not noticed");
        qDebug("noticed %.2f s after the kill: %s", std::chrono::duration<double>(Clock::now() - killed).count(),
               device.status().message.c_str());
        QCOMPARE(device.status().state, SourceState::Failed);
        QVERIFY(QString::fromStdString(device.status().message).contains("lost the audio input device"));
        QVERIFY(drain(device, captured, 10000));
        QVERIFY(captured.size() >= before + 16000);
        QCOMPARE(device.counters().readSamples, uint64_t(captured.size()));
    }

    // A frozen server (SIGSTOP): PortAudio's callback just stops coming and its stop/close
    // calls would block; the watchdog ends the run, and stop() and the destructor return.
    void frozenServerIsCaughtByTheWatchdog() {
        PulseServer server;
        START_SERVER(server);
        CaptureOptions options;
        options.stallTimeoutSeconds = 1.5;
        auto opened = CaptureDevice::open(options);
        QVERIFY2(opened.ok(), opened.ok() ? "" : opened.message().c_str());
        auto device = std::move(opened).value();
        std::vector<float> captured;
        const QString problem = startAndWaitForAudio(*device, captured);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        const size_t before = captured.size();
        QVERIFY(readUntil(*device, captured, [&] { return captured.size() >= before + 8000; }, 30000));
        server.signal(SIGSTOP);
        const auto frozen = Clock::now();
        QVERIFY2(readUntil(*device, captured, [&] { return !device->status().running(); }, 30000),
                 "the frozen server was not noticed");
        qDebug("noticed %.2f s after the freeze: %s", std::chrono::duration<double>(Clock::now() - frozen).count(),
               device->status().message.c_str());
        QCOMPARE(device->status().state, SourceState::Failed);
        QVERIFY(QString::fromStdString(device->status().message).contains("no audio came for 1.5 s"));
        QVERIFY(drain(*device, captured, 10000));
        QCOMPARE(device->counters().readSamples, uint64_t(captured.size()));
        const auto stopping = Clock::now();
        device->stop();
        device.reset();  // destroys the device while PortAudio's stream is still stuck
        QVERIFY2(Clock::now() - stopping < std::chrono::seconds(10), "stop/destroy hung on the frozen stream");
        server.stop();  // thaws and ends the server: the stuck close finishes in the background
    }

};

#else

class TestCaptureDevice : public QObject {
    Q_OBJECT
private slots:
    void audioLibraryMissing() { QSKIP("built with HEARSAY_ENGINE_ONLY: no hearsay_audio"); }
};

#endif

QTEST_APPLESS_MAIN(TestCaptureDevice)
#include "tst_capture_device.moc"
