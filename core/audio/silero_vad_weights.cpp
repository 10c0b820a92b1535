// Embeds resources/silero_vad_v6.2_16k.safetensors with the assembler's .incbin (ELF targets, GCC
// and Clang): no generated source, no file to find at run time. CMake passes the path
// (HEARSAY_SILERO_VAD_WEIGHTS) and makes this object depend on the file.
#include "core/audio/silero_vad_weights.h"

#ifndef HEARSAY_SILERO_VAD_WEIGHTS
#error "HEARSAY_SILERO_VAD_WEIGHTS (the path of the weights file) is set by core/CMakeLists.txt"
#endif

asm(".pushsection .rodata.hearsay_silero_vad, \"a\", @progbits\n"
    ".balign 64\n"
    "hearsay_silero_vad_begin:\n"
    ".incbin \"" HEARSAY_SILERO_VAD_WEIGHTS "\"\n"
    "hearsay_silero_vad_end:\n"
    ".popsection\n");

extern "C" const std::byte hearsay_silero_vad_begin[];
extern "C" const std::byte hearsay_silero_vad_end[];

namespace hearsay {

std::span<const std::byte> bundledSileroVadWeights() {
    return {hearsay_silero_vad_begin, hearsay_silero_vad_end};
}

} // namespace hearsay
