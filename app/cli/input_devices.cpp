#include "app/cli/input_devices.h"

#ifdef HEARSAY_HAVE_AUDIO

#include "core/audio/capture_device.h"

#include <cstdio>

namespace hearsay::cli {

int printInputDevices(const char* command) {
    auto devices = listInputDevices();
    if (!devices) {
        std::fprintf(stderr, "hearsay-cli %s: %s\n", command, devices.message().c_str());
        return 1;
    }
    if (devices->empty()) {
        std::printf("no input devices (is a sound server running, is a microphone connected?)\n");
        return 0;
    }
    for (const auto& d : devices.value()) std::printf("%s\n", d.describe().c_str());
    return 0;
}

} // namespace hearsay::cli

#endif  // HEARSAY_HAVE_AUDIO
