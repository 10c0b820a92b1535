// Decoding an audio file in a helper process (hearsay-decode), so that a decoder that crashes,
// hangs or runs out of memory on a hostile file costs an error message, not the application.
// The parent side: spawns the helper, reads its record stream (decoder_protocol.h) and hands
// out the same 16 kHz mono blocks AudioBlockDecoder would.
#pragma once

#include "core/audio/audio_block_decoder.h"
#include "core/audio/decoder_protocol.h"
#include "core/audio/resampler.h"
#include "core/util/result.h"

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace hearsay {

struct DecoderProcessOptions {
    std::filesystem::path helper;                    // the hearsay-decode executable (required)
    Resampler::Quality quality = Resampler::Quality::Best;  // passed to the helper's resampler
    double stallSeconds = 30.0;          // no byte from the helper for this long while waiting for
                                         // one: it is killed as hung
    uint64_t memoryLimitBytes = 4ull << 30;  // the helper's RLIMIT_AS (address space); 0 = none.
                                             // Sanitizer builds of the helper skip it.
};

// The same pulling interface as AudioBlockDecoder; the blocks may be cut differently (a decoder
// block longer than the protocol's limit arrives in pieces) but the samples, the info and the
// error messages for bad files are the in-process decoder's. What the helper itself does wrong
// is an error naming the file: "could not decode 'F': the decoder crashed (signal 11)", "… the
// decoder stopped responding (no data for 30 s)", "… the decoder ran out of memory", "… the
// decoder's output is not valid (…)".
//
// The helper is started with posix_spawn (no fork of a multithreaded process), in its own
// process group (a terminal's Ctrl-C goes to the application, which decides), its pipe
// O_CLOEXEC on this side. It is always reaped: at the end of its stream, on any error, and on
// destruction or rewind (kill + wait) when the reader stops early. Not thread-safe: one thread
// at a time, as AudioBlockDecoder.
class DecoderProcess {
public:
    static Result<DecoderProcess> open(const std::filesystem::path& path, const DecoderProcessOptions& options);

    DecoderProcess(DecoderProcess&& other) noexcept;
    DecoderProcess& operator=(DecoderProcess&& other) noexcept;
    DecoderProcess(const DecoderProcess&) = delete;
    DecoderProcess& operator=(const DecoderProcess&) = delete;
    ~DecoderProcess();  // kills and reaps a helper still running

    // As AudioBlockDecoder::next: the next samples (never empty when true), false at the end.
    Result<bool> next(std::vector<float>& block);
    // Back to the first sample: the helper is stopped and a new one started.
    Result<void> rewind();

    const AudioFileInfo& info() const { return m_info; }
    const std::filesystem::path& path() const { return m_path; }
    uint64_t sourceFramesRead() const { return m_sourceFrames; }
    uint64_t samplesDelivered() const { return m_samples; }
    // The running helper's process id; 0 once it has been reaped (for tests).
    pid_t pid() const { return m_pid; }

private:
    DecoderProcess(std::filesystem::path path, DecoderProcessOptions options);
    Result<void> start();  // spawn, then read the info record
    Result<bool> readRecord();  // the next record into m_record; false: nothing more can come
    Error failure(const std::string& reason);  // stops the helper; "could not decode 'F': reason"
    Error helperEnded();     // the stream ended early: why, from the exit status
    Error helperReported();  // an Error record: the helper stopped on a bad file, with its message
    Error exitFailure(int waitStatus, bool killedHere);  // the message for an exit status
    // Waits for the helper, killing it after `graceSeconds` (at once when 0); the wait status.
    // `killedHere`: whether it had to be killed.
    int reap(double graceSeconds, bool* killedHere);
    void stop();            // kill + reap + close, whatever the state

    std::filesystem::path m_path;
    DecoderProcessOptions m_options;
    AudioFileInfo m_info;
    pid_t m_pid = 0;   // the helper, until reaped
    int m_fd = -1;     // the read end of its stream
    decoder_protocol::RecordParser m_parser;
    decoder_protocol::Record m_record;  // the last record read; its sample buffer is reused
    uint64_t m_sourceFrames = 0;
    uint64_t m_samples = 0;
    bool m_ended = false;  // Done, Error or a failure seen: next() returns false
};

} // namespace hearsay
