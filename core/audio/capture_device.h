// Microphone capture through PortAudio: the device list, and a device as an AudioSource. The
// PortAudio callback only copies into a ring buffer; mixing to mono and resampling to 16 kHz
// happen on the consumer's thread (RingSource).
#pragma once

#include "core/audio/ring_source.h"
#include "core/util/result.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace hearsay {

struct InputDeviceInfo {
    std::string name;           // PortAudio's name: "pulse", "default", "HDA Intel PCH: ALC257 Analog (hw:0,0)"
    std::string hostApi;        // "ALSA", "JACK Audio Connection Kit", ...
    int maxInputChannels = 0;   // as the driver reports it (ALSA's pulse plugin says 32)
    double defaultSampleRate = 0.0;
    bool isDefault = false;     // PortAudio's default input device

    // "ALSA: pulse": unique, stable from run to run (PortAudio's indices are not); what
    // CaptureOptions::device takes (the bare name works too when no other API has it).
    std::string id() const { return hostApi + ": " + name; }
    // One line for a list: "ALSA: default — 44100 Hz, up to 32 channels (default input)".
    std::string describe() const;
};

// The input devices PortAudio sees now, default first. An empty list is not an error (a
// machine without microphone or sound server); a PortAudio that cannot initialise is.
Result<std::vector<InputDeviceInfo>> listInputDevices();

struct CaptureOptions {
    std::string device;                  // id or name from listInputDevices(); empty: the default input
    double ringSeconds = 20.0;           // ring buffer length: how far the consumer may fall behind
    double stallTimeoutSeconds = 4.0;    // no audio for this long while running: the device is lost
    double startTimeoutSeconds = 10.0;   // the same, before the first audio arrives
    Resampler::Quality quality = Resampler::Quality::Medium;  // of the conversion to 16 kHz
};

// A PortAudio input stream, opened at the device's own rate (its default sample rate) and
// channel count (up to 2; mixed to mono on the consumer side).
//
// Device loss. A watchdog thread per run watches the stream: PortAudio ending it on its own
// (ALSA reports an error: the sound server died, the source was removed) or no audio for
// stallTimeoutSeconds (a frozen server: the callback simply stops coming) ends the run with
// SourceState::Failed and a message naming the device. What was captured stays readable; the
// stream is closed on a thread of its own, because PortAudio's stop and close block until a
// frozen server recovers or dies. start() may then be called again (the device is looked up
// afresh, so a sound server that came back is found).
class CaptureDevice final : public RingSource {
public:
    // Finds the device and checks that it accepts the format; nothing is captured before
    // start(). Errors: no input device at all, an unknown name (the message lists the devices),
    // a format the device refuses.
    static Result<std::unique_ptr<CaptureDevice>> open(const CaptureOptions& options = {});
    ~CaptureDevice() override;  // stops

    Result<void> start() override;
    void stop() override;
    std::string description() const override;

    // The device as found by open() or the last start(): the consumer thread only (start()
    // updates them); description() is the any-thread summary.
    const InputDeviceInfo& device() const { return m_device; }
    int deviceRate() const { return m_rate; }
    int deviceChannels() const { return m_channels; }

    struct Run;  // one started stream (internal; shared with the PortAudio callback)

private:
    explicit CaptureDevice(const CaptureOptions& options);
    Result<void> resolve();           // finds the device and its format (consumer thread)
    void watch(std::shared_ptr<Run> run);
    void fail(Run& run, const std::string& message);
    void stopWatchdog();              // under m_control

    const CaptureOptions m_options;
    InputDeviceInfo m_device;         // consumer thread (written by open() and start())
    int m_rate = 0;
    int m_channels = 0;
    mutable std::mutex m_infoMutex;   // guards m_description
    std::string m_description;

    std::mutex m_control;             // start() and stop() one at a time
    std::shared_ptr<Run> m_current;   // the latest stream, until stop() (under m_control)
    std::thread m_watchdog;           // watches m_current (under m_control)
    std::mutex m_watchMutex;
    std::condition_variable m_watchWake;
    bool m_watchQuit = false;         // under m_watchMutex
};

} // namespace hearsay
