// Live transcription through a real microphone: a PulseAudio server started here (a null sink whose
// monitor is the default source; paplay plays jfk.wav into it), PortAudio capture, the streaming
// session and the real tiny.en model. The known sentence is committed; pulling the device away
// mid-sentence ends the run with the device-lost error and keeps what was heard. CTest label `real`.
#include "pulse_server.h"
#include "real_models.h"

#include "core/audio/capture_device.h"
#include "core/engine/engine.h"
#include "core/streaming/streaming_session.h"
#include "core/transcript/word_error_rate.h"

#include <QtTest>

#include <thread>

using namespace hearsay;

class TestStreamingMicrophone : public QObject {
    Q_OBJECT
    std::optional<Engine> m_engine;

    // Runs the session on a thread of its own (as the GUI's worker does) on the server's default
    // microphone; once it delivers audio, jfk.wav is played into it and `drive` plays the part of
    // the user and the world on this thread. *played: paplay started.
    StreamingSummary dictateJfk(PulseServer& server, const std::function<void(StreamingSession&)>& drive,
                                std::vector<CommittedText>* committed, bool* played) {
        auto device = CaptureDevice::open(CaptureOptions{});
        if (!device) {
            StreamingSummary s;
            s.error = "cannot open the microphone: " + device.message();
            return s;
        }
        AudioSource& source = *device.value();
        StreamingCallbacks callbacks;
        std::mutex mutex;
        callbacks.committed = [&](const CommittedText& c) {
            std::lock_guard lock(mutex);
            committed->push_back(c);
        };
        StreamingOptions options;
        auto session = StreamingSession::create(*m_engine, source, options, callbacks);
        if (!session) {
            StreamingSummary s;
            s.error = session.message();
            return s;
        }
        StreamingSummary summary;
        std::thread worker([&] { summary = session.value()->run(); });
        if (waitForFirstAudio(source)) {
            *played = server.play(HEARSAY_SHARED_DATA_DIR "/jfk.wav");
            drive(*session.value());
        } else {
            session.value()->requestStop();
        }
        worker.join();
        return summary;
    }

    // Waits until the microphone delivers audio (a null sink's monitor starts about 2 s late).
    static bool waitForFirstAudio(AudioSource& source) {
        QElapsedTimer timer;
        timer.start();
        while (source.counters().capturedSamples == 0) {
            if (timer.elapsed() > 15000) return false;
            QThread::msleep(20);
        }
        return true;
    }

private slots:
    void initTestCase() {
        const QString missing = real_models::missing("tiny.en");
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
        auto engine = Engine::load(real_models::directory() / "tiny.en", EngineOptions{BackendKind::Cpu, BackendOptions{2, 0}});
        QVERIFY2(engine, engine ? "" : engine.message().c_str());
        m_engine = engine.value();
    }

    void dictatesTheSentenceThroughTheMicrophone() {
        PulseServer server;
        const QString started = server.start();
        QVERIFY2(started.isEmpty(), qPrintable(started));
        std::vector<CommittedText> committed;
        bool played = false;
        const StreamingSummary summary = dictateJfk(server, [&](StreamingSession& session) {
            server.player().waitForFinished(30000);
            QThread::msleep(1500);  // the last words and a pause, then Stop
            session.requestStop();
        }, &committed, &played);
        QVERIFY2(played, "paplay did not start");
        QVERIFY2(summary.error.empty(), summary.error.c_str());
        qInfo("heard: \"%s\" (%.1f s of audio, %d steps, real-time factor %.2f, latency median tentative %.2f s, "
              "committed %.2f s)",
              summary.text.c_str(), summary.audioSeconds, summary.steps, summary.realTimeFactor,
              summary.tentativeLatency.median, summary.commitLatency.median);
        const std::string text = normaliseForWer(summary.text);
        const std::string sentence =
            "and so my fellow americans ask not what your country can do for you ask what you can do for your country";
        // The first half is always there, captured through two resamplers: one word may be heard
        // wrong ("so am I fellow" for "so my fellow" has been heard: a substitution and an
        // insertion, two errors). Under load the session falls behind, windows are cut elsewhere
        // and tiny.en has been seen to skip the repeated "ask what you can do for your" after the
        // forced prefix "...can do for you." (6 of 21 words); the whole sentence is held to 30%.
        const std::string firstHalf = "and so my fellow americans ask not what your country can do for you";
        const WordErrors head = leadingWordErrors(firstHalf, summary.text);
        QVERIFY2(head.errors <= 2, summary.text.c_str());
        const WordErrors w = wordErrors(sentence, text);
        qInfo("word errors against the sentence: %d of %d", w.errors, w.referenceWords);
        QVERIFY2(w.rate() <= 0.3, summary.text.c_str());
        QCOMPARE(summary.droppedSamples, uint64_t(0));
        QCOMPARE(summary.samplesProcessed, summary.samplesRead);
        // Latencies were measured: the microphone has a clock.
        QVERIFY(summary.commitLatency.count > 10);
        QVERIFY(summary.commitLatency.median > 0.0);
    }

    void deviceLostKeepsTheText() {
        PulseServer server;
        const QString started = server.start();
        QVERIFY2(started.isEmpty(), qPrintable(started));
        std::vector<CommittedText> committed;
        bool played = false;
        const StreamingSummary summary = dictateJfk(server, [&](StreamingSession&) {
            QThread::msleep(6500);  // "...ask not what your country can do for you"
            // The microphone goes away: the null sink (and its monitor) is unloaded.
            server.pactl({"unload-module", "module-null-sink"});
        }, &committed, &played);
        QVERIFY2(played, "paplay did not start");
        qInfo("device lost: \"%s\"; error: %s", summary.text.c_str(), summary.error.c_str());
        QVERIFY2(!summary.error.empty(), "the lost device was not reported");
        QVERIFY2(QString::fromStdString(summary.error).contains("lost", Qt::CaseInsensitive), summary.error.c_str());
        // What was said before the microphone went away is kept: the opening words, one of them
        // perhaps heard wrong as in the test above (two errors).
        const WordErrors kept = leadingWordErrors("and so my fellow americans ask not", summary.text);
        QVERIFY2(kept.errors <= 2, summary.text.c_str());
        QCOMPARE(summary.samplesProcessed, summary.samplesRead);
    }
};

QTEST_GUILESS_MAIN(TestStreamingMicrophone)
#include "tst_streaming_microphone.moc"
