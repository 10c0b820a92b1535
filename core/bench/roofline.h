// Physical floors of the fixed work: arithmetic per 30 s window over peak FLOP/s (the encoder
// is compute-bound) and bytes per decoded token over memory bandwidth (single-token decoding
// is memory-bound), so measured times can be read against what the machine could do at best.
#pragma once

#include "core/backend/backend.h"
#include "core/bench/bench_work.h"
#include "core/bench/fixed_work.h"
#include "core/model/whisper_config.h"
#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace hearsay {

class HugePageMapping;

// FLOPs (a multiply-add counts 2) of one encoder pass over a full window: both convolutions,
// every layer's projections, attention and MLP, plus the cross-attention K/V projection of
// every decoder layer (which the benchmark's encoder figure includes).
double encoderFlops(const WhisperConfig& config);

// FLOPs of one decoder token whose self cache holds `position` positions: projections, self
// attention over position + 1 keys, cross attention over n_audio_ctx keys, MLP, logits.
double decoderTokenFlops(const WhisperConfig& config, int position);

// Bytes per element of the decoder's weights and K/V caches as a backend holds them, for the
// floors. CPU: f16 model files keep their weight matrices f16 (2 bytes), q8_0 files their blocks
// (34 bytes per 32), anything else is widened to float32; the self cache is float32, the cross
// cache half (CpuBackend::allocateKv). CUDA: Precision::Fp16 holds half weight matrices and a half
// cross cache (Backend::allocateKv; the self cache stays float32), Fp32 float32 throughout
// (kernels/README.md, "Precision"). The floors assume the default kernels (HEARSAY_CUDA_DISABLE
// unset).
struct ElementBytes {
    double weights = 4.0;
    double caches = 4.0;      // the self-attention cache
    double crossCache = 4.0;  // the cross-attention cache
    // The logits table (the token embedding) where it is kept otherwise than the weights: bytes an
    // element (0: as the weights), and whether a single row's logits read its sketch (the CPU's
    // q16 split, core/backend/q16_split.h): the hi plane and scales (1 + 1/16 bytes an element)
    // for the ordinary tokens, all of it for the special tokens and for the text tokens within
    // reach of the largest (SessionOptions::exactTextLogits rows, at least).
    double logitsTable = 0.0;
    bool logitsSketch = false;
};
ElementBytes floorElementBytes(BackendKind backend, const std::string& modelDtype, Precision precision);

// Bytes one decode step must read when it adds one token to each of `beams` beams whose caches
// hold `position` positions: the decoder weights used per step (once per step, shared by the
// beams; not the cross K/V projections, which run once per window) and the K/V caches of
// every beam (self: position + 1 rows per beam; cross: n_audio_ctx rows, shared by the beams).
double decoderStepBytes(const WhisperConfig& config, int position, int beams, const ElementBytes& bytes);

struct PeakRates {
    double flopsPerSecond = 0.0;   // attainable arithmetic peak used for the floors
    double bytesPerSecond = 0.0;   // attainable memory bandwidth used for the floors
    std::string flopsSource;       // how the figure was obtained
    std::string bytesSource;
    // The vendor's figures beside the measured ones (GPUs in gpu_specs.h), 0 when unknown.
    double specFlopsPerSecond = 0.0;
    double specBytesPerSecond = 0.0;
    std::string specSource;
};

struct WorkFloors {
    double encoderMs = 0.0;          // encoderFlops / peak
    double decodeMsPerToken = 0.0;   // mean over the decode steps of max(bytes/bandwidth, flops/peak)
    double batchMsPerToken = 0.0;    // the same with batchBeams beams sharing the weight reads
    double promptMsPerToken = 0.0;   // prompt FLOPs per token / peak (compute-bound)
    double encoderFlops = 0.0;
    double decodeBytesPerToken = 0.0;  // mean over the decode steps
    double promptFlopsPerToken = 0.0;
};

WorkFloors computeFloors(const WhisperConfig& config, const FixedWork& work, const PeakRates& peak,
                         const ElementBytes& bytes);

// Each timed decode run against its own floor: the run's ms per token over the decode floor at
// the bandwidth the probe read right after that run (FixedWorkResult::probeBytesPerSecond, one
// reading a run, in the same order), `peak` giving the rest. Where the bandwidth moves within
// minutes, a run is then read against its own minutes rather than the median of all of them.
// Empty when the runs and the readings do not pair up.
Samples decodeAgainstFloorByRun(const WhisperConfig& config, const FixedWork& work, PeakRates peak,
                                const ElementBytes& bytes, const FixedWorkResult& fixed);

// Attainable peaks measured on this machine with `threads` threads: an OpenBLAS SGEMM
// (2048³) for FLOP/s, and a ReadProbe (best of 3 pairs) for bandwidth. About 2 s.
PeakRates measurePeakRates(int threads);

// FLOP/s of an OpenBLAS SGEMM of 2048³ on `threads` threads (<= 0: all available): the best of
// 3 after a warm-up, about a second. The bench also reads it beside the encoder runs and the
// peers', whose ratios move with whatever else the machine's cores are doing.
double measureSgemmRate(int threads);
std::string describeSgemmRate(int threads);  // "SGEMM 2048x2048x2048 of <BLAS>, best of 3, N threads"

// The read bandwidth `threads` threads attain over a 512 MiB buffer (in huge pages where the
// system grants them), first touched by the threads that read it. One probe can be read again
// and again: the bench reads it beside each timed decode run, since on a shared machine the
// bandwidth a run gets can change by half within minutes.
class ReadProbe {
public:
    explicit ReadProbe(int threads);  // threads <= 0: all available
    ~ReadProbe();
    ReadProbe(const ReadProbe&) = delete;
    ReadProbe& operator=(const ReadProbe&) = delete;

    // Bytes per second: the fastest of `pairs` plain and `pairs` prefetched reads, in turn.
    double measure(int pairs);
    std::string describe() const;  // "read of a 512 MiB buffer[ in huge pages]"

private:
    double pass(bool fill, bool prefetch);  // seconds

    int m_threads;
    size_t m_count;
    std::unique_ptr<HugePageMapping> m_pages;
    std::unique_ptr<uint64_t[]> m_heap;
    uint64_t* m_data = nullptr;
};

nlohmann::json toJson(const PeakRates& peak);
nlohmann::json toJson(const WorkFloors& floors);
nlohmann::json toJson(const ElementBytes& bytes);

} // namespace hearsay
