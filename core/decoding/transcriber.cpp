// The long-form loop over 30-second windows (whisper/transcribe.py transcribe()).
#include "core/decoding/transcriber.h"
#include "core/util/strings.h"

#include "core/decoding/repetition_detector.h"
#include "core/decoding/window_segmenter.h"
#include "core/frontend/log_mel.h"
#include "core/nn/inference_session.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

namespace hearsay {
namespace {

std::vector<int> textTokens(const std::vector<int>& tokens, int eot) {
    std::vector<int> text;
    for (int t : tokens)
        if (t < eot) text.push_back(t);
    return text;
}

constexpr size_t kReadBlock = 16000;  // samples per read: one second

// The first pass: the whole recording's length and log-mel maximum (what the reference clamps
// every window against), keeping no more than a block and a frame's samples.
struct RecordingScan {
    size_t samples = 0;
    float maxLog10 = 0.0f;
};
Result<RecordingScan> scanRecording(SampleReader& audio, int nMels) {
    if (auto r = audio.rewind(); !r) return r.error();
    LogMelStream stream(nMels);
    std::vector<float> block(kReadBlock);
    for (;;) {
        auto n = audio.read(block);
        if (!n) return n.error();
        if (n.value() == 0) break;
        stream.append(block.data(), n.value());
        stream.discardBefore(stream.framesReady());
    }
    stream.finish();
    return RecordingScan{stream.samplesAppended(), stream.maxLog10()};
}

// The second pass: windows of the recording's log-mel, read ahead as far as a window needs and
// forgotten behind the seek (which only moves forward).
class WindowSource {
public:
    WindowSource(SampleReader& audio, int nMels, float maxLog10) : m_audio(audio), m_stream(nMels), m_maxLog10(maxLog10) {}

    Result<void> start() { return m_audio.rewind(); }

    // Frames [seek, seek + frames), normalised with the recording's maximum, 0.0 after them.
    Result<LogMel> window(int seek, int frames) {
        // Frame t needs the samples up to t*160 + 200.
        const size_t needed = (size_t(seek) + size_t(frames)) * kHopLength + kFftSize / 2;
        std::vector<float> block(kReadBlock);
        while (!m_stream.finished() && m_stream.samplesAppended() < needed) {
            auto n = m_audio.read(block);
            if (!n) return n.error();
            if (n.value() == 0) {
                m_stream.finish();
            } else {
                m_stream.append(block.data(), n.value());
            }
        }
        m_stream.discardBefore(size_t(seek));
        LogMel mel = m_stream.window(size_t(seek), size_t(frames), MelWindowOptions{MelPadding::Zero, m_maxLog10});
        if (mel.frames == 0) return makeError("the audio ended before mel frame " + std::to_string(seek + frames));
        return mel;
    }

private:
    SampleReader& m_audio;
    LogMelStream m_stream;
    float m_maxLog10;
};

} // namespace

Result<Transcript> transcribe(InferenceSession& session, const Tokenizer& tokenizer, std::span<const float> samples,
                              const TranscribeOptions& options, const TranscribeProgress& progress) {
    SpanSampleReader reader(samples);
    return transcribe(session, tokenizer, reader, options, progress);
}

Result<Transcript> transcribe(InferenceSession& session, const Tokenizer& tokenizer, SampleReader& audio,
                              const TranscribeOptions& options, const TranscribeProgress& progress) {
    const auto wallStart = std::chrono::steady_clock::now();
    const WhisperConfig& config = session.model().config();
    const SpecialTokens& special = tokenizer.special();
    const int inputStride = kChunkFrames / config.nAudioCtx;  // mel frames per timestamp step: 2
    const double timePrecision = double(inputStride) * kHopLength / kSampleRate;

    auto scan = scanRecording(audio, config.nMels);
    if (!scan) return scan.error();
    const int contentFrames = int(scan->samples / size_t(kHopLength));
    WindowSource windows(audio, config.nMels, scan->maxLog10);
    if (auto r = windows.start(); !r) return r.error();

    Transcript transcript;
    RunStatistics& stats = transcript.statistics;
    stats.audioSeconds = double(scan->samples) / kSampleRate;
    stats.selfCache = session.selfAttentionCache();
    stats.crossCache = session.crossAttentionCache();

    DecodingOptions decoding = options.decoding;
    int encodedSeek = -1, encodedFrames = -1;
    auto encodeWindow = [&](int seek, int frames) -> Result<void> {
        if (encodedSeek == seek && encodedFrames == frames) return {};
        auto mel = windows.window(seek, frames);
        if (!mel) return mel.error();
        if (auto r = session.encode(mel.value()); !r) return r;
        encodedSeek = seek;
        encodedFrames = frames;
        const SessionTimings t = session.timings();
        stats.encoderMs += t.encoderMs;
        ++stats.windows;
        return {};
    };
    auto collectDecodeTimings = [&] {
        const SessionTimings t = session.timings();  // since the last encode()
        stats.decodeMs += t.decodeMs;
        stats.decodeCalls += t.decodeCalls;
    };

    // Language: detected once on the first 30 s, then fixed for the whole recording. As
    // faster-whisper, the detection window holds the frames of the first 30 s including the one
    // after the content (the window of the first segment stops at the content).
    if (!tokenizer.isMultilingual()) {
        transcript.language = "en";
    } else if (decoding.language.empty()) {
        if (contentFrames == 0) return makeError("the audio is empty: no language to detect");
        if (auto r = encodeWindow(0, std::min(kChunkFrames, contentFrames + 1)); !r) return r.error();
        auto detection = detectLanguage(session, tokenizer, nullptr, decoding.detectAmong);
        if (!detection) return detection.error();
        decoding.language = detection->code;
        auto probabilities = detection->probabilities;
        std::stable_sort(probabilities.begin(), probabilities.end(),
                         [](auto& a, auto& b) { return a.probability > b.probability; });
        for (const auto& p : probabilities) transcript.languageProbabilities.emplace_back(p.code, p.probability);
        transcript.language = detection->code;
    } else {
        const int token = tokenizer.languageToken(decoding.language);
        if (token < 0) return makeError("unknown language '" + decoding.language + "'");
        transcript.language = std::string(tokenizer.languageCode(token));
        decoding.language = transcript.language;
    }

    std::vector<int> allTokens;
    size_t promptResetSince = 0;
    size_t initialPromptLength = 0;
    if (!stripWhitespace(options.initialPrompt).empty()) {
        allTokens = tokenizer.encode(" " + stripWhitespace(options.initialPrompt));
        initialPromptLength = allTokens.size();
    }

    int seek = 0;
    double lastSpeechTimestamp = 0.0;  // word timestamps: where the speech so far ended
    while (seek < contentFrames) {
        const double timeOffset = double(seek) * kHopLength / kSampleRate;
        const int segmentFrames = std::min(kChunkFrames, contentFrames - seek);
        if (auto r = encodeWindow(seek, segmentFrames); !r) return r.error();

        decoding.prompt.assign(allTokens.begin() + std::ptrdiff_t(promptResetSince), allTokens.end());
        decoding.seed = options.decoding.seed + uint64_t(seek);
        int attempts = 0;
        auto decoded = decodeWithFallback(session, tokenizer, decoding, options.temperatures, options.thresholds, &attempts);
        collectDecodeTimings();
        encodedSeek = -1;  // the decoder state of this window is spent; a revisit re-encodes
        if (!decoded) return decoded.error();
        DecodingResult& result = decoded.value();
        stats.fallbacks += attempts - 1;
        stats.sampledTokens += result.steps;

        if (isSilentWindow(result, options.thresholds)) {
            ++stats.silentWindows;
            seek += segmentFrames;
            if (progress) progress(std::min(1.0, double(seek) / contentFrames), {});
            continue;
        }

        std::vector<int> tokens = result.tokens;
        if (options.cutRepetitionLoops && result.endedByLimit) {
            const RepetitionLoop loop = findTrailingLoop(tokens, special.timestampBegin);
            if (loop.repeats > 0) {
                tokens.resize(loop.keepUntil);
                ++stats.repetitionLoopsCut;
            }
        }

        WindowSplit split =
            splitWindow(tokens, special.timestampBegin, timeOffset, segmentFrames, timePrecision, inputStride);
        std::vector<std::vector<Word>> sliceWords(split.slices.size());
        int nextSeek = seek + split.seekAdvance;
        if (options.wordTimestamps) {
            const auto alignStart = std::chrono::steady_clock::now();
            auto words = addWordTimestamps(session, tokenizer, transcript.language, decoding.task, split.slices, timeOffset,
                                           segmentFrames, lastSpeechTimestamp, options.words);
            if (!words) return words.error();
            sliceWords = std::move(words->words);
            stats.wordTimestampsMs +=
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - alignStart).count();
            ++stats.alignedWindows;
            // The reference's get_end(): the last word's end, else the last segment's.
            std::optional<double> lastWordEnd;
            for (size_t i = sliceWords.size(); i-- > 0 && !lastWordEnd;) {
                if (!sliceWords[i].empty()) lastWordEnd = sliceWords[i].back().end;
            }
            if (!lastWordEnd && !split.slices.empty()) lastWordEnd = split.slices.back().end;
            if (!split.singleTimestampEnding && lastWordEnd && *lastWordEnd > timeOffset) {
                const int wordSeek = int(std::nearbyint(*lastWordEnd * kSampleRate / kHopLength));
                if (wordSeek > seek) nextSeek = wordSeek;
            }
            if (lastWordEnd) lastSpeechTimestamp = *lastWordEnd;
        }
        std::vector<Segment> produced;
        for (size_t s = 0; s < split.slices.size(); ++s) {
            const WindowSlice& slice = split.slices[s];
            Segment segment;
            segment.id = int(transcript.segments.size() + produced.size());
            segment.seek = seek;
            segment.start = slice.start;
            segment.end = slice.end;
            segment.text = tokenizer.decode(textTokens(slice.tokens, special.eot));
            segment.tokens = slice.tokens;
            segment.temperature = result.temperature;
            segment.avgLogprob = result.avgLogprob;
            segment.compressionRatio = result.compressionRatio;
            segment.noSpeechProb = result.noSpeechProb;
            segment.words = std::move(sliceWords[s]);
            if (segment.start == segment.end || stripWhitespace(segment.text).empty()) {
                segment.text.clear();  // instantaneous or empty: kept as a record, without text
                segment.tokens.clear();
                segment.words.clear();
            }
            // The model's timestamps may run past the end of the audio (the window is padded to
            // 30 s); a segment ends where the audio does.
            segment.start = std::min(segment.start, stats.audioSeconds);
            segment.end = std::min(segment.end, stats.audioSeconds);
            allTokens.insert(allTokens.end(), segment.tokens.begin(), segment.tokens.end());
            produced.push_back(std::move(segment));
        }
        transcript.segments.insert(transcript.segments.end(), produced.begin(), produced.end());

        if (!options.conditionOnPreviousText || result.temperature > 0.5f) promptResetSince = allTokens.size();
        seek = nextSeek;
        if (progress) progress(std::min(1.0, double(seek) / contentFrames), produced);
    }

    transcript.text = tokenizer.decode(textTokens(
        std::vector<int>(allTokens.begin() + std::ptrdiff_t(initialPromptLength), allTokens.end()), special.eot));
    const KvCacheStats cache = session.cacheStats();
    stats.selfCacheBytes = cache.selfAllocated;
    stats.crossCacheBytes = cache.crossAllocated;
    stats.decodeMsPerToken = stats.decodeCalls > 0 ? stats.decodeMs / stats.decodeCalls : 0.0;
    stats.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return transcript;
}

} // namespace hearsay
