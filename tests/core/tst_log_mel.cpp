// The log-mel frontend against the transformers Whisper feature extractor (golden files from
// tests/reference/gen_mel_golden.py) on real speech, the filterbank against whisper.cpp's and
// transformers', and the streaming frontend against the batch one.
#include "core/frontend/log_mel.h"
#include "core/util/npy.h"
#include "wav_reader.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <random>

using namespace hearsay;

namespace {

const QString kShared = QStringLiteral(HEARSAY_SHARED_DATA_DIR);
const QString kGolden = QStringLiteral(HEARSAY_TEST_DATA_DIR "/mel");

std::vector<float> readClip(const QString& name) {
    const Pcm16Wav wav = readPcm16Wav(kShared + "/" + name + ".wav");
    if (!wav.ok() || wav.rate != kSampleRate || wav.channels != 1) return {};
    return pcm16ToFloat(wav.samples);
}

template <class T>
double maxAbsDiff(const T* a, const std::vector<float>& b) {
    double worst = 0.0;
    for (size_t i = 0; i < b.size(); ++i) worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
    return worst;
}

// The mel filterbank stored in a whisper.cpp ggml file: uint32 magic, 11 int32 hparams,
// int32 n_mel, int32 n_fft, then n_mel*n_fft float32. Empty when the file is not one.
std::vector<float> ggmlFilterbank(const QString& path, int* nMel, int* nFft) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    const QByteArray head = file.read(4 * 14);
    if (head.size() != 56) return {};
    uint32_t magic;
    int32_t dims[2];
    std::memcpy(&magic, head.constData(), 4);
    std::memcpy(dims, head.constData() + 48, 8);
    if (magic != 0x67676d6c || dims[0] <= 0 || dims[1] <= 0 || dims[0] > 512 || dims[1] > 1024) return {};
    *nMel = dims[0];
    *nFft = dims[1];
    const QByteArray body = file.read(qint64(dims[0]) * dims[1] * 4);
    if (body.size() != qsizetype(dims[0]) * dims[1] * 4) return {};
    std::vector<float> filters(static_cast<size_t>(dims[0]) * static_cast<size_t>(dims[1]));
    std::memcpy(filters.data(), body.constData(), size_t(body.size()));
    return filters;
}

bool sameWindow(const LogMel& a, const LogMel& b, double tolerance, QString* why) {
    if (a.nMels != b.nMels || a.frames != b.frames || a.data.size() != b.data.size()) {
        *why = QStringLiteral("shape %1x%2 vs %3x%4").arg(a.nMels).arg(a.frames).arg(b.nMels).arg(b.frames);
        return false;
    }
    for (int m = 0; m < a.nMels; ++m) {
        for (int t = 0; t < a.frames; ++t) {
            if (std::abs(double(a.at(m, t)) - double(b.at(m, t))) > tolerance) {
                *why = QStringLiteral("mel %1 frame %2: %3 vs %4").arg(m).arg(t).arg(a.at(m, t)).arg(b.at(m, t));
                return false;
            }
        }
    }
    return true;
}

} // namespace

class TestLogMel : public QObject {
    Q_OBJECT
private slots:
    void filterbankMatchesWhisperCpp() {
        int nMel = 0, nFft = 0;
        const auto reference = ggmlFilterbank(kShared + "/ggml-vocab-tiny.en.bin", &nMel, &nFft);
        QVERIFY2(!reference.empty(), "cannot read the filterbank of ggml-vocab-tiny.en.bin");
        QCOMPARE(nMel, 80);
        QCOMPARE(nFft, kFftSize / 2 + 1);
        const auto ours = melFilterbank(80);
        QCOMPARE(ours.size(), reference.size());
        const double error = maxAbsDiff(ours.data(), reference);
        const auto ours64 = melFilterbankF64(80);
        const double error64 = maxAbsDiff(ours64.data(), reference);
        qDebug("melFilterbank(80) vs ggml: max abs error %.3g (float64 version %.3g); largest weight %.4f",
               error, error64, double(*std::max_element(reference.begin(), reference.end())));
        QVERIFY(error <= 1e-6);
        QVERIFY(error64 <= 1e-6);
    }

    void filterbankMatchesTransformers_data() {
        QTest::addColumn<int>("nMels");
        QTest::newRow("80") << 80;
        QTest::newRow("128") << 128;
    }
    void filterbankMatchesTransformers() {
        QFETCH(int, nMels);
        auto golden = readNpy((kGolden + QStringLiteral("/mel_filters_%1.npy").arg(nMels)).toStdString());
        QVERIFY2(golden.ok(), golden.ok() ? "" : golden.message().c_str());
        QCOMPARE(golden->shape, (std::vector<int64_t>{nMels, kFftSize / 2 + 1}));
        const auto ours = melFilterbank(nMels);
        const auto ours64 = melFilterbankF64(nMels);
        const double error = maxAbsDiff(ours.data(), golden->f32);
        const double error64 = maxAbsDiff(ours64.data(), golden->f32);
        qDebug("melFilterbank(%d) vs transformers: max abs error %.3g (float64 version %.3g)", nMels, error, error64);
        QVERIFY(error <= 1e-6);
        QVERIFY(error64 <= 1e-6);
        // Every filter has weight somewhere (128 bins over 201 FFT bins is still resolvable).
        for (int m = 0; m < nMels; ++m) {
            const auto row = ours.begin() + m * (kFftSize / 2 + 1);
            QVERIFY(*std::max_element(row, row + kFftSize / 2 + 1) > 0.0f);
        }
    }

    void matchesTransformers_data() {
        QTest::addColumn<QString>("clip");
        QTest::addColumn<int>("nMels");
        QTest::newRow("jfk 80") << "jfk" << 80;
        QTest::newRow("jfk 128") << "jfk" << 128;
        QTest::newRow("speech-30s-a 80") << "speech-30s-a" << 80;
        QTest::newRow("speech-30s-b 80") << "speech-30s-b" << 80;
    }
    void matchesTransformers() {
        QFETCH(QString, clip);
        QFETCH(int, nMels);
        const auto audio = readClip(clip);
        QVERIFY2(!audio.empty(), qPrintable("cannot read " + clip + ".wav"));
        const QString stem = kGolden + QStringLiteral("/%1_%2").arg(clip).arg(nMels);
        auto golden = readNpy((stem + ".npy").toStdString());
        QVERIFY2(golden.ok(), golden.ok() ? "" : golden.message().c_str());
        QCOMPARE(golden->shape.size(), size_t(2));
        QCOMPARE(golden->shape[0], int64_t(nMels));
        const int kept = int(golden->shape[1]);
        QVERIFY(kept > 0 && kept <= kChunkFrames);

        const LogMel mel = logMelSpectrogram(audio.data(), audio.size(), nMels);
        QCOMPARE(mel.nMels, nMels);
        QCOMPARE(mel.frames, kChunkFrames);
        double error = 0.0;
        for (int m = 0; m < nMels; ++m) {
            for (int t = 0; t < kept; ++t) {
                const double expected = golden->f32[size_t(m) * size_t(kept) + size_t(t)];
                error = std::max(error, std::abs(double(mel.at(m, t)) - expected));
            }
        }
        // The frames not stored are the clamped silence: the golden file holds their (constant)
        // value; our own output must be constant there too.
        double tailError = 0.0;
        if (kept < kChunkFrames) {
            auto tail = readNpy((stem + "_tail.npy").toStdString());
            QVERIFY2(tail.ok(), tail.ok() ? "" : tail.message().c_str());
            QCOMPARE(tail->shape, (std::vector<int64_t>{nMels, 1}));
            for (int m = 0; m < nMels; ++m) {
                for (int t = kept; t < kChunkFrames; ++t) {
                    QCOMPARE(mel.at(m, t), mel.at(m, kept));
                    tailError = std::max(tailError, std::abs(double(mel.at(m, t)) - double(tail->f32[size_t(m)])));
                }
            }
        }
        qDebug("%s, %d mels: max abs error %.3g over %d frames, %.3g over the %d padding frames",
               qPrintable(clip), nMels, error, kept, tailError, kChunkFrames - kept);
        QVERIFY(error <= 1e-4);
        QVERIFY(tailError <= 1e-4);
    }

    // Independent of the golden files: a 1 kHz tone puts its energy in the mel filter whose
    // peak is at FFT bin 25 (1000 Hz), and the loudest value is exactly (max + 4) / 4 = the top.
    void toneLandsInItsMelBin() {
        std::vector<float> tone(size_t(kSampleRate) * 5);
        for (size_t i = 0; i < tone.size(); ++i) {
            tone[i] = 0.5f * float(std::sin(2.0 * std::numbers::pi * 1000.0 * double(i) / kSampleRate));
        }
        const auto filters = melFilterbank(80);
        int expectedMel = 0;
        for (int m = 0; m < 80; ++m) {
            if (filters[size_t(m) * 201 + 25] > filters[size_t(expectedMel) * 201 + 25]) expectedMel = m;
        }
        const LogMel mel = logMelSpectrogram(tone.data(), tone.size(), 80);
        for (int t = 10; t < 490; t += 37) {
            int loudest = 0;
            for (int m = 1; m < 80; ++m) {
                if (mel.at(m, t) > mel.at(loudest, t)) loudest = m;
            }
            QCOMPARE(loudest, expectedMel);
        }
        // Past the tone (frame 502 on) every value is clamped to max - 8: (max - 8 + 4) / 4.
        const float top = *std::max_element(mel.data.begin(), mel.data.end());
        QCOMPARE(mel.at(40, 2500), top - 2.0f);
    }

    void cutsAndPads() {
        // Input past 30 s is cut: the window of 35 s equals that of its first 30 s.
        std::vector<float> longAudio = readClip("speech-30s-a");
        const std::vector<float> other = readClip("jfk");
        QVERIFY(!longAudio.empty() && !other.empty());
        longAudio.insert(longAudio.end(), other.begin(), other.begin() + 5 * kSampleRate);
        const LogMel cut = logMelSpectrogram(longAudio.data(), longAudio.size(), 80);
        const LogMel first = logMelSpectrogram(longAudio.data(), size_t(kChunkSamples), 80);
        QVERIFY(cut.data == first.data);
        // No audio at all: every frame is silence, log10(1e-10) = -10, (-10 + 4) / 4 = -1.5.
        const LogMel empty = logMelSpectrogram(nullptr, 0, 80);
        QCOMPARE(empty.frames, kChunkFrames);
        QVERIFY(std::all_of(empty.data.begin(), empty.data.end(), [](float v) { return v == -1.5f; }));
    }

    void streamMatchesBatch_data() {
        QTest::addColumn<QStringList>("clips");
        QTest::addColumn<int>("nMels");
        QTest::addColumn<unsigned>("seed");
        QTest::newRow("jfk 80") << QStringList{"jfk"} << 80 << 1u;
        QTest::newRow("jfk 128") << QStringList{"jfk"} << 128 << 2u;
        QTest::newRow("speech-30s-a 80") << QStringList{"speech-30s-a"} << 80 << 3u;
        QTest::newRow("a+b+jfk 80 (71 s)") << QStringList{"speech-30s-a", "speech-30s-b", "jfk"} << 80 << 4u;
    }
    void streamMatchesBatch() {
        QFETCH(QStringList, clips);
        QFETCH(int, nMels);
        QFETCH(unsigned, seed);
        std::vector<float> audio;
        for (const QString& clip : clips) {
            const auto samples = readClip(clip);
            QVERIFY(!samples.empty());
            audio.insert(audio.end(), samples.begin(), samples.end());
        }
        std::mt19937 rng(seed);
        LogMelStream stream(nMels);
        size_t fed = 0;
        size_t discarded = 0;
        int windowsChecked = 0;
        // Empty when window(first, count) equals the batch frontend on the same segment.
        auto checkWindow = [&](size_t first, size_t count) -> QString {
            const LogMel streamed = stream.window(first, count, MelWindowOptions{MelPadding::Silence, std::nullopt});
            const size_t segStart = first * kHopLength;
            const size_t length = std::min(std::min(count, size_t(kChunkFrames)) * kHopLength, fed - segStart);
            const LogMel batch = logMelSpectrogram(audio.data() + segStart, length, nMels);
            ++windowsChecked;
            QString why;
            if (sameWindow(streamed, batch, 1e-6, &why)) return {};
            return QStringLiteral("window(%1, %2) after %3 samples: %4").arg(first).arg(count).arg(fed).arg(why);
        };
#define CHECK_WINDOW(first, count)                                  \
    do {                                                            \
        const QString failure = checkWindow(first, count);          \
        QVERIFY2(failure.isEmpty(), qPrintable(failure));           \
    } while (false)
        while (fed < audio.size()) {
            // Chunks from 1 sample to 1.5 s, most of them microphone-sized.
            const size_t chunk = std::min(audio.size() - fed, size_t(rng() % 4 == 0 ? 1 + rng() % 24000 : 1 + rng() % 1600));
            stream.append(audio.data() + fed, chunk);
            fed += chunk;
            QCOMPARE(stream.samplesAppended(), fed);
            QCOMPARE(stream.framesReady(), fed > 200 ? (fed - 200) / kHopLength + 1 : size_t(0));
            if (rng() % 8 != 0) continue;
            // All the audio since a frame (the streaming policy's window), a random length, and
            // one cut inside the audio (its last frames see zero padding, not the audio after it).
            const size_t lastFrame = fed / kHopLength;
            const size_t first = discarded + (lastFrame > discarded ? rng() % (lastFrame - discarded + 1) : 0);
            CHECK_WINDOW(first, (fed - first * kHopLength + kHopLength - 1) / kHopLength);
            CHECK_WINDOW(first, 1 + rng() % 3200);
            CHECK_WINDOW(first, 1 + (lastFrame - first) / 2);
            if (rng() % 3 == 0 && lastFrame > discarded + 100) {
                discarded += rng() % (lastFrame - discarded - 50);
                stream.discardBefore(discarded);
                CHECK_WINDOW(discarded, 3000);
            }
        }
        CHECK_WINDOW(discarded, 3000);
        CHECK_WINDOW(audio.size() / kHopLength - 1, 2);
#undef CHECK_WINDOW
        qDebug("%d windows equal to the batch frontend", windowsChecked);
        // Windows out of range come back empty rather than reading past the audio.
        QCOMPARE(stream.window(fed / kHopLength + 1, 10, MelWindowOptions{MelPadding::Silence, std::nullopt}).frames, 0);
        if (discarded > 0) QCOMPARE(stream.window(discarded - 1, 10, MelWindowOptions{MelPadding::Silence, std::nullopt}).frames, 0);
        stream.reset();
        QCOMPARE(stream.framesReady(), size_t(0));
        QCOMPARE(stream.window(0, 3000, MelWindowOptions{MelPadding::Silence, std::nullopt}).data, logMelSpectrogram(nullptr, 0, nMels).data);
    }

    // The windows of long-form transcription: one log-mel over the whole recording (LogMelStream,
    // finished), clamped at the recording's maximum, a window sliced from it and 0.0 after its
    // content, as faster-whisper's feature extractor and transcribe() make them.
    void longFormWindowsMatchFasterWhisper_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("clips");
        QTest::addColumn<int>("seek");
        QTest::addColumn<int>("count");  // -1: to the end of the content; -2: the content and one frame more
        const QStringList abj{"speech-30s-a", "speech-30s-b", "jfk"};
        QTest::newRow("jfk") << "jfk" << QStringList{"jfk"} << 0 << -1;
        QTest::newRow("jfk language window") << "jfk_language" << QStringList{"jfk"} << 0 << -2;
        QTest::newRow("a+b+jfk at 0") << "abj_0" << abj << 0 << 3000;
        QTest::newRow("a+b+jfk at 2650") << "abj_2650" << abj << 2650 << 3000;
        QTest::newRow("a+b+jfk last window") << "abj_end" << abj << 5650 << -1;
    }
    void longFormWindowsMatchFasterWhisper() {
        QFETCH(QString, name);
        QFETCH(QStringList, clips);
        QFETCH(int, seek);
        QFETCH(int, count);
        std::vector<float> audio;
        for (const QString& clip : clips) {
            const auto samples = readClip(clip);
            QVERIFY(!samples.empty());
            audio.insert(audio.end(), samples.begin(), samples.end());
        }
        // Fed in uneven blocks, as the transcriber reads a file.
        LogMelStream stream(80);
        for (size_t fed = 0; fed < audio.size();) {
            const size_t n = std::min(audio.size() - fed, size_t(7919));
            stream.append(audio.data() + fed, n);
            fed += n;
        }
        stream.finish();
        const int content = int(audio.size() / kHopLength);
        QCOMPARE(stream.framesReady(), size_t(content + 1));
        if (count == -1) count = std::min(kChunkFrames, content - seek);
        if (count == -2) count = std::min(kChunkFrames, content + 1 - seek);
        const LogMel mel = stream.window(size_t(seek), size_t(count), MelWindowOptions{MelPadding::Zero, stream.maxLog10()});
        QCOMPARE(mel.frames, kChunkFrames);

        auto sums = readNpy((kGolden + "/longform_" + name + "_sums.npy").toStdString());
        auto cols = readNpy((kGolden + "/longform_" + name + "_cols.npy").toStdString());
        QVERIFY2(sums.ok() && cols.ok(), "golden files missing: run tests/reference/gen_mel_golden.py");
        QCOMPARE(sums->shape, (std::vector<int64_t>{kChunkFrames}));
        const int stride = 25;
        QCOMPARE(cols->shape, (std::vector<int64_t>{80, kChunkFrames / stride}));
        double sumError = 0.0, valueError = 0.0;
        for (int t = 0; t < kChunkFrames; ++t) {
            double sum = 0.0;
            for (int m = 0; m < 80; ++m) sum += mel.at(m, t);
            sumError = std::max(sumError, std::abs(sum - double(sums->f32[size_t(t)])));
            if (t >= count) {
                for (int m = 0; m < 80; ++m) QCOMPARE(mel.at(m, t), 0.0f);  // 0.0 after the content
            }
            if (t % stride != 0) continue;
            for (int m = 0; m < 80; ++m) {
                const double expected = cols->f32[size_t(m) * size_t(kChunkFrames / stride) + size_t(t / stride)];
                valueError = std::max(valueError, std::abs(double(mel.at(m, t)) - expected));
            }
        }
        qDebug("%s: max abs error %.3g per value, %.3g per frame sum (faster-whisper computes in float32)", qPrintable(name),
               valueError, sumError);
        QVERIFY(valueError < 2e-4);
        QVERIFY(sumError < 2e-3);
    }

    void timing() {
        // Reported, not asserted: the time of one 30 s window.
        const auto audio = readClip("speech-30s-a");
        QVERIFY(!audio.empty());
        for (int nMels : {80, 128}) {
            LogMel mel = logMelSpectrogram(audio.data(), audio.size(), nMels);
            QElapsedTimer timer;
            timer.start();
            const int runs = 20;
            for (int i = 0; i < runs; ++i) mel = logMelSpectrogram(audio.data(), audio.size(), nMels);
            qDebug("logMelSpectrogram, 30 s of speech, %d mels: %.2f ms per window", nMels,
                   double(timer.nsecsElapsed()) / 1e6 / runs);
            QCOMPARE(mel.frames, kChunkFrames);
        }
    }
};

QTEST_APPLESS_MAIN(TestLogMel)
#include "tst_log_mel.moc"
