// Replacement rules and vocabulary for dictated text (core/transcript/replacement_rules.h): whole
// words in any case, phrases across any whitespace, regular expressions with groups, \n in a
// replacement, rules in order, comments and blank lines, and errors that name the line; and, end
// to end, `hearsay-cli stream --vocabulary F --replacements F` with the real tiny.en model: the
// printed, journaled text is the rewritten one, and a bad rules file or a vocabulary too long for
// the prompt is refused before anything runs.
#include "core/real_models.h"
#include "core/transcript/replacement_rules.h"
#include "core/transcript/spoken_commands.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace hearsay;

namespace {

ReplacementRules rules(std::string_view text) {
    auto r = ReplacementRules::parse(text);
    if (!r) qFatal("rules did not parse: %s", r.message().c_str());
    return std::move(r).value();
}

} // namespace

class TestReplacementRules : public QObject {
    Q_OBJECT

private slots:
    void literalRulesMatchWholeWordsInAnyCase() {
        const auto r = rules("hearsay => Hearsay\n");
        QCOMPARE(r.apply(" I use hearsay and HEARSAY, not hearsays."), std::string(" I use Hearsay and Hearsay, not hearsays."));
        QCOMPARE(r.size(), size_t(1));
    }

    void phrasesMatchAcrossWhitespace() {
        const auto r = rules("hear say => Hearsay\nport audio => PortAudio");
        QCOMPARE(r.apply("Hear  say runs on port\taudio."), std::string("Hearsay runs on PortAudio."));
    }

    void specialCharactersAreLiteral() {
        const auto r = rules("c++ => C++\n3.5 => three and a half\nprice => $5");
        QCOMPARE(r.apply("I write c++ at 3.5 GHz; 305 stays; the price"), std::string("I write C++ at three and a half GHz; 305 stays; the $5"));
    }

    void regularExpressionsWithGroups() {
        const auto r = rules(R"(re:\bq(\d)\b => Q$1
re:(\w+) (\w+) swap => $2 $1)");
        QCOMPARE(r.apply("results for q3 and q4, not q10; alpha beta swap"), std::string("results for Q3 and Q4, not q10; beta alpha"));
    }

    void newlinesAndOrder() {
        const auto r = rules("# spoken commands\n\nnew paragraph => \\n\\n\nnew line => \\n\nre:[ \\t]+\\n => \\n\n");
        QCOMPARE(r.apply("Dear Anna, new paragraph Thanks. new line Bye"), std::string("Dear Anna,\n\n Thanks.\n Bye"));
    }

    void errorsNameTheLine() {
        auto noArrow = ReplacementRules::parse("a => b\n\n  just text\n");
        QVERIFY(!noArrow);
        QVERIFY2(noArrow.message().find("line 3") != std::string::npos, noArrow.message().c_str());
        auto empty = ReplacementRules::parse("# x\n => b\n");
        QVERIFY(!empty);
        QVERIFY2(empty.message().find("line 2") != std::string::npos, empty.message().c_str());
        auto bad = ReplacementRules::parse("re:(unclosed => b");
        QVERIFY(!bad);
        QVERIFY2(bad.message().find("regular expression") != std::string::npos, bad.message().c_str());
        QVERIFY(ReplacementRules::parse("").ok());
        QVERIFY(rules("# only a comment\n").empty());
        auto missing = ReplacementRules::load("/nonexistent/rules.txt");
        QVERIFY(!missing);
    }

    // Spoken commands: the words become characters, taking Whisper's own punctuation around them.
    void spokenCommands() {
        QCOMPARE(applySpokenCommands(" Dear Anna, comma, new line. Thanks for the mail period Are you coming question mark",
                                     "en"),
                 std::string(" Dear Anna,\nThanks for the mail. Are you coming?"));
        QCOMPARE(applySpokenCommands(" First point. New paragraph. Second point exclamation mark", "en"),
                 std::string(" First point\n\nSecond point!"));
        QCOMPARE(applySpokenCommands(" Hallo Anna Komma neue Zeile wie geht es dir Fragezeichen", "de"),
                 std::string(" Hallo Anna,\nwie geht es dir?"));
        // Words that only contain a command are left alone; an unknown language uses English.
        QCOMPARE(applySpokenCommands(" The commander periodically colonised it.", "xx"), std::string(" The commander periodically colonised it."));
    }

    void vocabularyBecomesPromptText() {
        QCOMPARE(vocabularyPrompt("Hearsay\n# a comment\n\n  PortAudio  \nDr. Nguyen\n"), std::string("Hearsay, PortAudio, Dr. Nguyen"));
        QCOMPARE(vocabularyPrompt("\n# nothing\n"), std::string());
    }

    // The CLI end to end: the committed text printed (and so journaled) is the rewritten one.
    void streamRewritesCommittedText() {
        if (const QString why = real_models::missing("tiny.en"); !why.isEmpty()) QFAIL(qPrintable(why));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString vocabulary = dir.filePath("vocabulary.txt"), replacements = dir.filePath("rules.txt");
        std::ofstream(vocabulary.toStdString()) << "Americans\nJFK\n";
        std::ofstream(replacements.toStdString()) << "fellow americans => fellow citizens\nre:\\b[Aa]sk\\b => ASK\n";
        const QString model = QString::fromStdString((real_models::directory() / "tiny.en").string());
        auto run = [&](const QStringList& extra) {
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert("XDG_STATE_HOME", dir.filePath("state"));
            p.setProcessEnvironment(env);
            p.start(QStringLiteral(HEARSAY_CLI_PATH), QStringList{"stream", "--model", model, "--threads", "2", "--quiet",
                                                                  "--output-format", "json", "--commit", "utterance"} +
                                                          extra + QStringList{QString(HEARSAY_SHARED_DATA_DIR) + "/jfk.wav"});
            p.waitForFinished(300000);
            return std::make_pair(p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()) + QString::fromUtf8(p.readAllStandardError()));
        };
        const auto [code, out] = run({"--vocabulary", vocabulary, "--replacements", replacements});
        QVERIFY2(code == 0, qPrintable(out));
        QString committed, summary;
        for (const QString& line : out.split('\n', Qt::SkipEmptyParts)) {
            const QJsonObject j = QJsonDocument::fromJson(line.toUtf8()).object();
            if (j["event"] == "committed") committed += j["text"].toString();
            if (j["event"] == "summary") summary = j["text"].toString();
        }
        QVERIFY2(committed.contains("fellow citizens") && committed.contains("ASK not") && committed.contains("ASK what"),
                 qPrintable(committed));
        QVERIFY2(!committed.contains("Americans"), qPrintable(committed));
        QCOMPARE(summary, committed);

        // A vocabulary longer than its half of the prompt, and one that is not text: refused with
        // its length before anything is streamed.
        {
            std::ofstream long_(vocabulary.toStdString());
            for (int i = 0; i < 400; ++i) long_ << "Wordname" << i << "\n";
        }
        const auto [longCode, longOut] = run({"--vocabulary", vocabulary});
        QCOMPARE(longCode, 2);
        QVERIFY2(longOut.contains("vocabulary is") && longOut.contains("tokens long") && !longOut.contains("\"committed\""),
                 qPrintable(longOut));
        {
            std::ofstream garbage(vocabulary.toStdString(), std::ios::binary);
            for (int i = 0; i < 4096; ++i) garbage << char((i * 131 + 7) % 256);
        }
        const auto [garbageCode, garbageOut] = run({"--vocabulary", vocabulary});
        QCOMPARE(garbageCode, 2);
        QVERIFY2(garbageOut.contains("vocabulary"), qPrintable(garbageOut));

        // A rules file that does not parse: refused with its line, nothing streamed.
        std::ofstream(replacements.toStdString()) << "ok => fine\nbroken line\n";
        const auto [badCode, badOut] = run({"--replacements", replacements});
        QCOMPARE(badCode, 2);
        QVERIFY2(badOut.contains("line 2") && !badOut.contains("\"committed\""), qPrintable(badOut));
    }
};

QTEST_GUILESS_MAIN(TestReplacementRules)
#include "tst_replacement_rules.moc"
