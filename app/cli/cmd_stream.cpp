// hearsay-cli stream: live transcription from a microphone (PortAudio) or of a file played at
// real-time pace, with the streaming session of core/streaming. Tentative text is shown and
// overwritten in place on a terminal, committed text is printed line by line; JSON gives every
// event and a summary. Only option parsing and printing live here.
#include "app/cli/command.h"
#include "app/cli/input_devices.h"
#ifdef HEARSAY_HAVE_STREAMING
#include "core/audio/capture_device.h"
#include "core/audio/simulated_live_source.h"
#include "core/decoding/language_detection.h"
#include "core/engine/engine.h"
#include "core/engine/transcription_request.h"
#include "core/streaming/streaming_benchmark.h"
#include "core/streaming/streaming_session.h"
#include "core/transcript/journal_store.h"
#include "core/transcript/replacement_rules.h"
#include "core/transcript/timestamp_format.h"
#include "core/transcript/transcript_export.h"
#include "core/util/json_text.h"
#ifdef HEARSAY_HAVE_TYPING
#include "core/typing/insertion_spacing.h"
#include "core/typing/newline_mode.h"
#include "core/typing/text_typer.h"
#endif

#include <atomic>
#include <csignal>
#include <cstdio>
#include <optional>
#include <unistd.h>

namespace hearsay::cli {
namespace {

// The options. Defaults in the help text are the ones runStream and StreamingOptions apply.
void declareStream(CLI::App& c) {
    c.footer("usage: hearsay-cli stream --model PATH (--mic [--device NAME] | FILE) [OPTIONS]\n"
             "       hearsay-cli stream --list-devices\n"
             "Transcribes live: from a microphone (--mic; Ctrl-C stops, finishes what was heard and commits it),\n"
             "or a FILE played as if it were one. Tentative text is shown and replaced in place (on a terminal),\n"
             "committed text is printed as it is committed.");
    addPositional(c, "FILE", "an audio file played as if it were a microphone");
    addFlag(c, "--list-devices", "list the input devices and stop");
    addText(c, "--model", "PATH", "Hugging Face or CTranslate2 model directory, or a whisper.cpp ggml .bin");
    addFlag(c, "--mic", "the default microphone (or --device NAME, an id from --list-devices)");
    addText(c, "--device", "NAME", "this input device (an id from --list-devices)");
    addFlag(c, "--realtime",
            "play FILE at real-time pace (--speed X: X times faster); without it FILE is streamed as fast as "
            "possible, one step at a time (lockstep)");
    addNumber(c, "--speed", 0.001, 1000.0, "with --realtime (default 1)");
    addNumber(c, "--step", 0.05, 10.0,
              "a step starts once this much new audio has arrived and the last step is done; it takes all the "
              "audio that arrived (default 1.0)");
    addChoice(c, "--commit", {"agreement", "alignatt", "utterance"},
              "when text becomes final: agreement (what two consecutive hypotheses agree on; default), alignatt "
              "(words the cross-attention places clear of the window's end) or utterance (only when the speaker "
              "pauses: one decode of the whole utterance, the text an offline pass gives)");
    addNumber(c, "--trim", 0.0, 29.0, "trim windows longer than S seconds at a committed boundary (default 20)");
    addNumber(c, "--vad-threshold", 0.0, 1.0, "speech probability threshold (default 0.5)");
    addFlag(c, "--no-vad", "decode everything (no voice activity detection)");
    addInt(c, "--min-silence-ms", 0, 60000, "silence that ends an utterance (default 500)");
    addChoice(c, "--mel-padding", {"zero", "silence"}, "zero (default) or silence: how a window's log-mel is padded to 30 s");
    addNumber(c, "--context-pause", 0.0, std::nullopt,
              "an utterance's audio stays in the window as context for the next one until a pause this long "
              "(default 0: every utterance starts afresh)");
    addNumber(c, "--audio-context-padding", 0.0, 29.99,
              "encode only the window plus S seconds (reduced audio context, as whisper.cpp's audio_ctx; faster, "
              "may change the text); default: all 30 s");
    addText(c, "--language", "L", "language code or name (default: detected)");
    addText(c, "--languages", "LIST", "detect the language only among these (codes or names: en,de,fr)");
    addChoice(c, "--task", {"transcribe", "translate"}, "transcribe (default) or translate (to English)");
    addInt(c, "--beam-size", 1, 16, "beams (default 1: greedy)");
    addNumber(c, "--temperature-increment", 0.0, std::nullopt, "fallback step (default 0: none)");
    addText(c, "--vocabulary", "FILE",
            "words and names you use, one a line: always in the decoder's prompt, so that they are spelled as "
            "written")->check(existingFile());
    addText(c, "--replacements", "FILE",
            "rules applied to committed text before it is printed, journaled or typed, one a line: \"hearsay => "
            "Hearsay\" (a word or phrase, any case) or \"re:PATTERN => TEXT\" (a regular expression; $1 its first "
            "group; \\n a newline)")->check(existingFile());
    addFlag(c, "--spoken-commands",
            "\"comma\", \"period\", \"question mark\", \"new line\", \"new paragraph\" ... said aloud become the "
            "characters (English; German with --language de)");
    addFlag(c, "--no-tentative", "print committed text only");
    addFlag(c, "--word-timestamps",
            "committed text with its words and their times (JSON: \"words\": [{word, start, end, probability}]; "
            "text: one [start --> end] word per line)");
    addFlag(c, "--no-word-timings",
            "skip the per-step word alignment (one forced decoder pass a step): latencies then count from times "
            "shared out over the characters");
    addFlag(c, "--no-self-cache", "re-run the decoder over all tokens at each step");
    addFlag(c, "--no-cross-cache", "re-project the encoder output at each step");
    addInt(c, "--threads", 0, 4096, "CPU threads (default 0: all cores)");
    addChoice(c, "--backend", {"auto", "cpu", "cuda"}, "auto (default), cpu or cuda");
    addChoice(c, "--output-format", {"text", "json"},
              "text (default) or json (one JSON object per line: every event, then a summary with latency median "
              "and p90, real-time factor, dropped samples)");
    addFlag(c, "--quiet", "no status lines on stderr");
    addFlag(c, "--type",
            "also type each committed piece into the window that has the keyboard focus (X11, or Wayland through "
            "wtype; see `hearsay-cli type`), with a space between pieces");
    addChoice(c, "--newline", {"return", "shift-enter", "space"},
              "with --type, a newline as: return (default), shift-enter (a line break in chat boxes, where Return "
              "sends) or space");
    addFlag(c, "--no-journal",
            "do not journal: by default each committed piece of text is also written to a journal file in "
            "$XDG_STATE_HOME/hearsay as it is committed, which a normal end removes and a crash or a kill leaves "
            "for `hearsay-cli journal show|restore|discard`");
}

std::atomic<StreamingSession*> g_session{nullptr};

void onStreamInterrupt(int) {
    if (StreamingSession* s = g_session.load()) s->requestStop();  // atomics only
    std::signal(SIGINT, SIG_DFL);
}

int runStream(const Options& options) {
    auto fail = [](const std::string& message, int code) {
        std::fprintf(stderr, "hearsay-cli stream: %s\n", message.c_str());
        return code;
    };
    if (options.has("list-devices")) return printInputDevices("stream");
    if (!options.value("model")) return fail("--model PATH is required (see --help)", 2);
    const bool mic = options.has("mic") || options.value("device");
    if (mic == !options.positional().empty() || options.positional().size() > 1) {
        return fail("give either --mic (or --device NAME) or one FILE (see --help)", 2);
    }
    const std::string format = options.value("output-format", "text");
    if (format != "text" && format != "json") return fail("--output-format must be text or json", 2);
    const bool json = format == "json", quiet = options.has("quiet");

    StreamingOptions so;
    auto step = options.doubleValue("step", so.stepSeconds);
    auto trim = options.doubleValue("trim", so.trimSeconds);
    auto threshold = options.doubleValue("vad-threshold", so.vad.threshold);
    auto silence = options.intValue("min-silence-ms", so.vad.minSilenceMs);
    auto beam = options.intValue("beam-size", 1);
    auto increment = options.doubleValue("temperature-increment", 0.0);
    auto threads = options.intValue("threads", 0);
    auto speed = options.doubleValue("speed", 1.0);
    for (auto* r : {&step, &trim, &threshold, &increment, &speed})
        if (!*r) return fail(r->message(), 2);
    for (auto* r : {&silence, &beam, &threads})
        if (!*r) return fail(r->message(), 2);
    so.stepSeconds = step.value();
    so.trimSeconds = trim.value();
    so.vad.threshold = threshold.value();
    so.vad.minSilenceMs = silence.value();
    so.useVad = !options.has("no-vad");
    if (auto file = options.value("vocabulary")) {
        auto vocabulary = loadVocabularyPrompt(*file);
        if (!vocabulary) return fail("--vocabulary: " + vocabulary.message(), 2);
        so.vocabulary = vocabulary.value();
    }
    DictatedTextRewrite rewrite;
    if (auto file = options.value("replacements")) {
        auto loaded = ReplacementRules::load(*file);
        if (!loaded) return fail("--replacements: " + loaded.message(), 2);
        rewrite.rules = std::move(loaded).value();
    }
    if (auto commit = options.value("commit")) {
        const auto policy = parseCommitPolicy(*commit);
        if (!policy) return fail("--commit must be agreement, alignatt or utterance", 2);
        so.commit = *policy;
    }
    so.showTentative = !options.has("no-tentative");
    const bool printWords = options.has("word-timestamps");
    if (printWords && options.has("no-word-timings")) return fail("--word-timestamps needs the word timings (drop --no-word-timings)", 2);
    so.wordTimings = !options.has("no-word-timings");
    so.decoding.language = options.value("language", "");
    if (so.decoding.language == "auto") so.decoding.language.clear();
    if (auto list = options.value("languages"); list) {
        if (auto ok = setDetectAmong(so.decoding, *list); !ok) return fail("--languages: " + ok.message(), 2);
    }
    const std::string task = options.value("task", "transcribe");
    if (task == "translate") so.decoding.task = DecodingTaskKind::Translate;
    else if (task != "transcribe") return fail("--task must be transcribe or translate", 2);
    so.temperatures = fallbackTemperatures(0.0f, float(increment.value()));
    const std::string padding = options.value("mel-padding", "zero");
    if (padding == "silence") so.melPadding = MelPadding::Silence;
    else if (padding != "zero") return fail("--mel-padding must be zero or silence", 2);
    if (options.value("context-pause")) {
        auto pause = options.doubleValue("context-pause", so.contextSilenceSeconds);
        if (!pause) return fail(pause.message(), 2);
        if (!(pause.value() >= 0.0)) return fail("--context-pause must be 0 or more seconds", 2);
        so.contextSilenceSeconds = pause.value();
    }
    if (options.value("audio-context-padding")) {
        auto ctx = options.doubleValue("audio-context-padding", 0.0);
        if (!ctx) return fail(ctx.message(), 2);
        if (!(ctx.value() >= 0.0)) return fail("--audio-context-padding must be 0 or more seconds", 2);
        so.audioContextPaddingSeconds = ctx.value();
    }
    const bool realtime = options.has("realtime");
    so.lockstep = !mic && !realtime;
    // Language, task, beams and step: the request the GUI fills too, checked before the model
    // loads (as for a multilingual one) and mapped for the model once it has.
    TranscriptionRequest request;
    request.task = so.decoding.task;
    request.language = so.decoding.language;
    request.detectAmong = so.decoding.detectAmong;
    request.beamSize = beam.value();
    request.bestOf = 0;  // one sample at a fallback temperature (a step must be quick)
    request.stepSeconds = so.stepSeconds;
    auto validated = request.validate(WhisperConfig{});
    if (!validated) return fail(validated.message(), 2);
    so.decoding = validated->decoding;
    if (auto ok = so.validate(); !ok) return fail(ok.message(), 2);

    // The source first (a missing microphone or file is found before the model loads).
    std::unique_ptr<AudioSource> source;
    if (mic) {
        CaptureOptions capture;
        capture.device = options.value("device", "");
        auto device = CaptureDevice::open(capture);
        if (!device) return fail(device.message(), 1);
        source = std::move(device).value();
    } else {
        SimulatedLiveOptions live;
        live.speed = realtime ? speed.value() : 0.0;
        live.ringSeconds = 20.0 * std::max(1.0, live.speed);  // 20 s of wall time, as a microphone's
        if (realtime && !(live.speed > 0.0)) return fail("--speed must be positive", 2);
        auto file = SimulatedLiveSource::open(options.positional()[0], live);
        if (!file) return fail(file.message(), 1);
        source = std::move(file).value();
    }

    auto backendKind = parseBackendKind(options.value("backend", "auto"));
    if (!backendKind) return fail(backendKind.message(), 2);
    EngineOptions engineOptions;
    engineOptions.backend = backendKind.value();
    engineOptions.backendOptions.threads = threads.value();
    auto engine = Engine::load(*options.value("model"), engineOptions);
    if (!engine) return fail(engine.message(), 1);
    validated = request.validate(engine->model().config());
    if (!validated) return fail(validated.message(), 2);
    so.decoding = validated->decoding;
    if (options.has("spoken-commands")) rewrite.spokenCommandsLanguage = so.decoding.language.empty() ? "en" : so.decoding.language;
    if (!quiet) {
        std::fprintf(stderr, "hearsay-cli stream: %s, %s, %s; %s\n", engine->model().path().c_str(),
                     engine->backend().name().c_str(), source->description().c_str(),
                     mic ? "Ctrl-C stops" : realtime ? "real-time pace" : "as fast as possible, one step at a time");
    }

    // The journal: each committed piece on disk before it is printed (a crash or a kill loses
    // nothing committed); a normal end removes it, the text having been printed.
    JournalLease journalFile;
    std::optional<DictationJournal> journal;
    if (!options.has("no-journal")) {
        auto lease = JournalStore().create();
        auto opened = lease ? DictationJournal::open(lease->path()) : Result<DictationJournal>(lease.error());
        if (opened && !opened->beginRun(source->description()))
            opened = Result<DictationJournal>(makeError("cannot write " + lease->path().string()));
        if (!opened) {
            std::fprintf(stderr, "hearsay-cli stream: committed text is not journaled: %s\n", opened.message().c_str());
        } else {
            journal = std::move(opened).value();
            journalFile = std::move(lease).value();
        }
    }
    bool journalWarned = false;
#ifdef HEARSAY_HAVE_TYPING
    // --type: the committed text also goes to the focused window (core/typing).
    std::unique_ptr<TextTyper> typer;
    InsertionSpacing spacing;
    const NewlineMode newline = newlineModeFromName(options.value("newline").value_or("return")).value_or(NewlineMode::Return);
    bool typingFailed = false;
    if (options.has("type")) {
        auto opened = openTextTyper();
        if (!opened) {
            [[maybe_unused]] auto removed = journalFile.remove();
            return fail(opened.message(), 1);
        }
        typer = std::move(opened).value();
        if (!quiet) std::fprintf(stderr, "hearsay-cli stream: typing into the focused window: %s\n", typer->describe().c_str());
    }
#else
    if (options.has("type")) return fail("--type: this build cannot type into other applications", 2);
#endif

    auto controls = std::make_shared<SessionControls>();
    controls->selfCache = !options.has("no-self-cache");
    controls->crossCache = !options.has("no-cross-cache");
    const bool terminal = !json && isatty(STDOUT_FILENO);
    bool tentativeShown = false;
    auto clearTentative = [&] {
        if (terminal && tentativeShown) std::printf("\r\033[K");
        tentativeShown = false;
    };
    StreamingCallbacks callbacks;
    callbacks.tentative = [&](const TentativeText& t) {
        if (json) {
            nlohmann::json j;
            j["event"] = "tentative";
            j["text"] = t.text;
            j["start"] = t.start;
            j["end"] = t.end;
            std::printf("%s\n", dumpJson(j).c_str());
        } else if (terminal) {
            clearTentative();
            if (!t.text.empty()) {
                std::printf("\033[2m%s\033[0m", t.text.c_str());  // dim: it may still change
                tentativeShown = true;
            }
        }
        std::fflush(stdout);
    };
    std::string finalText;  // the committed text with the replacement rules applied
    callbacks.committed = [&](const CommittedText& committed) {
        CommittedText c = committed;
        c.text = rewrite.apply(c.text);
        finalText += c.text;
        if (journal) {
            // A failed write keeps the record in the journal's backlog, written with the next one.
            if (auto ok = journal->commit(c.text, c.start, c.end, c.endOfUtterance); !ok && !journalWarned) {
                std::fprintf(stderr, "hearsay-cli stream: committed text cannot be journaled for now: %s\n",
                             ok.message().c_str());
                journalWarned = true;
            }
        }
        if (json) {
            nlohmann::json j;
            j["event"] = "committed";
            j["text"] = c.text;
            j["start"] = c.start;
            j["end"] = c.end;
            j["end_of_utterance"] = c.endOfUtterance;
            j["tentative_latency"] = c.tentativeLatency;
            j["commit_latency"] = c.commitLatency;
            if (printWords) j["words"] = wordsToJson(c.words);
            std::printf("%s\n", dumpJson(j).c_str());
        } else {
            clearTentative();
            std::printf("[%s --> %s]%s\n", formatTimestamp(c.start, true, '.').c_str(),
                        formatTimestamp(c.end, true, '.').c_str(), c.text.c_str());
            if (printWords) {
                for (const Word& w : c.words) {
                    std::printf("    [%s --> %s] %s (p %.2f)\n", formatTimestamp(w.start, true, '.').c_str(),
                                formatTimestamp(w.end, true, '.').c_str(), w.word.c_str(), w.probability);
                }
            }
        }
        std::fflush(stdout);
#ifdef HEARSAY_HAVE_TYPING
        // Typed once the journal and the output have it: a target that vanishes loses nothing.
        if (typer && !typingFailed) {
            if (auto typed = typeWithNewlines(*typer, spacing.next(c.text), newline); !typed) {
                std::fprintf(stderr, "hearsay-cli stream: typing stopped: %s (the text is printed and journaled)\n",
                             typed.message().c_str());
                typingFailed = true;
            }
        }
#endif
    };

    auto session = StreamingSession::create(engine.value(), *source, so, callbacks, controls);
    if (!session) {
        [[maybe_unused]] auto removed = journalFile.remove();
        return fail(session.message(), 2);
    }
    g_session.store(session.value().get());
    std::signal(SIGINT, onStreamInterrupt);
    const StreamingSummary summary = session.value()->run();
    std::signal(SIGINT, SIG_DFL);
    g_session.store(nullptr);
    clearTentative();
    journal.reset();
    if (auto removed = journalFile.remove(); !removed)
        std::fprintf(stderr, "hearsay-cli stream: %s\n", removed.message().c_str());

    if (json) {
        nlohmann::json j;
        j["event"] = "summary";
        j["text"] = finalText;
        j["language"] = summary.language;
        j["audio_seconds"] = summary.audioSeconds;
        j["samples_read"] = int64_t(summary.samplesRead);
        j["samples_processed"] = int64_t(summary.samplesProcessed);
        j["dropped_samples"] = int64_t(summary.droppedSamples);
        j["overflow_events"] = int64_t(summary.overflowEvents);
        j["steps"] = summary.steps;
        j["decoded_steps"] = summary.decodedSteps;
        j["utterances"] = summary.utterances;
        j["real_time_factor"] = summary.realTimeFactor;
        j["tentative_latency"] = toJson(summary.tentativeLatency);
        j["commit_latency"] = toJson(summary.commitLatency);
        j["final_latency"] = toJson(summary.finalLatency);
        if (!summary.error.empty()) j["error"] = summary.error;
        std::printf("%s\n", dumpJson(j).c_str());
    } else if (!quiet) {
        std::fprintf(stderr,
                     "hearsay-cli stream: %.1f s of audio, %d steps (%d decoded), real-time factor %.3f; latency "
                     "(median/p90): tentative %.2f/%.2f s, committed %.2f/%.2f s, final %.2f/%.2f s; dropped %llu samples\n",
                     summary.audioSeconds, summary.steps, summary.decodedSteps, summary.realTimeFactor,
                     summary.tentativeLatency.median, summary.tentativeLatency.p90, summary.commitLatency.median,
                     summary.commitLatency.p90, summary.finalLatency.median, summary.finalLatency.p90,
                     static_cast<unsigned long long>(summary.droppedSamples));
    }
    if (!summary.error.empty()) return fail(summary.error + " (what was committed is printed above)", 1);
    return 0;
}

} // namespace

HEARSAY_CLI_COMMAND(stream, "stream", "transcribe live from a microphone or a file played in real time", declareStream,
                    runStream);

} // namespace hearsay::cli
#endif // HEARSAY_HAVE_STREAMING
