// `hearsay-cli transcribe` as a user runs it: a random 64x2x2 test model on jfk.wav producing
// valid TXT/SRT/VTT/JSON, the cache switches giving the same transcript, and bad input (missing
// or corrupt model, unreadable audio among good files, unknown option, a backend that cannot
// start) giving clear messages and non-zero exit codes without losing the good files' results;
// Ctrl-C in the middle of a long file writing the segments done (the session's cancel control).
#include "core/frontend/pcm_wav.h"
#include "core/util/json_text.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <signal.h>

using nlohmann::json;

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

// How long a CLI run may take: 10 minutes, 40 under a sanitizer (a Debug ASan or TSan build runs
// the cache-less decoding several times slower).
#ifdef HEARSAY_SANITIZED
constexpr int kCliTimeoutMs = 2400000;
#else
constexpr int kCliTimeoutMs = 600000;
#endif

Run runCli(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(HEARSAY_CLI_PATH), args);
    Run r;
    if (!p.waitForFinished(kCliTimeoutMs)) {
        r.err = QString("hearsay-cli did not finish within %1 s").arg(kCliTimeoutMs / 1000);
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

// A 16 kHz mono 16-bit PCM WAV of `samples` at `path`; false when it cannot be written.
bool writeWav(const QString& path, const std::vector<float>& samples) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return false;
    auto u32 = [&](uint32_t v) { f.write(reinterpret_cast<const char*>(&v), 4); };
    auto u16 = [&](uint16_t v) { f.write(reinterpret_cast<const char*>(&v), 2); };
    const uint32_t dataBytes = uint32_t(samples.size() * 2);
    f.write("RIFF");
    u32(36 + dataBytes);
    f.write("WAVEfmt ");
    u32(16);
    u16(1);          // PCM
    u16(1);          // mono
    u32(16000);
    u32(16000 * 2);  // bytes per second
    u16(2);          // block align
    u16(16);         // bits
    f.write("data");
    u32(dataBytes);
    std::vector<int16_t> pcm(samples.size());
    for (size_t i = 0; i < samples.size(); ++i) pcm[i] = int16_t(std::clamp(samples[i] * 32768.0f, -32768.0f, 32767.0f));
    return f.write(reinterpret_cast<const char*>(pcm.data()), qint64(pcm.size() * 2)) == qint64(pcm.size() * 2);
}

QString readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}

const QString kJfk = QStringLiteral(HEARSAY_SHARED_DATA_DIR "/jfk.wav");

} // namespace

class TestCliTranscribe : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_model;

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_model = m_dir.filePath("small.bin");
        Run r = runCli({"make-test-model", "--dims", "64x2x2", "--seed", "1", "--format", "ggml", m_model});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    void writesEveryFormat() {
        const QString out = m_dir.filePath("all");
        Run r = runCli({"transcribe", "--model", m_model, "--language", "en", "--beam-size", "1", "--sample-len", "48",
                        "--output-dir", out, "--output-format", "all", kJfk});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.err.contains("100%"));  // progress on stderr
        QVERIFY(r.err.contains("RTF"));

        auto json = hearsay::parseJson(readAll(out + "/jfk.wav.json").toStdString());
        QVERIFY2(json.ok(), json.ok() ? "" : json.message().c_str());
        const auto& segments = json.value()["segments"];
        QVERIFY(!segments.empty());
        for (const auto& s : segments) {
            QVERIFY(s["end"].get<double>() >= s["start"].get<double>());
            QVERIFY(s["tokens"].is_array());
            QVERIFY(s["avg_logprob"].is_number());
            QVERIFY(s["no_speech_prob"].is_number());
        }
        QCOMPARE(json.value()["language"].get<std::string>(), std::string("en"));
        const auto& stats = json.value()["statistics"];
        QVERIFY(stats["encoder_ms"].get<double>() > 0.0);
        QVERIFY(stats["decode_ms_per_token"].get<double>() > 0.0);
        QVERIFY(stats["self_cache_bytes"].get<int64_t>() > 0);
        QVERIFY(stats["real_time_factor"].get<double>() > 0.0);

        // SRT: numbered cues with HH:MM:SS,mmm --> HH:MM:SS,mmm timing lines.
        const QString srt = readAll(out + "/jfk.wav.srt");
        const QStringList cues = srt.split("\n\n", Qt::SkipEmptyParts);
        QVERIFY(!cues.isEmpty());
        QRegularExpression srtTiming("^\\d\\d:\\d\\d:\\d\\d,\\d\\d\\d --> \\d\\d:\\d\\d:\\d\\d,\\d\\d\\d$");
        for (int i = 0; i < cues.size(); ++i) {
            const QStringList lines = cues[i].split('\n');
            QVERIFY(lines.size() >= 3);
            QCOMPARE(lines[0], QString::number(i + 1));
            QVERIFY2(srtTiming.match(lines[1]).hasMatch(), qPrintable(lines[1]));
        }
        // VTT: header, then MM:SS.mmm timings.
        const QString vtt = readAll(out + "/jfk.wav.vtt");
        QVERIFY(vtt.startsWith("WEBVTT\n\n"));
        QRegularExpression vttTiming("^(\\d\\d:)?\\d\\d:\\d\\d\\.\\d\\d\\d --> (\\d\\d:)?\\d\\d:\\d\\d\\.\\d\\d\\d$",
                                     QRegularExpression::MultilineOption);
        QCOMPARE(vtt.count(vttTiming), cues.size());
        QVERIFY(!readAll(out + "/jfk.wav.txt").isEmpty());
    }

    // --word-timestamps: JSON segments gain their words (faster-whisper's names), in order, each
    // from the text; the SRT line options shape the cues; the line options and
    // --highlight-words without --word-timestamps are refused with a clear message.
    void wordTimestamps() {
        // Without the temperature fallback: the random model's text always fails the reference's
        // checks, and the 26 decodes of each window would take 20 times as long for the same words.
        Run r = runCli({"transcribe", "--model", m_model, "--language", "en", "--beam-size", "1", "--sample-len", "48",
                        "--temperature-increment", "0", "--word-timestamps", "--output-format", "json", "--quiet",
                        kJfk});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        auto json = hearsay::parseJson(r.out.toStdString());
        QVERIFY2(json.ok(), json.ok() ? "" : json.message().c_str());
        size_t words = 0;
        double previousEnd = 0.0;
        for (const auto& s : json.value()["segments"]) {
            QVERIFY(s["words"].is_array());
            for (const auto& w : s["words"]) {
                ++words;
                QVERIFY(w["word"].is_string() && w["probability"].is_number());
                const double start = w["start"].get<double>(), end = w["end"].get<double>();
                QVERIFY2(start <= end && start >= previousEnd - 1e-9, qPrintable(QString("%1-%2").arg(start).arg(end)));
                QVERIFY(w["probability"].get<double>() >= 0.0 && w["probability"].get<double>() <= 1.0);
                previousEnd = end;
                // A word may run on into the next segment (the reference splits words over the
                // window's text), so each is looked for in the whole text.
                QVERIFY(!w["word"].get<std::string>().empty());
                QVERIFY2(json.value()["text"].get<std::string>().find(w["word"].get<std::string>().substr(1)) != std::string::npos,
                         w["word"].get<std::string>().c_str());
            }
        }
        QVERIFY(words > 0);

        Run srt = runCli({"transcribe", "--model", m_model, "--language", "en", "--beam-size", "1", "--sample-len", "48",
                          "--temperature-increment", "0", "--word-timestamps", "--max-line-width", "16",
                          "--max-line-count", "1", "--output-format", "srt", "--quiet", kJfk});
        QVERIFY2(srt.exitCode == 0, qPrintable(srt.err));
        for (const QString& cue : srt.out.split("\n\n", Qt::SkipEmptyParts)) {
            const QStringList lines = cue.split('\n');
            QCOMPARE(lines.size(), 3);  // number, timing, one line of text
            QVERIFY2(lines[2].size() <= 16 || !lines[2].contains(' '), qPrintable(lines[2]));
        }

        for (const char* option : {"--max-line-width", "--max-line-count", "--highlight-words"}) {
            QStringList args = {"transcribe", "--model", m_model, option};
            if (QString(option) != "--highlight-words") args << "3";
            args << kJfk;
            Run refused = runCli(args);
            QCOMPARE(refused.exitCode, 2);
            QVERIFY2(refused.err.contains("needs --word-timestamps"), qPrintable(refused.err));
        }
    }

    // --languages: detection picks one of the given languages; an unknown one is refused.
    void detectionAmongGivenLanguages() {
        for (const QString& list : {QString("fr"), QString("German,ja")}) {
            const QString out = m_dir.filePath("languages");
            Run r = runCli({"transcribe", "--model", m_model, "--languages", list, "--beam-size", "1", "--sample-len", "8",
                            "--output-dir", out, "--output-format", "json", kJfk});
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            auto json = hearsay::parseJson(readAll(out + "/jfk.wav.json").toStdString());
            QVERIFY2(json.ok(), json.ok() ? "" : json.message().c_str());
            const QString language = QString::fromStdString(json.value()["language"].get<std::string>());
            QVERIFY2(list == "fr" ? language == "fr" : (language == "de" || language == "ja"), qPrintable(language));
        }
        Run bad = runCli({"transcribe", "--model", m_model, "--languages", "en,klingon", kJfk});
        QVERIFY(bad.exitCode != 0);
        QVERIFY2(bad.err.contains("klingon"), qPrintable(bad.err));
    }

    void cacheSwitchesGiveTheSameTranscript() {
        QString reference;
        for (QStringList switches : {QStringList{}, QStringList{"--no-self-cache"}, QStringList{"--no-cross-cache"},
                                     QStringList{"--no-self-cache", "--no-cross-cache"}}) {
            // fp32: where a GPU is, auto picks CUDA, and fp16 rounding (other GEMM shapes without a
            // cache) can flip a near tie among the random model's logits; the CPU is float32 anyway.
            QStringList args = {"transcribe", "--model", m_model, "--language", "en", "--beam-size", "1",
                                "--precision", "fp32", "--sample-len", "32", "--output-format", "json", "--quiet", kJfk};
            args.append(switches);
            Run r = runCli(args);
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            auto json = hearsay::parseJson(r.out.toStdString());
            QVERIFY(json.ok());
            std::string tokens;
            for (const auto& s : json.value()["segments"]) tokens += s["tokens"].dump() + s["text"].dump();
            if (reference.isEmpty()) reference = QString::fromStdString(tokens);
            else QCOMPARE(QString::fromStdString(tokens), reference);
        }
    }

    void badInputGivesClearErrors() {
        Run missing = runCli({"transcribe", "--model", m_dir.filePath("nope.bin"), kJfk});
        QVERIFY(missing.exitCode != 0);
        QVERIFY2(missing.err.contains("nope.bin"), qPrintable(missing.err));

        const QString corrupt = m_dir.filePath("corrupt.bin");
        QFile src(m_model);
        QVERIFY(src.open(QIODevice::ReadOnly));
        QFile dst(corrupt);
        QVERIFY(dst.open(QIODevice::WriteOnly));
        dst.write(src.read(src.size() / 3));  // truncated
        dst.close();
        Run truncated = runCli({"transcribe", "--model", corrupt, kJfk});
        QVERIFY(truncated.exitCode != 0);
        QVERIFY2(truncated.err.contains("corrupt.bin"), qPrintable(truncated.err));

        // A checkpoint written by transformers' save_pretrained without tokenizer files.
        Run noVocabulary = runCli({"transcribe", "--model", QString(HEARSAY_TEST_DATA_DIR) + "/models/hf-small-bf16", kJfk});
        QCOMPARE(noVocabulary.exitCode, 1);
        QVERIFY2(noVocabulary.err.contains("hf-small-bf16") && noVocabulary.err.contains("vocab.json"),
                 qPrintable(noVocabulary.err));

        Run unknown = runCli({"transcribe", "--model", m_model, "--frobnicate", kJfk});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY(unknown.err.contains("--frobnicate"));

        Run badFormat = runCli({"transcribe", "--model", m_model, "--output-format", "docx", kJfk});
        QCOMPARE(badFormat.exitCode, 2);
        QVERIFY(badFormat.err.contains("docx"));

        Run badPrecision = runCli({"transcribe", "--model", m_model, "--precision", "fp8", kJfk});
        QCOMPARE(badPrecision.exitCode, 2);
        QVERIFY2(badPrecision.err.contains("--precision: fp8") && badPrecision.err.contains("{fp16,fp32}"), qPrintable(badPrecision.err));
        Run fp32 = runCli({"transcribe", "--model", m_model, "--language", "en", "--beam-size", "1", "--sample-len", "8",
                           "--backend", "cpu", "--precision", "FP32", kJfk});
        QVERIFY2(fp32.exitCode == 0, qPrintable(fp32.err));  // accepted (the CPU computes in float32 anyway)

        Run noModel = runCli({"transcribe", kJfk});
        QCOMPARE(noModel.exitCode, 2);
        QVERIFY(noModel.err.contains("--model"));
    }

    void unusableBackendSuggestsTheCpu() {
        // Without a GPU (CI), --backend cuda fails before any work and says what to use instead.
        Run r = runCli(
            {"transcribe", "--model", m_model, "--backend", "cuda", "--beam-size", "1", "--sample-len", "8", kJfk});
        if (r.exitCode == 0) QSKIP("the CUDA backend starts on this machine: no failure to report");
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("CUDA") && r.err.contains("--backend cpu"), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    void ctrlCWritesTheSegmentsDone() {
        // jfk.wav 120 times over (22 minutes, 44 windows; short decodes without fallback): still
        // running when the signal comes, which is sent once the first window's progress line is out.
        auto jfk = hearsay::readPcm16Wav(kJfk.toStdString());
        QVERIFY2(jfk.ok(), jfk.ok() ? "" : jfk.message().c_str());
        std::vector<float> longer;
        for (int i = 0; i < 120; ++i) longer.insert(longer.end(), jfk->begin(), jfk->end());
        const QString input = m_dir.filePath("long.wav");
        QVERIFY(writeWav(input, longer));

        QProcess p;
        p.start(QStringLiteral(HEARSAY_CLI_PATH), {"transcribe", "--model", m_model, "--language", "en", "--beam-size",
                                                   "1", "--sample-len", "24", "--temperature-increment", "0",
                                                   "--output-format", "json", input});
        QVERIFY(p.waitForStarted());
        QString err;
        const QRegularExpression progressLine("long\\.wav: +\\d+% \\(([0-9.]+) of");
        QElapsedTimer waited;
        waited.start();
        while (!progressLine.match(err).hasMatch() && waited.elapsed() < 300000) {
            p.waitForReadyRead(1000);
            err += QString::fromUtf8(p.readAllStandardError());
            QVERIFY2(p.state() == QProcess::Running, qPrintable(err));
        }
        QVERIFY2(progressLine.match(err).hasMatch(), qPrintable(err));
        QCOMPARE(::kill(pid_t(p.processId()), SIGINT), 0);
        QVERIFY(p.waitForFinished(300000));
        err += QString::fromUtf8(p.readAllStandardError());
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);  // stopped by the engine, not killed by the signal
        QCOMPARE(p.exitCode(), 130);

        // "cancelled at 90.0 of 440.0 s; writing the 7 segments done", and those segments on stdout.
        const QRegularExpressionMatch said =
            QRegularExpression("cancelled at ([0-9.]+) of ([0-9.]+) s; writing the (\\d+) segments done").match(err);
        QVERIFY2(said.hasMatch(), qPrintable(err));
        QVERIFY2(said.captured(1).toDouble() < said.captured(2).toDouble(), qPrintable(err));
        auto json = hearsay::parseJson(out.toStdString());
        QVERIFY2(json.ok(), qPrintable(out.left(500)));
        const auto& segments = json.value()["segments"];
        QCOMPARE(int(segments.size()), said.captured(3).toInt());
    }

    // Every audio file the fuzzer ever crashed on: exit status 1 and a message naming the file
    // (the first of them made the CLI die with SIGSEGV), or, for one that is valid audio, a
    // transcript.
    void fuzzFindingsAreClearErrors() {
        const QDir regressions(QString(HEARSAY_TEST_DATA_DIR) + "/../fuzz/regressions/fuzz_audio_file");
        const QStringList inputs = regressions.entryList(QDir::Files);
        QVERIFY2(!inputs.isEmpty(), qPrintable(regressions.path()));
        for (const QString& name : inputs) {
            // What is checked is the audio's error; a file that decodes is transcribed briefly.
            Run r = runCli({"transcribe", "--model", m_model, "--language", "en", "--beam-size", "1", "--sample-len", "16",
                            "--temperature-increment", "0", regressions.filePath(name)});
            QVERIFY2(r.exitCode == 0 || r.exitCode == 1, qPrintable(name + ": exit " + QString::number(r.exitCode)));
            if (r.exitCode == 1) {
#ifdef HEARSAY_DECODER_PATH
                const bool said = r.err.contains("cannot decode audio file");
#else  // the engine-only build reads 16 kHz mono 16-bit WAV itself
                const bool said = r.err.contains("is not a usable WAV file");
#endif
                QVERIFY2(said && r.err.contains(name), qPrintable(r.err));
            }
        }
    }

    void oneBadFileDoesNotLoseTheOthers() {
        const QString garbage = m_dir.filePath("garbage.wav");
        QFile g(garbage);
        QVERIFY(g.open(QIODevice::WriteOnly));
        g.write("RIFF\x10\x00\x00\x00WAVEnot really audio at all");
        g.close();
        const QString out = m_dir.filePath("mixed");
        Run r = runCli({"transcribe", "--model", m_model, "--language", "en", "--beam-size", "1", "--sample-len", "16",
                        "--output-dir", out, "--output-format", "json", m_dir.filePath("missing.wav"), garbage, kJfk});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("missing.wav"), qPrintable(r.err));
        QVERIFY2(r.err.contains("garbage.wav"), qPrintable(r.err));
        QVERIFY(hearsay::parseJson(readAll(out + "/jfk.wav.json").toStdString()).ok());
        QVERIFY(!QFile::exists(out + "/garbage.wav.json"));
    }

    // The audio decoder crashing on a file (the helper made to crash, as a hostile file would
    // make it): an error naming the file and the signal, exit status 1, not the CLI's own death.
    void decoderCrashIsAnError() {
#ifndef HEARSAY_DECODER_PATH
        QSKIP("this build has no decoder helper (engine only: WAV files are read in the CLI)");
#endif
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("HEARSAY_DECODER_FAULT", "crash");
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(HEARSAY_CLI_PATH), {"transcribe", "--model", m_model, "--language", "en", "--beam-size",
                                                   "1", "--sample-len", "8", "--output-format", "txt", kJfk});
        QVERIFY(p.waitForFinished(kCliTimeoutMs));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 1);
        QVERIFY2(err.contains("could not decode '" + kJfk + "': the decoder crashed (signal 11"), qPrintable(err));
    }

    // An output that cannot be written (here a directory stands where the file should go, which
    // fails for root too): a clear message, a failing exit code, no half-written file, and the
    // transcript on stdout instead, so that nothing is lost.
    void unwritableOutputKeepsTheTranscript() {
        const QString out = m_dir.filePath("blocked");
        QVERIFY(QDir().mkpath(out + "/jfk.wav.txt"));
        Run r = runCli({"transcribe", "--model", m_model, "--language", "en", "--beam-size", "1", "--sample-len", "16",
                        "--output-dir", out, "--output-format", "txt", kJfk});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("cannot write") && r.err.contains("jfk.wav.txt") && r.err.contains("follows on stdout"),
                 qPrintable(r.err));
        QVERIFY2(!r.out.trimmed().isEmpty(), "the transcript did not reach stdout");
        QVERIFY(QFileInfo(out + "/jfk.wav.txt").isDir());
        QVERIFY(!QFile::exists(out + "/jfk.wav.txt.part"));
    }
};

QTEST_APPLESS_MAIN(TestCliTranscribe)
#include "tst_cli_transcribe.moc"
