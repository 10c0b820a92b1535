// The benchmark's bookkeeping: the fixed work does the steps it claims (counted by the session
// itself), caches reach the lengths they should, long lengths chain windows within n_text_ctx,
// and `hearsay-cli bench --json` writes every field of its schema with sane values. Runs on a
// tiny random model (64x2x2); no timing is asserted.
#include "core/backend/backend.h"
#include "core/backend/blas.h"
#include "core/backend/cpu_backend.h"
#include "core/engine/backend_factory.h"
#include "core/bench/bench_input.h"
#include "core/bench/bench_work.h"
#include "core/bench/cache_run.h"
#include "core/bench/encoder_pairs.h"
#include "core/bench/fixed_work.h"
#include "core/bench/machine_info.h"
#include "core/bench/peak_memory.h"
#include "core/bench/peer_rounds.h"
#include "core/bench/real_file_bench.h"
#include "core/bench/roofline.h"
#include "core/bench/subprocess.h"
#include "core/text/tokenizer.h"
#include "core/model/whisper_model.h"
#include "core/nn/inference_session.h"
#include "core/util/json_text.h"
#include "core/util/mapped_file.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <map>

#include <cmath>
#include <fstream>
#include <regex>
#include <set>

using nlohmann::json;

using namespace hearsay;

namespace {

const std::string kWav = std::string(HEARSAY_SHARED_DATA_DIR) + "/jfk.wav";

// Runs hearsay-cli with `args`; returns its exit code, stdout in `out`.
int runCli(const QStringList& args, QByteArray* out = nullptr, int timeoutMs = 600000) {
    QProcess p;
    p.setProcessChannelMode(QProcess::SeparateChannels);
    p.start(HEARSAY_CLI_PATH, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return -1;
    }
    if (out) *out = p.readAllStandardOutput();
    const QByteArray err = p.readAllStandardError();
    if (p.exitCode() != 0) qWarning("hearsay-cli %s: %s", qPrintable(args.join(' ')), err.constData());
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

} // namespace

class TestBench : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_model;   // 64x2x2 ggml, f32
    std::shared_ptr<const WhisperModel> m_whisper;
    LogMel m_mel;

    // A session on its own CPU backend (2 threads); `backendOut`, when given, gets the backend
    // (the op profiles switch its timing).
    std::unique_ptr<InferenceSession> session(int beams, bool selfCache, bool crossCache,
                                              std::shared_ptr<Backend>* backendOut = nullptr) {
        auto backend = createBackend(BackendKind::Cpu, BackendOptions{2, 0});
        if (!backend) qFatal("backend: %s", backend.message().c_str());
        SessionOptions options;
        options.maxBeams = beams;
        options.selfAttentionCache = selfCache;
        options.crossAttentionCache = crossCache;
        auto s = InferenceSession::create(m_whisper, backend.value(), options);
        if (!s) qFatal("session: %s", s.message().c_str());
        if (backendOut) *backendOut = backend.value();
        return std::move(s.value());
    }

private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_model = m_dir.filePath("m64.bin");
        QCOMPARE(runCli({"make-test-model", "--dims", "64x2x2", "--seed", "3", "--format", "ggml", m_model}), 0);
        auto model = WhisperModel::load(m_model.toStdString());
        QVERIFY2(model.ok(), model.ok() ? "" : model.message().c_str());
        m_whisper = model.value();
        auto mel = benchWindow(kWav, m_whisper->config().nMels);
        QVERIFY2(mel.ok(), mel.ok() ? "" : mel.message().c_str());
        m_mel = mel.value();
    }

    // --- pure bookkeeping -------------------------------------------------------------------

    void tokenSequencesStartWithTheTranscriptPrefix() {
        const WhisperConfig multi = WhisperConfig::fromName("tiny").value();
        const SpecialTokens ids = SpecialTokens::forVocabularySize(multi.nVocab);
        const std::vector<int> sot = startOfTranscript(multi);
        QCOMPARE(sot, (std::vector<int>{ids.sot, ids.firstLanguage, ids.transcribe, ids.noTimestamps}));
        const WhisperConfig english = WhisperConfig::fromName("tiny.en").value();
        QCOMPARE(startOfTranscript(english), (std::vector<int>{SpecialTokens::forVocabularySize(english.nVocab).sot,
                                                                SpecialTokens::forVocabularySize(english.nVocab).noTimestamps}));

        const auto a = benchTokenSequence(multi, 256, 0), b = benchTokenSequence(multi, 256, 1);
        QCOMPARE(a.size(), size_t(256));
        QVERIFY(std::equal(sot.begin(), sot.end(), a.begin()));
        QVERIFY(std::equal(sot.begin(), sot.end(), b.begin()));
        for (size_t i = sot.size(); i < a.size(); ++i) {
            QVERIFY(a[i] > 0 && a[i] < ids.eot);  // ordinary text tokens only
            QVERIFY(a[i] != b[i]);                         // beams differ after the prefix
        }
        QCOMPARE(benchTokenSequence(multi, 2).size(), size_t(2));  // shorter than the prefix: cut
    }

    void longLengthsChainWindowsWithinTheContext() {
        const WhisperConfig c = WhisperConfig::fromName("base").value();
        const auto one = planDecodeLength(c, 224);
        QCOMPARE(one.size(), size_t(1));
        QCOMPARE(one[0].sampledTokens, 224);
        QCOMPARE(one[0].promptTokens, 0);

        const auto two = planDecodeLength(c, 444);
        QCOMPARE(two.size(), size_t(2));
        QCOMPARE(two[1].promptTokens, 1 + 223);  // <|startofprev|> + the reference's cap n_text_ctx/2 − 1
        QCOMPARE(two[1].sampledTokens, 220);

        for (int length : {1, 20, 128, 224, 225, 444, 445, 1000, 2000}) {
            int total = 0;
            for (const WindowPlan& w : planDecodeLength(c, length)) {
                QVERIFY(w.promptTokens + w.sotTokens + w.sampledTokens <= c.nTextCtx);
                QVERIFY(w.sampledTokens <= c.nTextCtx / 2);
                QVERIFY(w.sampledTokens > 0);
                total += w.sampledTokens;
            }
            QCOMPARE(total, length);
        }
        QVERIFY(planDecodeLength(c, 0).empty());
    }

    void fixedWorkChecksItsCounts() {
        const WhisperConfig c = WhisperConfig::fromName("tiny").value();
        FixedWork w;
        QVERIFY(w.check(c, 5).empty());
        QVERIFY(!w.check(c, 4).empty());  // 5 beams do not fit a 4-beam session
        w.decodeSteps = 449;
        QVERIFY(QString::fromStdString(w.check(c, 5)).contains("n_text_ctx"));
        w = FixedWork{};
        w.repeats = 0;
        QVERIFY(QString::fromStdString(w.check(c, 5)).contains("repeats"));
    }

    // --rounds: each round's ratios from its own runs, their median over the rounds, and the
    // rounds' samples pooled in round order.
    void roundsTakeTheMedianOfTheirRatios() {
        auto result = [](std::vector<double> encoder, std::vector<double> decode) {
            FixedWorkResult r;
            r.encoderMs.values = std::move(encoder);
            r.decodeMsPerToken.values = std::move(decode);
            return r;
        };
        auto peersDoc = [](double encoder, double decode) {
            json doc;
            doc["peers"]["p"]["figures"]["encoderMs"] = {{"median", encoder}, {"min", encoder}, {"samples", {encoder, encoder + 2}}};
            doc["peers"]["p"]["figures"]["decodeMsPerToken"] = {{"median", decode}, {"min", decode}, {"samples", {decode}}};
            doc["peers"]["p"]["version"] = "p 1.0";
            doc["errors"] = json::object();
            return doc;
        };
        const std::vector<FixedWorkResult> ours = {result({100, 104, 90}, {2.0}), result({120}, {3.0}), result({80, 82}, {1.0})};
        const std::vector<json> docs = {peersDoc(200, 4.0), peersDoc(150, 6.0), peersDoc(100, 2.0)};
        std::vector<json> ratios;
        for (size_t i = 0; i < ours.size(); ++i) ratios.push_back(ratiosAgainstPeers(ours[i], docs[i]));
        QCOMPARE(ratios[0]["p"]["encoderMs"].get<double>(), 100.0 / 200.0);
        QCOMPARE(ratios[1]["p"]["encoderMs"].get<double>(), 120.0 / 150.0);
        QCOMPARE(ratios[2]["p"]["encoderMs"].get<double>(), 81.0 / 100.0);
        QVERIFY(ratios[0]["p"]["batchMsPerToken"].is_null());  // neither side measured it
        const json median = medianOfRatios(ratios);
        QCOMPARE(median["p"]["encoderMs"].get<double>(), 0.8);  // of 0.5, 0.8, 0.81
        QCOMPARE(median["p"]["decodeMsPerToken"].get<double>(), 0.5);
        QVERIFY(median["p"]["promptMsPerToken"].is_null());
        // Two rounds: the mean of the middle two; a round without the peer does not count.
        json missing;
        missing["q"]["encoderMs"] = 9.0;
        const json two = medianOfRatios({ratios[0], ratios[1], missing});
        QCOMPARE(two["p"]["encoderMs"].get<double>(), 0.65);
        QCOMPARE(two["q"]["encoderMs"].get<double>(), 9.0);

        json failed;
        failed["peers"] = json::object();
        failed["errors"]["p"] = "it broke";
        failed["errors"]["r"] = "never ran";
        const json merged = mergePeersDocuments({docs[0], failed, docs[1], docs[2]});
        QCOMPARE(merged["peers"]["p"]["rounds"].get<int>(), 3);
        QCOMPARE(merged["peers"]["p"]["version"].get<std::string>(), std::string("p 1.0"));
        const json& encoder = merged["peers"]["p"]["figures"]["encoderMs"];
        QCOMPARE(encoder["samples"], json({200, 202, 150, 152, 100, 102}));
        QCOMPARE(encoder["median"].get<double>(), 151.0);
        QCOMPARE(encoder["min"].get<double>(), 100.0);
        QCOMPARE(peerFigureMedian(merged["peers"]["p"], "decodeMsPerToken"), 4.0);
        QCOMPARE(peerFigureMedian(merged["peers"]["p"], "batchMsPerToken"), 0.0);
        QVERIFY(!merged["errors"].contains("p"));  // measured in other rounds
        QCOMPARE(merged["errors"]["r"].get<std::string>(), std::string("never ran"));

        const FixedWorkResult pooled = poolRounds(ours);
        QCOMPARE(pooled.encoderMs.values, (std::vector<double>{100, 104, 90, 120, 80, 82}));
        QCOMPARE(pooled.decodeMsPerToken.median(), 2.0);
    }

    // --encoder-pairs: one run of each program a pair, the peer first in every second pair, after
    // the warm-up runs; the figure is the median of the pairs' ratios.
    void encoderPairsTakeTurns() {
        std::string order;
        std::vector<double> ours = {1, 1, 100, 90, 120, 80, 110};    // two warm-ups, then five pairs
        std::vector<double> theirs = {1, 1, 200, 100, 150, 100, 100};
        size_t h = 0, p = 0;
        EncoderRun hearsay = [&]() -> Result<double> { order += 'H'; return ours[h++]; };
        EncoderRun peer = [&]() -> Result<double> { order += 'P'; return theirs[p++]; };
        auto pairs = runEncoderPairs(5, 2, hearsay, peer);
        QVERIFY2(pairs.ok(), pairs.ok() ? "" : pairs.message().c_str());
        QCOMPARE(order, std::string("HPHP" "HP" "PH" "HP" "PH" "HP"));
        QCOMPARE(pairs->pairs.size(), size_t(5));
        QVERIFY(!pairs->pairs[0].peerFirst);
        QVERIFY(pairs->pairs[1].peerFirst);
        QCOMPARE(pairs->pairs[1].ratio(), 0.9);
        QCOMPARE(pairs->medianRatio(), 0.8);  // of 0.5, 0.9, 0.8, 0.8, 1.1
        QCOMPARE(pairs->hearsayMs().values, (std::vector<double>{100, 90, 120, 80, 110}));
        QCOMPARE(pairs->peerMs().median(), 100.0);
        const json j = toJson(pairs.value());
        QCOMPARE(j["pairs"].size(), size_t(5));
        QCOMPARE(j["pairs"][1]["first"].get<std::string>(), std::string("peer"));
        QCOMPARE(j["medianRatio"].get<double>(), 0.8);

        // The first failure of either program ends the run, and says whose it was.
        p = 0;
        EncoderRun failing = [&]() -> Result<double> {
            if (++p == 3) return makeError("it stopped");
            return 10.0;
        };
        auto stopped = runEncoderPairs(4, 0, [] { return Result<double>(5.0); }, failing);
        QVERIFY(!stopped.ok());
        QCOMPARE(QString::fromStdString(stopped.message()), QString("the peer: it stopped"));
        QVERIFY(!runEncoderPairs(2, 0, [] { return Result<double>(0.0); }, failing).ok());  // a run that took no time
        QVERIFY(!runEncoderPairs(0, 0, failing, failing).ok());
    }

    // The child the encoder pairs keep loaded: a line for each line, and a child that dies or
    // falls silent is an error, never a signal that ends the bench.
    void lineChildAnswersLineByLine() {
        auto echo = LineChild::start({"sh", "-c", "echo ready; while read line; do echo \"got $line\"; done"});
        QVERIFY(echo.ok());
        auto ready = echo.value()->readLine(60000);
        QVERIFY(ready.ok());
        QCOMPARE(ready.value(), std::string("ready"));
        for (const std::string word : {"one", "two"}) {
            auto answer = echo.value()->ask(word, 60000);
            QVERIFY(answer.ok());
            QCOMPARE(answer.value(), "got " + word);
        }
        // Two lines in one write come back one at a time.
        auto twice = LineChild::start({"sh", "-c", "read line; printf 'a\\nb\\n'; read line"});
        QVERIFY(twice.ok());
        auto a = twice.value()->ask("go", 60000);
        QVERIFY(a.ok());
        QCOMPARE(a.value(), std::string("a"));
        auto b = twice.value()->readLine(60000);
        QVERIFY(b.ok());
        QCOMPARE(b.value(), std::string("b"));

        auto exits = LineChild::start({"sh", "-c", "read line; exit 3"});
        QVERIFY(exits.ok());
        auto none = exits.value()->ask("hello", 60000);
        QVERIFY(!none.ok());
        QVERIFY2(QString::fromStdString(none.message()).contains("exited without answering"), none.message().c_str());
        QVERIFY(!exits.value()->ask("again", 60000).ok());  // no SIGPIPE: an error

        auto silent = LineChild::start({"sh", "-c", "exec sleep 600"});
        QVERIFY(silent.ok());
        auto nothing = silent.value()->readLine(200);
        QVERIFY(!nothing.ok());
        QVERIFY2(QString::fromStdString(nothing.message()).contains("answered nothing"), nothing.message().c_str());
        silent.value().reset();  // already stopped: returns at once

        QVERIFY(!LineChild::start({"/nonexistent/program"}).ok());
    }

    void floorsFollowTheOperationCounts() {
        const WhisperConfig tiny = WhisperConfig::fromName("tiny").value();
        // By hand for tiny (d 384, 4+4 layers, 80 mels, n 1500): conv1 2·3000·384·240, conv2
        // 2·1500·384·1152, per layer 24·n·d² + 4·n²·d, cross K/V 4·n·d² per decoder layer.
        const double n = 1500, d = 384;
        const double expected = 2 * 3000 * d * 240 + 2 * n * d * 1152 + 4 * (24 * n * d * d + 4 * n * n * d) + 4 * (4 * n * d * d);
        QCOMPARE(encoderFlops(tiny), expected);
        QVERIFY(decoderTokenFlops(tiny, 100) > decoderTokenFlops(tiny, 0));
        // One step reads the decoder weights once: 5 beams cost less than 5 single steps.
        const double one = decoderStepBytes(tiny, 10, 1, {4, 4, 4}), five = decoderStepBytes(tiny, 10, 5, {4, 4, 4});
        QVERIFY(five > one && five < 5 * one);
        // fp16 weights halve the weight part.
        QVERIFY(decoderStepBytes(tiny, 0, 1, {2, 4, 4}) < one);

        PeakRates peak;
        peak.flopsPerSecond = 1e11;
        peak.bytesPerSecond = 1e10;
        const WorkFloors f = computeFloors(tiny, FixedWork{}, peak, {4, 4, 4});
        QCOMPARE(f.encoderMs, 1e3 * expected / 1e11);
        QVERIFY(f.decodeMsPerToken >= 1e3 * f.decodeBytesPerToken / 1e10 * 0.999);
        QVERIFY(f.batchMsPerToken < f.decodeMsPerToken);   // weights shared by the beams
        QVERIFY(f.promptMsPerToken < f.decodeMsPerToken);  // compute-bound, no weight re-reads
    }

    void wavReaderRejectsWhatItCannotRead() {
        auto samples = readPcm16Wav(kWav);
        QVERIFY2(samples.ok(), samples.ok() ? "" : samples.message().c_str());
        QCOMPARE(samples->size(), size_t(176000));  // 11.0 s at 16 kHz

        const std::string bad = m_dir.filePath("bad.wav").toStdString();
        std::ofstream(bad, std::ios::binary) << "RIFF\x10\0\0\0WAVEjunk";
        auto broken = readPcm16Wav(bad);
        QVERIFY(!broken.ok());
        QVERIFY(QString::fromStdString(broken.message()).contains("bad.wav"));
        auto missing = readPcm16Wav(m_dir.filePath("none.wav").toStdString());
        QVERIFY(!missing.ok());
    }

    // The real-file programs read the conversions they name: q8_0 and q5_0 for their variants, f16
    // for whisper.cpp, the directory for hearsay; only those are made; an unknown name lists them.
    void realFileProgramsReadTheirConversions() {
        const std::vector<std::string> wanted = {"hearsay", "hearsay-q5_0", "whisper.cpp", "whisper.cpp-q5_0"};
        QCOMPARE(realFileGgmlDtypes(wanted), (std::vector<std::string>{"f16", "q5_0"}));
        QCOMPARE(realFileGgmlDtypes({"hearsay", "hearsay-q8_0"}), (std::vector<std::string>{"q8_0"}));
        RealFilePlan plan;
        plan.hearsay = "hearsay-cli";
        plan.ct2 = "model-dir";
        plan.ggml = {{"f16", "m-f16.bin"}, {"q5_0", "m-q5_0.bin"}};
        plan.whisperCli = "whisper-cli";
        plan.programs = wanted;
        auto programs = realFilePrograms(plan);
        QVERIFY2(programs, programs ? "" : programs.message().c_str());
        auto modelOf = [](const RealFileProgram& p) {
            for (size_t i = 0; i + 1 < p.argv.size(); ++i)
                if (p.argv[i] == "--model" || p.argv[i] == "--ggml") return p.argv[i + 1];
            return std::string();
        };
        const std::vector<RealFileProgram>& made = programs.value();
        QCOMPARE(made.size(), size_t(4));
        QCOMPARE(modelOf(made[0]), std::string("model-dir"));
        QCOMPARE(modelOf(made[1]), std::string("m-q5_0.bin"));
        QCOMPARE(modelOf(made[2]), std::string("m-f16.bin"));
        QCOMPARE(modelOf(made[3]), std::string("m-q5_0.bin"));
        plan.programs = {"hearsay-q4_0"};
        auto unknown = realFilePrograms(plan);
        QVERIFY(!unknown);
        QVERIFY2(unknown.message().find("whisper.cpp-q5_0") != std::string::npos, unknown.message().c_str());
    }

    void cacheRowsRoundTripThroughJson() {
        CacheRunResult r;
        r.length = 128;
        r.mode = CacheMode::CrossOnly;
        r.windows = 1;
        r.decodeCalls = 128;
        r.positionsRun = 12345;
        r.msPerToken = 1.5;
        r.crossAllocatedBytes = 6144000;
        r.peakResidentBytes = size_t(3) << 30;
        auto back = cacheRunFromJson(parseJson(toJson(r).dump()).value());
        QVERIFY(back.ok());
        QCOMPARE(back->mode, CacheMode::CrossOnly);
        QCOMPARE(back->positionsRun, int64_t(12345));
        QCOMPARE(back->crossAllocatedBytes, size_t(6144000));
        QCOMPARE(back->peakResidentBytes, size_t(3) << 30);

        json j = toJson(r);
        j["msPerToken"] = "fast";
        auto wrong = cacheRunFromJson(j);
        QVERIFY(!wrong.ok());
        QVERIFY(QString::fromStdString(wrong.message()).contains("msPerToken"));
    }

    void machineAndMemoryAreRead() {
        const MachineInfo m = collectMachineInfo();
        QVERIFY(m.logicalCpus >= 1);
        QVERIFY(m.memoryBytes > 0);
        QVERIFY(!m.kernel.empty());
        const size_t current = currentResidentBytes();  // read first: the peak can only grow after
        QVERIFY(current > 0);
        QVERIFY(peakResidentBytes() >= current);
        QVERIFY(std::regex_match(utcTimestamp(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
    }

    // The SGEMM probe runs the BLAS on the threads asked for and then leaves it single-threaded as
    // an open CPU backend keeps it: the encoder pairs read the probe with their engine open, and a
    // BLAS left on two threads ran each of the backend's products nested in its pool (a third
    // thread on two cores).
    void sgemmProbeLeavesTheBackendsBlasAlone() {
        if (blas::describe().rfind("builtin", 0) == 0) QSKIP("the builtin BLAS has one thread and is slow at 2048³");
        CpuBackend backend(2);
        QCOMPARE(blas::threads(), 1);
        QVERIFY(measureSgemmRate(2) > 0);
        QCOMPARE(blas::threads(), 1);
    }

    // --- the work, on a real session -------------------------------------------------------------

    void fixedWorkDoesTheStepsItClaims() {
        auto s = session(5, true, true);
        FixedWork w;
        w.warmup = 1;
        w.repeats = 2;
        auto r = runFixedWork(*s, m_mel, w);
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        const FixedWorkCounts& c = r->counts;
        QCOMPARE(c.encodeCalls, 3);
        QCOMPARE(c.decodeCalls, 3 * (256 + 64 + 16));
        QCOMPARE(c.singleSteps, 256);
        QCOMPARE(c.singlePositionsReached, 256);       // the cache held 0..255 positions, then 256
        QCOMPARE(c.singleTokensRun, int64_t(256));     // one new position per step
        QCOMPARE(c.batchSteps, 64);
        QCOMPARE(c.batchBeamsReached, 5);
        QCOMPARE(c.batchPositionsReached, 64);
        QCOMPARE(c.batchTokensRun, int64_t(64 * 5));
        QCOMPARE(c.promptRuns, 16);
        QCOMPARE(c.promptPositionsReached, 256);
        QCOMPARE(c.promptTokensRun, int64_t(16 * 256));
        for (const Samples* samples : {&r->encoderMs, &r->decodeMsPerToken, &r->batchMsPerToken, &r->promptMsPerToken}) {
            QCOMPARE(samples->values.size(), size_t(2));  // the warm-up is not among them
            QVERIFY(samples->median() > 0.0);
            QVERIFY(samples->minimum() <= samples->median());
        }
    }

    // --op-profile's table: each op of a decode step timed on every step, as many calls per
    // step as the network makes (64x2x2: per layer q, k and v in one pass, the cross query, two
    // residual projections, fc1 with its GELU, fc2; the logits once), and the bytes the big ones
    // read.
    void decodeProfileCountsEveryOpOfEveryStep() {
        std::shared_ptr<Backend> shared;
        const auto made = session(5, true, true, &shared);
        Backend& backend = *shared;
        InferenceSession* s = made.get();
        FixedWork w;
        w.warmup = 0;
        w.repeats = 1;
        w.decodeSteps = 24;
        auto r = runFixedWork(*s, m_mel, w);
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        auto profile = profileDecodeSteps(*s, backend, w);
        QVERIFY2(profile.ok(), profile.ok() ? "" : profile.message().c_str());
        QCOMPARE(profile->steps, 24);
        QVERIFY(profile->msPerToken > 0.0);
        std::map<std::string, int64_t> calls;
        double sum = 0.0;
        for (const OpTime& op : profile->ops) {
            calls[op.op] = op.calls;
            sum += op.ms;
            QVERIFY(op.ms >= 0.0);
        }
        const int vocab = m_whisper->config().nVocab;
        const std::string logits = "linear 1x64->" + std::to_string(vocab) + " f32";
        QVERIFY2(calls.count(logits), logits.c_str());
        QCOMPARE(calls[logits], int64_t(24));
        QCOMPARE(calls["linear 1x64->64+64+64 f32"], int64_t(24 * 2));  // q, k and v in one pass
        QCOMPARE(calls["linear 1x64->64 f32"], int64_t(24 * 2));         // the cross query
        QCOMPARE(calls["linear 1x64->64 f32 +="], int64_t(24 * 2 * 2));
        QCOMPARE(calls["linear 1x64->256 f32 gelu"], int64_t(24 * 2));    // fc1 with its GELU
        QCOMPARE(calls.count("gelu 256"), size_t(0));
        QCOMPARE(calls["attention 1q causal over the cache, 2 heads"], int64_t(24 * 2));
        const std::string cross = "attention 1q x 1500k" + std::string(backend.kvElementBytes() == 2 ? " f16" : "") + ", 2 heads";
        QCOMPARE(calls[cross], int64_t(24 * 2));
        for (const OpTime& op : profile->ops) {
            if (op.op == logits) QCOMPARE(op.bytes, 24.0 * (4.0 * vocab * 64 + 4.0 * (64 + vocab)));
        }
        QVERIFY(sum <= profile->msPerToken * 24 * 1.001);  // the ops run inside the steps
        // Profiling is off again: the next steps are not counted.
        QVERIFY(backend.takeOpProfile().empty());
        std::vector<float> logitsOut;
        QVERIFY(s->decode({startOfTranscript(m_whisper->config())}, logitsOut).ok());
        QVERIFY(backend.takeOpProfile().empty());
    }

    // --op-profile's encoder table: every product and attention of one encoder run, with the
    // arithmetic each did (counted by hand from the dimensions: conv1 and conv2 as products over
    // their columns, per layer q, k, v, out, fc1 and fc2, the cross K and V of every text layer;
    // one attention per layer over all the positions).
    void encoderProfileCountsEveryProductAndAttention() {
        std::shared_ptr<Backend> shared;
        const auto made = session(5, true, true, &shared);
        Backend& backend = *shared;
        InferenceSession* s = made.get();
        auto profile = profileEncoder(*s, backend, m_mel);
        QVERIFY2(profile.ok(), profile.ok() ? "" : profile.message().c_str());
        QVERIFY(profile->ms > 0.0);
        const WhisperConfig& c = m_whisper->config();
        const double t = c.nAudioCtx, d = c.nAudioState, mels = c.nMels;
        const double linearFlops = 2.0 * (2 * t) * (3 * mels) * d + 2.0 * t * (3 * d) * d +
                                   c.nAudioLayer * 2.0 * t * 12.0 * d * d + c.nTextLayer * 2.0 * t * 2.0 * d * d;
        const double attentionFlops = c.nAudioLayer * 4.0 * t * t * d;
        double linear = 0.0, attention = 0.0, sum = 0.0;
        int64_t attentionCalls = 0;
        for (const OpTime& op : profile->ops) {
            QVERIFY(op.ms >= 0.0);
            sum += op.ms;
            if (op.op.rfind("linear ", 0) == 0) linear += op.flops;
            if (op.op.rfind("attention ", 0) == 0) {
                attention += op.flops;
                attentionCalls += op.calls;
            }
            if (op.op.rfind("linear ", 0) != 0 && op.op.rfind("attention ", 0) != 0) QCOMPARE(op.flops, 0.0);
        }
        QCOMPARE(linear, linearFlops);
        QCOMPARE(attention, attentionFlops);
        QCOMPARE(attentionCalls, int64_t(c.nAudioLayer));
        QVERIFY(sum <= profile->ms * 1.001);
        QVERIFY(backend.takeOpProfile().empty());  // profiling is off again
        // The session decodes after it, as after any encode.
        std::vector<float> logitsOut;
        QVERIFY(s->decode({startOfTranscript(c)}, logitsOut).ok());
    }

    void fixedWorkWithoutTheSelfCacheRerunsEveryToken() {
        auto s = session(5, false, true);
        FixedWork w;
        w.warmup = 0;
        w.repeats = 1;
        w.decodeSteps = 40;
        w.batchSteps = 8;
        w.promptRuns = 2;
        auto r = runFixedWork(*s, m_mel, w);
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        QCOMPARE(r->counts.singleTokensRun, int64_t(40 * 41 / 2));    // step i re-runs i + 1 positions
        QCOMPARE(r->counts.batchTokensRun, int64_t(5 * 8 * 9 / 2));
        QCOMPARE(r->counts.promptTokensRun, int64_t(2 * 256));
    }

    void cacheRowsReachTheirLengths() {
        struct Case {
            int length;
            CacheMode mode;
            int windows;
            int64_t positionsRun;
            int positionsReached;
        };
        // 4 start-of-transcript tokens; with the self cache, each token after the first call adds
        // one position; without it, call k re-runs 4 + k positions.
        const Case cases[] = {
            {20, CacheMode::Both, 1, 4 + 19, 23},
            {20, CacheMode::CrossOnly, 1, 20 * 4 + 19 * 20 / 2, -1},
            // Two windows: 4 + 223 positions, then 224 (prompt) + 4 + 219.
            {444, CacheMode::Both, 2, (4 + 223) + (228 + 219), 447},
        };
        for (const Case& k : cases) {
            auto s = session(1, usesSelfCache(k.mode), usesCrossCache(k.mode));
            auto r = runCacheConfiguration(*s, m_mel, k.length, k.mode);
            QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
            QCOMPARE(r->length, k.length);
            QCOMPARE(r->decodeCalls, k.length);
            QCOMPARE(r->windows, k.windows);
            QCOMPARE(r->positionsRun, k.positionsRun);
            if (k.positionsReached >= 0) QCOMPARE(r->positionsReached, k.positionsReached);
            QVERIFY(r->msPerToken > 0.0);
            QCOMPARE(s->selfAttentionCache(), usesSelfCache(k.mode));
            QCOMPARE(s->crossAttentionCache(), usesCrossCache(k.mode));
            if (usesSelfCache(k.mode)) QVERIFY(r->selfInUseBytes > 0 && r->selfInUseBytes <= r->selfAllocatedBytes);
            if (usesCrossCache(k.mode)) QVERIFY(r->crossAllocatedBytes > 0);
        }
    }

    // --- the command, end to end -------------------------------------------------------------

    void benchWritesItsSchema() {
        const QString jsonPath = m_dir.filePath("bench.json");
        QByteArray out;
        QCOMPARE(runCli({"bench", "--model", m_model, "--threads", "2", "--repeats", "1", "--warmup", "0", "--lengths",
                         "20,240", "--audio", QString::fromStdString(kWav), "--json", jsonPath},
                        &out),
                 0);
        QVERIFY(out.contains("fixed work"));
        QVERIFY(out.contains("cache table"));
        auto text = readTextFile(jsonPath.toStdString());
        QVERIFY(text.ok());
        auto parsed = parseJson(text.value());
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.message().c_str());
        const json& doc = parsed.value();

        QCOMPARE(doc["schema"].get<std::string>(), std::string("hearsay-bench/1"));
        QVERIFY(std::regex_match(doc["date"].get<std::string>(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
        QVERIFY(QString::fromStdString(doc["command"].get<std::string>()).startsWith("hearsay-cli bench"));
        QVERIFY(!doc["machine"]["cpuModel"].get<std::string>().empty());
        QVERIFY(doc["machine"]["logicalCpus"].get<int64_t>() >= 1);
        QVERIFY(doc["machine"]["memoryBytes"].get<int64_t>() > 0);
        QVERIFY(doc["machine"].contains("gpuName"));
        QVERIFY(doc["machine"].contains("gpuDriver"));
        QVERIFY(!doc["build"]["buildType"].get<std::string>().empty());
        QVERIFY(!doc["build"]["compiler"].get<std::string>().empty());
        QVERIFY(!doc["build"]["commit"].get<std::string>().empty());
        QCOMPARE(doc["settings"]["backend"].get<std::string>(), std::string("cpu"));
        QCOMPARE(doc["settings"]["threads"].get<int64_t>(), int64_t(2));
        QCOMPARE(doc["work"]["decodeSteps"].get<int64_t>(), int64_t(256));
        QCOMPARE(doc["work"]["batchSteps"].get<int64_t>(), int64_t(64));
        QCOMPARE(doc["work"]["batchBeams"].get<int64_t>(), int64_t(5));
        QCOMPARE(doc["work"]["promptTokens"].get<int64_t>(), int64_t(256));
        QCOMPARE(doc["work"]["promptRuns"].get<int64_t>(), int64_t(16));
        QVERIFY(doc["peaks"]["flopsPerSecond"].get<double>() > 1e8);
        QVERIFY(doc["peaks"]["bytesPerSecond"].get<double>() > 1e8);

        const auto& models = doc["models"];
        QCOMPARE(models.size(), size_t(1));
        const json& m = models[0];
        QCOMPARE(m["dims"]["nAudioState"].get<int64_t>(), int64_t(64));
        QCOMPARE(m["dims"]["nTextLayer"].get<int64_t>(), int64_t(2));
        QVERIFY(m["weightBytes"].get<int64_t>() > 0);
        for (const char* figure : {"encoderMs", "decodeMsPerToken", "batchMsPerToken", "promptMsPerToken"}) {
            QVERIFY2(m["fixedWork"][figure]["median"].get<double>() > 0.0, figure);
            QCOMPARE(m["fixedWork"][figure]["samples"].size(), size_t(1));
            QVERIFY2(m["floors"][figure].get<double>() > 0.0, figure);
        }
        QCOMPARE(m["fixedWork"]["counts"]["singlePositionsReached"].get<int64_t>(), int64_t(256));
        QCOMPARE(m["fixedWork"]["counts"]["batchTokensRun"].get<int64_t>(), int64_t(320));
        QCOMPARE(m["floors"]["encoderFlops"].get<double>(), encoderFlops(m_whisper->config()));
        // The bandwidth was read again beside the timed decode run, and the decode's floor divides by
        // that reading: the step's bytes over it (the floor at the start's probe would differ).
        const json& read = m["fixedWork"]["probeBytesPerSecond"];
        QCOMPARE(read["samples"].size(), size_t(1));
        QVERIFY(read["median"].get<double>() > 1e8);
        QCOMPARE(m["floorPeaks"]["bytesPerSecond"].get<double>(), read["median"].get<double>());
        QCOMPARE(m["floorPeaks"]["flopsPerSecond"].get<double>(), doc["peaks"]["flopsPerSecond"].get<double>());
        PeakRates floorPeaks;
        floorPeaks.flopsPerSecond = m["floorPeaks"]["flopsPerSecond"].get<double>();
        floorPeaks.bytesPerSecond = m["floorPeaks"]["bytesPerSecond"].get<double>();
        ElementBytes bytes;
        bytes.weights = m["elementBytes"]["weights"].get<double>();
        bytes.caches = m["elementBytes"]["caches"].get<double>();
        bytes.crossCache = m["elementBytes"]["crossCache"].get<double>();
        const WorkFloors expected = computeFloors(m_whisper->config(), FixedWork{}, floorPeaks, bytes);
        QCOMPARE(m["floors"]["decodeMsPerToken"].get<double>(), expected.decodeMsPerToken);
        QCOMPARE(m["floors"]["batchMsPerToken"].get<double>(), expected.batchMsPerToken);
        QVERIFY(m["floors"]["decodeMsPerToken"].get<double>() >
                0.999 * 1e3 * m["floors"]["decodeBytesPerToken"].get<double>() / read["median"].get<double>());
        QVERIFY(out.contains("the probe read beside the 1 timed decode runs"));
        // The one run against its own floor: with one reading, the floor above.
        const json& byRun = m["decodeAgainstFloorByRun"];
        QCOMPARE(byRun["samples"].size(), size_t(1));
        const double byHand = m["fixedWork"]["decodeMsPerToken"]["median"].get<double>() / expected.decodeMsPerToken;
        QVERIFY(std::fabs(byRun["median"].get<double>() - byHand) <= 1e-12 * byHand);
        QVERIFY(out.contains("decode against the floor run by run"));
        // The SGEMM probe was read again just before the model's runs (once: no peers ran).
        const json& sgemm = m["sgemmProbeFlopsPerSecond"];
        QCOMPARE(sgemm.size(), size_t(1));
        QVERIFY(sgemm[0].get<double>() > 1e8);
        QVERIFY(out.contains("the SGEMM probe read"));

        const auto& rows = m["cacheTable"];
        QCOMPARE(rows.size(), size_t(2 * 4));
        std::set<std::string> modes;
        for (const json& row : rows) {
            auto r = cacheRunFromJson(row);
            QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
            modes.insert(row["mode"].get<std::string>());
            QVERIFY(r->length == 20 || r->length == 240);
            QCOMPARE(r->decodeCalls, r->length);
            QCOMPARE(r->windows, r->length == 20 ? 1 : 2);
            QCOMPARE(row["windowPlan"].size(), size_t(r->windows));
            // Each row ran in its own process: a real peak, above what it held after loading.
            QVERIFY(r->residentAfterLoadBytes > 0);
            QVERIFY(r->peakResidentBytes >= r->residentAfterLoadBytes);
            QCOMPARE(row["selfCache"].get<bool>(), usesSelfCache(r->mode));
            if (usesSelfCache(r->mode)) QVERIFY(r->selfAllocatedBytes > 0);
            if (usesCrossCache(r->mode)) QVERIFY(r->crossAllocatedBytes > 0);
            // Without the self cache every step re-runs the sequence: far more positions.
            if (!usesSelfCache(r->mode)) QVERIFY(r->positionsRun > 10 * r->length);
            else QVERIFY(r->positionsRun < 2 * r->length + 240);
        }
        QCOMPARE(modes, (std::set<std::string>{"both", "self", "cross", "none"}));
    }

    // --rounds end to end: Hearsay's runs and the peers' in turn, each round in the report. The
    // peers here cannot run (a ggml file, and no peer reading ggml asked for), so every round
    // holds that error: what is checked is the order, the pooling and the report's shape.
    void benchRunsRoundsInTurn() {
        const QString jsonPath = m_dir.filePath("rounds.json");
        QByteArray out;
        QCOMPARE(runCli({"bench", "--model", m_model, "--threads", "2", "--repeats", "2", "--warmup", "0", "--decode-steps",
                         "3", "--batch-steps", "2", "--prompt-tokens", "4", "--prompt-runs", "1", "--no-cache-table",
                         "--peak-gbs", "20", "--peers", "--peers-list", "transformers", "--rounds", "3", "--audio",
                         QString::fromStdString(kWav), "--json", jsonPath},
                        &out),
                 0);
        QVERIFY2(out.contains("median of 6 (3 rounds of 2"), out.constData());
        QVERIFY(out.contains("rounds (each ratio from one round's runs"));
        auto text = readTextFile(jsonPath.toStdString());
        QVERIFY(text.ok());
        auto parsed = parseJson(text.value());
        QVERIFY(parsed.ok());
        const json& m = parsed.value()["models"][0];
        const json& rounds = m["rounds"];
        QCOMPARE(rounds.size(), size_t(3));
        std::vector<double> encoder;
        for (size_t r = 0; r < rounds.size(); ++r) {
            QCOMPARE(rounds[r]["first"].get<std::string>(), std::string(r % 2 ? "peers" : "hearsay"));
            const json& samples = rounds[r]["fixedWork"]["encoderMs"]["samples"];
            QCOMPARE(samples.size(), size_t(2));
            for (const json& v : samples) encoder.push_back(v.get<double>());
            QVERIFY(rounds[r]["peers"]["errors"].contains("all"));
            QVERIFY(rounds[r]["ratios"].empty());
            // The SGEMM probe before Hearsay's runs and before and after the peers', in every round
            // (the bandwidth is given, so not read beside them).
            QCOMPARE(rounds[r]["sgemmProbeFlopsPerSecond"].size(), size_t(3));
            for (const json& v : rounds[r]["sgemmProbeFlopsPerSecond"]) QVERIFY(v.get<double>() > 1e8);
            QVERIFY(!rounds[r].contains("peersProbeBytesPerSecond"));
        }
        QCOMPARE(m["sgemmProbeFlopsPerSecond"].size(), size_t(9));
        // The pooled figures are every round's samples, in round order.
        QCOMPARE(m["fixedWork"]["encoderMs"]["samples"].get<std::vector<double>>(), encoder);
        QVERIFY(QString::fromStdString(m["peers"]["errors"]["all"].get<std::string>()).contains("Hugging Face"));
        QVERIFY(m["ratios"].empty());
    }

    // --encoder-pairs through the CLI: against faster-whisper where the bench's environment has
    // it, and a peer that cannot run is a clear failure wherever it runs.
    void benchRunsEncoderPairs() {
        const QString hf = m_dir.filePath("m64-hf");
        QCOMPARE(runCli({"make-test-model", "--dims", "64x2x2", "--seed", "3", "--format", "hf", hf}), 0);
        const QStringList common = {"bench", "--model", hf, "--threads", "2", "--encoder-pairs", "3", "--warmup", "0",
                                    "--decode-steps", "8", "--batch-steps", "8", "--prompt-tokens", "8", "--prompt-runs",
                                    "1", "--audio", QString::fromStdString(kWav)};
        // A peer whose interpreter exits at once: an error naming it, no hang, nothing half-written.
        const QString failedJson = m_dir.filePath("pairs-failed.json");
        QCOMPARE(runCli(common + QStringList{"--python", "false", "--json", failedJson}), 1);
        QVERIFY(!QFile::exists(failedJson));
        // A ggml model alone has no checkpoint for the peer.
        QCOMPARE(runCli({"bench", "--model", m_model, "--encoder-pairs", "2", "--audio", QString::fromStdString(kWav)}), 1);
        // ... which is found before any model is loaded or any peer started: with a checkpoint's model
        // first and the ggml one second, the run stops on the second's missing checkpoint, not on
        // the first's peer (an interpreter that exits at once).
        QProcess both;
        both.start(HEARSAY_CLI_PATH, {"bench", "--model", hf + "," + m_model, "--encoder-pairs", "2", "--python", "false",
                                      "--audio", QString::fromStdString(kWav)});
        QVERIFY(both.waitForFinished(600000));
        QCOMPARE(both.exitCode(), 1);
        const QByteArray bothErr = both.readAllStandardError();
        QVERIFY2(bothErr.contains("needs the Hugging Face checkpoint") && !bothErr.contains("loading"), bothErr.constData());

        const QString venv = QString(HEARSAY_SOURCE_DIR) + "/.venv-bench/bin/python";
        QProcess probe;
        probe.start(venv, {"-c", "import faster_whisper"});
        if (!probe.waitForFinished(120000) || probe.exitStatus() != QProcess::NormalExit || probe.exitCode() != 0) {
            QSKIP("no .venv-bench with faster-whisper (scripts/bench/requirements-bench.txt): the pairs against it not run");
        }
        const QString jsonPath = m_dir.filePath("pairs.json");
        QByteArray out;
        QCOMPARE(runCli(common + QStringList{"--python", venv, "--json", jsonPath}, &out), 0);
        QVERIFY2(out.contains("median of the pairs' ratios"), out.constData());
        auto text = readTextFile(jsonPath.toStdString());
        QVERIFY(text.ok());
        auto parsed = parseJson(text.value());
        QVERIFY(parsed.ok());
        QCOMPARE(parsed.value()["schema"].get<std::string>(), std::string("hearsay-bench-encoder-pairs/1"));
        const json& c = parsed.value()["models"][0]["encoderPairs"][0];
        QCOMPARE(c["peer"].get<std::string>(), std::string("faster-whisper"));
        QVERIFY(QString::fromStdString(c["version"].get<std::string>()).contains("ctranslate2"));
        QCOMPARE(c["pairs"].size(), size_t(3));
        QCOMPARE(c["sgemmProbeFlopsPerSecond"].size(), size_t(2));
        for (const json& v : c["sgemmProbeFlopsPerSecond"]) QVERIFY(v.get<double>() > 1e8);
        std::vector<double> ratios;
        for (size_t i = 0; i < 3; ++i) {
            const json& pair = c["pairs"][i];
            QCOMPARE(pair["first"].get<std::string>(), std::string(i % 2 ? "peer" : "hearsay"));
            QVERIFY(pair["hearsayMs"].get<double>() > 0);
            QVERIFY(pair["peerMs"].get<double>() > 0);
            QCOMPARE(pair["ratio"].get<double>(), pair["hearsayMs"].get<double>() / pair["peerMs"].get<double>());
            ratios.push_back(pair["ratio"].get<double>());
        }
        std::sort(ratios.begin(), ratios.end());
        QCOMPARE(c["medianRatio"].get<double>(), ratios[1]);
    }

    void benchRejectsBadOptions() {
        QCOMPARE(runCli({"bench", "--model", m_model, "--lengths", "20,zero"}), 2);
        QCOMPARE(runCli({"bench", "--model", m_model, "--modes", "sometimes"}), 2);
        QCOMPARE(runCli({"bench", "--model", m_model, "--backend", "abacus"}), 2);
        QCOMPARE(runCli({"bench", "--no-such-option"}), 2);
        QCOMPARE(runCli({"bench", "--sizes", "tiny", "--dtype", "q4"}), 2);
        // ggml blocks have no Hugging Face form for Hearsay to load.
        QCOMPARE(runCli({"bench", "--sizes", "tiny", "--dtype", "q8_0", "--format", "hf"}), 2);
        // Rounds take turns with the peers: without them there is nothing to take turns with.
        QCOMPARE(runCli({"bench", "--model", m_model, "--rounds", "2"}), 2);
        QCOMPARE(runCli({"bench", "--model", m_model, "--peers", "--rounds", "0"}), 2);
        // The encoder pairs run CTranslate2's encoder, one at a time.
        QCOMPARE(runCli({"bench", "--model", m_model, "--encoder-pairs", "0"}), 2);
        QCOMPARE(runCli({"bench", "--model", m_model, "--encoder-pairs", "2", "--peers-list", "whisper.cpp"}), 2);
        // A model that does not exist is a clear failure, not a crash.
        QCOMPARE(runCli({"bench", "--model", m_dir.filePath("missing.bin"), "--no-cache-table", "--no-floors"}), 1);
    }
};

QTEST_APPLESS_MAIN(TestBench)
#include "tst_bench.moc"
