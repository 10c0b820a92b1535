// The decoder helper's record format: writing records, and parsing them with every length
// checked against the limits before it is trusted.
#include "core/audio/decoder_protocol.h"

#include <algorithm>
#include <cstring>

namespace hearsay::decoder_protocol {
namespace {

template <class T>
void put(std::vector<uint8_t>& out, T value) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
    out.insert(out.end(), bytes, bytes + sizeof(T));
}

void putText(std::vector<uint8_t>& out, const std::string& text) {
    const size_t n = std::min(text.size(), kMaxTextBytes);
    put(out, uint32_t(n));
    out.insert(out.end(), text.begin(), text.begin() + std::ptrdiff_t(n));
}

void putHeader(std::vector<uint8_t>& out, RecordType type, size_t payloadBytes) {
    put(out, uint32_t(type));
    put(out, uint32_t(payloadBytes));
}

// Reads fields from one payload; any read past its end makes it !ok.
class PayloadReader {
public:
    PayloadReader(const uint8_t* data, size_t size) : m_data(data), m_size(size) {}

    template <class T>
    T get() {
        T value{};
        if (m_size - m_at < sizeof(T)) {
            m_ok = false;
            return value;
        }
        std::memcpy(&value, m_data + m_at, sizeof(T));
        m_at += sizeof(T);
        return value;
    }
    std::string text() {
        const auto n = get<uint32_t>();
        if (!m_ok || n > kMaxTextBytes || m_size - m_at < n) {
            m_ok = false;
            return {};
        }
        std::string s(reinterpret_cast<const char*>(m_data + m_at), n);
        m_at += n;
        return s;
    }
    bool complete() const { return m_ok && m_at == m_size; }

private:
    const uint8_t* m_data;
    size_t m_size;
    size_t m_at = 0;
    bool m_ok = true;
};

} // namespace

void appendInfo(std::vector<uint8_t>& out, const Info& info) {
    std::vector<uint8_t> payload;
    put(payload, kMagic);
    put(payload, kVersion);
    put(payload, int32_t(info.sourceRate));
    put(payload, int32_t(info.sourceChannels));
    putText(payload, info.decoder);
    putText(payload, info.format);
    putHeader(out, RecordType::Info, payload.size());
    out.insert(out.end(), payload.begin(), payload.end());
}

void appendBlock(std::vector<uint8_t>& out, uint64_t sourceFrames, const float* samples, size_t count) {
    putHeader(out, RecordType::Block, 8 + count * sizeof(float));
    put(out, sourceFrames);
    const auto* bytes = reinterpret_cast<const uint8_t*>(samples);
    out.insert(out.end(), bytes, bytes + count * sizeof(float));
}

void appendDone(std::vector<uint8_t>& out, uint64_t sourceFrames, uint64_t samples) {
    putHeader(out, RecordType::Done, 16);
    put(out, sourceFrames);
    put(out, samples);
}

void appendError(std::vector<uint8_t>& out, const std::string& message) {
    const size_t n = std::min(message.size(), kMaxTextBytes);
    putHeader(out, RecordType::Error, 4 + n);
    putText(out, message);
}

void RecordParser::feed(const uint8_t* data, size_t size) {
    if (m_consumed > 0 && m_consumed == m_buffer.size()) {
        m_buffer.clear();
        m_consumed = 0;
    } else if (m_consumed > kMaxPayloadBytes) {
        m_buffer.erase(m_buffer.begin(), m_buffer.begin() + std::ptrdiff_t(m_consumed));
        m_consumed = 0;
    }
    m_buffer.insert(m_buffer.end(), data, data + size);
}

Error RecordParser::fail(const std::string& why) {
    m_failure = why;
    return makeError(why);
}

Result<bool> RecordParser::take(Record& record) {
    if (!m_failure.empty()) return makeError(m_failure);
    if (pendingBytes() < kHeaderBytes) return false;
    uint32_t type = 0, length = 0;
    std::memcpy(&type, m_buffer.data() + m_consumed, 4);
    std::memcpy(&length, m_buffer.data() + m_consumed + 4, 4);
    if (m_finished) return fail("data after the end of the stream");
    switch (RecordType(type)) {
    case RecordType::Info:
    case RecordType::Error:
        if (length > 16 + 2 * (4 + kMaxTextBytes)) return fail("a text record of " + std::to_string(length) + " bytes");
        break;
    case RecordType::Block:
        if (length < 8 + sizeof(float) || length > kMaxPayloadBytes || (length - 8) % sizeof(float) != 0) {
            return fail("a sample block of " + std::to_string(length) + " bytes");
        }
        break;
    case RecordType::Done:
        if (length != 16) return fail("an end record of " + std::to_string(length) + " bytes");
        break;
    default:
        return fail("unknown record type " + std::to_string(type));
    }
    if (RecordType(type) != RecordType::Error && (RecordType(type) == RecordType::Info) == m_seenInfo) {
        return fail(m_seenInfo ? "a second info record" : "samples before the info record");
    }
    if (pendingBytes() < kHeaderBytes + length) return false;

    PayloadReader in(m_buffer.data() + m_consumed + kHeaderBytes, length);
    // Fields reset one by one: `record.samples` keeps its capacity from block to block.
    record.type = RecordType(type);
    record.info = Info{};
    record.samples.clear();
    record.sourceFrames = 0;
    record.sampleCount = 0;
    record.message.clear();
    switch (record.type) {
    case RecordType::Info: {
        const auto magic = in.get<uint32_t>();
        const auto version = in.get<uint32_t>();
        if (magic != kMagic || version != kVersion) return fail("not a decoder stream of this version");
        record.info.sourceRate = in.get<int32_t>();
        record.info.sourceChannels = in.get<int32_t>();
        record.info.decoder = in.text();
        record.info.format = in.text();
        if (in.complete() && (record.info.sourceRate <= 0 || record.info.sourceChannels <= 0)) {
            return fail("an info record with rate " + std::to_string(record.info.sourceRate) + " and " +
                        std::to_string(record.info.sourceChannels) + " channels");
        }
        m_seenInfo = true;
        break;
    }
    case RecordType::Block: {
        record.sourceFrames = in.get<uint64_t>();
        record.samples.resize((length - 8) / sizeof(float));
        std::memcpy(record.samples.data(), m_buffer.data() + m_consumed + kHeaderBytes + 8, length - 8);
        in = PayloadReader(nullptr, 0);  // the samples were taken whole
        break;
    }
    case RecordType::Done:
        record.sourceFrames = in.get<uint64_t>();
        record.sampleCount = in.get<uint64_t>();
        m_finished = true;
        break;
    case RecordType::Error:
        record.message = in.text();
        m_finished = true;
        break;
    }
    if (!in.complete()) return fail("a malformed record of type " + std::to_string(type));
    m_consumed += kHeaderBytes + length;
    return true;
}

} // namespace hearsay::decoder_protocol
