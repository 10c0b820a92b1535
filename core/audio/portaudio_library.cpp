// PortAudioLibrary: the one Pa_Initialize / Pa_Terminate pair, behind a weak pointer count.
#include "core/audio/portaudio_library.h"

#include <alsa/asoundlib.h>
#include <portaudio.h>

#include <cstdarg>
#include <string>

namespace hearsay {
namespace {

std::mutex& globalMutex() {
    static auto* mutex = new std::mutex;  // never destroyed: a stalled stream may outlive main()
    return *mutex;
}

std::weak_ptr<PortAudioLibrary>& current() {
    static auto* handle = new std::weak_ptr<PortAudioLibrary>;
    return *handle;
}

// ALSA prints every failed probe ("Unknown PCM dmix", "cannot find card '0'") to stderr.
// Hearsay reports what matters through its own errors, so ALSA's messages are dropped.
void quietAlsa(const char*, int, const char*, int, const char*, ...) {}

} // namespace

std::unique_lock<std::mutex> PortAudioLibrary::lock() { return std::unique_lock(globalMutex()); }

Result<std::shared_ptr<PortAudioLibrary>> PortAudioLibrary::acquire() {
    auto guard = lock();
    if (auto live = current().lock()) return live;
    snd_lib_error_set_handler(quietAlsa);
    // PortAudio counts its own initialisations too, so a handle being destroyed on another
    // thread right now (its Pa_Terminate waiting for this lock) leaves PortAudio initialised.
    if (const PaError error = Pa_Initialize(); error != paNoError) {
        return makeError(std::string("cannot initialise PortAudio: ") + Pa_GetErrorText(error));
    }
    std::shared_ptr<PortAudioLibrary> handle(new PortAudioLibrary);
    current() = handle;
    return handle;
}

PortAudioLibrary::~PortAudioLibrary() {
    auto guard = lock();
    Pa_Terminate();
}

} // namespace hearsay
