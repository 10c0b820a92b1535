// Audio a user may hand in that is legal but unusual: 8-bit PCM, 192 kHz, 8 channels, and a
// 3-hour recording. Each decodes to 16 kHz mono with the right length and content (a tone keeps
// its frequency and level), and the 3-hour file decodes in blocks with bounded resident memory.
#include <QtTest>

#ifdef HEARSAY_HAVE_AUDIO  // hearsay_audio is not built with HEARSAY_ENGINE_ONLY
#include "core/audio/audio_block_decoder.h"
#include "core/audio/audio_writer.h"
#include "core/bench/peak_memory.h"

#include <cmath>
#include <fstream>

using namespace hearsay;

namespace {

constexpr double kPi = 3.14159265358979323846;

// The amplitude of frequency `hz` in 16 kHz samples (a single-bin DFT), and the RMS.
double toneAmplitude(const std::vector<float>& x, double hz) {
    double re = 0, im = 0;
    for (size_t n = 0; n < x.size(); ++n) {
        re += x[n] * std::cos(2 * kPi * hz * double(n) / 16000.0);
        im -= x[n] * std::sin(2 * kPi * hz * double(n) / 16000.0);
    }
    return 2.0 * std::hypot(re, im) / double(x.size());
}

std::vector<float> decodeAll(const std::filesystem::path& path, QString* error) {
    std::vector<float> all, block;
    auto decoder = AudioBlockDecoder::open(path);
    if (!decoder) {
        *error = QString::fromStdString(decoder.message());
        return all;
    }
    while (true) {
        auto more = decoder->next(block);
        if (!more) {
            *error = QString::fromStdString(more.message());
            break;
        }
        if (!more.value()) break;
        all.insert(all.end(), block.begin(), block.end());
    }
    return all;
}

// An 8-bit unsigned PCM WAV (libsndfile's writer is not used, so the bytes are exactly a
// classic 8-bit file's).
bool writeWav8(const std::filesystem::path& path, const std::vector<float>& samples, int rate) {
    std::ofstream f(path, std::ios::binary);
    auto u32 = [&](uint32_t v) { f.write(reinterpret_cast<const char*>(&v), 4); };
    auto u16 = [&](uint16_t v) { f.write(reinterpret_cast<const char*>(&v), 2); };
    f.write("RIFF", 4);
    u32(uint32_t(36 + samples.size()));
    f.write("WAVEfmt ", 8);
    u32(16);
    u16(1);
    u16(1);
    u32(uint32_t(rate));
    u32(uint32_t(rate));
    u16(1);
    u16(8);
    f.write("data", 4);
    u32(uint32_t(samples.size()));
    for (float s : samples) f.put(char(uint8_t(std::lround(128.0 + 127.0 * s))));
    return bool(f);
}

} // namespace

class TestAudioEdgeFormats : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    std::filesystem::path path(const char* name) const { return std::filesystem::path(m_dir.path().toStdString()) / name; }

private slots:
    void unusualFilesDecode_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("rate");
        QTest::addColumn<int>("channels");
        QTest::newRow("8-bit PCM, 11.025 kHz") << "wav8" << 11025 << 1;
        QTest::newRow("192 kHz, 16-bit") << "wav16" << 192000 << 1;
        QTest::newRow("8 channels, 48 kHz") << "wav16" << 48000 << 8;
        QTest::newRow("8 channels, 192 kHz, float") << "float" << 192000 << 8;
    }
    void unusualFilesDecode() {
        QFETCH(QString, kind);
        QFETCH(int, rate);
        QFETCH(int, channels);
        // 2 s of a 440 Hz tone at amplitude 0.5; with several channels, each channel carries
        // it (channel k at amplitude 0.5, so the mono average is the tone at 0.5).
        const size_t frames = size_t(2 * rate);
        std::vector<float> interleaved(frames * size_t(channels));
        for (size_t i = 0; i < frames; ++i)
            for (int c = 0; c < channels; ++c)
                interleaved[i * size_t(channels) + size_t(c)] = float(0.5 * std::sin(2 * kPi * 440.0 * double(i) / rate));
        const auto file = path("edge.wav");
        if (kind == "wav8") {
            QVERIFY(writeWav8(file, interleaved, rate));
        } else {
            const auto format = kind == "float" ? AudioFileFormat::WavFloat : AudioFileFormat::Wav16;
            auto ok = writeAudioFile(file, interleaved.data(), frames, rate, channels, format);
            QVERIFY2(ok, ok ? "" : ok.message().c_str());
        }
        QString error;
        const std::vector<float> mono = decodeAll(file, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(std::abs(double(mono.size()) - 32000.0) <= 16.0, qPrintable(QString::number(mono.size())));
        const double a440 = toneAmplitude(mono, 440.0), a1000 = toneAmplitude(mono, 1000.0);
        qInfo("%zu samples, 440 Hz amplitude %.3f, 1 kHz %.4f", mono.size(), a440, a1000);
        QVERIFY(std::abs(a440 - 0.5) < 0.02);  // 8-bit quantisation and the resampler's edges
        QVERIFY(a1000 < 0.01);
    }

    // 3 hours of 16 kHz 16-bit audio (346 MB on disk; 691 MB as floats): read in blocks, the
    // resident memory stays within a few MB of where it started.
    void threeHourFileInBoundedMemory() {
        const auto file = path("three-hours.wav");
        const uint64_t total = uint64_t(16000) * 3 * 3600;
        {
            std::ofstream f(file, std::ios::binary);
            auto u32 = [&](uint32_t v) { f.write(reinterpret_cast<const char*>(&v), 4); };
            auto u16 = [&](uint16_t v) { f.write(reinterpret_cast<const char*>(&v), 2); };
            f.write("RIFF", 4);
            u32(uint32_t(36 + total * 2));
            f.write("WAVEfmt ", 8);
            u32(16), u16(1), u16(1), u32(16000), u32(32000), u16(2), u16(16);
            f.write("data", 4);
            u32(uint32_t(total * 2));
            std::vector<int16_t> chunk(16000 * 60);
            for (uint64_t at = 0; at < total; at += chunk.size()) {
                for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = int16_t((at + i) % 20000 - 10000);
                f.write(reinterpret_cast<const char*>(chunk.data()), std::streamsize(chunk.size() * 2));
            }
            QVERIFY2(bool(f), "cannot write the 346 MB test file");
        }
        auto decoder = AudioBlockDecoder::open(file);
        QVERIFY2(decoder, decoder ? "" : decoder.message().c_str());
        const size_t before = currentResidentBytes();
        size_t peak = before;
        uint64_t at = 0, wrong = 0;
        std::vector<float> block;
        while (true) {
            auto more = decoder->next(block);
            QVERIFY2(more, more ? "" : more.message().c_str());
            if (!more.value()) break;
            for (float s : block) wrong += s != float(int16_t(at++ % 20000 - 10000)) / 32768.0f;
            if ((at & 0x3fffff) < block.size()) peak = std::max(peak, currentResidentBytes());
        }
        std::filesystem::remove(file);
        qInfo("3 h: %llu samples, resident memory %.1f MB before, peak %.1f MB (+%.1f MB)", (unsigned long long)at,
              double(before) / 1048576.0, double(peak) / 1048576.0, double(peak - before) / 1048576.0);
        QCOMPARE(at, total);
        QCOMPARE(wrong, uint64_t(0));
        QVERIFY(peak - before < size_t(16) << 20);
    }
};

#else

class TestAudioEdgeFormats : public QObject {
    Q_OBJECT
private slots:
    void audioLibraryMissing() { QSKIP("built with HEARSAY_ENGINE_ONLY: no hearsay_audio"); }
};

#endif

QTEST_APPLESS_MAIN(TestAudioEdgeFormats)
#include "tst_audio_edge_formats.moc"
