// AudioPlayer (core/audio/audio_player.h) on a real PulseAudio null sink started by the test
// (tests/core/pulse_server.h): play from an offset to the end, pause and resume, stop, and the
// messages when there is nothing to play or no sound server to play on.
#include "core/audio/audio_player.h"
#include "core/pulse_server.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace hearsay;

namespace {

// `seconds` of a 440 Hz tone at 16 kHz.
std::shared_ptr<const std::vector<float>> tone(double seconds) {
    auto samples = std::make_shared<std::vector<float>>(size_t(seconds * 16000));
    for (size_t i = 0; i < samples->size(); ++i) (*samples)[i] = 0.3f * float(std::sin(2.0 * M_PI * 440.0 * double(i) / 16000.0));
    return samples;
}

} // namespace

class TestAudioPlayer : public QObject {
    Q_OBJECT

    PulseServer m_server;

private slots:
    void initTestCase() {
        if (const QString why = m_server.start(); !why.isEmpty()) QFAIL(qPrintable(why));
    }

    void nothingToPlay() {
        AudioPlayer player;
        QVERIFY(!player.hasAudio());
        auto played = player.play(0.0);
        QVERIFY(!played);
        QVERIFY2(played.message().find("no audio to play") != std::string::npos, played.message().c_str());
        QCOMPARE(player.state(), AudioPlayer::State::Stopped);
        player.setAudio(tone(0.2), 16000);
        auto nan = player.play(std::numeric_limits<double>::quiet_NaN());
        QVERIFY(!nan);
        QVERIFY2(nan.message().find("not a number") != std::string::npos, nan.message().c_str());
    }

    void playsFromAnOffsetToTheEnd() {
        AudioPlayer player;
        player.setAudio(tone(0.6), 16000);
        QCOMPARE(player.durationSeconds(), 0.6);
        auto played = player.play(0.4);
        QVERIFY2(played, played ? "" : played.message().c_str());
        QCOMPARE(player.state(), AudioPlayer::State::Playing);
        QVERIFY(player.positionSeconds() >= 0.4 - 1e-9);
        QVERIFY(!player.deviceName().empty());
        QTRY_COMPARE_WITH_TIMEOUT(player.state(), AudioPlayer::State::Finished, 20000);
        QCOMPARE(player.positionSeconds(), 0.6);
        // Played past the end: clamped, finishes at once.
        QVERIFY(player.play(5.0));
        QTRY_COMPARE_WITH_TIMEOUT(player.state(), AudioPlayer::State::Finished, 20000);
        player.stop();
        QCOMPARE(player.state(), AudioPlayer::State::Stopped);
    }

    void pausesAndResumes() {
        AudioPlayer player;
        player.setAudio(tone(30.0), 16000);
        QVERIFY(player.play(10.0));
        QTRY_VERIFY_WITH_TIMEOUT(player.positionSeconds() > 10.1, 20000);  // it moves
        player.pause();
        QCOMPARE(player.state(), AudioPlayer::State::Paused);
        const double pausedAt = player.positionSeconds();
        QVERIFY(pausedAt > 10.1 && pausedAt < 30.0);
        QCOMPARE(player.positionSeconds(), pausedAt);  // paused: it stays
        QVERIFY(player.toggle());                        // Space: plays on from there
        QCOMPARE(player.state(), AudioPlayer::State::Playing);
        QVERIFY(player.positionSeconds() >= pausedAt - 1e-9);
        QVERIFY(player.toggle());
        QCOMPARE(player.state(), AudioPlayer::State::Paused);
        player.stop();
        QCOMPARE(player.state(), AudioPlayer::State::Stopped);
        // New audio stops what plays.
        QVERIFY(player.play(0.0));
        player.setAudio(tone(1.0), 16000);
        QCOMPARE(player.state(), AudioPlayer::State::Stopped);
    }

    void withoutSoundServer() {
        m_server.stop();
        AudioPlayer player;
        player.setAudio(tone(1.0), 16000);
        auto played = player.play(0.0);
        // Either no device is listed, or the one listed cannot be opened or started: a message
        // that says which, never a crash or a silent success.
        if (played) {
            QTRY_VERIFY_WITH_TIMEOUT(player.state() == AudioPlayer::State::Finished, 20000);
            QSKIP("an output device other than the sound server plays here");
        }
        qInfo("%s", played.message().c_str());
        QVERIFY2(played.message().find("audio output device") != std::string::npos, played.message().c_str());
        QCOMPARE(player.state(), AudioPlayer::State::Stopped);
    }
};

QTEST_MAIN(TestAudioPlayer)
#include "tst_audio_player.moc"
