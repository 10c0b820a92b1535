// Denormal floats flushed to zero for the CPU backend's threads. Trained Whisper weights drive
// some activations into the denormal range (GELU of large negative inputs, softmax weights far
// below the maximum), and x86 cores take a microcode assist for each denormal operand or result:
// on an Intel Xeon the real base model's encoder took 1.7x as long with them as without. The
// flags (MXCSR FTZ and DAZ) are per thread; values that small change no result that matters
// (CTranslate2 and whisper.cpp's ggml run the same way).
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace hearsay {

// Sets flush-to-zero and denormals-are-zero on this thread for its lifetime, then restores the
// thread's previous setting. A no-op where the CPU has no such mode here.
class ScopedFlushDenormals {
public:
#if defined(__x86_64__) || defined(__i386__)
    ScopedFlushDenormals() : m_saved(_mm_getcsr()) { _mm_setcsr(m_saved | kFlushBits); }
    ~ScopedFlushDenormals() { _mm_setcsr(m_saved); }
    static bool active() { return (_mm_getcsr() & kFlushBits) == kFlushBits; }

private:
    static constexpr unsigned kFlushBits = 0x8040;  // FTZ (bit 15) | DAZ (bit 6)
    unsigned m_saved;
#else
    static bool active() { return false; }
#endif
    ScopedFlushDenormals(const ScopedFlushDenormals&) = delete;
    ScopedFlushDenormals& operator=(const ScopedFlushDenormals&) = delete;
};

} // namespace hearsay
