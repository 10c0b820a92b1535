// Operation and byte counts of Whisper's encoder and decoder, and a small probe of the
// machine's attainable peaks (SGEMM FLOP/s, streaming read bandwidth).
#include "core/bench/roofline.h"
#include "core/util/json_text.h"

#include "core/backend/backend.h"
#include "core/backend/blas.h"
#include "core/backend/huge_pages.h"
#include "core/backend/q16_split.h"
#include "core/backend/row_prefetch.h"
#include "core/nn/inference_session.h"
#include "core/text/tokenizer.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

using nlohmann::json;

namespace hearsay {

double encoderFlops(const WhisperConfig& c) {
    const double frames = 2.0 * c.nAudioCtx, n = c.nAudioCtx, d = c.nAudioState;
    const double conv1 = 2.0 * frames * d * (c.nMels * 3.0);      // [3000][n_mels·3] · [n_mels·3][d]
    const double conv2 = 2.0 * n * d * (d * 3.0);                  // stride 2: [1500][d·3] · [d·3][d]
    const double layer = 24.0 * n * d * d + 4.0 * n * n * d;       // q,k,v,o 8nd², attention 4n²d, MLP 16nd²
    const double crossKv = 4.0 * n * d * c.nTextState;             // K and V of each decoder layer
    return conv1 + conv2 + c.nAudioLayer * layer + c.nTextLayer * crossKv;
}

double decoderTokenFlops(const WhisperConfig& c, int position) {
    const double d = c.nTextState, keys = position + 1.0, n = c.nAudioCtx;
    // self q,k,v,o 8d², self attention 4·keys·d, cross q,o 4d², cross attention 4nd, MLP 16d²
    const double layer = 28.0 * d * d + 4.0 * keys * d + 4.0 * n * d;
    return c.nTextLayer * layer + 2.0 * d * c.nVocab;   // + logits against the token embedding
}

double decoderStepBytes(const WhisperConfig& c, int position, int beams, const ElementBytes& bytes) {
    const double d = c.nTextState;
    const double layers = c.nTextLayer * 14.0 * d * d;  // self 4d², cross q,o 2d², MLP 8d²
    const double selfCache = c.nTextLayer * 2.0 * (position + 1.0) * d * beams;
    const double crossCache = c.nTextLayer * 2.0 * double(c.nAudioCtx) * d;
    const double tableElement = bytes.logitsTable > 0.0 ? bytes.logitsTable : bytes.weights;
    double table = double(c.nVocab) * d * tableElement;  // the logits against the token embedding
    if (bytes.logitsSketch && beams == 1) {
        const double eot = std::clamp(SpecialTokens::forVocabularySize(c.nVocab).eot, 0, c.nVocab);
        const double exactRows = double(c.nVocab) - eot + SessionOptions{}.exactTextLogits;
        table = eot * d * (1.0 + 2.0 / 32.0) + exactRows * d * tableElement;
    }
    return layers * bytes.weights + table + selfCache * bytes.caches + crossCache * bytes.crossCache;
}

ElementBytes floorElementBytes(BackendKind backend, const std::string& modelDtype, Precision precision) {
    if (backend == BackendKind::Cuda) {
        return precision == Precision::Fp16 ? ElementBytes{2.0, 4.0, 2.0} : ElementBytes{4.0, 4.0, 4.0};
    }
    const double weights = modelDtype == "f16"    ? 2.0
                           : modelDtype == "q8_0" ? 34.0 / 32.0
                           : modelDtype == "q5_0" ? 22.0 / 32.0
                           : modelDtype == "q5_1" ? 24.0 / 32.0
                                                  : 4.0;
    ElementBytes bytes{weights, 4.0, 2.0};
    // An f16 table the CPU keeps as q16 split where its kernels run (CpuBackend::createLogitsTable).
    if (modelDtype == "f16" && precision == Precision::Fp16 && simd::usingLogitsSketch()) {
        bytes.logitsTable = double(simd::q16SplitBytes(32)) / 32.0;
        bytes.logitsSketch = true;
    }
    return bytes;
}

WorkFloors computeFloors(const WhisperConfig& c, const FixedWork& work, const PeakRates& peak,
                         const ElementBytes& elementBytes) {
    WorkFloors f;
    const double flops = std::max(peak.flopsPerSecond, 1.0), bandwidth = std::max(peak.bytesPerSecond, 1.0);
    f.encoderFlops = encoderFlops(c);
    f.encoderMs = 1e3 * f.encoderFlops / flops;

    double ms = 0.0, bytes = 0.0;
    for (int p = 0; p < work.decodeSteps; ++p) {
        const double b = decoderStepBytes(c, p, 1, elementBytes);
        bytes += b;
        ms += 1e3 * std::max(b / bandwidth, decoderTokenFlops(c, p) / flops);
    }
    f.decodeMsPerToken = ms / work.decodeSteps;
    f.decodeBytesPerToken = bytes / work.decodeSteps;

    ms = 0.0;
    for (int s = 0; s < work.batchSteps; ++s) {
        const double b = decoderStepBytes(c, s, work.batchBeams, elementBytes);
        ms += 1e3 * std::max(b / bandwidth, work.batchBeams * decoderTokenFlops(c, s) / flops);
    }
    f.batchMsPerToken = ms / (double(work.batchSteps) * work.batchBeams);

    // A prompt computes logits for its last position only.
    const double logits = 2.0 * c.nTextState * c.nVocab;
    double promptFlops = 0.0;
    for (int p = 0; p < work.promptTokens; ++p) promptFlops += decoderTokenFlops(c, p) - logits;
    promptFlops += logits;
    f.promptFlopsPerToken = promptFlops / work.promptTokens;
    f.promptMsPerToken = 1e3 * f.promptFlopsPerToken / flops;
    return f;
}

Samples decodeAgainstFloorByRun(const WhisperConfig& config, const FixedWork& work, PeakRates peak,
                                const ElementBytes& bytes, const FixedWorkResult& fixed) {
    Samples ratios;
    const std::vector<double>& runs = fixed.decodeMsPerToken.values;
    const std::vector<double>& read = fixed.probeBytesPerSecond.values;
    if (runs.empty() || runs.size() != read.size()) return ratios;
    for (size_t i = 0; i < runs.size(); ++i) {
        peak.bytesPerSecond = read[i];
        const double floor = computeFloors(config, work, peak, bytes).decodeMsPerToken;
        if (floor > 0) ratios.values.push_back(runs[i] / floor);
    }
    return ratios;
}

// 64-bit XOR over 8 independent accumulators: integer work the core does far faster than
// memory delivers, so the loop measures the memory (a float sum would measure the adder).
// The read runs plain and with each line prefetched ahead as the decode kernels prefetch
// their weights (row_prefetch.h), and the faster counts: where the hardware prefetchers
// alone fall short, the floor is still what the machine attains.
// The buffer is in huge pages where the system grants them, as the weights and the cross
// cache the kernels read are (huge_pages.h): in 4 KiB pages the same read was 20 to 26%
// slower on an Intel Xeon VM, a floor for memory the kernels no longer read.
ReadProbe::ReadProbe(int threads)
    : m_threads(threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()))),
      m_count((size_t(512) << 20) / sizeof(uint64_t)) {
    m_pages = HugePageMapping::map(m_count * sizeof(uint64_t));
    if (!m_pages) m_heap.reset(new uint64_t[m_count]);
    m_data = m_pages ? reinterpret_cast<uint64_t*>(m_pages->data()) : m_heap.get();
    pass(true, false);  // first touch, in the threads that read it
}

ReadProbe::~ReadProbe() = default;

std::string ReadProbe::describe() const {
    const bool huge = m_pages && HugePageMapping::systemGrants();
    return std::string("read of a 512 MiB buffer") + (huge ? " in huge pages" : "");
}

double ReadProbe::pass(bool fill, bool prefetch) {
    using Clock = std::chrono::steady_clock;
    uint64_t* const data = m_data;
    const size_t count = m_count;
    const int threads = m_threads;
    std::vector<uint64_t> sums(size_t(threads), 0);
    const auto start = Clock::now();
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            const size_t first = count * size_t(t) / size_t(threads), last = count * size_t(t + 1) / size_t(threads);
            if (fill) {
                for (size_t i = first; i < last; ++i) data[i] = i * 0x9e3779b97f4a7c15ull;
                return;
            }
            uint64_t acc[8] = {};
            for (size_t i = first; i + 8 <= last; i += 8) {
                if (prefetch) simd::prefetchRowsAhead(&data[i], 64, data + last);
                for (int k = 0; k < 8; ++k) acc[k] ^= data[i + size_t(k)];
            }
            uint64_t x = 0;
            for (uint64_t v : acc) x ^= v;
            sums[size_t(t)] = x;
        });
    }
    for (auto& w : workers) w.join();
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (sums[0] == 1) std::fprintf(stderr, " \n");  // keeps the reads observable
    return seconds;
}

double ReadProbe::measure(int pairs) {
    double best = 1e30;
    for (int run = 0; run < 2 * std::max(pairs, 1); ++run) best = std::min(best, pass(false, run % 2 == 1));  // plain and prefetched in turn
    return double(m_count * sizeof(uint64_t)) / best;
}

namespace {
int threadsOrAll(int threads) { return threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency())); }
} // namespace

double measureSgemmRate(int threads) {
    using Clock = std::chrono::steady_clock;
    const int n = 2048;
    std::vector<float> a(size_t(n) * n, 0.5f), b(size_t(n) * n, 0.25f), c(size_t(n) * n, 0.0f);
    // The count goes back afterwards: a backend already open calls the BLAS from its own pool.
    const blas::ThreadsFor probeThreads(threadsOrAll(threads));
    double best = 1e30;
    for (int run = 0; run < 4; ++run) {  // the first run warms up the threads
        const auto start = Clock::now();
        blas::sgemm(true, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
        const double s = std::chrono::duration<double>(Clock::now() - start).count();
        if (run > 0) best = std::min(best, s);
    }
    return 2.0 * n * double(n) * n / best;
}

std::string describeSgemmRate(int threads) {
    return "SGEMM 2048x2048x2048 of " + blas::describe() + ", best of 3, " + std::to_string(threadsOrAll(threads)) + " threads";
}

PeakRates measurePeakRates(int threads) {
    threads = threadsOrAll(threads);
    PeakRates peak;

    peak.flopsPerSecond = measureSgemmRate(threads);
    peak.flopsSource = "measured: " + describeSgemmRate(threads);
    {
        ReadProbe probe(threads);
        peak.bytesPerSecond = probe.measure(3);
        peak.bytesSource = "measured: " + probe.describe() + ", best of 3 plain and 3 prefetched, " +
                           std::to_string(threads) + " threads";
    }
    return peak;
}

json toJson(const PeakRates& p) {
    json j;
    j["flopsPerSecond"] = p.flopsPerSecond;
    j["bytesPerSecond"] = p.bytesPerSecond;
    j["flopsSource"] = p.flopsSource;
    j["bytesSource"] = p.bytesSource;
    if (p.specFlopsPerSecond > 0 || p.specBytesPerSecond > 0) {
        j["specFlopsPerSecond"] = p.specFlopsPerSecond;
        j["specBytesPerSecond"] = p.specBytesPerSecond;
        j["specSource"] = p.specSource;
    }
    return j;
}

json toJson(const ElementBytes& b) {
    json j;
    j["weights"] = b.weights;
    j["caches"] = b.caches;
    j["crossCache"] = b.crossCache;
    if (b.logitsTable > 0.0) j["logitsTable"] = b.logitsTable;
    if (b.logitsSketch) j["logitsSketch"] = true;
    return j;
}

json toJson(const WorkFloors& f) {
    json j;
    j["encoderMs"] = f.encoderMs;
    j["decodeMsPerToken"] = f.decodeMsPerToken;
    j["batchMsPerToken"] = f.batchMsPerToken;
    j["promptMsPerToken"] = f.promptMsPerToken;
    j["encoderFlops"] = f.encoderFlops;
    j["decodeBytesPerToken"] = f.decodeBytesPerToken;
    j["promptFlopsPerToken"] = f.promptFlopsPerToken;
    return j;
}

} // namespace hearsay
