// Chunking audio for the VAD model, and the detector's choice between Silero VAD and the
// energy-gate fallback.
#include "core/audio/voice_activity.h"

#include "core/audio/energy_gate.h"
#include "core/audio/silero_vad.h"

#include <algorithm>

namespace hearsay {

std::vector<float> chunkProbabilities(VadModel& model, std::span<const float> audio) {
    model.reset();
    std::vector<float> out;
    out.reserve((audio.size() + kVadChunkSamples - 1) / kVadChunkSamples);
    std::array<float, kVadChunkSamples> last{};
    for (size_t at = 0; at < audio.size(); at += kVadChunkSamples) {
        if (audio.size() - at >= size_t(kVadChunkSamples)) {
            out.push_back(model.process(audio.subspan(at).first<kVadChunkSamples>()));
        } else {
            last.fill(0.0f);
            std::copy(audio.begin() + ptrdiff_t(at), audio.end(), last.begin());
            out.push_back(model.process(last));
        }
    }
    return out;
}

Result<std::vector<SpeechSegment>> speechSegments(VadModel& model, std::span<const float> audio, const VadOptions& options) {
    if (auto valid = options.validate(); !valid) return valid.error();
    const auto probabilities = chunkProbabilities(model, audio);
    return speechSegmentsFromProbabilities(probabilities, int64_t(audio.size()), options);
}

Result<VoiceActivityDetector> VoiceActivityDetector::create(const VadOptions& options, std::span<const std::byte> sileroWeights) {
    if (auto valid = options.validate(); !valid) return valid.error();
    std::unique_ptr<VadModel> model;
    if (sileroWeights.empty()) {
        model = std::make_unique<EnergyGate>("no Silero VAD weights in this build");
    } else if (auto silero = SileroVad::fromBytes(sileroWeights, sileroWeights.data() == bundledSileroVadWeights().data()
                                                                     ? kBundledSileroVadName
                                                                     : "Silero VAD weights in memory")) {
        model = std::make_unique<SileroVad>(std::move(silero.value()));
    } else {
        model = std::make_unique<EnergyGate>("Silero VAD weights unreadable: " + silero.message());
    }
    return VoiceActivityDetector(options, std::move(model));
}

Result<VoiceActivityDetector> VoiceActivityDetector::create(const VadOptions& options, std::unique_ptr<VadModel> model) {
    if (auto valid = options.validate(); !valid) return valid.error();
    if (!model) return makeError("voice activity detector: no model given");
    return VoiceActivityDetector(options, std::move(model));
}

VoiceActivityDetector::VoiceActivityDetector(const VadOptions& options, std::unique_ptr<VadModel> model)
    : m_options(options), m_model(std::move(model)), m_segmenter(options) {
    m_model->reset();
}

void VoiceActivityDetector::reset() {
    m_model->reset();
    m_segmenter.reset();
    m_pendingCount = 0;
    m_samplesFed = 0;
    m_lastProbability = 0.0f;
    m_finished = false;
}

void VoiceActivityDetector::feed(std::span<const float> samples, std::vector<VadEvent>& events) {
    if (m_finished) return;  // finished streams take nothing until reset()
    m_samplesFed += int64_t(samples.size());
    while (!samples.empty()) {
        if (m_pendingCount == 0 && samples.size() >= size_t(kVadChunkSamples)) {
            // A whole chunk straight from the caller's block.
            m_lastProbability = m_model->process(samples.first<kVadChunkSamples>());
            m_segmenter.push(m_lastProbability, events);
            samples = samples.subspan(kVadChunkSamples);
            continue;
        }
        const size_t take = std::min(samples.size(), size_t(kVadChunkSamples - m_pendingCount));
        std::copy_n(samples.begin(), take, m_pending.begin() + m_pendingCount);
        m_pendingCount += int(take);
        samples = samples.subspan(take);
        if (m_pendingCount == kVadChunkSamples) {
            m_lastProbability = m_model->process(m_pending);
            m_segmenter.push(m_lastProbability, events);
            m_pendingCount = 0;
        }
    }
}

void VoiceActivityDetector::finish(std::vector<VadEvent>& events) {
    if (m_finished) return;
    m_finished = true;
    std::optional<double> partial;
    if (m_pendingCount > 0) {
        std::fill(m_pending.begin() + m_pendingCount, m_pending.end(), 0.0f);
        m_lastProbability = m_model->process(m_pending);
        partial = m_lastProbability;
        m_pendingCount = 0;
    }
    m_segmenter.finish(m_samplesFed, events, partial);
}

} // namespace hearsay
