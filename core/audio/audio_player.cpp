// AudioPlayer: a PortAudio output stream fed from the decoded samples by its callback. A stream
// is opened for each play() and closed by pause() and stop(): the position lives here, not in
// the stream, so a paused player holds no device. Streams are stopped and closed on a thread of
// their own with a bounded wait, because against a frozen sound server PortAudio's stop blocks
// until the server recovers or dies (see capture_device.cpp); such a stream is abandoned.
#include "core/audio/audio_player.h"

#include "core/audio/portaudio_library.h"
#include "core/audio/resampler.h"

#include <portaudio.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <optional>

namespace hearsay {

// One started stream; the PortAudio callback holds a raw pointer to it, valid until
// Pa_CloseStream has returned (the closing thread holds a reference until then).
struct AudioPlayer::Run {
    std::shared_ptr<PortAudioLibrary> library;
    std::shared_ptr<const std::vector<float>> samples;
    PaStream* stream = nullptr;
    int channels = 1;
    size_t first = 0;                   // where it started
    size_t end = 0;                     // one past the last sample to play
    std::atomic<size_t> next{0};        // the next sample to hand to the device
    double latencySeconds = 0.0;        // the stream's output latency, as PortAudio reports it
    std::atomic<bool> finished{false};  // PortAudio's stream-finished callback ran
    std::atomic<bool> abandoned{false}; // the callback must touch nothing more and abort
    // Only when the device refuses the audio's own rate: the conversion and its output not yet played.
    std::optional<Resampler> resampler;
    std::vector<float> converted;
    size_t convertedRead = 0;
};

namespace {

constexpr auto kCloseTimeout = std::chrono::seconds(3);
constexpr size_t kConvertBlock = 512;  // source samples per resampler call in the callback
// The least output buffer asked of the device. Playing a file back needs no low latency (a click
// on a word sounds a tenth of a second later; the position shown subtracts it), but a short
// buffer underruns whenever the machine is busy, and each underrun is a gap in what is heard.
// With ALSA's default device on PulseAudio PortAudio's "low" latency is 9 ms and its "high" 35 ms:
// on a 2-core machine with three busy loops beside it the 9 ms stream left gaps (what a sink
// recorded correlated 0.46 with the file), 35 ms did not in three runs; 0.1 s keeps a margin
// for a host that stalls a core for longer.
constexpr double kLeastOutputLatency = 0.1;

// Fills `frames` frames of `out` from the run's source samples, or its converted samples; what
// is left after the end is silence. True while there is more to play.
bool fill(AudioPlayer::Run& run, float* out, unsigned long frames) {
    const std::vector<float>& samples = *run.samples;
    size_t next = run.next.load(std::memory_order_relaxed);
    for (unsigned long f = 0; f < frames; ++f) {
        float value = 0.0f;
        if (run.resampler) {
            while (run.convertedRead >= run.converted.size() && next < run.end) {
                if (run.convertedRead > 0) {
                    run.converted.clear();  // keeps its capacity: no allocation in the usual case
                    run.convertedRead = 0;
                }
                const size_t count = std::min(kConvertBlock, run.end - next);
                if (!run.resampler->process(samples.data() + next, count, run.converted)) next = run.end;
                else next += count;
                if (next >= run.end) (void)run.resampler->flush(run.converted);
            }
            if (run.convertedRead < run.converted.size()) value = run.converted[run.convertedRead++];
        } else if (next < run.end) {
            value = samples[next++];
        }
        for (int c = 0; c < run.channels; ++c) out[f * size_t(run.channels) + size_t(c)] = value;
    }
    run.next.store(next, std::memory_order_release);
    return next < run.end || (run.resampler && run.convertedRead < run.converted.size());
}

int onOutput(const void*, void* output, unsigned long frames, const PaStreamCallbackTimeInfo*, PaStreamCallbackFlags,
             void* user) {
    auto& run = *static_cast<AudioPlayer::Run*>(user);
    if (run.abandoned.load(std::memory_order_acquire)) return paAbort;
    return fill(run, static_cast<float*>(output), frames) ? paContinue : paComplete;
}

void onFinished(void* user) { static_cast<AudioPlayer::Run*>(user)->finished.store(true, std::memory_order_release); }

// Aborts and closes the stream on a thread of its own and waits for it a bounded time.
void closeRun(std::shared_ptr<AudioPlayer::Run> run) {
    PaStream* stream = run->stream;
    closeStreamInBackground(stream, std::move(run), true).wait_for(kCloseTimeout);  // a frozen server: left to its thread
}

std::string deviceId(PaDeviceIndex index) {
    const PaDeviceInfo* info = Pa_GetDeviceInfo(index);
    const PaHostApiInfo* api = info ? Pa_GetHostApiInfo(info->hostApi) : nullptr;
    return std::string(api && api->name ? api->name : "unknown API") + ": " + (info && info->name ? info->name : "?");
}

} // namespace

const char* playerStateName(AudioPlayer::State state) {
    switch (state) {
    case AudioPlayer::State::Stopped: return "stopped";
    case AudioPlayer::State::Playing: return "playing";
    case AudioPlayer::State::Paused: return "paused";
    case AudioPlayer::State::Finished: return "finished";
    }
    return "?";
}

AudioPlayer::~AudioPlayer() { stop(); }

void AudioPlayer::setAudio(std::shared_ptr<const std::vector<float>> samples, int sampleRate) {
    stop();
    m_samples = std::move(samples);
    m_rate = sampleRate > 0 ? sampleRate : 16000;
    m_pausedAt = 0.0;
}

double AudioPlayer::durationSeconds() const { return m_samples ? double(m_samples->size()) / m_rate : 0.0; }

Result<void> AudioPlayer::play(double fromSeconds) {
    endRun();
    m_paused = false;
    if (!hasAudio()) return makeError("there is no audio to play");
    if (!std::isfinite(fromSeconds)) return makeError("cannot play from a time that is not a number");
    const size_t first = std::min(m_samples->size(), size_t(std::max(0.0, fromSeconds) * m_rate + 0.5));
    auto library = PortAudioLibrary::acquire();
    if (!library) return library.error();
    auto run = std::make_shared<Run>();
    run->library = library.value();
    run->samples = m_samples;
    run->end = m_samples->size();
    run->first = first;
    run->next.store(first);
    {
        auto guard = PortAudioLibrary::lock();
        const PaDeviceIndex device = Pa_GetDefaultOutputDevice();
        const PaDeviceInfo* info = device == paNoDevice ? nullptr : Pa_GetDeviceInfo(device);
        if (!info || info->maxOutputChannels < 1) {
            return makeError("no audio output device: PortAudio lists none (is a sound server such as PulseAudio or "
                             "PipeWire running, and are speakers or headphones connected?)");
        }
        m_deviceName = deviceId(device);
        PaStreamParameters params{};
        params.device = device;
        params.sampleFormat = paFloat32;
        params.suggestedLatency = std::max(info->defaultHighOutputLatency, kLeastOutputLatency);
        // The audio's own rate, mono or stereo; else the device's rate with a conversion.
        double rate = m_rate;
        PaError error = paFormatIsSupported;
        bool supported = false;
        for (int channels = 1; channels <= std::min(2, info->maxOutputChannels) && !supported; ++channels) {
            params.channelCount = channels;
            error = Pa_IsFormatSupported(nullptr, &params, rate);
            supported = error == paFormatIsSupported;
        }
        if (!supported) {
            rate = info->defaultSampleRate;
            params.channelCount = std::min(2, info->maxOutputChannels);
            error = Pa_IsFormatSupported(nullptr, &params, rate);
            if (error != paFormatIsSupported) {
                return makeError("the audio output device '" + m_deviceName + "' refuses float samples: " +
                                 Pa_GetErrorText(error));
            }
            auto resampler = Resampler::create(m_rate, int(std::lround(rate)), 1, Resampler::Quality::Medium);
            if (!resampler) return resampler.error();
            run->resampler = std::move(resampler).value();
            run->converted.reserve(size_t(std::ceil(kConvertBlock * rate / m_rate)) * 4 + 1024);
        }
        run->channels = params.channelCount;
        const PaError opened =
            Pa_OpenStream(&run->stream, nullptr, &params, rate, paFramesPerBufferUnspecified, paNoFlag, onOutput, run.get());
        if (opened != paNoError) {
            return makeError("cannot open the audio output device '" + m_deviceName + "': " + Pa_GetErrorText(opened));
        }
        Pa_SetStreamFinishedCallback(run->stream, onFinished);
        if (const PaStreamInfo* stream = Pa_GetStreamInfo(run->stream)) run->latencySeconds = stream->outputLatency;
    }
    if (const PaError started = Pa_StartStream(run->stream); started != paNoError) {
        auto guard = PortAudioLibrary::lock();
        Pa_CloseStream(run->stream);
        return makeError("cannot start the audio output device '" + m_deviceName + "': " + Pa_GetErrorText(started));
    }
    m_run = std::move(run);
    return {};
}

void AudioPlayer::endRun() {
    if (!m_run) return;
    m_pausedAt = positionSeconds();
    m_run->abandoned.store(true, std::memory_order_release);
    closeRun(std::move(m_run));
    m_run.reset();
}

void AudioPlayer::pause() {
    if (!m_run) return;
    const bool finished = state() == State::Finished;
    endRun();
    m_paused = !finished;
}

Result<void> AudioPlayer::resume() {
    if (state() == State::Playing) return {};
    return play(m_paused ? m_pausedAt : 0.0);
}

Result<void> AudioPlayer::toggle() {
    if (state() == State::Playing) {
        pause();
        return {};
    }
    return resume();
}

void AudioPlayer::stop() {
    endRun();
    m_paused = false;
}

AudioPlayer::State AudioPlayer::state() const {
    if (m_run) return m_run->finished.load(std::memory_order_acquire) ? State::Finished : State::Playing;
    return m_paused ? State::Paused : State::Stopped;
}

double AudioPlayer::positionSeconds() const {
    if (!m_run) return m_pausedAt;
    if (m_run->finished.load(std::memory_order_acquire)) return double(m_run->end) / m_rate;
    const double handed = double(m_run->next.load(std::memory_order_acquire)) / m_rate;
    return std::max(double(m_run->first) / m_rate, handed - m_run->latencySeconds);
}

} // namespace hearsay
