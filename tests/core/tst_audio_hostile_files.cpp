// Audio files made to hurt: every input the fuzzer ever crashed on (tests/fuzz/regressions/
// fuzz_audio_file), headers whose rate or channel count no real file has, and an MPEG stream whose
// channel count changes mid-stream (the shape of the first crash: libswresample was handed a
// mono frame while set up for stereo planes and read address 0). Each gives a clear error or
// decodes to finite samples of a fixed shape; none crashes.
#include <QtTest>

#ifdef HEARSAY_HAVE_AUDIO  // hearsay_audio is not built with HEARSAY_ENGINE_ONLY
#include "core/audio/audio_block_decoder.h"
#include "core/audio/ffmpeg_decoder.h"

#include <cmath>
#include <fstream>

using namespace hearsay;

namespace {

const std::filesystem::path kRegressions = std::filesystem::path(HEARSAY_TEST_DATA_DIR) / ".." / "fuzz" / "regressions" / "fuzz_audio_file";
const std::filesystem::path kFirstCrash = kRegressions / "fuzz-crash-swresample.wav";

// Decodes the whole file; the error of open() or next(), empty when it decoded.
QString decodeError(const std::filesystem::path& path, size_t* samples) {
    *samples = 0;
    auto decoder = AudioBlockDecoder::open(path, Resampler::Quality::Fastest);
    if (!decoder) return QString::fromStdString(decoder.message());
    std::vector<float> block;
    while (true) {
        auto more = decoder->next(block);
        if (!more) return QString::fromStdString(more.message());
        if (!more.value()) return QString();
        for (float s : block) {
            if (!std::isfinite(s)) return "a sample that is not finite";
        }
        *samples += block.size();
    }
}

// A 16-bit PCM RIFF/WAVE header with the given fields, then `frames` frames of a quiet ramp.
void writeWav(const std::filesystem::path& path, uint32_t rate, uint16_t channels, uint32_t frames) {
    std::ofstream f(path, std::ios::binary);
    auto u32 = [&](uint32_t v) { f.write(reinterpret_cast<const char*>(&v), 4); };
    auto u16 = [&](uint16_t v) { f.write(reinterpret_cast<const char*>(&v), 2); };
    const uint32_t bytes = frames * channels * 2u;
    f.write("RIFF", 4);
    u32(36 + bytes);
    f.write("WAVEfmt ", 8);
    u32(16);
    u16(1);
    u16(channels);
    u32(rate);
    u32(rate * channels * 2u);
    u16(uint16_t(channels * 2u));
    u16(16);
    f.write("data", 4);
    u32(bytes);
    for (uint32_t i = 0; i < frames * channels; ++i) u16(uint16_t(i % 256));
}

} // namespace

class TestAudioHostileFiles : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    std::filesystem::path path(const char* name) const { return std::filesystem::path(m_dir.path().toStdString()) / name; }

private slots:
    // Every past finding is an error that names the file and says why, or (a file that is valid
    // audio but once broke an invariant) decodes to finite samples; the folder must be there.
    void everyFuzzFindingGivesAClearError() {
        QVERIFY2(std::filesystem::exists(kFirstCrash), kFirstCrash.c_str());
        int count = 0;
        for (const auto& entry : std::filesystem::directory_iterator(kRegressions)) {
            size_t samples = 0;
            const QString error = decodeError(entry.path(), &samples);
            const QString name = QString::fromStdString(entry.path().filename().string());
            if (error.isEmpty()) {
                QVERIFY2(samples > 0, qPrintable(name));
            } else {
                QVERIFY2(error.startsWith("cannot decode audio file '"), qPrintable(name + ": " + error));
                QVERIFY2(error.contains(name), qPrintable(error));
            }
            ++count;
        }
        QVERIFY(count >= 1);
        size_t samples = 0;
        QCOMPARE(decodeError(kFirstCrash, &samples),
                 QString("cannot decode audio file '%1': not a recognised audio format (libsndfile: Format not "
                         "recognised; FFmpeg: only a guess (mp3, probe score 1 of 100))")
                     .arg(QString::fromStdString(kFirstCrash.string())));
    }

    // An MPEG-1 Layer I stream whose channel count changes mid-stream: eight stereo frames, four
    // mono, eight stereo (valid silent frames: every subband allocated no bits). FFmpeg decodes
    // the mono frames as mono; the converter follows the change and every block keeps the stream's
    // first shape. The old converter read the missing second plane here and crashed.
    void channelCountChangingMidStreamIsConverted() {
        const auto mp1 = path("changes-channels.mp1");
        {
            std::ofstream f(mp1, std::ios::binary);
            auto frame = [&](bool mono) {
                // sync, MPEG-1, Layer I, no CRC; 32 kbit/s, 32 kHz: 48 bytes a frame
                const unsigned char header[4] = {0xFF, 0xFF, 0x18, static_cast<unsigned char>(mono ? 0xC0 : 0x00)};
                f.write(reinterpret_cast<const char*>(header), 4);
                const std::string zeros(44, '\0');
                f.write(zeros.data(), std::streamsize(zeros.size()));
            };
            for (int i = 0; i < 8; ++i) frame(false);
            for (int i = 0; i < 4; ++i) frame(true);
            for (int i = 0; i < 8; ++i) frame(false);
        }
        auto reader = openWithFfmpeg(mp1);
        QVERIFY2(reader, reader ? "" : reader.message().c_str());
        auto& pcm = *reader.value();
        QCOMPARE(pcm.channels(), 2);
        QCOMPARE(pcm.sampleRate(), 32000);
        std::vector<float> block;
        size_t frames = 0;
        for (int i = 0; i < 1000; ++i) {
            auto got = pcm.next(block);
            QVERIFY2(got, got ? "" : got.message().c_str());
            if (got.value() == 0) break;
            QCOMPARE(block.size(), got.value() * 2);
            for (float s : block) QVERIFY(std::isfinite(s));
            frames += got.value();
        }
        QCOMPARE(frames, size_t(20 * 384));  // every frame, the mono ones converted to stereo
        // Through the whole decoder libsndfile takes it first (its MPEG reader, mpg123) and ends
        // the stream at the change: at least the first eight frames, at 16 kHz mono, no error.
        size_t samples = 0;
        const QString error = decodeError(mp1, &samples);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(samples >= 8 * 192, qPrintable(QString::number(samples)));
    }

    // Header values no real recording has: refused with the value named, before any library
    // is set up with them.
    void impossibleHeaderValuesAreRefused_data() {
        QTest::addColumn<uint>("rate");
        QTest::addColumn<int>("channels");
        QTest::newRow("0 channels") << 16000u << 0;
        QTest::newRow("2000 channels") << 16000u << 2000;
        QTest::newRow("1 Hz") << 1u << 1;
        QTest::newRow("100 Hz") << 100u << 1;
        QTest::newRow("2^31 Hz") << 2147483648u << 1;
        QTest::newRow("4 GHz") << 4000000000u << 2;
    }
    void impossibleHeaderValuesAreRefused() {
        QFETCH(uint, rate);
        QFETCH(int, channels);
        const auto wav = path("impossible.wav");
        writeWav(wav, rate, uint16_t(channels), 4000);
        size_t samples = 0;
        const QString error = decodeError(wav, &samples);
        QVERIFY2(error.startsWith("cannot decode audio file '"), qPrintable(error));
        QVERIFY2(error.contains("invalid") || error.contains("not a recognised audio format"), qPrintable(error));
        std::filesystem::remove(wav);
    }

    // The limits' edges are real files and decode.
    void extremeButRealRatesDecode() {
        for (uint32_t rate : {8000u, 384000u}) {
            const auto wav = path("edge.wav");
            writeWav(wav, rate, 2, rate / 10);
            size_t samples = 0;
            const QString error = decodeError(wav, &samples);
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QVERIFY2(std::abs(double(samples) - 1600.0) <= 2.0, qPrintable(QString::number(samples)));
            std::filesystem::remove(wav);
        }
    }
};

#else

class TestAudioHostileFiles : public QObject {
    Q_OBJECT
private slots:
    void audioLibraryMissing() { QSKIP("built with HEARSAY_ENGINE_ONLY: no hearsay_audio"); }
};

#endif

QTEST_MAIN(TestAudioHostileFiles)
#include "tst_audio_hostile_files.moc"
