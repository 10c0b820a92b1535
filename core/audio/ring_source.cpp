// RingSource: the consumer half of a live source (drain, downmix, resample, clock, counters).
#include "core/audio/ring_source.h"

#include "core/audio/downmix.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace hearsay {
namespace {

constexpr size_t kPumpFrames = 8192;  // frames taken from the ring per conversion step

uint64_t to16k(uint64_t frames, int rate) {
    return rate == AudioSource::kSampleRate ? frames : frames * uint64_t(AudioSource::kSampleRate) / uint64_t(rate);
}

SourceCounters channelCounters(const CaptureChannel& channel) {
    SourceCounters c;
    const uint64_t dropped = channel.droppedFrames();
    const uint64_t pushed = channel.pushedFrames();
    c.capturedSamples = to16k(pushed - std::min(dropped, pushed), channel.rate());
    c.droppedSamples = to16k(dropped, channel.rate());
    c.overflowEvents = channel.overflowEvents();
    c.deviceOverruns = channel.deviceOverruns();
    return c;
}

} // namespace

RingSource::RingSource(Resampler::Quality quality) : m_quality(quality) {}

RingSource::~RingSource() = default;

Result<void> RingSource::beginRun(std::shared_ptr<CaptureChannel> channel) {
    // The previous run has ended (its producer is gone): convert all it left, tail included,
    // so that its samples keep their place before the new run's.
    if (m_run) {
        while (runOpen()) {
            if (!pump(kPumpFrames * 4)) break;
        }
    }
    auto resampler = Resampler::create(channel->rate(), kSampleRate, 1, m_quality);
    if (!resampler) return resampler.error();
    auto run = std::make_unique<Run>();
    run->channel = channel;
    run->resampler = std::make_unique<Resampler>(std::move(resampler).value());

    std::lock_guard lock(m_mutex);
    if (m_live) {
        const SourceCounters old = channelCounters(*m_live);
        m_retired.capturedSamples += old.capturedSamples;
        m_retired.droppedSamples += old.droppedSamples;
        m_retired.overflowEvents += old.overflowEvents;
        m_retired.deviceOverruns += old.deviceOverruns;
    }
    if (!m_anchors.empty() && m_anchors.back().channel) {
        Anchor& last = m_anchors.back();
        if (last.channel->started()) {
            last.startNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               last.channel->startTime().time_since_epoch()).count();
        }
        last.channel.reset();
    }
    m_anchors.push_back({m_converted, channel, 0, channel->pace()});
    m_live = channel;
    m_run = std::move(run);
    m_status = {SourceState::Running, {}};
    return {};
}

bool RingSource::endRun(SourceState state, std::string message) {
    {
        std::lock_guard lock(m_mutex);
        if (m_status.state != SourceState::Running) return false;
        m_status = {state, std::move(message)};
    }
    m_wakeup->notify();
    return true;
}

void RingSource::setStatus(SourceState state, std::string message) {
    {
        std::lock_guard lock(m_mutex);
        m_status = {state, std::move(message)};
    }
    m_wakeup->notify();
}

bool RingSource::runOpen() const {
    return m_run && !m_run->flushed;
}

bool RingSource::pump(size_t wanted) {
    if (!m_run) return false;
    CaptureChannel& channel = *m_run->channel;
    // Read "ended" before the available count: if it is set, nothing comes after what is there.
    const bool ended = channel.ended();
    const size_t available = channel.availableFrames();
    if (available > 0) {
        const double framesPerSample = double(channel.rate()) / kSampleRate;
        const size_t frames = std::min({available, kPumpFrames, size_t(double(wanted) * framesPerSample) + 64});
        m_interleaved.resize(frames * size_t(channel.channels()));
        const size_t got = channel.pop(m_interleaved.data(), frames);
        downmixToMono(m_interleaved.data(), got, channel.channels(), m_mono);
        const size_t before = m_pending.size();
        // The resampler only fails on a broken libsamplerate state; the samples would be lost
        // either way, so they are counted as dropped by not being converted.
        (void)m_run->resampler->process(m_mono.data(), m_mono.size(), m_pending);
        m_converted += m_pending.size() - before;
        return true;
    }
    if (ended && !m_run->flushed) {
        const size_t before = m_pending.size();
        (void)m_run->resampler->flush(m_pending);
        m_converted += m_pending.size() - before;
        m_run->flushed = true;
        return m_pending.size() > before;
    }
    return false;
}

size_t RingSource::read(std::span<float> out) {
    size_t done = 0;
    while (done < out.size()) {
        if (pendingCount() > 0) {
            const size_t n = std::min(out.size() - done, pendingCount());
            std::memcpy(out.data() + done, m_pending.data() + m_pendingAt, n * sizeof(float));
            m_pendingAt += n;
            done += n;
            continue;
        }
        m_pending.clear();
        m_pendingAt = 0;
        if (!pump(out.size() - done)) break;
    }
    m_read.fetch_add(done, std::memory_order_relaxed);
    return done;
}

WaitResult RingSource::waitForData(std::chrono::milliseconds timeout, size_t minSamples) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    minSamples = std::max<size_t>(minSamples, 1);
    while (true) {
        const uint32_t ticket = m_wakeup->prepare();
        WaitResult result = WaitResult::Timeout;
        bool decided = false;
        if (m_run && m_run->channel->ended() && m_run->channel->availableFrames() == 0 && !m_run->flushed) {
            pump(0);  // take the tail: then the count below is final
        }
        // "ended" is read before the count: once set, nothing arrives after what is counted.
        const bool producing = m_run && !m_run->channel->ended();
        const double samplesPerFrame = m_run ? double(kSampleRate) / m_run->channel->rate() : 0.0;
        const size_t available = m_run ? m_run->channel->availableFrames() : 0;
        const size_t have = pendingCount() + size_t(std::ceil(double(available) * samplesPerFrame));
        if (have >= minSamples || (have > 0 && !producing)) {
            result = WaitResult::Ready;
            decided = true;
        } else if (!producing) {  // nothing left: the tail was taken above
            result = WaitResult::Ended;
            decided = true;
        } else if (std::chrono::steady_clock::now() >= deadline) {
            decided = true;
        } else {
            m_wakeup->wait(ticket, deadline);
        }
        m_wakeup->done();
        if (decided) return result;
    }
}

bool RingSource::atEnd() {
    if (m_run && m_run->channel->ended() && m_run->channel->availableFrames() == 0 && !m_run->flushed) pump(0);
    return !runOpen() && pendingCount() == 0;
}

SourceStatus RingSource::status() const {
    std::lock_guard lock(m_mutex);
    return m_status;
}

SourceCounters RingSource::counters() const {
    std::lock_guard lock(m_mutex);
    SourceCounters total = m_retired;
    if (m_live) {
        const SourceCounters live = channelCounters(*m_live);
        total.capturedSamples += live.capturedSamples;
        total.droppedSamples += live.droppedSamples;
        total.overflowEvents += live.overflowEvents;
        total.deviceOverruns += live.deviceOverruns;
    }
    total.readSamples = m_read.load(std::memory_order_relaxed);
    return total;
}

InputLevel RingSource::level() const {
    std::lock_guard lock(m_mutex);
    return m_live ? m_live->level() : InputLevel{};
}

std::optional<std::chrono::steady_clock::time_point> RingSource::timeOfSample(uint64_t n) const {
    std::lock_guard lock(m_mutex);
    auto it = std::upper_bound(m_anchors.begin(), m_anchors.end(), n,
                               [](uint64_t sample, const Anchor& a) { return sample < a.firstSample; });
    if (it == m_anchors.begin()) return std::nullopt;
    const Anchor& anchor = *std::prev(it);
    if (anchor.pace <= 0.0) return std::nullopt;
    std::chrono::steady_clock::time_point start;
    if (anchor.channel) {
        if (!anchor.channel->started()) return std::nullopt;
        start = anchor.channel->startTime();
    } else {
        if (anchor.startNs == 0) return std::nullopt;
        start = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(anchor.startNs));
    }
    const double seconds = double(n - anchor.firstSample) / (double(kSampleRate) * anchor.pace);
    return start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
}

} // namespace hearsay
