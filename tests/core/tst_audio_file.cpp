// Audio file decoding (libsndfile, FFmpeg fallback) and the resampler: exact decoding of real
// speech, generated files in several formats, rates and channel counts checked for duration,
// level and frequency, and every kind of bad input rejected with a clear error.
#include <QtTest>

#ifdef HEARSAY_HAVE_AUDIO  // hearsay_audio is not built with HEARSAY_ENGINE_ONLY

#include "core/audio/audio_file.h"
#include "core/audio/audio_writer.h"
#include "core/audio/resampler.h"
#include "wav_reader.h"

#include <cmath>
#include <numbers>
#include <random>

using namespace hearsay;

namespace {

const QString kShared = QStringLiteral(HEARSAY_SHARED_DATA_DIR);

// [frames][channels]: a sine at `hz`, channel c scaled by gains[c].
std::vector<float> sineFrames(double hz, int rate, double seconds, const std::vector<float>& gains) {
    const size_t frames = size_t(std::llround(seconds * rate));
    const size_t channels = gains.size();
    std::vector<float> out(frames * channels);
    for (size_t i = 0; i < frames; ++i) {
        const double s = std::sin(2.0 * std::numbers::pi * hz * double(i) / rate);
        for (size_t c = 0; c < channels; ++c) out[i * channels + c] = float(s * gains[c]);
    }
    return out;
}

struct SineFit {
    double amplitude = 0.0;  // of the best-fitting sine at the given frequency
    double phase = 0.0;      // radians, relative to sin(2 pi f t)
    double residualRms = 0.0;
};

// Least-squares fit of a*sin + b*cos at `hz` over samples [begin, end) at `rate`.
SineFit fitSine(const std::vector<float>& x, int rate, double hz, size_t begin, size_t end) {
    double ss = 0, cc = 0, sc = 0, xs = 0, xc = 0;
    for (size_t i = begin; i < end; ++i) {
        const double w = 2.0 * std::numbers::pi * hz * double(i) / rate;
        const double s = std::sin(w), c = std::cos(w);
        ss += s * s; cc += c * c; sc += s * c; xs += x[i] * s; xc += x[i] * c;
    }
    const double det = ss * cc - sc * sc;
    const double a = (xs * cc - xc * sc) / det;
    const double b = (xc * ss - xs * sc) / det;
    double residual = 0;
    for (size_t i = begin; i < end; ++i) {
        const double w = 2.0 * std::numbers::pi * hz * double(i) / rate;
        const double e = x[i] - (a * std::sin(w) + b * std::cos(w));
        residual += e * e;
    }
    return {std::hypot(a, b), std::atan2(b, a), std::sqrt(residual / double(end - begin))};
}

QByteArray be(uint32_t value, int bytes) {
    QByteArray out;
    for (int i = bytes - 1; i >= 0; --i) out.append(char((value >> (8 * i)) & 0xff));
    return out;
}

// A minimal FLV file (a container libsndfile does not read) holding 16-bit little-endian PCM
// at 44.1 kHz stereo: the FFmpeg fallback's input.
bool writeFlvPcm(const QString& path, const std::vector<float>& stereo) {
    QByteArray flv("FLV\x01\x04", 5);
    flv += be(9, 4) + be(0, 4);
    const size_t frames = stereo.size() / 2;
    for (size_t at = 0; at < frames; at += 1024) {
        const size_t n = std::min<size_t>(1024, frames - at);
        QByteArray payload(1, char(0x3F));  // PCM LE, 44 kHz, 16-bit, stereo
        for (size_t i = at * 2; i < (at + n) * 2; ++i) {
            const auto s = int16_t(std::lrint(std::clamp(stereo[i], -1.0f, 1.0f) * 32767.0f));
            payload.append(char(s & 0xff)).append(char((s >> 8) & 0xff));
        }
        const auto ms = uint32_t(at * 1000 / 44100);
        QByteArray tag(1, char(8));
        tag += be(uint32_t(payload.size()), 3) + be(ms & 0xffffff, 3) + be(ms >> 24, 1) + be(0, 3) + payload;
        flv += tag + be(uint32_t(tag.size()), 4);
    }
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(flv) == flv.size();
}

bool writeBytes(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

} // namespace

class TestAudioFile : public QObject {
    Q_OBJECT
private slots:
    void decodesSpeechExactly() {
        const QString path = kShared + "/jfk.wav";
        const Pcm16Wav wav = readPcm16Wav(path);
        QVERIFY(wav.ok());
        auto decoded = decodeAudioFile(path.toStdString());
        QVERIFY2(decoded.ok(), decoded.ok() ? "" : decoded.message().c_str());
        QCOMPARE(decoded->sourceRate, 16000);
        QCOMPARE(decoded->sourceChannels, 1);
        QCOMPARE(decoded->sampleRate, 16000);
        QCOMPARE(decoded->decoder, std::string("libsndfile"));
        QCOMPARE(decoded->sourceDurationSeconds(), 11.0);
        QCOMPARE(decoded->durationSeconds(), 11.0);
        // 16 kHz in, 16 kHz out: the samples are the PCM values / 32768, bit for bit.
        QVERIFY(decoded->samples == pcm16ToFloat(wav.samples));
    }

    void decodesGeneratedFiles_data() {
        QTest::addColumn<int>("format");
        QTest::addColumn<int>("rate");
        QTest::addColumn<int>("channels");
        QTest::addColumn<bool>("lossy");
        QTest::newRow("wav 16-bit 44.1 kHz stereo") << int(AudioFileFormat::Wav16) << 44100 << 2 << false;
        QTest::newRow("wav float 48 kHz mono") << int(AudioFileFormat::WavFloat) << 48000 << 1 << false;
        QTest::newRow("wav 16-bit 8 kHz stereo") << int(AudioFileFormat::Wav16) << 8000 << 2 << false;
        QTest::newRow("flac 48 kHz stereo") << int(AudioFileFormat::Flac16) << 48000 << 2 << false;
        QTest::newRow("flac 22.05 kHz 6 channels") << int(AudioFileFormat::Flac16) << 22050 << 6 << false;
        QTest::newRow("ogg vorbis 44.1 kHz stereo") << int(AudioFileFormat::OggVorbis) << 44100 << 2 << true;
        QTest::newRow("mp3 44.1 kHz stereo") << int(AudioFileFormat::Mp3) << 44100 << 2 << true;
    }
    void decodesGeneratedFiles() {
        QFETCH(int, format);
        QFETCH(int, rate);
        QFETCH(int, channels);
        QFETCH(bool, lossy);
        // Channel gains 0.6, 0.2, ... average to 0.4 whatever the count (0.6 + 0.2 pairs, and
        // 0.4 for a lone channel): a downmix that took one channel or summed them would not.
        std::vector<float> gains(size_t(channels), 0.4f);
        for (int c = 0; c + 1 < channels; c += 2) {
            gains[size_t(c)] = 0.6f;
            gains[size_t(c + 1)] = 0.2f;
        }
        const double seconds = 2.0;
        const auto frames = sineFrames(440.0, rate, seconds, gains);
        QTemporaryDir dir;
        const QString path = dir.filePath("sine");
        auto written = writeAudioFile(path.toStdString(), frames.data(), frames.size() / size_t(channels), rate,
                                      channels, AudioFileFormat(format));
        if (!written && AudioFileFormat(format) == AudioFileFormat::Mp3) QSKIP("libsndfile built without MP3 encoding");
        QVERIFY2(written.ok(), written.ok() ? "" : written.message().c_str());

        auto decoded = decodeAudioFile(path.toStdString());  // no extension: detected by content
        QVERIFY2(decoded.ok(), decoded.ok() ? "" : decoded.message().c_str());
        QCOMPARE(decoded->sourceRate, rate);
        QCOMPARE(decoded->sourceChannels, channels);
        QCOMPARE(decoded->decoder, std::string("libsndfile"));
        const auto& x = decoded->samples;
        // Lossless: as long as written, to the resampler's rounding (it may end one output
        // sample early); lossy codecs may add encoder delay/padding (MP3 frames are 1152 samples).
        const double tolerance = lossy ? 0.1 : 1.5 / 16000;
        QVERIFY2(std::abs(decoded->durationSeconds() - seconds) <= tolerance,
                 qPrintable(QStringLiteral("%1 s").arg(decoded->durationSeconds())));
        QVERIFY(std::abs(decoded->sourceDurationSeconds() - seconds) <= (lossy ? 0.1 : 1e-9));

        // The 440 Hz tone at 0.4 (the channel average) survives the resampling to 16 kHz.
        const size_t begin = 1600, end = x.size() - 1600;  // away from the edges
        const SineFit fit = fitSine(x, 16000, 440.0, begin, end);
        const SineFit offBy10 = fitSine(x, 16000, 450.0, begin, end);
        qDebug("%s: %zu samples, %s, amplitude %.5f phase %.5f residual rms %.2g", decoded->format.c_str(),
               x.size(), decoded->decoder.c_str(), fit.amplitude, fit.phase, fit.residualRms);
        QVERIFY(offBy10.amplitude < 0.01);
        if (lossy) {
            QVERIFY(std::abs(fit.amplitude - 0.4) < 0.02);
            QVERIFY(fit.residualRms < 0.02);
        } else {
            // Also in phase: the resampler does not shift the signal in time.
            QVERIFY(std::abs(fit.amplitude - 0.4) < 1e-3);
            QVERIFY(std::abs(fit.phase) < 1e-3);
            QVERIFY(fit.residualRms < 1e-3);
        }
    }

    void fallsBackToFfmpeg() {
        if (!ffmpegAvailable()) QSKIP("built without FFmpeg");
        QTemporaryDir dir;
        const QString path = dir.filePath("tone.flv");
        QVERIFY(writeFlvPcm(path, sineFrames(440.0, 44100, 3.0, {0.6f, 0.2f})));
        auto decoded = decodeAudioFile(path.toStdString());
        QVERIFY2(decoded.ok(), decoded.ok() ? "" : decoded.message().c_str());
        QCOMPARE(decoded->decoder, std::string("FFmpeg"));
        QCOMPARE(decoded->sourceRate, 44100);
        QCOMPARE(decoded->sourceChannels, 2);
        QCOMPARE(decoded->sourceFrames, size_t(3 * 44100));
        QVERIFY(std::abs(decoded->durationSeconds() - 3.0) <= 1.5 / 16000);
        const SineFit fit = fitSine(decoded->samples, 16000, 440.0, 1600, decoded->samples.size() - 1600);
        qDebug("%s: amplitude %.5f residual rms %.2g", decoded->format.c_str(), fit.amplitude, fit.residualRms);
        QVERIFY(std::abs(fit.amplitude - 0.4) < 1e-3);
        QVERIFY(fit.residualRms < 1e-3);
    }

    void rejectsBadInput_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");   // written to `name` unless "<missing>"/"<dir>"
        QTest::addColumn<QString>("reason");     // expected in the message

        QFile jfkFile(kShared + "/jfk.wav");
        QVERIFY(jfkFile.open(QIODevice::ReadOnly));
        const QByteArray jfkBytes = jfkFile.readAll();
        std::mt19937 rng(7);
        QByteArray garbage(64 * 1024, '\0');
        for (auto& b : garbage) b = char(rng() & 0xff);
        QByteArray text;
        for (int i = 0; i < 200; ++i) text += "This is a text file that only pretends to be a WAV.\n";
        // A valid 16 kHz mono 16-bit WAV header with an empty data chunk.
        const QByteArray emptyWav = QByteArray("RIFF\x24\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0", 24) +
                                    QByteArray("\x80\x3e\0\0\0\x7d\0\0\x02\0\x10\0data\0\0\0\0", 20);
        QCOMPARE(emptyWav.size(), 44);

        QTest::newRow("missing file") << "missing.wav" << QByteArray("<missing>") << "no such file";
        QTest::newRow("directory") << "folder.wav" << QByteArray("<dir>") << "directory";
        QTest::newRow("empty file") << "empty.wav" << QByteArray() << "empty";
        QTest::newRow("truncated wav") << "cut.wav" << jfkBytes.left(jfkBytes.size() / 2) << "truncated";
        QTest::newRow("wav cut inside its header") << "header.wav" << jfkBytes.left(30) << "data";
        QTest::newRow("garbage bytes") << "noise.wav" << garbage << "not a recognised audio format";
        QTest::newRow("text named .wav") << "text.wav" << text << "not a recognised audio format";
        QTest::newRow("zero-length audio") << "silence.wav" << emptyWav << "no audio samples";
        QTest::newRow("unknown format") << "thing.xyz" << (QByteArray("HSY1\x00\x01", 6) + garbage.left(4096))
                                        << "not a recognised audio format";
    }
    void rejectsBadInput() {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        if (bytes == "<dir>") {
            QVERIFY(QDir(dir.path()).mkdir(name));
        } else if (bytes != "<missing>") {
            QVERIFY(writeBytes(path, bytes));
        }
        auto decoded = decodeAudioFile(path.toStdString());
        QVERIFY2(!decoded.ok(), "bad input was accepted");
        const QString message = QString::fromStdString(decoded.message());
        qDebug("%s", qPrintable(message));
        QVERIFY2(message.contains(path), "the message does not name the file");
        QVERIFY2(message.contains(reason, Qt::CaseInsensitive), qPrintable("expected: " + reason));
    }

    void rejectsTruncatedFlac() {
        QTemporaryDir dir;
        const QString path = dir.filePath("cut.flac");
        std::mt19937 rng(3);
        std::normal_distribution<float> noise(0.0f, 0.1f);  // noise: FLAC cannot compress it away
        std::vector<float> samples(48000 * 3);
        for (auto& s : samples) s = noise(rng);
        QVERIFY(writeAudioFile(path.toStdString(), samples.data(), samples.size(), 48000, 1, AudioFileFormat::Flac16).ok());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadWrite));
        QVERIFY(file.resize(file.size() / 2));
        file.close();
        auto decoded = decodeAudioFile(path.toStdString());
        QVERIFY(!decoded.ok());
        qDebug("%s", decoded.message().c_str());
        QVERIFY(QString::fromStdString(decoded.message()).contains(path));
        QVERIFY(QString::fromStdString(decoded.message()).contains("truncated"));
    }

    void resamplerStreamsInBlocks() {
        // The same signal in one call and in random blocks gives the same output.
        const auto input = sineFrames(440.0, 44100, 1.5, {0.5f});
        auto whole = Resampler::create(44100, 16000, 1);
        auto pieces = Resampler::create(44100, 16000, 1);
        QVERIFY(whole.ok() && pieces.ok());
        std::vector<float> a, b;
        QVERIFY(whole->process(input.data(), input.size(), a).ok());
        QVERIFY(whole->flush(a).ok());
        std::mt19937 rng(11);
        for (size_t at = 0; at < input.size();) {
            const size_t n = std::min<size_t>(input.size() - at, 1 + rng() % 2000);
            QVERIFY(pieces->process(input.data() + at, n, b).ok());
            at += n;
        }
        QVERIFY(pieces->flush(b).ok());
        // 1.5 s at 16 kHz; libsamplerate may end one sample early.
        QVERIFY2(a.size() == 24000 || a.size() == 23999, qPrintable(QString::number(a.size())));
        QCOMPARE(b.size(), a.size());
        double worst = 0;
        for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, double(std::abs(a[i] - b[i])));
        QVERIFY(worst < 1e-6);
        const SineFit fit = fitSine(a, 16000, 440.0, 800, a.size() - 800);
        QVERIFY(std::abs(fit.amplitude - 0.5) < 1e-3 && std::abs(fit.phase) < 1e-3);

        // Reset starts a new stream: the same input gives the same output again.
        pieces->reset();
        std::vector<float> c;
        QVERIFY(pieces->process(input.data(), input.size(), c).ok());
        QVERIFY(pieces->flush(c).ok());
        QVERIFY(c == a);

        // Upsampling, stereo, medium quality (the live path): 16 kHz -> 48 kHz keeps the tone.
        const auto stereo = sineFrames(1000.0, 16000, 1.0, {0.3f, 0.3f});
        auto up = Resampler::create(16000, 48000, 2, Resampler::Quality::Medium);
        QVERIFY(up.ok());
        std::vector<float> upOut;
        QVERIFY(up->process(stereo.data(), stereo.size() / 2, upOut).ok());
        QVERIFY(up->flush(upOut).ok());
        QVERIFY(upOut.size() >= size_t(2 * 47999) && upOut.size() <= size_t(2 * 48000));
        std::vector<float> right(47999);
        for (size_t i = 0; i < right.size(); ++i) right[i] = upOut[2 * i + 1];
        const SineFit upFit = fitSine(right, 48000, 1000.0, 2400, 47999 - 2400);
        QVERIFY(std::abs(upFit.amplitude - 0.3) < 1e-3);

        // Equal rates pass samples through untouched.
        auto same = Resampler::create(16000, 16000, 1);
        QVERIFY(same.ok());
        std::vector<float> copy;
        QVERIFY(same->process(input.data(), input.size(), copy).ok());
        QVERIFY(same->flush(copy).ok());
        QVERIFY(copy == input);

        QVERIFY(!Resampler::create(0, 16000, 1).ok());
        QVERIFY(!Resampler::create(16000, 16000, 0).ok());
        QVERIFY(!Resampler::create(1000000, 16, 1).ok());
    }
};

#else

class TestAudioFile : public QObject {
    Q_OBJECT
private slots:
    void audioLibraryMissing() { QSKIP("built with HEARSAY_ENGINE_ONLY: no hearsay_audio"); }
};

#endif

QTEST_APPLESS_MAIN(TestAudioFile)
#include "tst_audio_file.moc"
