// Playback of decoded audio (16 kHz mono float samples, as the engine hears them) on the default
// output device through PortAudio: from any offset, with pause, resume and stop. The PortAudio
// callback only copies samples (and, when the device refuses the audio's own rate, converts the
// rate); everything else happens on the caller's thread.
#pragma once

#include "core/util/result.h"

#include <memory>
#include <string>
#include <vector>

namespace hearsay {

class AudioPlayer {
public:
    enum class State { Stopped, Playing, Paused, Finished };

    AudioPlayer() = default;
    ~AudioPlayer();  // stops
    AudioPlayer(const AudioPlayer&) = delete;
    AudioPlayer& operator=(const AudioPlayer&) = delete;

    // The audio to play (mono, `sampleRate` Hz); stops what plays. Null or empty: nothing to play.
    void setAudio(std::shared_ptr<const std::vector<float>> samples, int sampleRate);
    bool hasAudio() const { return m_samples && !m_samples->empty(); }
    double durationSeconds() const;

    // Plays from `fromSeconds` (clamped to the audio) to the end, replacing what plays. Errors:
    // no audio set, PortAudio cannot start, no output device, a device that refuses the stream.
    Result<void> play(double fromSeconds);
    // Stops the sound and keeps the position; resume() plays on from there.
    void pause();
    Result<void> resume();
    // Playing → paused, paused → playing (the Space key).
    Result<void> toggle();
    void stop();

    // Playing becomes Finished once the last sample has been handed to the device.
    State state() const;
    // Seconds of the audio heard now: what was handed to the device less its output latency
    // (while playing), or where it paused or stopped.
    double positionSeconds() const;
    // The output device of the current or last stream ("ALSA: default"), for messages.
    const std::string& deviceName() const { return m_deviceName; }

    struct Run;  // one started stream (internal; shared with the PortAudio callback)

private:
    void endRun();  // stops and closes the current stream, keeping the position

    std::shared_ptr<const std::vector<float>> m_samples;
    int m_rate = 16000;
    std::shared_ptr<Run> m_run;
    bool m_paused = false;
    double m_pausedAt = 0.0;
    std::string m_deviceName;
};

const char* playerStateName(AudioPlayer::State state);

} // namespace hearsay
