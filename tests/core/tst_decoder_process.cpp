// Audio files decoded in the helper process (hearsay-decode), with real processes: the same
// samples, info and error messages as the in-process decoder for speech, generated FLAC, Ogg,
// MP3 and FFmpeg-only files and bad files; a helper made to crash, hang, run out of memory or
// send garbage (HEARSAY_DECODER_FAULT) gives a clear error and is reaped; a reader destroyed
// mid-file leaves no zombie and no descriptor behind; the protocol parser refuses oversized
// lengths before allocating.
#include <QtTest>

#ifdef HEARSAY_HAVE_AUDIO  // hearsay_audio is not built with HEARSAY_ENGINE_ONLY

#include "core/audio/audio_file.h"
#include "core/audio/audio_file_reader.h"
#include "core/audio/audio_writer.h"
#include "core/audio/decoder_process.h"
#include "core/audio/decoder_protocol.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numbers>
#include <random>

using namespace hearsay;

namespace {

const QString kShared = QStringLiteral(HEARSAY_SHARED_DATA_DIR);
const std::filesystem::path kHelper = HEARSAY_DECODER_PATH;

// Sets an environment variable for the scope (the helper inherits the test's environment).
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : m_name(name) {
        if (const char* old = std::getenv(name)) m_old = old, m_had = true;
        if (value) setenv(name, value, 1);
        else unsetenv(name);
    }
    ~ScopedEnv() {
        if (m_had) setenv(m_name, m_old.c_str(), 1);
        else unsetenv(m_name);
    }

private:
    const char* m_name;
    std::string m_old;
    bool m_had = false;
};

DecoderProcessOptions helperOptions(double stallSeconds = 30.0) {
    DecoderProcessOptions options;
    options.helper = kHelper;
    options.stallSeconds = stallSeconds;
    return options;
}

AudioDecodeOptions isolation(DecodeIsolation mode) {
    AudioDecodeOptions options;
    options.isolation = mode;
    options.helper = mode == DecodeIsolation::Helper ? kHelper : std::filesystem::path();
    return options;
}

// Whether `pid` has been reaped (it is no child of ours any more, zombie or alive).
bool reaped(pid_t pid) {
    int status = 0;
    errno = 0;
    return ::waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD;
}

// Our children that are zombies, from /proc (state Z, parent us).
int zombieChildren() {
    int zombies = 0;
    DIR* proc = opendir("/proc");
    if (!proc) return -1;
    while (dirent* entry = readdir(proc)) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        std::ifstream stat(std::string("/proc/") + entry->d_name + "/stat");
        std::string line;
        if (!std::getline(stat, line)) continue;
        const size_t close = line.rfind(')');
        if (close == std::string::npos) continue;
        char state = 0;
        int parent = 0;
        if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &parent) == 2 && parent == getpid() && state == 'Z') {
            ++zombies;
        }
    }
    closedir(proc);
    return zombies;
}

int openDescriptors() {
    int count = 0;
    DIR* fds = opendir("/proc/self/fd");
    if (!fds) return -1;
    while (dirent* entry = readdir(fds)) count += entry->d_name[0] != '.';
    closedir(fds);
    return count;
}

// A helper made to fail with `fault` after its first block: the error of the read that follows.
QString faultMessage(const char* fault, double stallSeconds, pid_t* pid, double* seconds) {
    ScopedEnv env("HEARSAY_DECODER_FAULT", fault);
    auto decoder = DecoderProcess::open((kShared + "/jfk.wav").toStdString(), helperOptions(stallSeconds));
    if (!decoder) return "open failed: " + QString::fromStdString(decoder.message());
    *pid = decoder->pid();
    std::vector<float> block;
    auto first = decoder->next(block);
    if (!first || !first.value() || block.empty()) return "no first block";
    const auto begin = std::chrono::steady_clock::now();
    while (true) {
        auto more = decoder->next(block);
        if (!more) {
            *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
            if (decoder->pid() != 0) return "the helper was not reaped";
            return QString::fromStdString(more.message());
        }
        if (!more.value()) return "the file decoded to its end: no fault";
    }
}

bool writeBytes(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// An FLV file holding 16-bit PCM at 44.1 kHz stereo: libsndfile does not read it, FFmpeg does.
QByteArray flvTone(size_t frames) {
    QByteArray flv("FLV\x01\x04\x00\x00\x00\x09\x00\x00\x00\x00", 13);
    for (size_t at = 0; at < frames; at += 1024) {
        const size_t n = std::min<size_t>(1024, frames - at);
        QByteArray payload(1, char(0x3F));
        for (size_t i = at; i < at + n; ++i) {
            const auto v = int16_t(std::lrint(16000.0 * std::sin(2.0 * std::numbers::pi * 440.0 * double(i) / 44100)));
            for (int channel = 0; channel < 2; ++channel) payload.append(char(v & 0xff)).append(char((v >> 8) & 0xff));
        }
        const auto ms = uint32_t(at * 1000 / 44100);
        const auto size = uint32_t(payload.size());
        QByteArray tag(1, char(8));
        for (int b : {16, 8, 0}) tag.append(char((size >> b) & 0xff));
        for (int b : {16, 8, 0}) tag.append(char((ms >> b) & 0xff));
        tag.append(char(ms >> 24)).append(QByteArray(3, '\0')).append(payload);
        const auto back = uint32_t(tag.size());
        flv += tag;
        for (int b : {24, 16, 8, 0}) flv.append(char((back >> b) & 0xff));
    }
    return flv;
}

} // namespace

class TestDecoderProcess : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        QVERIFY2(std::filesystem::exists(kHelper), kHelper.c_str());
        unsetenv("HEARSAY_DECODER_FAULT");
        setenv("HEARSAY_DECODER", kHelper.c_str(), 0);  // CTest sets it; run by hand, this does
    }

    void samplesEqualInProcess_data() {
        QTest::addColumn<QString>("kind");
        QTest::newRow("jfk.wav") << "jfk";
        QTest::newRow("flac 48 kHz stereo") << "flac";
        QTest::newRow("ogg vorbis 44.1 kHz stereo") << "ogg";
        QTest::newRow("mp3 44.1 kHz stereo") << "mp3";
        QTest::newRow("flv through FFmpeg") << "flv";
    }
    void samplesEqualInProcess() {
        QFETCH(QString, kind);
        QTemporaryDir dir;
        QString path = dir.filePath("audio");
        if (kind == "jfk") {
            path = kShared + "/jfk.wav";
        } else if (kind == "flv") {
            if (!ffmpegAvailable()) QSKIP("built without FFmpeg");
            QVERIFY(writeBytes(path, flvTone(44100 * 2)));
        } else {
            std::mt19937 rng(5);
            std::normal_distribution<float> noise(0.0f, 0.05f);
            const int rate = kind == "flac" ? 48000 : 44100;
            std::vector<float> frames(size_t(rate) * 3 * 2);
            for (size_t i = 0; i < frames.size(); ++i) {
                frames[i] = float(0.3 * std::sin(2.0 * std::numbers::pi * 330.0 * double(i / 2) / rate)) + noise(rng);
            }
            const AudioFileFormat format = kind == "flac" ? AudioFileFormat::Flac16
                                           : kind == "ogg" ? AudioFileFormat::OggVorbis
                                                           : AudioFileFormat::Mp3;
            auto written = writeAudioFile(path.toStdString(), frames.data(), frames.size() / 2, rate, 2, format);
            if (!written && format == AudioFileFormat::Mp3) QSKIP("libsndfile built without MP3 encoding");
            QVERIFY2(written.ok(), written.ok() ? "" : written.message().c_str());
        }
        auto inProcess = decodeAudioFile(path.toStdString(), isolation(DecodeIsolation::InProcess));
        QVERIFY2(inProcess.ok(), inProcess.ok() ? "" : inProcess.message().c_str());
        auto helper = decodeAudioFile(path.toStdString(), isolation(DecodeIsolation::Helper));
        QVERIFY2(helper.ok(), helper.ok() ? "" : helper.message().c_str());
        QVERIFY(!helper->samples.empty());
        QVERIFY(helper->samples == inProcess->samples);  // bit for bit
        QCOMPARE(helper->decoder, inProcess->decoder);
        QCOMPARE(helper->format, inProcess->format);
        QCOMPARE(helper->sourceRate, inProcess->sourceRate);
        QCOMPARE(helper->sourceChannels, inProcess->sourceChannels);
        QCOMPARE(helper->sourceFrames, inProcess->sourceFrames);
        qDebug("%s: %zu samples, %s", helper->format.c_str(), helper->samples.size(), helper->decoder.c_str());
    }

    void readerUsesTheHelperByDefault() {
        // CTest names the helper in HEARSAY_DECODER; "in-process" turns it off; a wrong path is an error.
        auto reader = AudioFileReader::open((kShared + "/jfk.wav").toStdString());
        QVERIFY(reader.ok());
        QVERIFY(reader->process() != nullptr);
        {
            ScopedEnv env("HEARSAY_DECODER", "in-process");
            auto local = AudioFileReader::open((kShared + "/jfk.wav").toStdString());
            QVERIFY(local.ok());
            QVERIFY(local->process() == nullptr);
        }
        {
            ScopedEnv env("HEARSAY_DECODER", "/nonexistent/hearsay-decode");
            auto wrong = AudioFileReader::open((kShared + "/jfk.wav").toStdString());
            QVERIFY(!wrong.ok());
            QVERIFY2(QString::fromStdString(wrong.message()).contains("HEARSAY_DECODER"), wrong.message().c_str());
        }
    }

    void rewindStartsAgain() {
        auto decoder = DecoderProcess::open((kShared + "/jfk.wav").toStdString(), helperOptions());
        QVERIFY(decoder.ok());
        std::vector<float> block, all, again;
        QVERIFY(decoder->next(block).value());
        const pid_t first = decoder->pid();
        QVERIFY(decoder->rewind().ok());
        QVERIFY(reaped(first));
        while (decoder->next(block).value()) all.insert(all.end(), block.begin(), block.end());
        QCOMPARE(decoder->samplesDelivered(), uint64_t(176000));
        QCOMPARE(decoder->pid(), 0);  // reaped at the end of its stream
        QVERIFY(decoder->rewind().ok());
        while (decoder->next(block).value()) again.insert(again.end(), block.begin(), block.end());
        QVERIFY(again == all);
    }

    void badFilesGiveTheInProcessMessage_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QFile jfk(kShared + "/jfk.wav");
        QVERIFY(jfk.open(QIODevice::ReadOnly));
        const QByteArray wav = jfk.readAll();
        std::mt19937 rng(11);
        QByteArray garbage(32 * 1024, '\0');
        for (auto& b : garbage) b = char(rng() & 0xff);
        QTest::newRow("missing") << "missing.wav" << QByteArray("<missing>");
        QTest::newRow("directory") << "folder.wav" << QByteArray("<dir>");
        QTest::newRow("empty") << "empty.wav" << QByteArray();
        QTest::newRow("truncated") << "cut.wav" << wav.left(wav.size() / 2);
        QTest::newRow("garbage") << "noise.wav" << garbage;
    }
    void badFilesGiveTheInProcessMessage() {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        if (bytes == "<dir>") QVERIFY(QDir(dir.path()).mkdir(name));
        else if (bytes != "<missing>") QVERIFY(writeBytes(path, bytes));
        auto inProcess = decodeAudioFile(path.toStdString(), isolation(DecodeIsolation::InProcess));
        auto helper = decodeAudioFile(path.toStdString(), isolation(DecodeIsolation::Helper));
        QVERIFY(!inProcess.ok() && !helper.ok());
        QCOMPARE(helper.message(), inProcess.message());
        QVERIFY(QString::fromStdString(helper.message()).startsWith("cannot decode audio file '" + path + "'"));
        QCOMPARE(zombieChildren(), 0);
    }

    void crashIsAnErrorWithTheSignal() {
        pid_t pid = 0;
        double seconds = 0;
        const QString message = faultMessage("crash", 30.0, &pid, &seconds);
        QVERIFY2(message.contains("could not decode '" + kShared + "/jfk.wav': the decoder crashed (signal 11"),
                 qPrintable(message));
        QVERIFY(pid > 0);
        QVERIFY(reaped(pid));
        QVERIFY(!QFile::exists(QString("/proc/%1").arg(pid)));
        QCOMPARE(zombieChildren(), 0);
    }

    void hangIsKilledAfterTheStallLimit() {
        pid_t pid = 0;
        double seconds = 0;
        const QString message = faultMessage("hang", 2.0, &pid, &seconds);
        QVERIFY2(message.contains("the decoder stopped responding (no data for 2 s)"), qPrintable(message));
        QVERIFY2(seconds >= 1.9 && seconds < 15.0, qPrintable(QString::number(seconds)));
        QVERIFY(reaped(pid));
        QCOMPARE(zombieChildren(), 0);
    }

    void outOfMemoryIsNamed() {
#ifdef HEARSAY_SANITIZED
        QSKIP("sanitizer builds run the helper without its address-space limit");
#endif
        pid_t pid = 0;
        double seconds = 0;
        const QString message = faultMessage("oom", 30.0, &pid, &seconds);
        QVERIFY2(message.endsWith("the decoder ran out of memory"), qPrintable(message));
        QVERIFY(reaped(pid));
    }

    void garbageOnThePipeIsAnError() {
        pid_t pid = 0;
        double seconds = 0;
        const QString message = faultMessage("garbage", 30.0, &pid, &seconds);
        QVERIFY2(message.contains("the decoder's output is not valid (unknown record type"), qPrintable(message));
        QVERIFY(reaped(pid));
    }

    void faultsReachTheWholeFileApi() {
        ScopedEnv env("HEARSAY_DECODER_FAULT", "crash");
        auto decoded = decodeAudioFile((kShared + "/jfk.wav").toStdString());
        QVERIFY(!decoded.ok());
        QVERIFY2(QString::fromStdString(decoded.message()).contains("crashed (signal 11"), decoded.message().c_str());
    }

    void destroyedMidFileLeavesNothing() {
        // A descriptor opened without O_CLOEXEC here does not reach the helper: it holds only
        // stdin, stdout, stderr, its stream and the audio file.
        QTemporaryDir dir;
        const QString marker = dir.filePath("stray-descriptor");
        QVERIFY(writeBytes(marker, "x"));
        const int stray = ::open(marker.toLocal8Bit().constData(), O_RDONLY);
        QVERIFY(stray >= 0);
        const int descriptors = openDescriptors();
        std::vector<pid_t> pids;
        for (int i = 0; i < 5; ++i) {
            auto decoder = DecoderProcess::open((kShared + "/speech-30s-a.wav").toStdString(), helperOptions());
            QVERIFY(decoder.ok());
            if (i == 0) {  // 30 s of samples do not fit the pipe: the helper is still there, blocked
                const QString fdDir = QString("/proc/%1/fd").arg(decoder->pid());
                QStringList targets;
                for (const QString& fd : QDir(fdDir).entryList(QDir::AllEntries | QDir::System | QDir::NoDotAndDotDot)) {
                    targets << fd + " " + QFile::symLinkTarget(fdDir + "/" + fd);
                }
                QVERIFY2(targets.size() == 5 && !targets.join(' ').contains(marker), qPrintable(targets.join(", ")));
            }
            std::vector<float> block;
            QVERIFY(decoder->next(block).value());
            pids.push_back(decoder->pid());
            QVERIFY(pids.back() > 0);
        }  // destroyed with most of the file unread: killed and reaped
        for (pid_t pid : pids) QVERIFY(reaped(pid));
        QCOMPARE(zombieChildren(), 0);
        QCOMPARE(openDescriptors(), descriptors);
        // Moved-from readers own nothing; the moved-to one reaps.
        auto a = DecoderProcess::open((kShared + "/jfk.wav").toStdString(), helperOptions());
        QVERIFY(a.ok());
        const pid_t pid = a->pid();
        {
            DecoderProcess b = std::move(a).value();
            QCOMPARE(b.pid(), pid);
        }
        QVERIFY(reaped(pid));
        QCOMPARE(openDescriptors(), descriptors);
        ::close(stray);
    }

    void parserRefusesOversizedRecords() {
        namespace protocol = decoder_protocol;
        protocol::Record record;
        {
            protocol::RecordParser parser;
            const uint32_t header[2] = {uint32_t(protocol::RecordType::Block), 0xFFFFFFFFu};
            std::vector<uint8_t> bytes;
            protocol::appendInfo(bytes, {16000, 1, "libsndfile", "WAV"});
            bytes.insert(bytes.end(), reinterpret_cast<const uint8_t*>(header), reinterpret_cast<const uint8_t*>(header) + 8);
            parser.feed(bytes.data(), bytes.size());
            QVERIFY(parser.take(record).value());
            QCOMPARE(record.info.decoder, std::string("libsndfile"));
            auto second = parser.take(record);  // refused from the header alone, nothing buffered for it
            QVERIFY(!second.ok());
            QVERIFY2(QString::fromStdString(second.message()).contains("4294967295"), second.message().c_str());
        }
        {
            protocol::RecordParser parser;
            std::vector<uint8_t> bytes;
            const float samples[2] = {0.5f, -0.5f};
            protocol::appendBlock(bytes, 2, samples, 2);
            parser.feed(bytes.data(), bytes.size());
            QVERIFY(!parser.take(record).ok());  // samples before the info record
        }
        {
            protocol::RecordParser parser;
            std::vector<uint8_t> bytes;
            protocol::appendInfo(bytes, {16000, 1, "libsndfile", "WAV"});
            bytes[8] ^= 0xff;  // the magic
            parser.feed(bytes.data(), bytes.size());
            QVERIFY(!parser.take(record).ok());
        }
        {
            protocol::RecordParser parser;
            std::vector<uint8_t> bytes;
            protocol::appendInfo(bytes, {44100, 2, "FFmpeg", "flv"});
            const std::vector<float> samples(protocol::kMaxBlockSamples, 0.25f);
            protocol::appendBlock(bytes, 9, samples.data(), samples.size());
            protocol::appendDone(bytes, 9, samples.size());
            // Fed a byte at a time: records come out only when whole.
            int taken = 0;
            for (uint8_t b : bytes) {
                parser.feed(&b, 1);
                auto got = parser.take(record);
                QVERIFY(got.ok());
                taken += got.value();
            }
            QCOMPARE(taken, 3);
            QCOMPARE(record.type, protocol::RecordType::Done);
            QCOMPARE(record.sampleCount, uint64_t(protocol::kMaxBlockSamples));
        }
    }
};

#else

class TestDecoderProcess : public QObject {
    Q_OBJECT
private slots:
    void audioLibraryMissing() { QSKIP("built with HEARSAY_ENGINE_ONLY: no hearsay_audio"); }
};

#endif

QTEST_APPLESS_MAIN(TestDecoderProcess)
#include "tst_decoder_process.moc"
