// SimulatedLiveSource: a feeder thread that decodes the file and pushes it on schedule.
#include "core/audio/simulated_live_source.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace hearsay {
namespace {

std::string describe(const std::filesystem::path& path, double speed) {
    char pace[48];
    if (speed > 0.0) {
        std::snprintf(pace, sizeof(pace), "%g× real time", speed);
    } else {
        std::snprintf(pace, sizeof(pace), "as fast as possible");
    }
    return "file " + path.filename().string() + " played live, " + pace;
}

} // namespace

SimulatedLiveSource::SimulatedLiveSource(AudioFileReader decoder, const SimulatedLiveOptions& options)
    : RingSource(Resampler::Quality::Best),  // the ring holds 16 kHz mono already: nothing is converted
      m_options(options),
      m_info(decoder.info()),
      m_description(describe(decoder.path(), options.speed)),
      m_decoder(std::move(decoder)) {}

Result<std::unique_ptr<SimulatedLiveSource>> SimulatedLiveSource::open(const std::filesystem::path& path,
                                                                       const SimulatedLiveOptions& options) {
    if (!(options.speed >= 0.0) || !std::isfinite(options.speed)) {
        return makeError("simulated live input: the speed must be a finite number ≥ 0 (0: as fast as possible)");
    }
    if (!(options.ringSeconds > 0.0) || !(options.chunkSeconds > 0.0) || options.chunkSeconds > options.ringSeconds) {
        return makeError("simulated live input: the ring and chunk lengths must be positive, the chunk the shorter");
    }
    auto decoder = AudioFileReader::open(path);
    if (!decoder) return decoder.error();
    return std::unique_ptr<SimulatedLiveSource>(new SimulatedLiveSource(std::move(decoder).value(), options));
}

SimulatedLiveSource::~SimulatedLiveSource() { stop(); }

std::string SimulatedLiveSource::description() const { return m_description; }

Result<void> SimulatedLiveSource::start() {
    std::lock_guard control(m_control);
    if (status().running()) return {};
    joinFeeder();
    if (m_played) {
        if (auto rewound = m_decoder.rewind(); !rewound) return rewound.error();
    }
    m_played = true;
    const auto ringFrames = size_t(std::ceil(m_options.ringSeconds * kSampleRate));
    auto channel = std::make_shared<CaptureChannel>(kSampleRate, 1, ringFrames, m_options.speed, wakeup());
    if (auto begun = beginRun(channel); !begun) return begun.error();
    {
        std::lock_guard lock(m_stopMutex);
        m_stopRequested = false;
    }
    m_feeder = std::thread([this, channel] { feed(channel); });
    return {};
}

void SimulatedLiveSource::stop() {
    std::lock_guard control(m_control);
    joinFeeder();
}

void SimulatedLiveSource::joinFeeder() {
    if (!m_feeder.joinable()) return;
    {
        std::lock_guard lock(m_stopMutex);
        m_stopRequested = true;
    }
    m_stopWake.notify_all();
    m_feeder.join();
}

bool SimulatedLiveSource::sleepUntil(std::chrono::steady_clock::time_point when) {
    std::unique_lock lock(m_stopMutex);
    return !m_stopWake.wait_until(lock, when, [this] { return m_stopRequested; });
}

void SimulatedLiveSource::feed(std::shared_ptr<CaptureChannel> channel) {
    using Clock = std::chrono::steady_clock;
    const bool paced = m_options.speed > 0.0;
    const size_t chunk = std::max<size_t>(1, size_t(std::lround(m_options.chunkSeconds * kSampleRate)));
    const double samplesPerSecond = kSampleRate * m_options.speed;
    const auto start = Clock::now();
    channel->markStart(start);

    std::vector<float> block;
    size_t at = 0;          // next unpushed sample in block
    uint64_t pushed = 0;    // samples pushed so far
    std::string failure;
    bool stopped = false;
    while (true) {
        if (at == block.size()) {
            auto more = m_decoder.next(block);
            at = 0;
            if (!more) {
                failure = more.message();
                break;
            }
            if (!more.value()) break;
        }
        const size_t n = std::min(chunk, block.size() - at);
        if (paced) {
            const auto due = start + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(double(pushed + n) / samplesPerSecond));
            if (!sleepUntil(due)) {
                stopped = true;
                break;
            }
        } else {
            // As fast as possible, but nothing dropped: wait for the consumer to make room.
            while (channel->freeFrames() < n) {
                if (!sleepUntil(Clock::now() + std::chrono::milliseconds(2))) {
                    stopped = true;
                    break;
                }
            }
            if (stopped) break;
        }
        channel->push(block.data() + at, n);
        at += n;
        pushed += n;
        std::lock_guard lock(m_stopMutex);
        if (m_stopRequested) {
            stopped = true;
            break;
        }
    }
    if (!failure.empty()) {
        endRun(SourceState::Failed, failure);
    } else if (stopped) {
        endRun(SourceState::Finished, "stopped");
    } else {
        endRun(SourceState::Finished, "end of file");
    }
    channel->end();
}

} // namespace hearsay
