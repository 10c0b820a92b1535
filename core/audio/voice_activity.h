// Voice activity detection for Hearsay's streaming session and file transcription: which parts
// of 16 kHz audio hold speech. Silero VAD (built-in weights) decides per 32 ms chunk; the
// segment rules are the silero-vad package's. Offline over a clip, or streaming with events.
#pragma once

#include "core/audio/silero_vad_weights.h"
#include "core/audio/speech_segments.h"
#include "core/audio/vad_model.h"
#include "core/audio/vad_options.h"
#include "core/util/result.h"

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace hearsay {

// The speech probability of every 512-sample chunk of `audio` from a fresh state, the last
// chunk zero-padded: [ceil(samples / 512)].
std::vector<float> chunkProbabilities(VadModel& model, std::span<const float> audio);

// The package's get_speech_timestamps: padded segments in samples. Resets `model` first.
Result<std::vector<SpeechSegment>> speechSegments(VadModel& model, std::span<const float> audio, const VadOptions& options);

// The streaming form: feed 16 kHz samples in blocks of any length as they arrive; it emits
// speech-start and speech-end events at sample positions since the stream began. Fed a whole
// clip and finished, its events are exactly speechSegments() of that clip.
class VoiceActivityDetector {
public:
    // Silero VAD from `sileroWeights` (safetensors bytes; by default those built into the
    // binary). Only when they are missing or unreadable does it fall back to the energy gate,
    // and says so: usingFallback(), describe(). An error only for invalid options.
    static Result<VoiceActivityDetector> create(const VadOptions& options = {},
                                                std::span<const std::byte> sileroWeights = bundledSileroVadWeights());
    // With a given model (e.g. a SileroVad sharing weights with other streams).
    static Result<VoiceActivityDetector> create(const VadOptions& options, std::unique_ptr<VadModel> model);

    // Appends the events that became certain. Blocks of any length, including empty ones.
    void feed(std::span<const float> samples, std::vector<VadEvent>& events);
    // End of the stream: runs the zero-padded last partial chunk and closes an open segment at
    // the stream's end. reset() before feeding a new stream.
    void finish(std::vector<VadEvent>& events);
    // A new stream: state, position and pending samples cleared (weights kept).
    void reset();

    bool inSpeech() const { return m_segmenter.triggered(); }   // raw state after the last chunk (undelayed, unpadded)
    float lastProbability() const { return m_lastProbability; } // of the last chunk processed
    int64_t samplesFed() const { return m_samplesFed; }
    const VadOptions& options() const { return m_options; }
    bool usingFallback() const { return m_model->isFallback(); }
    std::string describe() const { return m_model->describe(); }

private:
    VoiceActivityDetector(const VadOptions& options, std::unique_ptr<VadModel> model);

    VadOptions m_options;
    std::unique_ptr<VadModel> m_model;
    SpeechSegmenter m_segmenter;
    std::array<float, kVadChunkSamples> m_pending{};  // samples of the chunk being filled
    int m_pendingCount = 0;
    int64_t m_samplesFed = 0;
    float m_lastProbability = 0.0f;
    bool m_finished = false;
};

} // namespace hearsay
