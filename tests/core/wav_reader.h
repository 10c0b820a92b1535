// A deliberately independent reader for the 16-bit PCM WAV clips in ../shared/data, used by the
// tests as ground truth (it shares no code with core/audio).
#pragma once

#include <QFile>
#include <QString>

#include <cstdint>
#include <cstring>
#include <vector>

struct Pcm16Wav {
    int rate = 0;
    int channels = 0;
    std::vector<int16_t> samples;  // interleaved
    bool ok() const { return rate > 0; }
};

inline Pcm16Wav readPcm16Wav(const QString& path) {
    Pcm16Wav wav;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return wav;
    const QByteArray bytes = file.readAll();
    if (bytes.size() < 12 || !bytes.startsWith("RIFF") || bytes.mid(8, 4) != "WAVE") return wav;
    auto u32 = [&](qsizetype at) {
        uint32_t v;
        std::memcpy(&v, bytes.constData() + at, 4);
        return v;
    };
    auto u16 = [&](qsizetype at) {
        uint16_t v;
        std::memcpy(&v, bytes.constData() + at, 2);
        return v;
    };
    int rate = 0, channels = 0, bits = 0;
    for (qsizetype at = 12; at + 8 <= bytes.size();) {
        const QByteArray id = bytes.mid(at, 4);
        const qsizetype size = qsizetype(u32(at + 4));
        const qsizetype body = at + 8;
        if (id == "fmt " && body + 16 <= bytes.size()) {
            if (u16(body) != 1) return wav;  // PCM only
            channels = u16(body + 2);
            rate = int(u32(body + 4));
            bits = u16(body + 14);
        } else if (id == "data" && bits == 16) {
            const qsizetype n = std::min(size, bytes.size() - body) / 2;
            wav.samples.resize(size_t(n));
            std::memcpy(wav.samples.data(), bytes.constData() + body, size_t(n) * 2);
            wav.rate = rate;
            wav.channels = channels;
            return wav;
        }
        at = body + size + (size & 1);
    }
    return wav;
}

// Mono 16-bit samples as float in [-1, 1): s / 32768, as the reference harness reads them.
inline std::vector<float> pcm16ToFloat(const std::vector<int16_t>& pcm) {
    std::vector<float> out(pcm.size());
    for (size_t i = 0; i < pcm.size(); ++i) out[i] = float(pcm[i]) / 32768.0f;
    return out;
}
