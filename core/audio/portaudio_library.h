// PortAudio's global state (Pa_Initialize / Pa_Terminate) in one place, reference-counted:
// whoever needs PortAudio holds a PortAudioLibrary handle; the last handle released terminates it.
#pragma once

#include "core/util/result.h"

#include <future>
#include <memory>
#include <mutex>

namespace hearsay {

// A handle on an initialised PortAudio. PortAudio enumerates devices in Pa_Initialize, so a
// device list is as fresh as the oldest live handle: listInputDevices() and each capture run
// take their own handle, and a list taken while nothing else holds one is current.
//
// PortAudio is not thread-safe: calls that touch its global state (initialise, terminate,
// device queries, opening and closing streams) are made with lock() held. Starting and stopping
// a stream is not, because against a frozen sound server those calls block until it recovers
// or dies (see capture_device.cpp): they run on a thread of their own and must not hold up the
// rest.
class PortAudioLibrary {
public:
    // Initialises PortAudio if no handle is alive. Also silences ALSA's own error printing
    // (probing a machine prints a screenful of "Unknown PCM" lines otherwise).
    static Result<std::shared_ptr<PortAudioLibrary>> acquire();

    ~PortAudioLibrary();  // Pa_Terminate when this is the last handle
    PortAudioLibrary(const PortAudioLibrary&) = delete;
    PortAudioLibrary& operator=(const PortAudioLibrary&) = delete;

    // The lock that serialises PortAudio's global calls (see above). Never destroyed.
    static std::unique_lock<std::mutex> lock();

private:
    PortAudioLibrary() = default;
};

// Stops `stream` (a PaStream: Pa_StopStream lets the callbacks in flight finish, Pa_AbortStream
// does not) and closes it, on a thread of its own: against a frozen sound server those calls
// block until the server resumes or dies. The thread holds `owner` (what the stream's callbacks
// use, and the PortAudio handle) until PortAudio has let go of the stream, and releases it before
// the future becomes ready, so whoever waits on the future then holds the last reference.
std::shared_future<void> closeStreamInBackground(void* stream, std::shared_ptr<void> owner, bool abort);

} // namespace hearsay
