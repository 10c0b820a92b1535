// Voice activity detection against the silero-vad package (golden files written by
// tests/reference/gen_vad_golden.py): the native network's probabilities on every chunk of real
// speech, the segments of get_speech_timestamps for several parameter sets, the streaming
// detector against the offline segments, silence and noise, the energy-gate fallback, and every
// kind of bad weights file.
#include <QProcess>
#include <QtTest>

#ifdef HEARSAY_HAVE_AUDIO  // hearsay_audio is not built with HEARSAY_ENGINE_ONLY

#include "core/audio/energy_gate.h"
#include "core/audio/silero_vad.h"
#include "core/audio/silero_vad_weights.h"
#include "core/audio/voice_activity.h"
#include "core/model/safetensors.h"
#include "core/util/json_text.h"
#include "core/util/mapped_file.h"
#include "core/util/npy.h"
#include "wav_reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numbers>
#include <random>
#include <string_view>

using nlohmann::json;

using namespace hearsay;

namespace {

const QString kShared = QStringLiteral(HEARSAY_SHARED_DATA_DIR);
const std::filesystem::path kGolden = std::filesystem::path(HEARSAY_TEST_DATA_DIR) / "vad";
const std::filesystem::path kResourceWeights =
    std::filesystem::path(HEARSAY_TEST_DATA_DIR) / ".." / ".." / "resources" / "silero_vad_v6.2_16k.safetensors";

// The package's probabilities and ours may differ by this much (ONNX and the package's TorchScript
// model differ by up to 7e-6).
constexpr double kProbabilityTolerance = 1e-4;

struct Clip {
    std::string name;
    int64_t samples = 0;
    std::vector<float> audio;          // int16 / 32768, read by the tests' own WAV reader
    std::vector<float> goldenProbs;    // [chunks]
    double minDistanceToThreshold = 0; // of any golden probability to any threshold in use
};

VadOptions optionsFromJson(const json& j) {
    VadOptions o;  // Hearsay's defaults; the package's defaults where a key is absent
    o.threshold = j.value("threshold", 0.5);
    if (j.contains("neg_threshold")) o.negativeThreshold = j["neg_threshold"].get<double>();
    o.minSilenceMs = j.value("min_silence_duration_ms", 100);
    o.speechPadMs = j.value("speech_pad_ms", 30);
    o.minSpeechMs = j.value("min_speech_duration_ms", 250);
    if (j.contains("max_speech_duration_s")) o.maxSpeechSeconds = j["max_speech_duration_s"].get<double>();
    o.minSilenceAtMaxSpeechMs = j.value("min_silence_at_max_speech", 98);
    o.cutAtLongestSilence = j.value("use_max_poss_sil_at_max_speech", true);
    return o;
}

std::vector<SpeechSegment> segmentsFromJson(const json& j) {
    std::vector<SpeechSegment> out;
    for (const json& s : j) out.push_back({s[0].get<int64_t>(), s[1].get<int64_t>()});
    return out;
}

QString describe(const std::vector<SpeechSegment>& segments) {
    QStringList parts;
    for (const auto& s : segments) parts << QStringLiteral("[%1, %2)").arg(s.start).arg(s.end);
    return parts.join(QLatin1Char(' '));
}

// Events to segments; checks that starts and ends alternate and that each event was decided no
// earlier than its position and no earlier than the event before it.
bool eventsToSegments(const std::vector<VadEvent>& events, std::vector<SpeechSegment>& out, QString& why) {
    out.clear();
    int64_t lastDecided = 0;
    for (size_t i = 0; i < events.size(); ++i) {
        const VadEvent& e = events[i];
        const bool wantStart = i % 2 == 0;
        if ((e.kind == VadEvent::Kind::SpeechStart) != wantStart) {
            why = QStringLiteral("event %1 is not a %2").arg(i).arg(wantStart ? "start" : "end");
            return false;
        }
        if (e.decidedAt < e.sample || e.decidedAt < lastDecided) {
            why = QStringLiteral("event %1 at %2 decided at %3 (previous decided at %4)").arg(i).arg(e.sample).arg(e.decidedAt).arg(lastDecided);
            return false;
        }
        lastDecided = e.decidedAt;
        if (wantStart) out.push_back({e.sample, -1});
        else out.back().end = e.sample;
    }
    if (events.size() % 2) {
        why = QStringLiteral("the last segment never ended");
        return false;
    }
    return true;
}

std::vector<VadEvent> streamInBlocks(VoiceActivityDetector& detector, std::span<const float> audio, size_t block) {
    std::vector<VadEvent> events;
    for (size_t at = 0; at < audio.size(); at += block) detector.feed(audio.subspan(at, std::min(block, audio.size() - at)), events);
    detector.finish(events);
    return events;
}

// The recordings the rows of the network's checks run over: all three, or jfk alone in instrumented
// builds (ASan + UBSan), where the two 30 s recordings take jfk's code paths through 60 s more audio,
// about a minute of the sanitizers' run. eventsAreTimely keeps all three (it needs their events).
std::vector<const char*> networkClips() {
#ifdef HEARSAY_SANITIZED
    return {"jfk"};
#else
    return {"jfk", "speech-30s-a", "speech-30s-b"};
#endif
}

std::vector<uint8_t> fileBytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeBytes(const std::filesystem::path& path, const void* data, size_t bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(static_cast<const char*>(data), std::streamsize(bytes));
}

// The real weights rewritten with one tensor changed: `rename` drops it under another name,
// `shape` replaces its shape (elements taken from the start of the real data, or zeros).
std::filesystem::path rewrittenWeights(const std::filesystem::path& dir, const std::string& target, const std::string& rename,
                                       const std::vector<int64_t>& shape, float fill = 0.0f, bool useFill = false) {
    auto file = openSafetensors(kResourceWeights);
    if (!file) return {};
    std::vector<SafetensorsWriter::Entry> entries;
    std::vector<std::vector<float>> data;
    for (const auto& [name, view] : file->tensors) {
        SafetensorsWriter::Entry e{name, DType::F32, view.shape};
        std::vector<float> values(size_t(view.elements()));
        convertToFloat(view, values.data());
        if (name == target) {
            if (!rename.empty()) e.name = rename;
            if (!shape.empty()) e.shape = shape;
            int64_t n = 1;
            for (auto d : e.shape) n *= d;
            values.resize(size_t(n), 0.0f);
            if (useFill) values[values.size() / 2] = fill;
        }
        entries.push_back(e);
        data.push_back(std::move(values));
    }
    const auto path = dir / ("weights-" + target + ".safetensors");
    auto writer = SafetensorsWriter::create(path, entries, {});
    if (!writer) return {};
    for (size_t i = 0; i < entries.size(); ++i) {
        if (!writer.value()->write(entries[i].name, data[i].data(), data[i].size() * 4)) return {};
    }
    if (!writer.value()->finish()) return {};
    return path;
}

std::vector<float> noise(size_t n, float rms, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, rms);
    std::vector<float> out(n);
    for (float& v : out) v = normal(rng);
    return out;
}

} // namespace

class TestVoiceActivity : public QObject {
    Q_OBJECT

    json m_manifest;
    std::vector<Clip> m_clips;
    std::shared_ptr<const SileroVadWeights> m_weights;

    const Clip& clip(const QString& name) const {
        for (const auto& c : m_clips) {
            if (QString::fromStdString(c.name) == name) return c;
        }
        qFatal("unknown clip");
    }

private slots:
    void initTestCase() {
        auto text = readTextFile(kGolden / "manifest.json");
        if (!text) QFAIL(qPrintable("VAD goldens missing: " + QString::fromStdString(text.message()) +
                                    " (regenerate with tests/reference/gen_vad_golden.py)"));
        auto manifest = parseJson(text.value());
        QVERIFY2(manifest.ok(), "tests/data/vad/manifest.json does not parse");
        m_manifest = manifest.value();
        for (const json& c : m_manifest["clips"]) {
            Clip clip;
            clip.name = c["name"].get<std::string>();
            clip.samples = c["samples"].get<int64_t>();
            clip.minDistanceToThreshold = c["min_distance_to_a_threshold"].get<double>();
            const QString wavPath = kShared + "/" + QString::fromStdString(clip.name) + ".wav";
            const Pcm16Wav wav = readPcm16Wav(wavPath);
            if (!wav.ok()) QFAIL(qPrintable("cannot read " + wavPath + " (the shared speech clips, see ../shared/data/README.md)"));
            QCOMPARE(wav.rate, kVadSampleRate);
            QCOMPARE(wav.channels, 1);
            clip.audio = pcm16ToFloat(wav.samples);
            QCOMPARE(int64_t(clip.audio.size()), clip.samples);
            auto probs = readNpy(kGolden / c["probs_file"].get<std::string>());
            QVERIFY2(probs.ok(), probs.ok() ? "" : probs.message().c_str());
            clip.goldenProbs = probs->f32;
            QCOMPARE(int64_t(clip.goldenProbs.size()), (clip.samples + kVadChunkSamples - 1) / kVadChunkSamples);
            m_clips.push_back(std::move(clip));
        }
        QCOMPARE(m_clips.size(), size_t(3));
        auto vad = SileroVad::loadBundled();
        QVERIFY2(vad.ok(), vad.ok() ? "" : vad.message().c_str());
        m_weights = vad->weights();
    }

    // The weights inside the binary are the committed resource file, byte for byte.
    void bundledWeightsAreTheResourceFile() {
        const auto file = fileBytes(kResourceWeights);
        QVERIFY2(!file.empty(), "resources/silero_vad_v6.2_16k.safetensors is missing");
        const auto bundled = bundledSileroVadWeights();
        QCOMPARE(bundled.size(), file.size());
        QVERIFY(std::memcmp(bundled.data(), file.data(), file.size()) == 0);
    }

    void probabilitiesMatchPackage_data() {
        QTest::addColumn<QString>("clip");
        for (const char* c : networkClips()) QTest::newRow(c) << QString(c);
    }
    // Every chunk of the three clips (jfk alone under the sanitizers: networkClips()), from a fresh
    // state, within 1e-4 of the package's ONNX model.
    void probabilitiesMatchPackage() {
        QFETCH(QString, clip);
        const Clip& c = this->clip(clip);
        SileroVad vad(m_weights, "bundled");
        const auto probs = chunkProbabilities(vad, c.audio);
        QCOMPARE(probs.size(), c.goldenProbs.size());
        double worst = 0.0;
        size_t worstAt = 0;
        for (size_t i = 0; i < probs.size(); ++i) {
            const double d = std::abs(double(probs[i]) - double(c.goldenProbs[i]));
            if (d > worst) {
                worst = d;
                worstAt = i;
            }
        }
        qInfo("%s: %zu chunks, max |p - p_package| = %.2e at chunk %zu", qPrintable(clip), probs.size(), worst, worstAt);
        QVERIFY2(worst <= kProbabilityTolerance,
                 qPrintable(QStringLiteral("chunk %1: %2 vs the package's %3").arg(worstAt).arg(probs[worstAt]).arg(c.goldenProbs[worstAt])));
    }

    // load(path) and the bundled weights give the same network, bit for bit.
    void loadFromFileEqualsBundled() {
        auto fromFile = SileroVad::load(kResourceWeights);
        QVERIFY2(fromFile.ok(), fromFile.ok() ? "" : fromFile.message().c_str());
        SileroVad bundled(m_weights, "bundled");
        const Clip& c = clip("jfk");
        QCOMPARE(chunkProbabilities(fromFile.value(), c.audio), chunkProbabilities(bundled, c.audio));
        QVERIFY(fromFile->describe().find("silero_vad_v6.2_16k.safetensors") != std::string::npos);
    }

    // Regression (tests/fuzz/fuzz_voice_activity): NaN, infinities and samples far past full
    // scale from a broken device give probabilities in [0, 1], and the stream recovers: jfk
    // after them reads as jfk alone does (up to the context the bad chunk leaves behind).
    void nonFiniteSamplesDoNotPoisonTheState() {
        SileroVad vad(m_weights, "fuzzed");
        const Clip& c = clip("jfk");
        const std::vector<float> clean = chunkProbabilities(vad, c.audio);
        vad.reset();
        std::array<float, kVadChunkSamples> bad{};
        for (size_t i = 0; i < bad.size(); ++i)
            bad[i] = i % 4 == 0 ? NAN : i % 4 == 1 ? INFINITY : i % 4 == 2 ? -3e38f : 1e-40f;
        for (int k = 0; k < 4; ++k) {
            const float p = vad.process(bad);
            QVERIFY2(p >= 0.0f && p <= 1.0f, qPrintable(QString::number(p)));
        }
        std::array<float, kVadChunkSamples> silence{};
        float p = 1.0f;
        for (int k = 0; k < 32; ++k) p = vad.process(silence);
        QVERIFY2(p < 0.1f, qPrintable(QString::number(p)));
        // Speech is heard again: the most probable chunk of jfk is as probable as without the noise.
        float most = 0.0f;
        for (size_t at = 0; at + kVadChunkSamples <= c.audio.size(); at += kVadChunkSamples)
            most = std::max(most, vad.process(std::span<const float>(c.audio).subspan(at).first<kVadChunkSamples>()));
        QVERIFY(std::abs(most - *std::max_element(clean.begin(), clean.end())) < 0.05f);
    }

    // reset() starts a new stream; two streams on the same weights do not disturb each other.
    void stateIsPerStream() {
        const Clip& c = clip("jfk");
        SileroVad a(m_weights, "a"), b(m_weights, "b");
        const auto alone = chunkProbabilities(a, c.audio);
        QCOMPARE(chunkProbabilities(a, c.audio), alone);  // chunkProbabilities resets
        // Interleaved: a on jfk, b on reversed jfk, one chunk each in turn.
        std::vector<float> reversed(c.audio.rbegin(), c.audio.rend());
        a.reset();
        b.reset();
        std::vector<float> interleaved;
        for (size_t at = 0; at + kVadChunkSamples <= c.audio.size(); at += kVadChunkSamples) {
            interleaved.push_back(a.process(std::span<const float>(c.audio).subspan(at).first<kVadChunkSamples>()));
            b.process(std::span<const float>(reversed).subspan(at).first<kVadChunkSamples>());
        }
        QVERIFY(interleaved.size() + 1 >= alone.size());
        for (size_t i = 0; i < interleaved.size(); ++i) QCOMPARE(interleaved[i], alone[i]);
    }

    void segmentsFromPackageProbabilities_data() {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("clip");
        for (const auto& [set, unused] : m_manifest["parameter_sets"].items()) {
            for (const char* c : {"jfk", "speech-30s-a", "speech-30s-b"}) {
                QTest::newRow(qPrintable(QString::fromStdString(set) + "/" + c)) << QString::fromStdString(set) << QString(c);
            }
        }
    }
    // The segmentation rules alone: the package's own probabilities in, its segments out, exactly.
    void segmentsFromPackageProbabilities() {
        QFETCH(QString, set);
        QFETCH(QString, clip);
        const Clip& c = this->clip(clip);
        const VadOptions options = optionsFromJson(m_manifest["parameter_sets"][set.toStdString()]);
        QVERIFY(options.validate().ok());
        const auto expected = segmentsFromJson(m_manifest["segments"][set.toStdString()][clip.toStdString()]);
        const auto got = speechSegmentsFromProbabilities(c.goldenProbs, c.samples, options);
        QVERIFY2(got == expected, qPrintable("got " + describe(got) + "\nexpected " + describe(expected)));
    }

    // The segmentation rules on made-up probabilities built to hit their boundaries (durations of
    // whole chunks, probabilities equal to a threshold, pauses of equal length, cuts by both
    // rules): offline and streaming, both against the package.
    void segmentsMatchPackageOnSyntheticProbabilities() {
        auto text = readTextFile(kGolden / "synthetic.json");
        QVERIFY2(text.ok(), "tests/data/vad/synthetic.json missing (tests/reference/gen_vad_golden.py)");
        auto synthetic = parseJson(text.value());
        QVERIFY(synthetic.ok());
        auto probs = readNpy(kGolden / "synthetic-probs.npy");
        QVERIFY2(probs.ok(), probs.ok() ? "" : probs.message().c_str());
        const auto& cases = synthetic.value()["cases"];
        QCOMPARE(int64_t(cases.size()), probs->shape[0]);
        const size_t width = size_t(probs->shape[1]);
        int checked = 0;
        for (size_t i = 0; i < cases.size(); ++i) {
            const json& c = cases[i];
            const VadOptions options = optionsFromJson(c["options"]);
            QVERIFY2(options.validate().ok(), qPrintable(QStringLiteral("case %1: %2").arg(i).arg(QString::fromStdString(c["options"].dump()))));
            const size_t chunks = size_t(c["chunks"].get<int64_t>());
            const int64_t total = c["samples"].get<int64_t>();
            const std::span<const float> p(probs->f32.data() + i * width, chunks);
            const auto expected = segmentsFromJson(c["segments"]);
            const auto offline = speechSegmentsFromProbabilities(p, total, options);
            const QString where = QStringLiteral("case %1 %2").arg(i).arg(QString::fromStdString(c["options"].dump()));
            QVERIFY2(offline == expected, qPrintable(where + "\noffline " + describe(offline) + "\npackage " + describe(expected)));

            SpeechSegmenter segmenter(options);
            std::vector<VadEvent> events;
            const bool partial = total % kVadChunkSamples != 0;
            for (size_t k = 0; k + (partial ? 1 : 0) < chunks; ++k) segmenter.push(p[k], events);
            segmenter.finish(total, events, partial ? std::optional<double>(p.back()) : std::nullopt);
            std::vector<SpeechSegment> streamed;
            QString why;
            QVERIFY2(eventsToSegments(events, streamed, why), qPrintable(where + ": " + why));
            QVERIFY2(streamed == expected, qPrintable(where + "\nstreamed " + describe(streamed) + "\npackage " + describe(expected)));
            checked += int(expected.size());
        }
        QVERIFY(checked > 500);
    }

    // Every parameter set on jfk; on the 30 s recordings Hearsay's and one that cuts long speech
    // (the network runs once a row, about 5 s a recording under ASan; the segmentation rules of
    // every set are checked on every recording above, from the package's probabilities).
    void segmentsMatchPackage_data() {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("clip");
        for (const auto& [set, unused] : m_manifest["parameter_sets"].items()) {
            for (const char* c : networkClips()) {
                if (std::string_view(c) != "jfk" && set != "hearsay" && set != "max_speech_3s") continue;
                QTest::newRow(qPrintable(QString::fromStdString(set) + "/" + c)) << QString::fromStdString(set) << QString(c);
            }
        }
    }
    // End to end: audio in, the package's segments out.
    void segmentsMatchPackage() {
        QFETCH(QString, set);
        QFETCH(QString, clip);
        const Clip& c = this->clip(clip);
        // A probability within the tolerance of a threshold could legitimately decide otherwise.
        QVERIFY2(c.minDistanceToThreshold > kProbabilityTolerance,
                 "a golden probability lies within the tolerance of a threshold: choose other parameters");
        const VadOptions options = optionsFromJson(m_manifest["parameter_sets"][set.toStdString()]);
        SileroVad vad(m_weights, "bundled");
        auto got = speechSegments(vad, c.audio, options);
        QVERIFY(got.ok());
        const auto expected = segmentsFromJson(m_manifest["segments"][set.toStdString()][clip.toStdString()]);
        QVERIFY2(got.value() == expected, qPrintable("got " + describe(got.value()) + "\nexpected " + describe(expected)));
    }

    void streamingEqualsOffline_data() {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("clip");
        QTest::addColumn<int>("block");
        // Every block size and parameter set on jfk; one block size and two sets on the long clips
        // (the network runs once per row: keep sanitizer builds quick).
        for (const char* c : networkClips()) {
            const bool jfk = std::string_view(c) == "jfk";
            for (int block : jfk ? std::vector<int>{1, 160, 511, 512, 4000, 1 << 20} : std::vector<int>{4000}) {
                QTest::newRow(qPrintable(QStringLiteral("hearsay/%1/%2").arg(c).arg(block))) << "hearsay" << QString(c) << block;
            }
            for (const char* set : {"loose", "max_speech_3s", "max_speech_3s_legacy", "package_defaults"}) {
                if (!jfk && std::string_view(set) != "max_speech_3s_legacy" && std::string_view(set) != "package_defaults") continue;
                QTest::newRow(qPrintable(QStringLiteral("%1/%2/777").arg(set, c))) << QString(set) << QString(c) << 777;
            }
        }
    }
    // The detector fed in blocks of odd sizes emits exactly the offline segments (which equal the
    // package's), and the same probabilities chunk by chunk.
    void streamingEqualsOffline() {
        QFETCH(QString, set);
        QFETCH(QString, clip);
        QFETCH(int, block);
        const Clip& c = this->clip(clip);
        const VadOptions options = optionsFromJson(m_manifest["parameter_sets"][set.toStdString()]);
        auto detector = VoiceActivityDetector::create(options, std::make_unique<SileroVad>(m_weights, "bundled"));
        QVERIFY(detector.ok());
        QVERIFY(!detector->usingFallback());
        const auto events = streamInBlocks(detector.value(), c.audio, size_t(block));
        QCOMPARE(detector->samplesFed(), c.samples);
        std::vector<SpeechSegment> got;
        QString why;
        QVERIFY2(eventsToSegments(events, got, why), qPrintable(why));
        const auto expected = segmentsFromJson(m_manifest["segments"][set.toStdString()][clip.toStdString()]);
        QVERIFY2(got == expected, qPrintable("streamed " + describe(got) + "\nexpected " + describe(expected)));
        // feed() after finish() is ignored; reset() replays the stream identically.
        std::vector<VadEvent> none;
        detector->feed(c.audio, none);
        QVERIFY(none.empty());
        if (block == 4000) {
            detector->reset();
            QCOMPARE(streamInBlocks(detector.value(), c.audio, 1000), events);
        }
    }

    // With Hearsay's options an end is known as soon as the package's minimum silence has passed
    // (no look-ahead beyond it), and a start within the minimum speech duration plus a chunk.
    void eventsAreTimely() {
        const VadOptions options;  // pad 100 ms < min silence 500 ms: an end never waits for the next segment
        auto detector = VoiceActivityDetector::create(options, std::make_unique<SileroVad>(m_weights, "bundled"));
        QVERIFY(detector.ok());
        const double pad = options.speechPadMs * 16.0, minSilence = options.minSilenceMs * 16.0, minSpeech = options.minSpeechMs * 16.0;
        int checked = 0;
        for (const Clip& c : m_clips) {
            detector->reset();
            const auto events = streamInBlocks(detector.value(), c.audio, 160);
            for (const VadEvent& e : events) {
                if (e.decidedAt == c.samples) continue;  // decided by finish()
                if (e.kind == VadEvent::Kind::SpeechEnd) {
                    const double rawEnd = double(e.sample) - pad;  // the first silent chunk
                    QVERIFY2(double(e.decidedAt) - rawEnd <= minSilence + 2 * kVadChunkSamples,
                             qPrintable(QStringLiteral("%1: end %2 decided at %3").arg(QString::fromStdString(c.name)).arg(e.sample).arg(e.decidedAt)));
                } else {
                    const double rawStart = double(e.sample) + pad;
                    QVERIFY2(double(e.decidedAt) - rawStart <= minSpeech + 2 * kVadChunkSamples,
                             qPrintable(QStringLiteral("%1: start %2 decided at %3").arg(QString::fromStdString(c.name)).arg(e.sample).arg(e.decidedAt)));
                }
                ++checked;
            }
        }
        QVERIFY(checked >= 5);
    }

    // The streaming segmenter against the offline one on random probability sequences and random
    // options, including tiny pads and minimum silences (ends that wait for the next segment),
    // max-speech cuts by both rules, and streams ending inside a chunk.
    void segmenterStreamingEqualsOfflineOnRandomInput() {
        std::mt19937 rng(20240611);
        auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
        auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
        int withSegments = 0, withCuts = 0;
        for (int trial = 0; trial < 3000; ++trial) {
            VadOptions o;
            o.threshold = uniform(0.3, 0.7);
            if (pick(0, 1)) o.negativeThreshold = o.threshold - uniform(0.0, 0.25);
            o.minSilenceMs = pick(0, 4) * pick(0, 150);
            o.speechPadMs = pick(0, 3) * pick(0, 120);
            o.minSpeechMs = pick(0, 3) * pick(0, 150);
            if (pick(0, 2) == 0) o.maxSpeechSeconds = uniform(0.1, 3.0) + 2.0 * o.speechPadMs / 1000.0;
            o.minSilenceAtMaxSpeechMs = pick(0, 150);
            o.cutAtLongestSilence = pick(0, 1);
            if (!o.validate()) continue;
            // A two-state Markov chain of speech and silence with probabilities scattered around the thresholds.
            const int chunks = pick(0, 400);
            const double stay = uniform(0.7, 0.98);
            std::vector<float> probs(static_cast<size_t>(chunks));
            bool speech = pick(0, 1);
            for (float& p : probs) {
                if (uniform(0, 1) > stay) speech = !speech;
                p = float(std::clamp(speech ? uniform(o.threshold - 0.2, 1.0) : uniform(0.0, o.threshold + 0.05), 0.0, 1.0));
            }
            const int64_t total = chunks == 0 ? 0 : int64_t(chunks - 1) * kVadChunkSamples + pick(1, kVadChunkSamples);
            const auto offline = speechSegmentsFromProbabilities(probs, total, o);

            SpeechSegmenter segmenter(o);
            std::vector<VadEvent> events;
            const bool partial = total % kVadChunkSamples != 0;
            for (int i = 0; i < chunks - (partial ? 1 : 0); ++i) segmenter.push(probs[size_t(i)], events);
            segmenter.finish(total, events, partial ? std::optional<double>(probs.back()) : std::nullopt);
            std::vector<SpeechSegment> streamed;
            QString why;
            QVERIFY2(eventsToSegments(events, streamed, why), qPrintable(QStringLiteral("trial %1: %2").arg(trial).arg(why)));
            QVERIFY2(streamed == offline, qPrintable(QStringLiteral("trial %1: streamed %2\noffline %3")
                                                         .arg(trial).arg(describe(streamed), describe(offline))));
            withSegments += !offline.empty();
            withCuts += std::isfinite(o.maxSpeechSeconds) && offline.size() > 1;
        }
        qInfo("%d trials with segments, %d with max-speech limits and several segments", withSegments, withCuts);
        QVERIFY(withSegments > 1000 && withCuts > 100);
    }

    // No speech in digital silence or in low noise, by Silero VAD or by the energy gate.
    void silenceAndNoiseGiveNoSpeech_data() {
        QTest::addColumn<QString>("signal");
        QTest::newRow("silence") << "silence";
        QTest::newRow("noise -60 dBFS") << "noise60";
        QTest::newRow("noise -40 dBFS") << "noise40";
        QTest::newRow("hum 50 Hz -30 dBFS") << "hum";
    }
    void silenceAndNoiseGiveNoSpeech() {
        QFETCH(QString, signal);
        const size_t n = 10 * kVadSampleRate;
        std::vector<float> audio(n, 0.0f);
        if (signal == "noise60") audio = noise(n, 0.001f, 1);
        if (signal == "noise40") audio = noise(n, 0.01f, 2);
        if (signal == "hum") {
            for (size_t i = 0; i < n; ++i) audio[i] = 0.0447f * float(std::sin(2.0 * std::numbers::pi * 50.0 * double(i) / kVadSampleRate));
        }
        SileroVad vad(m_weights, "bundled");
        const auto probs = chunkProbabilities(vad, audio);
        const float highest = *std::max_element(probs.begin(), probs.end());
        qInfo("%s: highest Silero probability %.4f", qPrintable(signal), highest);
        QVERIFY2(highest < 0.35f, qPrintable(QStringLiteral("probability %1").arg(highest)));
        auto segments = speechSegments(vad, audio, VadOptions{});
        QVERIFY(segments.ok() && segments->empty());

        EnergyGate gate("test");
        auto gated = speechSegments(gate, audio, VadOptions{});
        QVERIFY(gated.ok());
        QVERIFY2(gated->empty(), qPrintable("energy gate found " + describe(gated.value())));
    }

    // Without weights the detector falls back to the energy gate, says so, and still finds the
    // speech of jfk.wav roughly where Silero VAD does.
    void fallbackWithoutWeights() {
        auto detector = VoiceActivityDetector::create(VadOptions{}, std::span<const std::byte>{});
        QVERIFY(detector.ok());
        QVERIFY(detector->usingFallback());
        QVERIFY2(detector->describe().find("fallback") != std::string::npos, detector->describe().c_str());
        QVERIFY2(detector->describe().find("no Silero VAD weights") != std::string::npos, detector->describe().c_str());

        const Clip& c = clip("jfk");
        std::vector<SpeechSegment> gate;
        QString why;
        QVERIFY2(eventsToSegments(streamInBlocks(detector.value(), c.audio, 320), gate, why), qPrintable(why));
        const auto silero = segmentsFromJson(m_manifest["segments"]["hearsay"]["jfk"]);
        auto covered = [](const std::vector<SpeechSegment>& a, const std::vector<SpeechSegment>& b) {
            int64_t overlap = 0, total = 0;  // samples of a that b also covers
            for (const auto& x : a) {
                total += x.end - x.start;
                for (const auto& y : b) overlap += std::max<int64_t>(0, std::min(x.end, y.end) - std::max(x.start, y.start));
            }
            return total ? double(overlap) / double(total) : 0.0;
        };
        const double recall = covered(silero, gate), precision = covered(gate, silero);
        qInfo("energy gate on jfk: %s; covers %.0f%% of Silero's speech, %.0f%% of it inside Silero's",
              qPrintable(describe(gate)), 100 * recall, 100 * precision);
        QVERIFY(recall > 0.8 && precision > 0.9);

        // The bundled weights give Silero VAD, not the fallback.
        auto real = VoiceActivityDetector::create();
        QVERIFY(real.ok());
        QVERIFY(!real->usingFallback());
        QVERIFY2(real->describe().find("Silero VAD") != std::string::npos, real->describe().c_str());
    }

    // Unreadable weights given to the detector: the fallback, with the loader's reason.
    void fallbackOnCorruptWeights() {
        const auto bundled = bundledSileroVadWeights();
        const std::vector<std::byte> half(bundled.begin(), bundled.begin() + ptrdiff_t(bundled.size() / 2));
        auto detector = VoiceActivityDetector::create(VadOptions{}, half);
        QVERIFY(detector.ok());
        QVERIFY(detector->usingFallback());
        QVERIFY2(detector->describe().find("truncated") != std::string::npos, detector->describe().c_str());
    }

    void badWeightsFiles_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");  // a phrase the message must hold
        QTest::newRow("missing file") << "missing" << "No such file";
        QTest::newRow("empty file") << "empty" << "too short";
        QTest::newRow("truncated file") << "truncated" << "truncated";
        QTest::newRow("not safetensors") << "garbage" << "header";
        QTest::newRow("wrong tensor shape") << "shape" << "'conv2.weight' has shape [64, 128, 2], Silero VAD needs [64, 128, 3]";
        QTest::newRow("missing tensor") << "renamed" << "tensor 'lstm_cell.weight_hh' is missing";
        QTest::newRow("non-finite weight") << "nan" << "non-finite";
    }
    // Each kind of bad file is an error naming the file and the problem; nothing aborts.
    void badWeightsFiles() {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::filesystem::path base = dir.path().toStdString();
        std::filesystem::path path = base / "silero_vad_v6.2_16k.safetensors";
        const auto real = fileBytes(kResourceWeights);
        QVERIFY(!real.empty());
        if (kind == "empty") writeBytes(path, "", 0);
        if (kind == "truncated") writeBytes(path, real.data(), real.size() - 1000);
        if (kind == "garbage") {
            const uint64_t headerBytes = 17;
            std::string text(reinterpret_cast<const char*>(&headerBytes), 8);
            text += "{not json at all}";
            writeBytes(path, text.data(), text.size());
        }
        if (kind == "shape") path = rewrittenWeights(base, "conv2.weight", "", {64, 128, 2});
        if (kind == "renamed") path = rewrittenWeights(base, "lstm_cell.weight_hh", "lstm_cell.weight_hh_renamed", {});
        if (kind == "nan") path = rewrittenWeights(base, "conv3.weight", "", {64, 64, 3}, std::nanf(""), true);
        QVERIFY(!path.empty());
        auto vad = SileroVad::load(path);
        QVERIFY(!vad.ok());
        const QString message = QString::fromStdString(vad.message());
        qInfo("%s: %s", qPrintable(kind), qPrintable(message));
        QVERIFY2(message.contains(expected), qPrintable(message));
        QVERIFY2(message.contains(QString::fromStdString(path.filename().string())), qPrintable(message));
    }

    void invalidOptionsAreErrors() {
        VadOptions o;
        o.threshold = 1.5;
        QVERIFY(!VoiceActivityDetector::create(o).ok());
        o = {};
        o.negativeThreshold = 0.7;  // above the threshold
        QVERIFY(!VoiceActivityDetector::create(o).ok());
        o = {};
        o.minSilenceMs = -1;
        QVERIFY(!VoiceActivityDetector::create(o).ok());
        o = {};
        o.maxSpeechSeconds = 0.2;  // less than a chunk and twice the padding
        QVERIFY(!VoiceActivityDetector::create(o).ok());
        o.maxSpeechSeconds = std::nan("");
        QVERIFY(!VoiceActivityDetector::create(o).ok());
        SileroVad vad(m_weights, "bundled");
        o = {};
        o.threshold = -0.1;
        auto segments = speechSegments(vad, clip("jfk").audio, o);
        QVERIFY(!segments.ok());
        QVERIFY2(QString::fromStdString(segments.message()).contains("threshold"), segments.message().c_str());
    }

    // The built hearsay-cli finds the built-in weights by itself (run from an unrelated working
    // directory) and prints the package's segments, offline and streamed.
    void cliUsesBuiltInWeights() {
        QTemporaryDir elsewhere;
        QVERIFY(elsewhere.isValid());
        auto run = [&](const QStringList& args, QString& out, QString& err) {
            QProcess p;
            p.setWorkingDirectory(elsewhere.path());
            p.start(QStringLiteral(HEARSAY_CLI_PATH), args);
            if (!p.waitForFinished(120000)) return -1;
            out = QString::fromUtf8(p.readAllStandardOutput());
            err = QString::fromUtf8(p.readAllStandardError());
            return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
        };
        const QString jfk = kShared + "/jfk.wav";
        QString out, err;
        QCOMPARE(run({"vad", "--samples", jfk}, out, err), 0);
        QVERIFY2(err.contains("Silero VAD (built-in silero_vad_v6.2_16k.safetensors)"), qPrintable(err));
        QStringList expected;
        for (const auto& s : segmentsFromJson(m_manifest["segments"]["hearsay"]["jfk"])) expected << QStringLiteral("%1 %2").arg(s.start).arg(s.end);
        QCOMPARE(out.trimmed().split('\n'), expected);

        QCOMPARE(run({"vad", "--samples", "--stream", "160", jfk}, out, err), 0);
        QStringList streamed;
        for (const QString& line : out.trimmed().split('\n')) {
            const QStringList f = line.split(' ');
            QCOMPARE(f.size(), 4);
            if (f[0] == "start") streamed << f[1];
            else streamed.last() += " " + f[1];
        }
        QCOMPARE(streamed, expected);

        QCOMPARE(run({"vad", "--weights", elsewhere.filePath("none.safetensors"), jfk}, out, err), 1);
        QVERIFY2(err.contains("none.safetensors") && err.contains("No such file"), qPrintable(err));
        QCOMPARE(run({"vad", "--threshold", "2", jfk}, out, err), 2);
        QVERIFY2(err.contains("threshold"), qPrintable(err));
    }

    // Short streams: nothing, less than a chunk, exactly one chunk.
    void shortStreams() {
        auto detector = VoiceActivityDetector::create();
        QVERIFY(detector.ok());
        for (size_t n : {size_t(0), size_t(100), size_t(512)}) {
            detector->reset();
            std::vector<VadEvent> events;
            detector->feed(std::span<const float>(clip("jfk").audio).subspan(20000, n), events);
            detector->finish(events);
            QVERIFY(events.empty());  // never longer than the 250 ms minimum
            QCOMPARE(detector->samplesFed(), int64_t(n));
        }
    }
};

#else

class TestVoiceActivity : public QObject {
    Q_OBJECT
private slots:
    void audioLibraryMissing() { QSKIP("built with HEARSAY_ENGINE_ONLY: no hearsay_audio, which holds the VAD"); }
};

#endif

QTEST_APPLESS_MAIN(TestVoiceActivity)

#include "tst_voice_activity.moc"
