// The framed binary protocol between the decoder helper (hearsay-decode) and the application:
// one file's 16 kHz mono samples as a stream of records on a pipe. The helper writes it; the
// parent parses it as untrusted input (every length bounded before anything is allocated).
#pragma once

#include "core/util/result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hearsay::decoder_protocol {

// Each record: header {uint32 type, uint32 payload bytes} then the payload; native byte order
// (both ends are the same build on the same machine).
//   Info  : uint32 magic, uint32 version, int32 source rate, int32 channels,
//           text decoder, text format                  (text = uint32 length + UTF-8 bytes)
//   Block : uint64 source frames read so far, float32 samples[n], 1 ≤ n ≤ kMaxBlockSamples
//   Done  : uint64 source frames, uint64 samples       (the totals; the parent checks them)
//   Error : text message                               (the decoder's own, e.g. "cannot decode
//                                                       audio file '…': truncated")
// A stream is Info, Block*, Done, or Error at any point; nothing follows Done or Error.
enum class RecordType : uint32_t { Info = 1, Block = 2, Done = 3, Error = 4 };

constexpr uint32_t kMagic = 0x31445348;  // "HSD1"
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 8;
constexpr size_t kMaxBlockSamples = 1 << 16;  // a longer decoder block is sent in pieces
constexpr size_t kMaxTextBytes = 16 * 1024;   // longer messages are cut by the writer
constexpr size_t kMaxPayloadBytes = 8 + kMaxBlockSamples * sizeof(float);

// The file descriptor the helper writes the stream to (its stdout stays free for stray output
// of the libraries it uses).
constexpr int kStreamFd = 3;

// The helper's exit statuses besides 0 (it finished, its stream says how).
constexpr int kExitUsage = 2;        // bad command line
constexpr int kExitOutOfMemory = 3;  // an allocation failed (its RLIMIT_AS reached)
constexpr int kExitWriteFailed = 4;  // the pipe closed under it (the parent stopped reading)

struct Info {
    int sourceRate = 0;
    int sourceChannels = 0;
    std::string decoder;
    std::string format;
};

// Writer side: each call appends one whole record to `out`.
void appendInfo(std::vector<uint8_t>& out, const Info& info);
void appendBlock(std::vector<uint8_t>& out, uint64_t sourceFrames, const float* samples, size_t count);
void appendDone(std::vector<uint8_t>& out, uint64_t sourceFrames, uint64_t samples);
void appendError(std::vector<uint8_t>& out, const std::string& message);

// One parsed record. For a Block, `samples` holds its samples; for Done, the two totals are in
// sourceFrames and sampleCount.
struct Record {
    RecordType type = RecordType::Info;
    Info info;
    std::vector<float> samples;
    uint64_t sourceFrames = 0;
    uint64_t sampleCount = 0;
    std::string message;
};

// Reader side: bytes in as they arrive, whole records out. A header with an unknown type or a
// length over the limits, a payload that does not parse, or records out of order are errors
// ("unknown record type 7", ...), found before any payload is buffered.
class RecordParser {
public:
    // Appends bytes read from the pipe.
    void feed(const uint8_t* data, size_t size);
    // The next whole record into `record`: true when one was taken, false when more bytes are
    // needed; an error when the stream is malformed (the parser then stays failed).
    Result<bool> take(Record& record);
    // Bytes received that do not yet form a whole record.
    size_t pendingBytes() const { return m_buffer.size() - m_consumed; }

private:
    Error fail(const std::string& why);

    std::vector<uint8_t> m_buffer;  // received bytes; [m_consumed, size) not yet parsed
    size_t m_consumed = 0;
    bool m_seenInfo = false;
    bool m_finished = false;  // after Done or Error
    std::string m_failure;    // non-empty once malformed
};

} // namespace hearsay::decoder_protocol
