// CaptureDevice: a PortAudio input stream feeding a CaptureChannel, a watchdog that turns a
// lost or frozen stream into a clear error, and a closer thread for streams that will not stop.
//
// What PortAudio 19.6 over ALSA's pulse plugin does when the sound goes away (measured with a
// PulseAudio 16 null sink's monitor as the input, see tests/core/tst_capture_device.cpp):
// - the source removed (pactl unload-module of the sink) or the server killed: ALSA reports an
//   error to PortAudio's callback thread, which ends the stream: the stream-finished callback
//   runs, Pa_IsStreamActive() turns 0, and Pa_StopStream/Pa_CloseStream return at once.
//   (With module-always-sink loaded the server instead moves the stream to its "auto_null"
//   sink after a ~2 s pause: capture goes on, in silence; nothing can be detected.)
// - the server frozen (SIGSTOP; a hung server or device): the callback stops coming, nothing
//   ends, and Pa_StopStream and Pa_AbortStream block until the server resumes or dies.
// Hence the watchdog (no audio for a while = lost), and stop/close on a thread of its own.
#include "core/audio/capture_device.h"

#include "core/audio/audio_limits.h"

#include "core/audio/portaudio_library.h"

#include <portaudio.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <future>

namespace hearsay {

// One started stream. Shared by the device, the watchdog and the closer thread; the PortAudio
// callback holds a raw pointer to it, valid until Pa_CloseStream has returned (the closer
// thread holds a reference until then).
struct CaptureDevice::Run {
    std::shared_ptr<PortAudioLibrary> library;
    std::shared_ptr<CaptureChannel> channel;
    std::string deviceId;
    double rate = 0.0;
    PaStream* stream = nullptr;
    std::atomic<bool> abandoned{false};      // the callback must touch nothing more and abort
    std::atomic<bool> stopRequested{false};  // stop() asked for the end (not a loss)
    std::atomic<bool> streamFinished{false}; // PortAudio's stream-finished callback ran
    std::atomic<bool> failed{false};         // the watchdog declared it lost

    std::mutex closeMutex;
    std::shared_future<void> closed;  // set once the closer thread is started
};

namespace {

constexpr auto kWatchInterval = std::chrono::milliseconds(100);
constexpr auto kStopTimeout = std::chrono::seconds(3);

std::string formatSeconds(double seconds) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.1f", seconds);
    return text;
}

// The PortAudio callback: copies into the ring buffer, nothing else (no lock, no allocation,
// no logging, no resampling).
int onAudio(const void* input, void*, unsigned long frames, const PaStreamCallbackTimeInfo*,
            PaStreamCallbackFlags flags, void* user) {
    auto& run = *static_cast<CaptureDevice::Run*>(user);
    if (run.abandoned.load(std::memory_order_acquire)) return paAbort;
    CaptureChannel& channel = *run.channel;
    // The sample clock's anchor: the last frame of this buffer was captured by now, so sample 0
    // was captured by now − (frames so far) / rate. The tightest such bound over the first
    // second of callbacks is kept (the first callbacks often come in a burst of buffered audio).
    // PortAudio's own ADC timestamps are not used: through ALSA's pulse plugin they put a null
    // sink monitor's audio 0.5 s before paplay had even started.
    const uint64_t framesAfter = channel.pushedFrames() + frames;
    if (framesAfter <= uint64_t(run.rate) || !channel.started()) {
        channel.markStart(std::chrono::steady_clock::now() -
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(double(framesAfter) / run.rate)));
    }
    if (flags & paInputOverflow) channel.countDeviceOverrun();
    if (input) channel.push(static_cast<const float*>(input), size_t(frames));
    return paContinue;
}

void onStreamFinished(void* user) {
    auto& run = *static_cast<CaptureDevice::Run*>(user);
    run.streamFinished.store(true, std::memory_order_release);
    run.channel->wakeup().notify();
}

// Stops (or aborts) and closes the stream on a thread of its own, once per run; the future
// is ready when PortAudio has let go of it. Against a frozen server that is whenever the
// server resumes or dies; the thread keeps the run and PortAudio alive until then.
std::shared_future<void> closeInBackground(const std::shared_ptr<CaptureDevice::Run>& run, bool abort) {
    std::lock_guard lock(run->closeMutex);
    if (!run->closed.valid()) run->closed = closeStreamInBackground(run->stream, run, abort);
    return run->closed;
}

struct ResolvedDevice {
    PaDeviceIndex index = paNoDevice;
    InputDeviceInfo info;
};

InputDeviceInfo describeDevice(PaDeviceIndex index) {
    const PaDeviceInfo* device = Pa_GetDeviceInfo(index);
    const PaHostApiInfo* api = Pa_GetHostApiInfo(device->hostApi);
    InputDeviceInfo info;
    info.name = device->name ? device->name : "";
    info.hostApi = api && api->name ? api->name : "unknown API";
    info.maxInputChannels = device->maxInputChannels;
    info.defaultSampleRate = device->defaultSampleRate;
    info.isDefault = index == Pa_GetDefaultInputDevice();
    return info;
}

// Under PortAudioLibrary::lock().
std::vector<ResolvedDevice> inputDevices() {
    std::vector<ResolvedDevice> devices;
    const PaDeviceIndex count = Pa_GetDeviceCount();
    for (PaDeviceIndex i = 0; i < count; ++i) {
        const PaDeviceInfo* device = Pa_GetDeviceInfo(i);
        if (device && device->maxInputChannels > 0) devices.push_back({i, describeDevice(i)});
    }
    return devices;
}

std::string listForMessage(const std::vector<ResolvedDevice>& devices) {
    std::string list;
    for (const auto& d : devices) list += (list.empty() ? "'" : ", '") + d.info.id() + "'";
    return list;
}

const char* kNoDevices =
    "no audio input device found: PortAudio lists none (is a sound server such as PulseAudio or "
    "PipeWire running, and is a microphone connected?)";

// Under PortAudioLibrary::lock(). wanted: an id ("ALSA: pulse"), a bare name, or empty for
// the default input.
Result<ResolvedDevice> findDevice(const std::string& wanted) {
    if (const PaDeviceIndex count = Pa_GetDeviceCount(); count < 0) {
        return makeError(std::string("cannot list audio devices: ") + Pa_GetErrorText(count));
    }
    const auto devices = inputDevices();
    if (devices.empty()) return makeError(kNoDevices);
    if (wanted.empty()) {
        for (const auto& d : devices) {
            if (d.info.isDefault) return d;
        }
        return makeError("there is no default audio input device; choose one of " + listForMessage(devices));
    }
    for (const auto& d : devices) {
        if (d.info.id() == wanted) return d;
    }
    const ResolvedDevice* byName = nullptr;
    for (const auto& d : devices) {
        if (d.info.name != wanted) continue;
        if (byName) {
            return makeError("more than one audio input device is named '" + wanted + "'; choose by id: " +
                             listForMessage(devices));
        }
        byName = &d;
    }
    if (byName) return *byName;
    return makeError("no audio input device '" + wanted + "'; the input devices are " + listForMessage(devices));
}

// Under PortAudioLibrary::lock(). The stream parameters for the device's own rate and up to
// two of its channels (fewer if it refuses two).
Result<PaStreamParameters> chooseFormat(const ResolvedDevice& device, double* rate) {
    const PaDeviceInfo* info = Pa_GetDeviceInfo(device.index);
    if (!info) return makeError("the audio input device '" + device.info.id() + "' has gone");
    // What the device reports is checked like a file's header before it reaches the resampler.
    if (info->maxInputChannels < 1) return makeError("the audio input device '" + device.info.id() + "' has no input channels");
    if (auto shape = checkAudioShape(info->defaultSampleRate, std::min(info->maxInputChannels, 2)); !shape) {
        return makeError("the audio input device '" + device.info.id() + "' reports an " + shape.message());
    }
    PaStreamParameters params{};
    params.device = device.index;
    params.sampleFormat = paFloat32;
    // The "high" latency: fewer, larger callbacks; dictation needs tens of milliseconds, not one.
    params.suggestedLatency = info->defaultHighInputLatency;
    *rate = info->defaultSampleRate;
    PaError error = paNoError;
    for (int channels = std::min(info->maxInputChannels, 2); channels >= 1; --channels) {
        params.channelCount = channels;
        error = Pa_IsFormatSupported(&params, nullptr, *rate);
        if (error == paFormatIsSupported) return params;
    }
    return makeError("the audio input device '" + device.info.id() + "' refuses float samples at " +
                     formatSeconds(*rate / 1000.0) + " kHz: " + Pa_GetErrorText(error));
}

} // namespace

std::string InputDeviceInfo::describe() const {
    char rate[32];
    std::snprintf(rate, sizeof(rate), "%.0f Hz", defaultSampleRate);
    return id() + " — " + rate + ", up to " + std::to_string(maxInputChannels) + " channel" +
           (maxInputChannels == 1 ? "" : "s") + (isDefault ? " (default input)" : "");
}

Result<std::vector<InputDeviceInfo>> listInputDevices() {
    auto library = PortAudioLibrary::acquire();
    if (!library) return library.error();
    auto guard = PortAudioLibrary::lock();
    if (const PaDeviceIndex count = Pa_GetDeviceCount(); count < 0) {
        return makeError(std::string("cannot list audio devices: ") + Pa_GetErrorText(count));
    }
    std::vector<InputDeviceInfo> list;
    for (auto& d : inputDevices()) list.push_back(std::move(d.info));
    return list;
}

CaptureDevice::CaptureDevice(const CaptureOptions& options)
    : RingSource(options.quality), m_options(options) {}

Result<std::unique_ptr<CaptureDevice>> CaptureDevice::open(const CaptureOptions& options) {
    if (!(options.ringSeconds > 0.0) || !(options.stallTimeoutSeconds > 0.0) || !(options.startTimeoutSeconds > 0.0)) {
        return makeError("capture options: the ring length and the timeouts must be positive");
    }
    std::unique_ptr<CaptureDevice> device(new CaptureDevice(options));
    if (auto found = device->resolve(); !found) return found.error();
    return device;
}

Result<void> CaptureDevice::resolve() {
    auto library = PortAudioLibrary::acquire();
    if (!library) return library.error();
    auto guard = PortAudioLibrary::lock();
    auto device = findDevice(m_options.device);
    if (!device) return device.error();
    double rate = 0.0;
    auto params = chooseFormat(device.value(), &rate);
    if (!params) return params.error();
    m_device = device->info;
    m_rate = int(std::lround(rate));
    m_channels = params->channelCount;
    std::lock_guard info(m_infoMutex);
    m_description = m_device.id() + ", " + std::to_string(m_rate) + " Hz, " + std::to_string(m_channels) + " ch";
    return {};
}

CaptureDevice::~CaptureDevice() { stop(); }

std::string CaptureDevice::description() const {
    std::lock_guard info(m_infoMutex);
    return m_description;
}

Result<void> CaptureDevice::start() {
    std::lock_guard control(m_control);
    if (m_current && !m_current->failed.load() && status().running()) return {};
    stopWatchdog();
    m_current.reset();  // a failed run closes itself in the background

    auto library = PortAudioLibrary::acquire();
    if (!library) return library.error();
    auto run = std::make_shared<Run>();
    run->library = library.value();
    {
        auto guard = PortAudioLibrary::lock();
        auto device = findDevice(m_options.device);
        if (!device) return device.error();
        double rate = 0.0;
        auto params = chooseFormat(device.value(), &rate);
        if (!params) return params.error();
        m_device = device->info;
        m_rate = int(std::lround(rate));
        m_channels = params->channelCount;
        {
            std::lock_guard info(m_infoMutex);
            m_description = m_device.id() + ", " + std::to_string(m_rate) + " Hz, " + std::to_string(m_channels) + " ch";
        }
        run->deviceId = m_device.id();
        run->rate = rate;
        const auto ringFrames = size_t(std::ceil(m_options.ringSeconds * rate));
        run->channel = std::make_shared<CaptureChannel>(m_rate, m_channels, ringFrames, 1.0, wakeup());
        const PaError opened = Pa_OpenStream(&run->stream, &params.value(), nullptr, rate, paFramesPerBufferUnspecified,
                                             paNoFlag, onAudio, run.get());
        if (opened != paNoError) {
            return makeError("cannot open the audio input device '" + run->deviceId + "': " + Pa_GetErrorText(opened));
        }
        Pa_SetStreamFinishedCallback(run->stream, onStreamFinished);
    }
    if (auto begun = beginRun(run->channel); !begun) {
        auto guard = PortAudioLibrary::lock();
        Pa_CloseStream(run->stream);
        return begun.error();
    }
    if (const PaError started = Pa_StartStream(run->stream); started != paNoError) {
        const std::string message = "cannot start the audio input device '" + run->deviceId + "': " + Pa_GetErrorText(started);
        endRun(SourceState::Failed, message);
        run->channel->end();
        auto guard = PortAudioLibrary::lock();
        Pa_CloseStream(run->stream);
        return makeError(message);
    }
    m_current = run;
    {
        std::lock_guard lock(m_watchMutex);
        m_watchQuit = false;
    }
    m_watchdog = std::thread([this, run] { watch(run); });
    return {};
}

void CaptureDevice::watch(std::shared_ptr<Run> run) {
    using Clock = std::chrono::steady_clock;
    uint64_t lastFrames = 0;
    auto lastProgress = Clock::now();
    while (true) {
        {
            std::unique_lock lock(m_watchMutex);
            if (m_watchWake.wait_for(lock, kWatchInterval, [this] { return m_watchQuit; })) return;
        }
        if (run->streamFinished.load(std::memory_order_acquire) && !run->stopRequested.load()) {
            fail(*run, "lost the audio input device '" + run->deviceId +
                           "': the stream ended on its own (the sound server stopped, or the device or its source "
                           "was removed); the audio captured until then is kept");
            closeInBackground(run, true);
            return;
        }
        const uint64_t frames = run->channel->pushedFrames();
        const auto now = Clock::now();
        if (frames != lastFrames) {
            lastFrames = frames;
            lastProgress = now;
            continue;
        }
        const bool started = run->channel->started();
        const double limit = started ? m_options.stallTimeoutSeconds : m_options.startTimeoutSeconds;
        if (std::chrono::duration<double>(now - lastProgress).count() > limit) {
            fail(*run, "lost the audio input device '" + run->deviceId + "': no audio " +
                           (started ? "came for " : "arrived within ") + formatSeconds(limit) +
                           " s (the sound server does not respond, or the device hangs); the audio captured until "
                           "then is kept");
            closeInBackground(run, true);
            return;
        }
    }
}

void CaptureDevice::fail(Run& run, const std::string& message) {
    run.failed.store(true);
    run.abandoned.store(true, std::memory_order_release);
    endRun(SourceState::Failed, message);
    run.channel->end();
}

void CaptureDevice::stopWatchdog() {
    if (!m_watchdog.joinable()) return;
    {
        std::lock_guard lock(m_watchMutex);
        m_watchQuit = true;
    }
    m_watchWake.notify_all();
    m_watchdog.join();
}

void CaptureDevice::stop() {
    std::lock_guard control(m_control);
    stopWatchdog();
    std::shared_ptr<Run> run = std::move(m_current);
    if (!run) return;
    if (run->failed.load()) return;  // already ended and closing
    run->stopRequested.store(true);
    // Pa_StopStream lets the callbacks in flight finish: every frame captured reaches the ring.
    auto closed = closeInBackground(run, false);
    if (closed.wait_for(kStopTimeout) == std::future_status::ready) {
        endRun(SourceState::Finished, "stopped");
    } else {
        run->abandoned.store(true, std::memory_order_release);
        endRun(SourceState::Failed, "the audio input device '" + run->deviceId + "' did not stop within " +
                                        formatSeconds(std::chrono::duration<double>(kStopTimeout).count()) +
                                        " s (the sound server does not respond); the audio captured until then is kept");
    }
    run->channel->end();
}

} // namespace hearsay
