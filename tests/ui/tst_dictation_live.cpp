// Dictation in the window with the real tiny.en model, from a file played at real-time pace
// through the same ring buffer and streaming session as a microphone (SimulatedLiveSource):
// tentative text appears in grey italics before it is committed, the committed text on screen is
// the streaming session's, the level meter moves, Stop keeps the last words, the cache switches
// flipped while speaking reach the engine at its next step and the live panel shows the engine's
// own figures, a point per step on the chart; a disk that fills while dictating costs no word on
// screen and the journal catches up. The transcript model passes QAbstractItemModelTester all along.
#include "core/real_models.h"
#include "core/transcript/dictation_journal.h"
#include "core/file_size_limit.h"
#include "ui/message_bar.h"
#include "ui/live_chart.h"
#include "ui/live_panel.h"
#include "ui/level_meter_bar.h"
#include "ui/settings_panel.h"
#include "ui_test_support.h"

#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QScrollBar>
#include <QTableView>
#include <QCheckBox>
#include <QFont>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace hearsay;
using namespace hearsay::test;


class TestDictationLive : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_model;

    std::unique_ptr<ui::MainWindow> makeWindow() {
        auto settings = std::make_unique<QSettings>(m_dir.filePath("settings.ini"), QSettings::IniFormat);
        settings->setValue("engine/backend", "cpu");
        settings->setValue("decoding/beamSize", 1);
        return std::make_unique<ui::MainWindow>(std::move(settings));
    }

    // Text of the segment rows (the tentative row excluded), as committed.
    static QString committedText(const ui::TranscriptModel& model) {
        QString text;
        for (int r = 0; r < model.segmentCount(); ++r) text += QString::fromStdString(model.segment(r).text);
        return text;
    }

private slots:
    void initTestCase() {
        if (const QString why = real_models::missing("tiny.en"); !why.isEmpty()) QFAIL(qPrintable(why));
        QVERIFY(m_dir.isValid());
        qputenv("XDG_STATE_HOME", m_dir.filePath("state").toUtf8());
        m_model = QString::fromStdString((real_models::directory() / "tiny.en").string());
    }

    void dictatesFromASimulatedMicrophone() {
        auto window = makeWindow();
        window->show();
        QAbstractItemModelTester tester(window->transcriptModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(loadModel(*window, m_model));
        QVERIFY(window->recordAction()->isEnabled());

        // What the view shows while dictating: the tentative row (grey italic) before commits.
        ui::TranscriptModel& model = *window->transcriptModel();
        bool sawTentative = false, tentativeStyled = false, tentativeBeforeCommit = false;
        QStringList shownCommitted;
        connect(&model, &QAbstractItemModel::dataChanged, this, [&] {
            if (model.tentative().isEmpty()) return;
            sawTentative = true;
            const QModelIndex cell = model.index(model.segmentCount(), ui::TranscriptModel::TextColumn);
            tentativeStyled = model.data(cell, Qt::FontRole).value<QFont>().italic() &&
                              model.data(cell, Qt::ForegroundRole).value<QColor>() == QColor(Qt::gray);
        });
        connect(&model, &QAbstractItemModel::rowsInserted, this, [&] {
            if (!model.tentative().isEmpty() && model.segmentCount() == 0) tentativeBeforeCommit = true;
            if (!model.tentative().isEmpty()) {
                sawTentative = true;
                const QModelIndex cell = model.index(model.segmentCount(), ui::TranscriptModel::TextColumn);
                tentativeStyled = model.data(cell, Qt::FontRole).value<QFont>().italic();
            }
        });
        connect(window.get(), &ui::MainWindow::committedShown, this, [&](const QString& t) { shownCommitted << t; });

        QSignalSpy ended(window.get(), &ui::MainWindow::dictationEnded);
        window->dictateFile(jfk(), 1.0);
        QVERIFY(window->isDictating());
        QVERIFY2(ended.wait(kJobTimeoutMs), "the dictation did not end");
        QVERIFY2(ended.at(0).at(0).toBool(), qPrintable(QString::fromStdString(window->lastDictationSummary().error)));
        QVERIFY(!window->isBusy());

        const StreamingSummary& summary = window->lastDictationSummary();
        QVERIFY(sawTentative);
        QVERIFY(tentativeStyled);
        QVERIFY2(tentativeBeforeCommit, "tentative text should show before the first commit");
        QVERIFY(model.tentative().isEmpty());
        // On screen: exactly what the streaming session committed, in order, nothing lost.
        QCOMPARE(committedText(model), QString::fromStdString(summary.text));
        QCOMPARE(shownCommitted.join(QString()), QString::fromStdString(summary.text));
        QCOMPARE(summary.samplesProcessed, summary.samplesRead);
        const QString said = words(committedText(model)).join(' ');
        QVERIFY2(said.contains("ask not what your country can do for you"), qPrintable(said));
        // The meter moved while the audio played, and rests at zero afterwards.
        QVERIFY2(window->levelMeter()->changes() > 20, qPrintable(QString::number(window->levelMeter()->changes())));
        QCOMPARE(window->levelMeter()->level().rms, 0.0f);
        // The live panel: a step per chart point, the last step's bytes as the engine counted them.
        ui::LivePanel& panel = *window->livePanel();
        QCOMPARE(int(panel.chart()->points().size()), summary.steps);
        QCOMPARE(panel.steps(), summary.steps);
        QCOMPARE(labelText(&panel, "liveSelfAllocated"), ui::liveBytesText(panel.lastStep().cache.selfAllocated));
        QCOMPARE(labelText(&panel, "liveCrossInUse"), ui::liveBytesText(panel.lastStep().cache.crossInUse));
        QVERIFY(panel.lastStep().cache.selfAllocated > 0);
        // After Stop the text can be edited.
        const QModelIndex first = model.index(0, ui::TranscriptModel::TextColumn);
        QVERIFY(model.flags(first) & Qt::ItemIsEditable);
        QVERIFY(model.setData(first, "edited words"));
        QCOMPARE(model.data(first).toString(), QString("edited words"));
    }

    void stopKeepsTheLastWords() {
        auto window = makeWindow();
        QAbstractItemModelTester tester(window->transcriptModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(loadModel(*window, m_model));
        ui::TranscriptModel& model = *window->transcriptModel();
        // Earlier text stays: dictation appends.
        model.appendCommitted(" Earlier words.", 0.0, 1.0, true);
        QSignalSpy ended(window.get(), &ui::MainWindow::dictationEnded);
        QSignalSpy committed(window.get(), &ui::MainWindow::committedShown);
        window->dictateFile(speech30(), 1.0);
        // Stop once a few words are committed, while more are being said.
        QTRY_VERIFY_WITH_TIMEOUT(committed.count() >= 1 && !model.tentative().isEmpty(), kJobTimeoutMs);
        const QString tentativeAtStop = model.tentative();
        const int wordsAtStop = int(words(committedText(model)).size());
        window->stopDictation();
        QVERIFY(!window->recordAction()->isEnabled());  // Stopping…: no second Stop, no new Record
        QVERIFY2(ended.wait(kJobTimeoutMs), "the dictation did not end after Stop");
        QVERIFY(ended.at(0).at(0).toBool());
        const StreamingSummary& summary = window->lastDictationSummary();
        QCOMPARE(summary.samplesProcessed, summary.samplesRead);  // drained
        QVERIFY(summary.audioSeconds < 29.0);                    // it did stop early
        QVERIFY(model.tentative().isEmpty());
        const QStringList after = words(committedText(model));
        QVERIFY2(int(after.size()) > wordsAtStop, qPrintable(committedText(model)));
        QCOMPARE(after.first(), QString("earlier"));
        // The words that were tentative at Stop were committed, not dropped (their last word at least).
        const QStringList pending = words(tentativeAtStop);
        QVERIFY(!pending.isEmpty());
        QVERIFY2(after.contains(pending.first()) || after.contains(pending.last()),
                 qPrintable(tentativeAtStop + " | " + committedText(model)));
        QCOMPARE(committedText(model), " Earlier words." + QString::fromStdString(summary.text));
    }

    void autoScrollStopsWhenTheUserScrollsUp() {
        auto window = makeWindow();
        for (QDockWidget* dock : window->findChildren<QDockWidget*>()) dock->hide();
        window->resize(700, 260);  // a short view: a few rows overflow it
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window.get()));
        QVERIFY(loadModel(*window, m_model));
        ui::TranscriptModel& model = *window->transcriptModel();
        for (int i = 0; i < 12; ++i) model.appendCommitted(QString(" Earlier line %1.").arg(i).toStdString(), i, i + 1, true);
        QScrollBar* bar = window->transcriptView()->verticalScrollBar();
        window->transcriptView()->scrollToBottom();
        QTRY_VERIFY(bar->maximum() > 0 && bar->value() == bar->maximum());
        QSignalSpy ended(window.get(), &ui::MainWindow::dictationEnded);
        window->dictateFile(speech30(), 1.0);
        // Following: new text keeps the view at its end.
        QTRY_VERIFY_WITH_TIMEOUT(model.segmentCount() > 12 || !model.tentative().isEmpty(), kJobTimeoutMs);
        QTest::qWait(100);
        QCOMPARE(bar->value(), bar->maximum());
        // The user scrolls up to read: later text does not pull the view down.
        bar->setValue(0);
        const int rows = model.rowCount();
        QTRY_VERIFY_WITH_TIMEOUT(model.segmentCount() > 13 || model.rowCount() != rows || ended.count() > 0, kJobTimeoutMs);
        QTest::qWait(1500);
        QCOMPARE(bar->value(), 0);
        window->stopDictation();
        QVERIFY(ended.count() > 0 || ended.wait(kJobTimeoutMs));
        QCOMPARE(bar->value(), 0);
    }

    void cacheSwitchesReachTheEngineWhileDictating() {
        auto window = makeWindow();
        QVERIFY(loadModel(*window, m_model));
        std::vector<StreamingStep> steps;
        connect(window.get(), &ui::MainWindow::stepShown, this, [&](const StreamingStep& s) { steps.push_back(s); });
        QSignalSpy ended(window.get(), &ui::MainWindow::dictationEnded);
        window->dictateFile(jfk(), 1.0);
        QTRY_VERIFY_WITH_TIMEOUT(std::count_if(steps.begin(), steps.end(), [](auto& s) { return s.decoded; }) >= 2,
                                 kJobTimeoutMs);
        QVERIFY(steps.back().selfCache && steps.back().crossCache);
        const size_t before = steps.size();
        window->settingsPanel()->selfCacheSwitch()->setChecked(false);
        window->settingsPanel()->crossCacheSwitch()->setChecked(false);
        QVERIFY2(ended.wait(kJobTimeoutMs), "the dictation did not end");
        QVERIFY(steps.size() > before + 1);
        // The step running when the switch was flipped may have started with the caches; every
        // step after it runs without them.
        for (size_t i = before + 1; i < steps.size(); ++i) {
            QVERIFY2(!steps[i].selfCache && !steps[i].crossCache, qPrintable(QString("step %1").arg(i)));
            if (steps[i].decoded) QCOMPARE(steps[i].cache.crossInUse, size_t(0));
        }
        // The chart has a point per step and marks where the switch took effect.
        const ui::LiveChart& chart = *window->livePanel()->chart();
        QCOMPARE(chart.points().size(), steps.size());
        QCOMPARE(int(chart.marks().size()), 1);
        QVERIFY(chart.marks().front().label.contains("self off"));
        QVERIFY(chart.marks().front().seconds >= steps[before - 1].streamSeconds);
        // The panel shows the engine's accounting of the last step.
        ui::LivePanel& panel = *window->livePanel();
        QCOMPARE(labelText(&panel, "liveSelfInUse"), ui::liveBytesText(steps.back().cache.selfInUse));
        QCOMPARE(labelText(&panel, "liveSwitches"), QString("self off, cross off"));
        // The text is still right without the caches.
        QVERIFY2(words(QString::fromStdString(window->lastDictationSummary().text)).join(' ').contains("your country"),
                 window->lastDictationSummary().text.c_str());
    }

    // The disk fills while dictating (file_size_limit.h: the journal may grow to 120 bytes, its
    // header, the run and about one record), then has room again. The window warns,
    // keeps dictating and shows every word; the journal catches up and holds the whole text.
    void diskFullWhileDictatingLosesNothing() {
        auto window = makeWindow();
        QVERIFY(loadModel(*window, m_model));
        QSignalSpy ended(window.get(), &ui::MainWindow::dictationEnded);
        QSignalSpy committed(window.get(), &ui::MainWindow::committedShown);

        test::FileSizeLimit full(120);
        QVERIFY(full.ok());
        window->dictateFile(jfk(), 1.0);
        const QString journalPath = window->journalPath();  // the window's own, new at its first dictation
        QVERIFY2(QFileInfo(journalPath).size() > 0, qPrintable(journalPath));
        const auto warned = [&] {
            return window->messageBar()->kind() == ui::MessageBar::Kind::Warning &&
                   window->messageBar()->text().contains("cannot be journaled");
        };
        QTRY_VERIFY_WITH_TIMEOUT(warned() || !window->isDictating(), kJobTimeoutMs);
        const bool warnedWhileDictating = warned();
        const QString warning = window->messageBar()->text();
        const int committedWhenWarned = committed.count();
        full.lift();  // room again
        QVERIFY2(warnedWhileDictating, qPrintable(window->messageBar()->text()));
        QVERIFY2(warning.contains(QFileInfo(journalPath).fileName()), qPrintable(warning));
        QVERIFY(window->isDictating());  // it goes on

        QVERIFY2(ended.wait(kJobTimeoutMs), "the dictation did not end");
        QVERIFY(ended.at(0).at(0).toBool());
        const StreamingSummary& summary = window->lastDictationSummary();
        QVERIFY2(committed.count() > committedWhenWarned, "no text was committed after the disk filled");
        QCOMPARE(committedText(*window->transcriptModel()), QString::fromStdString(summary.text));
        QVERIFY2(words(QString::fromStdString(summary.text)).join(' ').contains("ask not what your country"),
                 summary.text.c_str());
        auto journaled = DictationJournal::read(journalPath.toStdString());
        QVERIFY2(journaled.ok(), journaled.ok() ? "" : journaled.message().c_str());
        QCOMPARE(QString::fromStdString(journalText(journaled.value())), QString::fromStdString(summary.text));
        QCOMPARE(window->messageBar()->kind(), ui::MessageBar::Kind::Information);
        QVERIFY2(window->messageBar()->text().contains("caught up"), qPrintable(window->messageBar()->text()));
    }
};

QTEST_MAIN(TestDictationLive)
#include "tst_dictation_live.moc"
