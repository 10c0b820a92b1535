// The consumer's view of live audio: 16 kHz mono samples as they arrive, whatever produces
// them (a microphone through PortAudio, a file played at real-time pace). The streaming
// session and the GUI's dictation are written against this interface only.
#pragma once

#include "core/audio/level_meter.h"
#include "core/util/result.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace hearsay {

enum class SourceState {
    Idle,      // not started yet
    Running,   // producing audio
    Finished,  // ended normally: stop(), or the end of a file
    Failed,    // ended by an error (device lost, decode error): see the message
};

struct SourceStatus {
    SourceState state = SourceState::Idle;
    std::string message;  // Failed: what went wrong, for the user; Finished: why it ended

    bool running() const { return state == SourceState::Running; }
};

// Sample counts are at 16 kHz (a device's frames are converted: frames × 16000 / rate).
struct SourceCounters {
    uint64_t capturedSamples = 0;  // audio the producer delivered into the ring buffer
    uint64_t readSamples = 0;      // samples returned by read() so far
    uint64_t overflowEvents = 0;   // writes that found the ring buffer full
    uint64_t droppedSamples = 0;   // audio lost to those overflows
    uint64_t deviceOverruns = 0;   // callbacks where the driver reported lost input (before us)
};

enum class WaitResult {
    Ready,    // samples are there to read (at least the minimum asked for, or the last ones)
    Ended,    // the source is not running and everything has been read
    Timeout,  // neither, before the timeout
};

// Threads. A source has one consumer thread (the one that calls start(), read(),
// waitForData() and atEnd(); never two of these at once). stop() may be called from any
// thread, also while the consumer is inside read() or waitForData() (it wakes the waiter).
// status(), counters(), level(), timeOfSample() and description() may be called from any
// thread at any time. Producers (audio callback, file feeder) are internal threads.
//
// Draining. stop() ends production; everything captured until then stays readable. A failure
// (device lost) does the same. Read until atEnd() to get every sample: nothing is dropped on
// stop or failure.
class AudioSource {
public:
    static constexpr int kSampleRate = 16000;

    virtual ~AudioSource() = default;

    // Starts (or, after stop() or a failure, restarts) production. Samples from an earlier run
    // that were not read yet come first; sample numbering continues.
    virtual Result<void> start() = 0;
    // Ends production; what was captured stays readable. Idempotent.
    virtual void stop() = 0;

    // Non-blocking: copies up to out.size() samples (16 kHz mono) and returns how many.
    virtual size_t read(std::span<float> out) = 0;
    // Appends everything available now to `out`; returns how many were appended.
    size_t readAll(std::vector<float>& out);
    // Blocks until at least `minSamples` can be read (fewer if production has ended), or the
    // source has ended with nothing left to read, or the timeout passes.
    virtual WaitResult waitForData(std::chrono::milliseconds timeout, size_t minSamples = 1) = 0;
    // Not running, and every captured sample has been returned by read().
    virtual bool atEnd() = 0;

    virtual SourceStatus status() const = 0;
    virtual SourceCounters counters() const = 0;
    // RMS and peak of the latest ~50 ms of the incoming audio (at the producer, before the
    // ring buffer: the meter moves even when nobody reads).
    virtual InputLevel level() const = 0;
    // When sample n (0-based, counted across restarts) was captured, on the steady clock:
    // samples are the clock, anchored at the moment the first sample of each run was captured.
    // Nullopt when unknown (not captured yet, or a source with no real-time pace).
    virtual std::optional<std::chrono::steady_clock::time_point> timeOfSample(uint64_t n) const = 0;
    // What this source is, for logs and the GUI ("ALSA: default, 44100 Hz, 2 ch").
    virtual std::string description() const = 0;
};

inline size_t AudioSource::readAll(std::vector<float>& out) {
    size_t total = 0;
    while (true) {
        const size_t at = out.size();
        out.resize(at + 4096);
        const size_t got = read(std::span<float>(out.data() + at, 4096));
        out.resize(at + got);
        total += got;
        if (got < 4096) return total;
    }
}

} // namespace hearsay
