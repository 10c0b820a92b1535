// hearsay-cli vad: the speech segments of an audio file by voice activity detection (Silero VAD
// with its built-in weights), offline or through the streaming detector the live session uses.
#ifdef HEARSAY_HAVE_AUDIO  // engine-only builds have no audio library, hence no VAD

#include "app/cli/command.h"
#include "core/audio/audio_file.h"
#include "core/audio/silero_vad.h"
#include "core/audio/voice_activity.h"

#include <cstdio>
#include <memory>

namespace hearsay::cli {
namespace {

void declareVad(CLI::App& c) {
    c.footer("Prints the speech segments of an audio file (any format `transcribe` reads), one per line:\n"
             "start and end in seconds (or samples at 16 kHz with --samples). The detector in use goes to\n"
             "stderr: Silero VAD from the weights built into this program, or the energy-gate fallback.");
    addPositional(c, "FILE", "the audio file");
    addNumber(c, "--threshold", 0.0, 1.0, "speech when the chunk probability is >= P (default 0.5)");
    addNumber(c, "--neg-threshold", 0.0, 1.0, "inside speech, silence below P (default: threshold - 0.15)");
    addInt(c, "--min-silence-ms", 0, 3600000, "silence that ends a segment (default 500)");
    addInt(c, "--speech-pad-ms", 0, 3600000, "padding on both sides of a segment (default 100)");
    addInt(c, "--min-speech-ms", 0, 3600000, "shorter segments are dropped (default 250)");
    addNumber(c, "--max-speech-s", 0.0, std::nullopt, "longer segments are cut at a pause (default: no limit)");
    addText(c, "--weights", "FILE", "Silero VAD weights from a safetensors file instead of the built-in ones");
    addInt(c, "--stream", 1, 16000 * 3600,
           "feed the streaming detector blocks of N samples and print its events: \"start|end POSITION decided "
           "POSITION\" (when each became certain)");
    addFlag(c, "--samples", "positions in samples instead of seconds");
}

int runVad(const Options& options) {
    if (options.positional().size() != 1) {
        std::fprintf(stderr, "hearsay-cli vad: give one audio file (see --help)\n");
        return 2;
    }
    VadOptions vad;
    auto threshold = options.doubleValue("threshold", vad.threshold);
    auto minSilence = options.intValue("min-silence-ms", vad.minSilenceMs);
    auto pad = options.intValue("speech-pad-ms", vad.speechPadMs);
    auto minSpeech = options.intValue("min-speech-ms", vad.minSpeechMs);
    auto maxSpeech = options.doubleValue("max-speech-s", vad.maxSpeechSeconds);
    auto block = options.intValue("stream", 0);
    for (const auto* r : {&minSilence, &pad, &minSpeech, &block}) {
        if (!r->ok()) {
            std::fprintf(stderr, "hearsay-cli vad: %s\n", r->message().c_str());
            return 2;
        }
    }
    for (const auto* r : {&threshold, &maxSpeech}) {
        if (!r->ok()) {
            std::fprintf(stderr, "hearsay-cli vad: %s\n", r->message().c_str());
            return 2;
        }
    }
    vad.threshold = threshold.value();
    vad.minSilenceMs = minSilence.value();
    vad.speechPadMs = pad.value();
    vad.minSpeechMs = minSpeech.value();
    vad.maxSpeechSeconds = maxSpeech.value();
    if (options.has("neg-threshold")) {
        auto neg = options.doubleValue("neg-threshold", 0.0);
        if (!neg) {
            std::fprintf(stderr, "hearsay-cli vad: %s\n", neg.message().c_str());
            return 2;
        }
        vad.negativeThreshold = neg.value();
    }
    if (block.value() < 0) {
        std::fprintf(stderr, "hearsay-cli vad: --stream takes a positive block size in samples\n");
        return 2;
    }

    Result<VoiceActivityDetector> detector = makeError("");
    if (auto weights = options.value("weights")) {
        auto silero = SileroVad::load(*weights);
        if (!silero) {
            std::fprintf(stderr, "hearsay-cli vad: %s\n", silero.message().c_str());
            return 1;
        }
        detector = VoiceActivityDetector::create(vad, std::make_unique<SileroVad>(std::move(silero.value())));
    } else {
        detector = VoiceActivityDetector::create(vad);
    }
    if (!detector) {
        std::fprintf(stderr, "hearsay-cli vad: %s\n", detector.message().c_str());
        return 2;
    }
    std::fprintf(stderr, "hearsay-cli vad: %s\n", detector->describe().c_str());

    auto audio = decodeAudioFile(options.positional()[0]);
    if (!audio) {
        std::fprintf(stderr, "hearsay-cli vad: %s\n", audio.message().c_str());
        return 1;
    }
    const bool samples = options.has("samples");
    auto position = [&](int64_t sample) {
        char text[32];
        if (samples) std::snprintf(text, sizeof text, "%lld", static_cast<long long>(sample));
        else std::snprintf(text, sizeof text, "%.3f", double(sample) / kVadSampleRate);
        return std::string(text);
    };

    std::vector<VadEvent> events;
    const std::span<const float> all(audio->samples);
    const size_t step = block.value() > 0 ? size_t(block.value()) : all.size() + 1;
    for (size_t at = 0; at < all.size(); at += step) detector->feed(all.subspan(at, std::min(step, all.size() - at)), events);
    detector->finish(events);
    if (block.value() > 0) {
        for (const VadEvent& e : events) {
            std::printf("%s %s decided %s\n", e.kind == VadEvent::Kind::SpeechStart ? "start" : "end",
                        position(e.sample).c_str(), position(e.decidedAt).c_str());
        }
    } else {
        for (size_t i = 0; i + 1 < events.size(); i += 2) {
            std::printf("%s %s\n", position(events[i].sample).c_str(), position(events[i + 1].sample).c_str());
        }
    }
    return 0;
}

} // namespace

HEARSAY_CLI_COMMAND(vad, "vad", "speech segments of an audio file (Silero VAD, built in)", declareVad,
                    runVad);

} // namespace hearsay::cli

#endif
