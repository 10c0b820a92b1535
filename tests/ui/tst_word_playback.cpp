// View › Word timings with the real tiny.en model: jfk.wav is transcribed with word timestamps
// (and, apart, dictated from the file as if it were a microphone), the words are shown with
// their times, and a click on a word plays the audio from that word through PortAudio into a
// PulseAudio null sink started by the test. The sink's monitor is recorded (parec) and
// cross-correlated with the file: what played starts at the clicked word's time. Space pauses
// (the sink goes silent) and plays on. Export with the subtitle options.
#include "core/pulse_server.h"
#include "core/real_models.h"
#include "ui/subtitle_options_dialog.h"
#include "ui/word_playback.h"
#include "ui/word_timings_view.h"
#include "ui_test_support.h"

#include <QAction>
#include <QFile>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>

using namespace hearsay;
using namespace hearsay::test;

namespace {

constexpr int kRate = 16000;

// The null sink's monitor as 16 kHz mono float samples, read as they come.
class MonitorRecorder {
public:
    bool start() {
        m_process.start("parec", {"-d", "virt.monitor", "--raw", "--format=float32le", "--rate=16000", "--channels=1",
                                  "--latency-msec=20"});
        return m_process.waitForStarted(10000);
    }
    ~MonitorRecorder() {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
    // Everything recorded so far.
    const std::vector<float>& samples() {
        m_bytes += m_process.readAllStandardOutput();
        const size_t count = size_t(m_bytes.size()) / sizeof(float);
        m_samples.resize(count);
        if (count > 0) std::memcpy(m_samples.data(), m_bytes.constData(), count * sizeof(float));
        return m_samples;
    }
    // The first sample that is not silence (the null sink's monitor is exact zeros while nothing
    // plays), or -1.
    long onset() {
        const auto& s = samples();
        for (size_t i = 0; i < s.size(); ++i)
            if (std::fabs(s[i]) > 1e-5f) return long(i);
        return -1;
    }

private:
    QProcess m_process;
    QByteArray m_bytes;
    std::vector<float> m_samples;
};

// Normalised correlation of `a` with `b` over `n` samples.
double correlation(const float* a, const float* b, size_t n) {
    double ab = 0.0, aa = 0.0, bb = 0.0;
    for (size_t i = 0; i < n; ++i) {
        ab += double(a[i]) * b[i];
        aa += double(a[i]) * a[i];
        bb += double(b[i]) * b[i];
    }
    return aa > 0.0 && bb > 0.0 ? ab / std::sqrt(aa * bb) : 0.0;
}

} // namespace

class TestWordPlayback : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    PulseServer m_server;
    QString m_model;

    // Clicks the first word from 3 s on in rows `firstRow`.. and checks, by recording the sink's
    // monitor, that jfk.wav plays from that word's start; Space pauses and plays on. The
    // clicked word's start in `clickedStart`.
    void clickPlaysFromTheWord(ui::MainWindow& window, int firstRow, double* clickedStart) {
        ui::WordTimingsView* view = window.wordTimingsView();
        QVERIFY(view->isVisible());
        const ui::TranscriptModel& model = *window.transcriptModel();
        int row = -1, word = -1;
        for (int r = firstRow; r < model.segmentCount() && row < 0; ++r) {
            const auto& words = model.segment(r).words;
            QVERIFY2(!words.empty(), "a row has no words: word timings were not asked for");
            for (int w = 0; w < int(words.size()); ++w) {
                if (words[size_t(w)].start >= 3.0) {
                    row = r;
                    word = w;
                    break;
                }
            }
        }
        QVERIFY2(row >= 0, qPrintable(transcriptText(model)));
        const Word clicked = model.segment(row).words[size_t(word)];
        *clickedStart = clicked.start;
        qInfo("clicking \"%s\" (%.2f to %.2f s, probability %.2f)", clicked.word.c_str(), clicked.start, clicked.end,
              clicked.probability);
        QVERIFY(view->wordToolTip(row, word).contains(QString::number(clicked.start, 'f', 2)));
        const QRect rect = view->wordRect(row, word);
        QVERIFY(!rect.isEmpty());

        // The sink's monitor is recorded from before the click: silence until the player starts.
        MonitorRecorder recorder;
        QVERIFY(recorder.start());
        QTRY_VERIFY_WITH_TIMEOUT(recorder.samples().size() >= size_t(kRate / 4), 20000);
        QCOMPARE(recorder.onset(), -1L);

        QTest::mouseClick(view->canvas(), Qt::LeftButton, {}, rect.center());
        ui::WordPlayback* playback = window.wordPlayback();
        QCOMPARE(playback->state(), AudioPlayer::State::Playing);
        // 1.6 s of what played, after its first sample.
        QTRY_VERIFY_WITH_TIMEOUT(recorder.onset() >= 0 && recorder.samples().size() >= size_t(recorder.onset() + 26 * kRate / 16),
                                 30000);

        // Space pauses: the position stays after the word's start, and the sink goes silent.
        QTest::keyClick(view, Qt::Key_Space);
        QCOMPARE(playback->state(), AudioPlayer::State::Paused);
        const double pausedAt = playback->positionSeconds();
        QVERIFY2(pausedAt >= clicked.start && pausedAt < 11.1, qPrintable(QString::number(pausedAt)));
        const size_t atPause = recorder.samples().size();
        QTRY_VERIFY_WITH_TIMEOUT(recorder.samples().size() >= atPause + size_t(kRate), 30000);
        const auto& afterPause = recorder.samples();
        for (size_t i = afterPause.size() - kRate / 2; i < afterPause.size(); ++i)
            QVERIFY2(std::fabs(afterPause[i]) <= 1e-5f, "the sink still plays after Space");
        QTest::keyClick(view, Qt::Key_Space);
        QCOMPARE(playback->state(), AudioPlayer::State::Playing);
        playback->stop();
        QCOMPARE(playback->state(), AudioPlayer::State::Stopped);

        // What played from the onset on is the file from the clicked word's start: the file
        // offset where 1 s of it (from 0.1 s after the onset) correlates best.
        const std::vector<float> file = real_models::readClip(jfk());
        QVERIFY(file.size() >= size_t(10 * kRate));
        const std::vector<float>& recorded = recorder.samples();
        const size_t onset = size_t(recorder.onset());
        const size_t skip = kRate / 10, length = kRate;
        QVERIFY(onset + skip + length <= recorded.size());
        const long expected = std::lround(clicked.start * kRate);
        long best = -1;
        double bestCorrelation = -1.0;
        for (long offset = std::max(0L, expected - kRate); offset <= expected + kRate; ++offset) {
            if (size_t(offset) + skip + length > file.size()) break;
            const double c = correlation(recorded.data() + onset + skip, file.data() + offset + skip, length);
            if (c > bestCorrelation) {
                bestCorrelation = c;
                best = offset;
            }
        }
        const double foundSeconds = double(best) / kRate;
        qInfo("played from %.3f s of the file (the word starts at %.3f s), correlation %.3f", foundSeconds,
              clicked.start, bestCorrelation);
        QVERIFY2(bestCorrelation > 0.9, qPrintable(QString::number(bestCorrelation)));
        QVERIFY2(std::fabs(foundSeconds - clicked.start) <= 0.05,
                 qPrintable(QString("played from %1 s, the word starts at %2 s").arg(foundSeconds).arg(clicked.start)));
    }

private slots:
    void initTestCase() {
        // The real tiny.en is fetched by the test command like every other real model: missing is a failure.
        if (const QString why = real_models::missing("tiny.en"); !why.isEmpty()) QFAIL(qPrintable(why));
        QVERIFY(m_dir.isValid());
        qputenv("XDG_STATE_HOME", m_dir.filePath("state").toUtf8());
        if (const QString why = m_server.start(); !why.isEmpty()) QFAIL(qPrintable(why));
        if (QStandardPaths::findExecutable("parec").isEmpty()) QFAIL("'parec' not found: install pulseaudio-utils (scripts/setup.sh)");
        m_model = QString::fromStdString((real_models::directory() / "tiny.en").string());
    }

    void clickingAWordPlaysTheFileFromIt() {
        auto settings = std::make_unique<QSettings>(m_dir.filePath("settings.ini"), QSettings::IniFormat);
        settings->setValue("engine/backend", "cpu");
        settings->setValue("decoding/beamSize", 1);
        settings->setValue("view/wordTimings", false);
        ui::MainWindow window(std::move(settings));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(loadModel(window, m_model));

        // As the user: View › Word timings, then the file.
        QAction* wordTimings = window.wordTimingsAction();
        QVERIFY(wordTimings && !wordTimings->isChecked());
        wordTimings->trigger();
        QSignalSpy ended(&window, &ui::MainWindow::transcriptionEnded);
        window.openAudio(jfk());
        QVERIFY(ended.wait(kJobTimeoutMs));
        QVERIFY(ended.at(0).at(0).toBool());
        double start = 0.0;
        clickPlaysFromTheWord(window, 0, &start);
        if (QTest::currentTestFailed()) return;
        const ui::TranscriptModel& model = *window.transcriptModel();

        // Exported with the subtitle options: lines of at most 20 characters, two per cue, one
        // cue per word with the word underlined.
        const QString vtt = m_dir.filePath("jfk.vtt");
        QVERIFY(window.exportTranscript(vtt, ExportFormat::Vtt, SubtitleOptions{20, 2, true}));
        QFile exported(vtt);
        QVERIFY(exported.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(exported.readAll()).split('\n');
        int cues = 0, textLines = 0;
        for (const QString& line : lines) {
            if (line.contains("-->")) ++cues;
            if (line.isEmpty() || line.contains("-->") || line == "WEBVTT") continue;
            ++textLines;
            QString plain = line;
            plain.remove("<u>").remove("</u>");
            QVERIFY2(plain.size() <= 20, qPrintable(line));
        }
        int words = 0;
        for (int r = 0; r < model.segmentCount(); ++r) words += int(model.segment(r).words.size());
        QCOMPARE(cues, words);  // highlighted: a cue per word
        QVERIFY2(lines.filter("<u>").size() == cues, qPrintable(lines.join('\n')));
        QVERIFY(textLines > cues);  // the 20-character lines wrap
    }

    void clickingADictatedWordPlaysWhatWasHeard() {
        auto settings = std::make_unique<QSettings>(m_dir.filePath("dictation.ini"), QSettings::IniFormat);
        settings->setValue("engine/backend", "cpu");
        settings->setValue("decoding/beamSize", 1);
        settings->setValue("view/wordTimings", true);
        ui::MainWindow window(std::move(settings));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(loadModel(window, m_model));
        // The file as a microphone, as fast as the session takes it; its words come committed.
        QSignalSpy ended(&window, &ui::MainWindow::dictationEnded);
        window.dictateFile(jfk(), 0.0);
        QVERIFY(ended.wait(kJobTimeoutMs));
        QVERIFY2(ended.at(0).at(0).toBool(), window.lastDictationSummary().error.c_str());
        QVERIFY(window.wordPlayback()->hasAudio());
        double start = 0.0;
        clickPlaysFromTheWord(window, 0, &start);
    }

    void clickingASegmentTimePlaysFromItsStart() {
        auto settings = std::make_unique<QSettings>(m_dir.filePath("settings.ini"), QSettings::IniFormat);
        ui::MainWindow window(std::move(settings));  // word timings on, as the last test left them
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.wordTimingsAction()->isChecked());
        // Text without audio (no file transcribed in this window) plays nothing and says why.
        window.transcriptModel()->appendCommitted(" dictated words", 0.0, 1.0, true);
        ui::WordTimingsView* view = window.wordTimingsView();
        QVERIFY(view->isVisible());
        const QRect time = view->segmentTimeRect(0);
        QVERIFY(!time.isEmpty());
        QTest::mouseClick(view->canvas(), Qt::LeftButton, {}, time.center());
        QCOMPARE(window.wordPlayback()->state(), AudioPlayer::State::Stopped);
        QVERIFY(window.messageBar()->isVisible());
        QVERIFY2(window.messageBar()->text().contains("no audio"), qPrintable(window.messageBar()->text()));
    }

    void subtitleOptionsAreRemembered() {
        QSettings settings(m_dir.filePath("export.ini"), QSettings::IniFormat);
        QCOMPARE(ui::SubtitleOptionsDialog::load(settings).maxLineWidth, 0);
        ui::SubtitleOptionsDialog::save(settings, SubtitleOptions{42, 2, true});
        const SubtitleOptions loaded = ui::SubtitleOptionsDialog::load(settings);
        ui::SubtitleOptionsDialog dialog(loaded);
        const SubtitleOptions shown = dialog.options();
        QCOMPARE(shown.maxLineWidth, 42);
        QCOMPARE(shown.maxLineCount, 2);
        QVERIFY(shown.highlightWords);
        // Without words (or to TXT and JSON) nothing is asked: the defaults.
        const auto plain = ui::SubtitleOptionsDialog::ask(Transcript{}, ExportFormat::Vtt, settings, nullptr);
        QVERIFY(plain && plain->maxLineWidth == 0 && !plain->highlightWords);
        settings.setValue("export/maxLineWidth", -5);  // out of range: no limit
        QCOMPARE(ui::SubtitleOptionsDialog::load(settings).maxLineWidth, 0);
    }
};

QTEST_MAIN(TestWordPlayback)
#include "tst_word_playback.moc"
