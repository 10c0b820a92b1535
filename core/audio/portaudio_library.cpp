// PortAudioLibrary: the one Pa_Initialize / Pa_Terminate pair, behind a weak pointer count.
#include "core/audio/portaudio_library.h"

#include <alsa/asoundlib.h>
#include <portaudio.h>

#include <dlfcn.h>

#include <cstdarg>
#include <thread>
#include <cstdio>
#include <string>
#include <vector>

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

// JACK's client library (PortAudio probes it at every Pa_Initialize) prints "Cannot connect to
// server socket", "jack server is not running or cannot be started" and more when no JACK server
// runs, which is the usual case on a desktop: a user takes them for failures. While PortAudio
// initialises, JACK's messages are held back; when the probe found no server (no JACK host API),
// they are dropped, otherwise printed. After that JACK's errors go to stderr as they come. The
// functions are looked up at run time: PortAudio may be built without JACK.
using JackMessageFunction = void (*)(const char*);
using JackSetMessageFunction = void (*)(JackMessageFunction);

std::vector<std::string>& heldJackMessages() {
    static auto* held = new std::vector<std::string>;  // only touched under globalMutex()
    return *held;
}
void holdJackMessage(const char* message) { heldJackMessages().emplace_back(message ? message : ""); }
void printJackMessage(const char* message) { std::fprintf(stderr, "JACK: %s\n", message ? message : ""); }

void setJackHandlers(JackMessageFunction handler) {
    for (const char* name : {"jack_set_error_function", "jack_set_info_function"}) {
        if (auto set = reinterpret_cast<JackSetMessageFunction>(dlsym(RTLD_DEFAULT, name))) set(handler);
    }
}

} // namespace

std::unique_lock<std::mutex> PortAudioLibrary::lock() { return std::unique_lock(globalMutex()); }

Result<std::shared_ptr<PortAudioLibrary>> PortAudioLibrary::acquire() {
    auto guard = lock();
    if (auto live = current().lock()) return live;
    snd_lib_error_set_handler(quietAlsa);
    // PortAudio counts its own initialisations too, so a handle being destroyed on another
    // thread right now (its Pa_Terminate waiting for this lock) leaves PortAudio initialised.
    heldJackMessages().clear();
    setJackHandlers(holdJackMessage);
    const PaError error = Pa_Initialize();
    const bool jackServerFound = error == paNoError && Pa_HostApiTypeIdToHostApiIndex(paJACK) >= 0;
    setJackHandlers(printJackMessage);
    if (jackServerFound) {
        for (const auto& message : heldJackMessages()) printJackMessage(message.c_str());
    }
    heldJackMessages().clear();
    if (error != paNoError) {
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

std::shared_future<void> closeStreamInBackground(void* stream, std::shared_ptr<void> owner, bool abort) {
    auto done = std::make_shared<std::promise<void>>();
    std::shared_future<void> closed = done->get_future().share();
    std::thread([stream, owner = std::move(owner), abort, done]() mutable {
        if (abort) {
            Pa_AbortStream(stream);
        } else {
            Pa_StopStream(stream);
        }
        {
            auto guard = PortAudioLibrary::lock();
            Pa_CloseStream(stream);
        }
        owner.reset();
        done->set_value();
    }).detach();
    return closed;
}

} // namespace hearsay
