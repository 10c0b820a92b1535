// hearsay-cli's option declarations, through the real program: the help of the program and of
// every command lists the options they declare; values out of range, not numbers, unknown options
// and missing values are refused with exit status 2 and one line that names the option; a valid
// run of a cheap command works. Nothing here loads a model.
#include "core/cli_run.h"

#include <QProcess>
#include <QTest>

namespace {

using Run = test::CliRun;

Run cli(const QStringList& args) { return test::runCli(args, QProcessEnvironment::systemEnvironment(), 60000); }

QString describe(const QStringList& args, const Run& r) {
    return "hearsay-cli " + args.join(' ') + ": exit " + QString::number(r.exitCode) + "\nstdout: " + r.out +
           "\nstderr: " + r.err;
}

} // namespace

class TestCliOptions : public QObject {
    Q_OBJECT

private slots:
    void overviewListsTheCommands() {
        for (const QStringList& args : {QStringList{"--help"}, QStringList{"help"}}) {
            const Run r = cli(args);
            QVERIFY2(r.exitCode == 0, qPrintable(describe(args, r)));
            for (const char* command : {"transcribe", "stream", "bench", "models", "type", "audio", "vad", "journal",
                                        "convert", "make-test-model"}) {
                QVERIFY2(r.out.contains(QStringLiteral("\n  %1 ").arg(command)), qPrintable(describe(args, r)));
            }
            // The bench's child protocol is no user's interface.
            QVERIFY2(!r.out.contains("bench-cache-row") && !r.out.contains("bench-real-file"), qPrintable(r.out));
        }
        const Run none = cli({});
        QCOMPARE(none.exitCode, 2);
        QVERIFY2(none.err.contains("transcribe"), qPrintable(none.err));
        const Run version = cli({"--version"});
        QCOMPARE(version.exitCode, 0);
        QVERIFY2(version.out.startsWith("hearsay-cli "), qPrintable(version.out));
    }

    void commandHelpListsItsOptions_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("options");
        QTest::newRow("transcribe") << "transcribe"
                                    << QStringList{"--model", "--threads", "--beam-size", "--best-of", "--temperature",
                                                   "--output-format", "--output-dir", "--word-timestamps", "--quiet"};
        QTest::newRow("stream") << "stream"
                                << QStringList{"--model", "--mic", "--step", "--commit", "--vad-threshold",
                                               "--min-silence-ms", "--newline", "--no-journal", "--list-devices"};
        QTest::newRow("bench") << "bench"
                               << QStringList{"--sizes", "--model", "--threads", "--repeats", "--lengths", "--modes",
                                              "--peers", "--real-files", "--streaming", "--word-timings"};
        QTest::newRow("models") << "models" << QStringList{"--format", "--revision", "--hub-url", "--models-dir", "--dir"};
        QTest::newRow("type") << "type" << QStringList{"--file", "--method", "--delay", "--newline", "--quiet"};
        QTest::newRow("audio") << "audio" << QStringList{"--device", "--seconds", "--output", "--speed", "--in-process"};
        QTest::newRow("vad") << "vad" << QStringList{"--threshold", "--neg-threshold", "--min-silence-ms", "--stream",
                                                     "--samples", "--weights"};
        QTest::newRow("journal") << "journal" << QStringList{"--dir", "--output"};
        QTest::newRow("convert") << "convert" << QStringList{"--to", "--dtype", "--force"};
        QTest::newRow("make-test-model") << "make-test-model" << QStringList{"--dims", "--seed", "--format", "--dtype",
                                                                             "--vocab"};
        QTest::newRow("bench-cache-row") << "bench-cache-row" << QStringList{"--model", "--length", "--mode", "--audio"};
        QTest::newRow("bench-real-file") << "bench-real-file"
                                         << QStringList{"--model", "--audio", "--json", "--beam-size", "--name"};
    }
    void commandHelpListsItsOptions() {
        QFETCH(QString, command);
        QFETCH(QStringList, options);
        const QStringList args{command, "--help"};
        const Run r = cli(args);
        QVERIFY2(r.exitCode == 0, qPrintable(describe(args, r)));
        QVERIFY2(r.out.contains("hearsay-cli " + command), qPrintable(r.out));
        for (const QString& option : options) {
            QVERIFY2(r.out.contains("  " + option + " ") || r.out.contains("  " + option + "\n"),
                     qPrintable(option + " is not in the help of " + command + ":\n" + r.out));
        }
    }

    void refusedValues_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("option");   // named in the message
        QTest::addColumn<QString>("accepted"); // what the message says is accepted ("" where nothing is)
        QTest::newRow("threads beyond 32 bits") << QStringList{"transcribe", "--model", "m", "--threads", "4294967297", "a.wav"}
                                                << "--threads" << "0 to 4096";
        QTest::newRow("negative threads") << QStringList{"transcribe", "--threads", "-1", "a.wav"} << "--threads"
                                          << "0 to 4096";
        QTest::newRow("threads not a number") << QStringList{"transcribe", "--threads", "four"} << "--threads"
                                              << "0 to 4096";
        QTest::newRow("beam size 17") << QStringList{"transcribe", "--beam-size", "17"} << "--beam-size" << "1 to 16";
        QTest::newRow("beam size inline") << QStringList{"transcribe", "--beam-size=0"} << "--beam-size" << "1 to 16";
        QTest::newRow("temperature") << QStringList{"transcribe", "--temperature", "2.5"} << "--temperature" << "0 to 2";
        QTest::newRow("threshold word") << QStringList{"transcribe", "--logprob-threshold", "low"} << "--logprob-threshold"
                                        << "none";
        QTest::newRow("output format") << QStringList{"transcribe", "--output-format", "docx"} << "--output-format"
                                       << "srt";
        QTest::newRow("precision") << QStringList{"transcribe", "--precision", "fp8"} << "--precision" << "fp16";
        QTest::newRow("unknown option") << QStringList{"transcribe", "--frobnicate", "a.wav"} << "--frobnicate" << "";
        QTest::newRow("missing value") << QStringList{"transcribe", "a.wav", "--model"} << "--model" << "";
        QTest::newRow("stream step") << QStringList{"stream", "--step", "20"} << "--step" << "0.05 to 10";
        QTest::newRow("stream commit") << QStringList{"stream", "--commit", "never"} << "--commit" << "utterance";
        QTest::newRow("stream newline") << QStringList{"stream", "--newline", "tab"} << "--newline" << "shift-enter";
        QTest::newRow("stream vocabulary missing") << QStringList{"stream", "--vocabulary", "no-such-words.txt"}
                                                   << "--vocabulary" << "no-such-words.txt";
        QTest::newRow("bench threads 0") << QStringList{"bench", "--threads", "0"} << "--threads" << "1 to 4096";
        QTest::newRow("bench unknown") << QStringList{"bench", "--child-cache-run"} << "--child-cache-run" << "";
        QTest::newRow("vad threshold") << QStringList{"vad", "--threshold", "1.5", "a.wav"} << "--threshold" << "0 to 1";
        QTest::newRow("vad block") << QStringList{"vad", "--stream", "0", "a.wav"} << "--stream" << "1 to";
        QTest::newRow("type delay") << QStringList{"type", "--delay", "-1", "x"} << "--delay" << "0 to";
        QTest::newRow("models action") << QStringList{"models", "fetch"} << "ACTION" << "download";
        QTest::newRow("models format") << QStringList{"models", "list", "--format", "onnx"} << "--format" << "ct2";
        QTest::newRow("seed") << QStringList{"make-test-model", "--dims", "tiny", "--format", "hf", "--seed", "-1", "x"}
                              << "--seed" << "0 to";
        QTest::newRow("cache row length") << QStringList{"bench-cache-row", "--model", "m", "--length", "0", "--mode", "both"}
                                          << "--length" << "1 to";
        QTest::newRow("cache row needs model") << QStringList{"bench-cache-row", "--length", "20", "--mode", "both"}
                                               << "--model" << "";
    }
    void refusedValues() {
        QFETCH(QStringList, args);
        QFETCH(QString, option);
        QFETCH(QString, accepted);
        const Run r = cli(args);
        QVERIFY2(r.exitCode == 2, qPrintable(describe(args, r)));
        QVERIFY2(r.err.contains(option), qPrintable(describe(args, r)));
        if (!accepted.isEmpty()) QVERIFY2(r.err.contains(accepted), qPrintable(describe(args, r)));
        QVERIFY2(r.err.count('\n') == 1 && r.err.endsWith('\n'), qPrintable("not one line:\n" + r.err));
        QVERIFY2(r.err.startsWith("hearsay-cli " + args.front() + ": "), qPrintable(r.err));
        QVERIFY2(r.out.isEmpty(), qPrintable(r.out));
    }

    void validRunsStillWork() {
        // The extremes of a range are accepted: the floors of a made size on assumed peaks (no probe).
        const QStringList floors{"bench", "--floors-only", "--sizes", "tiny", "--peak-gflops", "1000",
                                 "--peak-gbs", "100", "--threads", "4096"};
        const Run f = cli(floors);
        QVERIFY2(f.exitCode == 0, qPrintable(describe(floors, f)));
        QVERIFY2(f.out.contains("tiny"), qPrintable(f.out));
        const Run sizes = cli({"models", "sizes"});
        QVERIFY2(sizes.exitCode == 0, qPrintable(describe({"models", "sizes"}, sizes)));
        QVERIFY2(sizes.out.contains("large-v3") && sizes.out.contains("tiny.en"), qPrintable(sizes.out));
        // A choice is read in any case, as before (the value the command sees is the choice's spelling).
        const QStringList upper{"models", "--format", "GGML", "sizes"};
        const Run u = cli(upper);
        QVERIFY2(u.exitCode == 0, qPrintable(describe(upper, u)));
    }
};

QTEST_APPLESS_MAIN(TestCliOptions)
#include "tst_cli_options.moc"
