// Crash safety: the real application dictates (the real tiny.en model, a recording played at
// real-time pace as its microphone) and is killed with SIGKILL in the middle. The next start,
// with a model that loads at once as `hearsay --model` loads it, shows the recovery offer (how many
// words, from when) after the load, after a device warning, and after a close without an answer;
// two crashes in a row keep both runs' text; restoring brings back every word that had been shown
// as committed, in order; only Restore or Discard removes it from the disk.
#include "core/real_models.h"
#include "ui/recovery_bar.h"
#include "ui_test_support.h"

#include <QAction>
#include <QElapsedTimer>
#include <QPushButton>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/prctl.h>

using namespace hearsay;
using namespace hearsay::test;

class TestDictationJournal : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_model;
    int m_case = 0;
    QString m_state, m_ini;

    // The real application, started as a user starts it (--model: the model loads at start),
    // dictates `audio` and is killed with SIGKILL once it has shown `atLeast` committed words.
    // What it had shown, or an empty list after a failure (QTest says which).
    QStringList dictateAndKill(const QString& audio, int atLeast) {
        QProcess app;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_STATE_HOME", m_state);
        env.insert("QT_QPA_PLATFORM", "offscreen");
        app.setProcessEnvironment(env);
        app.setChildProcessModifier([] { prctl(PR_SET_PDEATHSIG, SIGKILL); });
        app.start(HEARSAY_GUI_PATH, {"--settings", m_ini, "--model", m_model, "--dictate-file", audio, "--speed", "1",
                                     "--print-committed"});
        if (!app.waitForStarted(30000)) {
            qWarning("%s", qPrintable(app.errorString()));
            return {};
        }
        QString shown;
        QElapsedTimer timer;
        timer.start();
        while (words(shown).size() < atLeast) {
            if (app.state() != QProcess::Running || timer.elapsed() > kJobTimeoutMs) {
                qWarning("no committed text in time: %s", qPrintable(app.readAllStandardError()));
                return {};
            }
            app.waitForReadyRead(200);
            shown += QString::fromUtf8(app.readAllStandardOutput());
        }
        ::kill(pid_t(app.processId()), SIGKILL);
        if (!app.waitForFinished(10000) || app.exitStatus() != QProcess::CrashExit) return {};
        shown += QString::fromUtf8(app.readAllStandardOutput());  // lines written before the kill
        return words(shown);
    }

    // What the journal directory offers, read as the window reads it.
    std::vector<LeftoverJournal> leftovers() const {
        auto found = JournalStore((m_state + "/hearsay").toStdString()).leftovers();
        return found ? found.value() : std::vector<LeftoverJournal>{};
    }

    // A window as the application makes it at start: shown, then the model opened.
    std::unique_ptr<ui::MainWindow> startWindow() {
        auto window = std::make_unique<ui::MainWindow>(std::make_unique<QSettings>(m_ini, QSettings::IniFormat));
        window->show();
        if (!loadModel(*window, m_model)) return nullptr;
        return window;
    }

    // The offer as the user sees it: the bar, its words and times, its buttons.
    static QString offerProblem(ui::MainWindow& window, const std::vector<LeftoverJournal>& journals) {
        ui::RecoveryBar* bar = window.recoveryBar();
        if (!bar->isVisible()) return "the recovery bar is hidden";
        int total = 0;
        for (const LeftoverJournal& j : journals) total += j.words();
        const QString text = bar->text();
        if (!text.contains(QString("%1 words").arg(total))) return "no word count " + QString::number(total) + ": " + text;
        for (const LeftoverJournal& j : journals)
            if (!text.contains(ui::RecoveryBar::period(j))) return "no time " + ui::RecoveryBar::period(j) + ": " + text;
        if (!bar->restoreButton()->isVisible() || !bar->discardButton()->isVisible()) return "no Restore or Discard";
        return {};
    }

    // The words of the transcript, segment after segment.
    static QStringList transcriptWords(const ui::MainWindow& window) {
        return words(transcriptText(*window.transcriptModel()).replace('\n', ' '));
    }

private slots:
    void initTestCase() {
        if (const QString why = real_models::missing("tiny.en"); !why.isEmpty()) QFAIL(qPrintable(why));
        QVERIFY(m_dir.isValid());
        m_model = QString::fromStdString((real_models::directory() / "tiny.en").string());
    }

    void init() {  // each case its own state directory and settings
        ++m_case;
        m_state = m_dir.filePath(QString("state-%1").arg(m_case));
        m_ini = m_dir.filePath(QString("settings-%1.ini").arg(m_case));
        QSettings settings(m_ini, QSettings::IniFormat);
        settings.setValue("engine/backend", "cpu");
        settings.setValue("decoding/beamSize", 1);
        qputenv("XDG_STATE_HOME", m_state.toUtf8());
    }

    void offerSurvivesModelLoadAndClose() {
        const QStringList said = dictateAndKill(speech30(), 12);
        QVERIFY(said.size() >= 12);
        const std::vector<LeftoverJournal> left = leftovers();
        QCOMPARE(int(left.size()), 1);

        {
            auto window = startWindow();
            QVERIFY(window);
            QVERIFY(window->hasJournalToRestore());
            const QString problem = offerProblem(*window, left);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            // Later hides it; File › Recover last dictation… shows it again.
            window->recoveryBar()->findChild<QPushButton*>("recoveryLater")->click();
            QVERIFY(!window->recoveryBar()->isVisible());
            window->findChild<QAction*>("recoverAction")->trigger();
            QVERIFY(window->recoveryBar()->isVisible());
            window->close();  // no answer: Quit
        }
        QCOMPARE(int(leftovers().size()), 1);

        auto window = startWindow();
        QVERIFY(window);
        const QString problem = offerProblem(*window, left);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QTest::mouseClick(window->recoveryBar()->restoreButton(), Qt::LeftButton);
        QVERIFY(!window->hasJournalToRestore());
        QVERIFY(!window->recoveryBar()->isVisible());
        QVERIFY(leftovers().empty());

        // Every word shown as committed before the kill is there, in order.
        const QStringList back = transcriptWords(*window);
        const QString restored = back.join(' ');
        QVERIFY2(back.size() >= said.size(), qPrintable(said.join(' ') + " | " + restored));
        for (int i = 0; i < said.size(); ++i)
            QVERIFY2(back[i] == said[i], qPrintable(QString("word %1: %2 | %3").arg(i).arg(said.join(' '), restored)));
        QCOMPARE(back, words(QString::fromStdString(left[0].text())));
        window->close();

        ui::MainWindow again(std::make_unique<QSettings>(m_ini, QSettings::IniFormat));
        QVERIFY(!again.hasJournalToRestore());
    }

    void offerSurvivesADeviceWarning() {
        {
            QSettings settings(m_ini, QSettings::IniFormat);  // a microphone that is not there
            settings.setValue("dictation/inputDevice", "Hearsay test microphone that is not plugged in");
        }
        const QStringList said = dictateAndKill(jfk(), 6);
        QVERIFY(said.size() >= 6);
        const std::vector<LeftoverJournal> left = leftovers();
        QCOMPARE(int(left.size()), 1);

        {
            ui::MainWindow window(std::make_unique<QSettings>(m_ini, QSettings::IniFormat));
            window.show();
            QTRY_VERIFY_WITH_TIMEOUT(window.messageBar()->isVisible() &&
                                         window.messageBar()->kind() == ui::MessageBar::Kind::Warning,
                                     30000);
            const QString warning = window.messageBar()->text();
            QVERIFY2(warning.contains("input device"), qPrintable(warning));
            QString problem = offerProblem(window, left);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            QVERIFY(loadModel(window, m_model));
            problem = offerProblem(window, left);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            window.close();
        }
        QCOMPARE(int(leftovers().size()), 1);

        // Discard: gone from the disk, offered no more.
        {
            auto window = startWindow();
            QVERIFY(window);
            const QString problem = offerProblem(*window, left);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            QTest::mouseClick(window->recoveryBar()->discardButton(), Qt::LeftButton);
            QVERIFY(!window->hasJournalToRestore());
            QVERIFY(!window->recoveryBar()->isVisible());
            QCOMPARE(window->transcriptModel()->segmentCount(), 0);
            window->close();
        }
        QVERIFY(leftovers().empty());
        QVERIFY(!std::filesystem::exists(left[0].path));
        ui::MainWindow again(std::make_unique<QSettings>(m_ini, QSettings::IniFormat));
        QVERIFY(!again.hasJournalToRestore());
    }

    void twoCrashesKeepBothRuns() {
        const QStringList first = dictateAndKill(speech30(), 8);
        QVERIFY(first.size() >= 8);
        QCOMPARE(int(leftovers().size()), 1);
        // Started again, the offer unanswered, dictating again, killed again.
        const QStringList second = dictateAndKill(jfk(), 6);
        QVERIFY(second.size() >= 6);
        const std::vector<LeftoverJournal> left = leftovers();
        QCOMPARE(int(left.size()), 2);
        const QStringList firstKept = words(QString::fromStdString(left[0].text()));
        const QStringList secondKept = words(QString::fromStdString(left[1].text()));
        QVERIFY2(firstKept.mid(0, first.size()) == first, qPrintable(first.join(' ') + " | " + firstKept.join(' ')));
        QVERIFY2(secondKept.mid(0, second.size()) == second, qPrintable(second.join(' ') + " | " + secondKept.join(' ')));

        auto window = startWindow();
        QVERIFY(window);
        const QString problem = offerProblem(*window, left);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY2(window->recoveryBar()->text().contains("2 times"), qPrintable(window->recoveryBar()->text()));
        QVERIFY(window->restoreJournal());
        QCOMPARE(transcriptWords(*window), firstKept + secondKept);  // oldest first
        QVERIFY(leftovers().empty());
    }
};

QTEST_MAIN(TestDictationJournal)
#include "tst_dictation_journal.moc"
