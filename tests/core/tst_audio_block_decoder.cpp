// Block-by-block decoding to 16 kHz mono: blocks that concatenate to exactly what a one-shot
// conversion of the whole signal gives (libsndfile and FFmpeg), rewinding, an error part-way
// with the blocks before it delivered, and memory that stays flat over a 30-minute file.
#include <QtTest>

#ifdef HEARSAY_HAVE_AUDIO  // hearsay_audio is not built with HEARSAY_ENGINE_ONLY

#include "core/audio/audio_block_decoder.h"
#include "core/audio/audio_file.h"
#include "core/audio/audio_writer.h"
#include "core/audio/resampler.h"
#include "wav_reader.h"

#include <cmath>
#include <fstream>
#include <numbers>
#include <random>

using namespace hearsay;

namespace {

const QString kShared = QStringLiteral(HEARSAY_SHARED_DATA_DIR);

struct Decoded {
    std::vector<float> samples;
    size_t blocks = 0;
    size_t largest = 0;
    QString error;
};

Decoded readAll(AudioBlockDecoder& decoder) {
    Decoded d;
    std::vector<float> block;
    while (true) {
        auto more = decoder.next(block);
        if (!more) {
            d.error = QString::fromStdString(more.message());
            return d;
        }
        if (!more.value()) return d;
        if (block.empty()) {
            d.error = "an empty block";
            return d;
        }
        ++d.blocks;
        d.largest = std::max(d.largest, block.size());
        d.samples.insert(d.samples.end(), block.begin(), block.end());
    }
}

// The resident set size now, from the kernel (bytes).
size_t residentBytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) return size_t(std::stoull(line.substr(6))) * 1024;
    }
    return 0;
}

// Sample i of the long test signal: a deterministic 16-bit pattern (a slow sweep plus
// pseudo-random low bits), so any sample can be checked without keeping the signal.
int16_t patternAt(uint64_t i) {
    const uint64_t x = i * 2654435761u;
    return int16_t(int(8000.0 * std::sin(double(i) * 0.001)) + int((x >> 13) & 0xff) - 128);
}

bool writeLongWav(const QString& path, uint64_t samples) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return false;
    auto le = [](uint32_t v, int bytes) {
        QByteArray b;
        for (int i = 0; i < bytes; ++i) b.append(char((v >> (8 * i)) & 0xff));
        return b;
    };
    const uint32_t dataBytes = uint32_t(samples * 2);
    QByteArray header = "RIFF" + le(36 + dataBytes, 4) + "WAVEfmt " + le(16, 4) + le(1, 2) + le(1, 2) + le(16000, 4) +
                        le(32000, 4) + le(2, 2) + le(16, 2) + "data" + le(dataBytes, 4);
    if (file.write(header) != header.size()) return false;
    std::vector<int16_t> chunk(1 << 16);
    for (uint64_t at = 0; at < samples; at += chunk.size()) {
        const size_t n = size_t(std::min<uint64_t>(chunk.size(), samples - at));
        for (size_t i = 0; i < n; ++i) chunk[i] = patternAt(at + i);  // little-endian host
        if (file.write(reinterpret_cast<const char*>(chunk.data()), qint64(n * 2)) != qint64(n * 2)) return false;
    }
    return true;
}

} // namespace

class TestAudioBlockDecoder : public QObject {
    Q_OBJECT
private slots:
    void speechInBlocksIsExact() {
        const QString path = kShared + "/jfk.wav";
        const Pcm16Wav wav = readPcm16Wav(path);
        QVERIFY2(wav.ok(), qPrintable("missing " + path));
        auto decoder = AudioBlockDecoder::open(path.toStdString());
        QVERIFY2(decoder.ok(), decoder.ok() ? "" : decoder.message().c_str());
        QCOMPARE(decoder->info().decoder, std::string("libsndfile"));
        QCOMPARE(decoder->info().sourceRate, 16000);
        const Decoded d = readAll(decoder.value());
        QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
        QCOMPARE(d.samples.size(), wav.samples.size());
        for (size_t i = 0; i < d.samples.size(); ++i) {
            if (d.samples[i] != float(wav.samples[i]) / 32768.0f) QFAIL(qPrintable(QString("sample %1").arg(i)));
        }
        QVERIFY(d.blocks >= 20);             // 8192-frame blocks, not one lump
        QVERIFY(d.largest <= 8192);
        QCOMPARE(decoder->samplesDelivered(), uint64_t(d.samples.size()));
        QCOMPARE(decoder->sourceFramesRead(), uint64_t(wav.samples.size()));
        std::vector<float> after;
        QCOMPARE(decoder->next(after).value(), false);  // the end stays the end
    }

    // 48 kHz stereo float WAV: the blocks, each mixed and resampled with the state carried
    // over, equal one conversion of the whole mixed signal (so block boundaries leave no mark).
    void blocksEqualOneShotConversion() {
        QTemporaryDir dir;
        const QString path = dir.filePath("noise.wav");
        std::mt19937 rng(9);
        std::normal_distribution<float> noise(0.0f, 0.2f);
        const size_t frames = 48000 * 3 + 77;
        std::vector<float> stereo(frames * 2);
        for (auto& s : stereo) s = noise(rng);
        QVERIFY(writeAudioFile(path.toStdString(), stereo.data(), frames, 48000, 2, AudioFileFormat::WavFloat).ok());
        std::vector<float> mono(frames);
        for (size_t i = 0; i < frames; ++i) mono[i] = (stereo[2 * i] + stereo[2 * i + 1]) * 0.5f;
        auto whole = Resampler::create(48000, 16000, 1, Resampler::Quality::Best);
        QVERIFY(whole.ok());
        std::vector<float> expected;
        QVERIFY(whole->process(mono.data(), mono.size(), expected).ok());
        QVERIFY(whole->flush(expected).ok());

        auto decoder = AudioBlockDecoder::open(path.toStdString());
        QVERIFY(decoder.ok());
        const Decoded d = readAll(decoder.value());
        QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
        QVERIFY(d.blocks > 10);
        QCOMPARE(d.samples.size(), expected.size());
        double worst = 0.0;
        for (size_t i = 0; i < expected.size(); ++i) worst = std::max(worst, double(std::abs(d.samples[i] - expected[i])));
        qDebug("%zu blocks, worst difference from the one-shot conversion %.3g", d.blocks, worst);
        QVERIFY(worst < 1e-6);
        // decodeAudioFile is the same path: the same samples.
        auto file = decodeAudioFile(path.toStdString());
        QVERIFY(file.ok());
        QVERIFY(file->samples == d.samples);

        // Rewind: the same samples again.
        QVERIFY(decoder->rewind().ok());
        QCOMPARE(decoder->samplesDelivered(), uint64_t(0));
        const Decoded again = readAll(decoder.value());
        QVERIFY(again.samples == d.samples);
    }

    void ffmpegPathInBlocks() {
        if (!ffmpegAvailable()) QSKIP("built without FFmpeg (HEARSAY_FFMPEG=OFF)");
        // An FLV file (a container libsndfile does not read) holding 16-bit PCM, 44.1 kHz stereo.
        QTemporaryDir dir;
        const QString path = dir.filePath("tone.flv");
        const size_t frames = 44100 * 2;
        std::vector<float> stereo(frames * 2);
        for (size_t i = 0; i < frames; ++i) {
            const float s = float(0.5 * std::sin(2.0 * std::numbers::pi * 440.0 * double(i) / 44100));
            stereo[2 * i] = s;
            stereo[2 * i + 1] = -0.5f * s;
        }
        QByteArray flv("FLV\x01\x04\x00\x00\x00\x09\x00\x00\x00\x00", 13);
        for (size_t at = 0; at < frames; at += 1024) {
            const size_t n = std::min<size_t>(1024, frames - at);
            QByteArray payload(1, char(0x3F));
            for (size_t i = at * 2; i < (at + n) * 2; ++i) {
                const auto v = int16_t(std::lrint(stereo[i] * 32767.0f));
                payload.append(char(v & 0xff)).append(char((v >> 8) & 0xff));
            }
            const auto ms = uint32_t(at * 1000 / 44100);
            const uint32_t size = uint32_t(payload.size());
            QByteArray tag(1, char(8));
            for (int b : {16, 8, 0}) tag.append(char((size >> b) & 0xff));
            for (int b : {16, 8, 0}) tag.append(char((ms >> b) & 0xff));
            tag.append(char(ms >> 24)).append(QByteArray(3, '\0')).append(payload);
            const uint32_t back = uint32_t(tag.size());
            flv += tag;
            for (int b : {24, 16, 8, 0}) flv.append(char((back >> b) & 0xff));
        }
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write(flv) == flv.size());
        file.close();

        auto decoder = AudioBlockDecoder::open(path.toStdString());
        QVERIFY2(decoder.ok(), decoder.ok() ? "" : decoder.message().c_str());
        QCOMPARE(decoder->info().decoder, std::string("FFmpeg"));
        QCOMPARE(decoder->info().sourceChannels, 2);
        const Decoded d = readAll(decoder.value());
        QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
        QVERIFY(d.blocks > 20);  // one per FLV packet's frame, not one lump
        QCOMPARE(decoder->sourceFramesRead(), uint64_t(frames));
        QVERIFY(std::abs(double(d.samples.size()) - 32000.0) <= 1.0);
        // The channel average is a 0.125 sine at 440 Hz (0.5 and -0.25).
        double ss = 0, sc = 0;
        for (size_t i = 1600; i < d.samples.size() - 1600; ++i) {
            const double w = 2.0 * std::numbers::pi * 440.0 * double(i) / 16000;
            ss += d.samples[i] * std::sin(w);
            sc += d.samples[i] * std::cos(w);
        }
        const double amplitude = 2.0 * std::hypot(ss, sc) / double(d.samples.size() - 3200);
        QVERIFY2(std::abs(amplitude - 0.125) < 1e-3, qPrintable(QString::number(amplitude)));
        QVERIFY(decoder->rewind().ok());
        QVERIFY(readAll(decoder.value()).samples == d.samples);
    }

    void truncationIsReportedAfterTheGoodBlocks() {
        QTemporaryDir dir;
        const QString path = dir.filePath("cut.flac");
        std::mt19937 rng(3);
        std::normal_distribution<float> noise(0.0f, 0.1f);
        std::vector<float> samples(16000 * 4);
        for (auto& s : samples) s = noise(rng);
        QVERIFY(writeAudioFile(path.toStdString(), samples.data(), samples.size(), 16000, 1, AudioFileFormat::Flac16).ok());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadWrite) && file.resize(file.size() / 2));
        file.close();
        auto decoder = AudioBlockDecoder::open(path.toStdString());
        QVERIFY(decoder.ok());
        const Decoded d = readAll(decoder.value());
        qDebug("%s after %zu samples", qPrintable(d.error), d.samples.size());
        QVERIFY(d.error.contains("truncated") && d.error.contains(path));
        QVERIFY(d.samples.size() > 8000);
        for (size_t i = 0; i < d.samples.size(); ++i) {
            if (std::abs(d.samples[i] - samples[i]) > 1e-4f) QFAIL(qPrintable(QString("sample %1").arg(i)));
        }
        auto missing = AudioBlockDecoder::open(dir.filePath("none.wav").toStdString());
        QVERIFY(!missing.ok() && QString::fromStdString(missing.message()).contains("no such file"));
    }

    // 30 minutes (28.8 M samples; 115 MB as 16 kHz floats): the resident memory grows by a
    // few blocks' worth, not by the file, and every sample is right.
    void memoryStaysFlatOverALongFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath("long.wav");
        const uint64_t total = uint64_t(16000) * 60 * 30;
        QVERIFY2(writeLongWav(path, total), "cannot write the 58 MB test file");
        auto decoder = AudioBlockDecoder::open(path.toStdString());
        QVERIFY(decoder.ok());
        const size_t baseline = residentBytes();
        QVERIFY(baseline > 0);
        size_t peak = baseline;
        uint64_t at = 0, wrong = 0;
        std::vector<float> block;
        while (true) {
            auto more = decoder->next(block);
            QVERIFY2(more.ok(), more.ok() ? "" : more.message().c_str());
            if (!more.value()) break;
            for (float s : block) wrong += s != float(patternAt(at++)) / 32768.0f;
            if ((at & 0xfffff) < block.size()) peak = std::max(peak, residentBytes());
        }
        peak = std::max(peak, residentBytes());
        qDebug("decoded %llu samples; resident memory grew by %.1f MiB (the whole file as floats: %.0f MiB)",
               (unsigned long long)at, double(peak - baseline) / 1048576.0, double(total * 4) / 1048576.0);
        QCOMPARE(at, total);
        QCOMPARE(wrong, uint64_t(0));
        QVERIFY(peak - baseline < size_t(16) << 20);
    }
};

#else

class TestAudioBlockDecoder : public QObject {
    Q_OBJECT
private slots:
    void audioLibraryMissing() { QSKIP("built with HEARSAY_ENGINE_ONLY: no hearsay_audio"); }
};

#endif

QTEST_APPLESS_MAIN(TestAudioBlockDecoder)
#include "tst_audio_block_decoder.moc"
