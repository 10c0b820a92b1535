// x86 vector intrinsics for the CPU backend's kernels (compiled per function with target
// attributes and chosen at run time, so the build needs no -march flag). Defines
// HEARSAY_SIMD_X86 on x86. GCC 12 warns inside its own AVX-512 headers (_mm512_undefined_ps in
// masked and reducing intrinsics), a known false positive of -Wmaybe-uninitialized, silenced
// for the files that include this one.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define HEARSAY_SIMD_X86 1
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
