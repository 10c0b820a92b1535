#include "core/audio/container_decoder.h"

#include <atomic>

namespace hearsay {
namespace {
std::atomic<ContainerOpener> g_opener{nullptr};
}

void setContainerDecoder(ContainerOpener opener) { g_opener.store(opener, std::memory_order_release); }

ContainerOpener containerDecoder() { return g_opener.load(std::memory_order_acquire); }

} // namespace hearsay
