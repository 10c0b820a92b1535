// A file played as if it were a microphone: decoded block by block and pushed through the same
// ring buffer and consumer half as a capture device, at real-time pace (or a multiple of it,
// or as fast as the consumer takes it). For tests, benchmarks and demos of live transcription.
#pragma once

#include "core/audio/audio_file_reader.h"
#include "core/audio/ring_source.h"

#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

namespace hearsay {

struct SimulatedLiveOptions {
    // Seconds of audio delivered per second: 1 = real time, 10 = ten times faster. 0 = as fast
    // as possible: the feeder then waits for room in the ring buffer instead of dropping (a
    // paced source drops, as a microphone would, when the consumer falls ringSeconds behind).
    double speed = 1.0;
    double ringSeconds = 20.0;   // ring buffer length, seconds of 16 kHz audio
    double chunkSeconds = 0.02;  // audio per push (a device callback's worth)
};

// The feeder thread pushes chunk k (samples [k·c, (k+1)·c)) when its last sample "has been
// captured": at start + (k+1)·c / (16000 · speed), on a fixed schedule that does not drift.
// Sample n's capture time (timeOfSample) is start + n / (16000 · speed).
// At the end of the file the source is Finished ("end of file"); a decode error part-way
// (a truncated file) makes it Failed, with the samples before the error readable.
class SimulatedLiveSource final : public RingSource {
public:
    // Opens the file (errors as AudioFileReader::open); nothing is pushed before start().
    static Result<std::unique_ptr<SimulatedLiveSource>> open(const std::filesystem::path& path,
                                                             const SimulatedLiveOptions& options = {});
    ~SimulatedLiveSource() override;  // stops

    // Plays the file from its beginning (again, after a stop or the end).
    Result<void> start() override;
    void stop() override;
    std::string description() const override;

    const AudioFileInfo& fileInfo() const { return m_info; }  // any thread (fixed at open)

private:
    SimulatedLiveSource(AudioFileReader decoder, const SimulatedLiveOptions& options);
    void feed(std::shared_ptr<CaptureChannel> channel);
    bool sleepUntil(std::chrono::steady_clock::time_point when);  // false: stop requested
    void joinFeeder();

    const SimulatedLiveOptions m_options;
    const AudioFileInfo m_info;
    const std::string m_description;
    AudioFileReader m_decoder;    // the feeder thread's while it runs
    bool m_played = false;        // the decoder must rewind before the next run

    std::mutex m_control;  // start() and stop() one at a time
    std::thread m_feeder;
    std::mutex m_stopMutex;
    std::condition_variable m_stopWake;
    bool m_stopRequested = false;  // under m_stopMutex
};

} // namespace hearsay
