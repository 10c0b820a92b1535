// The settings of a live transcription: how often a step runs, how long its window may grow,
// voice activity detection, decoding, and the guards against text on silence. One comment per
// field; defaults are Hearsay's choices for dictation (the results document says why).
#pragma once

#include "core/audio/vad_options.h"
#include "core/decoding/decoding_options.h"
#include "core/decoding/fallback_policy.h"
#include "core/frontend/log_mel.h"
#include "core/util/result.h"

#include <optional>
#include <string>
#include <vector>

namespace hearsay {

// How tentative text becomes committed (final) text.
enum class CommitPolicy {
    // LocalAgreement-2 (whisper_streaming): what the last two hypotheses of the window agree on;
    // the rest at the utterance's end.
    LocalAgreement,
    // AlignAtt (Simul-Whisper, SimulStreaming) read from the word alignment of each hypothesis:
    // the words that end at least alignAttGuardSeconds before the window's end, and are not its
    // last word; the rest at the utterance's end. Needs wordTimings.
    AlignAtt,
    // Nothing before the utterance ends; then its last decode, over the whole utterance with the
    // committed text before it as the prompt, is committed: the text an offline pass gives.
    UtteranceEnd,
};

const char* commitPolicyName(CommitPolicy policy);                    // agreement, alignatt, utterance
std::optional<CommitPolicy> parseCommitPolicy(const std::string& name);  // those names

struct StreamingOptions {
    // A step runs as soon as the last one finished and at least this much new audio has arrived
    // (or an utterance ended); it takes all the audio that arrived. The latency then follows the
    // time a step takes, not a fixed interval. Range: TranscriptionRequest::kMinStepSeconds..kMaxStepSeconds.
    double stepSeconds = 1.0;
    double trimSeconds = 20.0;           // a window longer than this is trimmed at its last committed segment boundary
    double maxWindowSeconds = 28.0;      // never longer than this (Whisper's window is 30 s): committed by force and trimmed
    double minWindowSeconds = 0.3;       // shorter windows are not decoded
    double minCommitSeconds = 3.0;       // nothing is committed by agreement from a window holding less audio (Whisper guesses on short windows)
    double silenceKeepSeconds = 1.0;     // while nothing is spoken, the window keeps only this much audio (the VAD decides late)
    // An utterance's audio stays in the window (its text forced as the prefix: context for the
    // next one) until a pause this long; 0: a new window starts where each utterance ends (its
    // text goes to the prompt). 0 by default: with the audio kept, base was seen to stop after
    // the forced prefix window after window when the next utterance began 0.4 s later, until the
    // window had to be cut, and the words in between were lost (scripts/bench/RESULTS.md).
    double contextSilenceSeconds = 0.0;
    bool useVad = true;                  // skip silence and end utterances on the VAD's speech-end events
    VadOptions vad;                      // threshold, minimum silence that ends an utterance, padding
    // How the window's log-mel is padded to 30 s: Zero (0.0 after the content, clamped at the
    // stream's maximum so far, as the reference does for files) or Silence (the log-mel of
    // zeros, as transformers' feature extractor on the window). Chosen by measured WER.
    MelPadding melPadding = MelPadding::Zero;
    // Reduced audio context (whisper.cpp's audio_ctx): negative: off, every window is encoded
    // into all 1500 positions (30 s) as the model was trained; ≥ 0: only the window's audio
    // plus this many seconds of the padding are encoded (50 positions a second), and the
    // decoder attends to those alone. Off by default: see scripts/bench/RESULTS.md for its
    // speed gain and word error rate cost on real speech.
    double audioContextPaddingSeconds = -1.0;
    // Words and names the speaker uses (vocabularyPrompt(): "Hearsay, PortAudio, Silero"): kept at
    // the front of every window's prompt, before the committed text, so that the decoder spells
    // them as given. Empty: none.
    std::string vocabulary;
    DecodingOptions decoding;            // language (empty: detected at the first speech), task, beam size; prompt/prefix are the session's
    std::vector<float> temperatures = {0.0f};  // fallback temperatures; one: no fallback (a step must be quick)
    FallbackThresholds thresholds;       // no-speech (windows above it give no text), log-prob, compression ratio
    bool cutRepetitionLoops = true;      // a hypothesis that ran into the sample limit in a loop keeps one occurrence
    int maxSampledTokens = 128;          // per step; a dictation step rarely needs more (Whisper's own limit is 224)
    CommitPolicy commit = CommitPolicy::LocalAgreement;
    double alignAttGuardSeconds = 0.5;   // AlignAtt: a word ending closer than this to the window's end stays tentative
    bool showTentative = true;           // report tentative text (off: committed text only)
    // Word timings from the cross-attention (one forced decoder pass a step): committed text
    // carries its words, and latencies count from each word's own end. Off: the times of a
    // segment are shared out over its characters, and committed text has no words.
    bool wordTimings = true;
    // Test and benchmark mode: one step per stepSeconds of audio however much has arrived (a
    // machine that always keeps up), so that a run is the same whatever the timing.
    bool lockstep = false;

    Result<void> validate() const;
};

} // namespace hearsay
