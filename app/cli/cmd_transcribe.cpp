// hearsay-cli transcribe: long-form transcription of audio files to TXT, SRT, VTT or JSON, with the
// reference's decoding options and the two cache switches. Only option parsing and file handling
// live here; the policy is core/decoding/transcriber.
#include "app/cli/command.h"
#ifdef HEARSAY_HAVE_AUDIO
#include "core/audio/audio_file.h"
#else
#include "core/frontend/pcm_wav.h"
#endif
#include "core/backend/backend.h"
#include "core/backend/backend_error.h"
#include "core/decoding/language_detection.h"
#include "core/decoding/transcriber.h"
#include "core/engine/engine.h"
#include "core/engine/transcription_request.h"
#include "core/text/tokenizer.h"
#include "core/transcript/transcript_export.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace hearsay::cli {
namespace {

struct CliAudio {
    std::vector<float> samples;  // 16 kHz mono
    double durationSeconds() const { return double(samples.size()) / kSampleRate; }
};

// Any format the audio library reads; engine-only builds (no audio library) read 16 kHz mono
// 16-bit PCM WAV only, and say so for anything else.
Result<CliAudio> readAudio(const std::string& file) {
#ifdef HEARSAY_HAVE_AUDIO
    auto audio = decodeAudioFile(file);
    if (!audio) return audio.error();
    return CliAudio{std::move(audio->samples)};
#else
    auto samples = readPcm16Wav(file);
    if (!samples) return makeError(samples.message() + " (this engine-only build reads 16 kHz mono 16-bit WAV only)");
    return CliAudio{std::move(samples.value())};
#endif
}

namespace fs = std::filesystem;

// Ctrl-C: the first SIGINT asks the session to stop (SessionControls::cancel, read at its next
// decoder step) and restores the default action, so a second one ends the process at once. The
// handler only stores to lock-free atomics.
std::atomic<std::atomic<bool>*> g_cancelRequest{nullptr};

void onTranscribeInterrupt(int) {
    if (std::atomic<bool>* cancel = g_cancelRequest.load()) cancel->store(true);
    std::signal(SIGINT, SIG_DFL);
}

// The segments done so far, as a transcript (what a cancelled run still writes).
Transcript partialTranscript(const std::string& file, std::vector<Segment> segments) {
    Transcript t;
    t.source = file;
    for (const Segment& segment : segments) t.text += segment.text;
    t.segments = std::move(segments);
    return t;
}

// The options. Defaults in the help text are the ones readSettings and runTranscribe apply.
void declareTranscribe(CLI::App& c) {
    c.footer("Transcribes audio files (WAV, FLAC, OGG, MP3; other containers through FFmpeg) in 30-second\n"
             "windows, as OpenAI's reference transcribe() does. Progress goes to stderr.\n"
             "Ctrl-C stops at the next decoder step and writes the segments finished so far (exit status 130);\n"
             "a second Ctrl-C ends at once.");
    addPositional(c, "FILE", "audio files to transcribe", true);
    addText(c, "--model", "PATH",
            "Hugging Face or CTranslate2 (faster-whisper) model directory, or a whisper.cpp ggml .bin (required)");
    addText(c, "--language", "L", "language code or name, or auto (default: auto; English-only models: en)");
    addText(c, "--languages", "LIST", "with auto: detect only among these (codes or names: en,de,fr)");
    addChoice(c, "--task", {"transcribe", "translate"}, "transcribe (default) or translate (to English)");
    addInt(c, "--beam-size", 1, 16, "beams for temperature 0 (default 5; 1 = greedy)");
    addNumber(c, "--patience", 0.0, std::nullopt, "beam-search patience (default 1.0)");
    addNumber(c, "--length-penalty", 0.0, 1.0, "alpha in [0, 1]; default: length normalisation");
    addChoice(c, "--beam-rules", {"openai", "ctranslate2", "faster-whisper"},
              "openai (default: OpenAI's reference) or ctranslate2 (faster-whisper's beam search; the same tokens "
              "as faster-whisper on the same weights)");
    addInt(c, "--best-of", 1, 16, "samples per temperature > 0 (default 5)");
    addNumber(c, "--temperature", 0.0, 2.0, "first temperature (default 0)");
    addNumber(c, "--temperature-increment", 0.0, std::nullopt, "fallback step (default 0.2; 0 = no fallback)");
    addText(c, "--compression-ratio-threshold", "X", "(default 2.4; none: no check)")->check(numberIn(std::nullopt, std::nullopt, true));
    addText(c, "--logprob-threshold", "X", "(default -1.0; none: no check)")->check(numberIn(std::nullopt, std::nullopt, true));
    addText(c, "--no-speech-threshold", "X", "(default 0.6; none: no check)")->check(numberIn(std::nullopt, std::nullopt, true));
    addText(c, "--initial-prompt", "TEXT", "prompt for the first window");
    addFlag(c, "--no-condition-on-previous-text", "do not prompt with the previous windows' text");
    addFlag(c, "--no-timestamps", "decode text only (one segment per window)");
    addFlag(c, "--no-loop-cut", "keep trailing repetition loops (on by default: cut to one occurrence)");
    addInt(c, "--sample-len", 1, 224, "maximum tokens per window (default 224)");
    addInt(c, "--seed", 0, 2147483647, "sampling seed (default 0)");
    addFlag(c, "--no-self-cache", "re-run the decoder over all tokens at each step");
    addFlag(c, "--no-cross-cache", "re-project the encoder output at each step");
    addFlag(c, "--no-step-graphs",
            "run every decode step op by op (default: record each step shape once and replay it per token; a CUDA "
            "graph on the GPU)");
    addInt(c, "--threads", 0, 4096, "CPU threads (default 0: all cores)");
    addChoice(c, "--backend", {"auto", "cpu", "cuda"}, "auto (default), cpu or cuda");
    addChoice(c, "--precision", {"fp16", "fp32"},
              "CUDA weights and GEMMs: fp16 (default; tensor cores, fp32 accumulation) or fp32 (exact comparisons); "
              "the CPU backend computes in float32 and keeps its cross-attention cache in half with fp16, in float32 "
              "with fp32");
    addFlag(c, "--word-timestamps",
            "word-level timestamps from the cross-attention (faster-whisper's word_timestamps=True): JSON segments "
            "gain \"words\": [{word, start, end, probability}]; a window then advances to its last word's end");
    addInt(c, "--max-line-width", 1, 10000, "SRT/VTT: at most N characters per line (needs --word-timestamps)");
    addInt(c, "--max-line-count", 1, 1000, "SRT/VTT: at most N lines per cue (needs --word-timestamps)");
    addFlag(c, "--highlight-words", "SRT/VTT: one cue per word, the word underlined (needs --word-timestamps)");
    addChoice(c, "--output-format", {"txt", "srt", "vtt", "json", "all"},
              "txt, srt, vtt, json or all (default: txt on stdout, all with --output-dir)");
    addText(c, "--output-dir", "DIR", "write FILE's name + .txt/.srt/.vtt/.json there instead of stdout");
    addFlag(c, "--quiet", "no progress on stderr");
}

struct Settings {
    TranscribeOptions transcribe;
    int maxBeams = 1;  // self-cache rows the session needs (beam search, best-of)
    SubtitleOptions subtitles;
    std::vector<ExportFormat> formats;
    std::string outputDir;
    bool quiet = false;
};

Result<std::optional<double>> optionalThreshold(const Options& options, const std::string& name, double fallback) {
    auto text = options.value(name);
    if (text && (*text == "none" || *text == "None")) return std::optional<double>();
    auto value = options.doubleValue(name, fallback);
    if (!value) return value.error();
    return std::optional<double>(value.value());
}

Result<Settings> readSettings(const Options& options, const WhisperConfig& model) {
    Settings s;
    DecodingOptions& d = s.transcribe.decoding;
    const std::string language = options.value("language", "auto");
    if (language != "auto" && !language.empty()) {
        if (!languageIndex(language)) return makeError("unknown language '" + language + "'");
        d.language = language;
    }
    if (auto list = options.value("languages"); list) {
        if (auto ok = setDetectAmong(d, *list); !ok) return makeError("--languages: " + ok.message());
    }
    const std::string task = options.value("task", "transcribe");
    if (task == "translate") d.task = DecodingTaskKind::Translate;
    else if (task != "transcribe") return makeError("unknown task '" + task + "' (expected transcribe or translate)");

    auto beam = options.intValue("beam-size", 5);
    auto bestOf = options.intValue("best-of", 5);
    auto sampleLen = options.intValue("sample-len", 0);
    auto seed = options.intValue("seed", 0);
    auto patience = options.doubleValue("patience", 0.0);
    auto temperature = options.doubleValue("temperature", 0.0);
    auto increment = options.doubleValue("temperature-increment", 0.2);
    for (auto* r : {&beam, &bestOf, &sampleLen, &seed})
        if (!*r) return r->error();
    for (auto* r : {&patience, &temperature, &increment})
        if (!*r) return r->error();
    if (beam.value() < 1 || beam.value() > 16) return makeError("--beam-size must be between 1 and 16");
    if (bestOf.value() < 1 || bestOf.value() > 16) return makeError("--best-of must be between 1 and 16");
    if (sampleLen.value() < 0 || sampleLen.value() > 224) return makeError("--sample-len must be between 1 and 224");
    if (temperature.value() < 0.0 || temperature.value() > 2.0) return makeError("--temperature must be in [0, 2]");
    // Language, task, beams: the request the GUI fills too, checked and mapped for the model
    // (English-only models drop the language; beam size 1 is greedy).
    TranscriptionRequest request;
    request.task = d.task;
    request.language = d.language;
    request.detectAmong = d.detectAmong;
    request.beamSize = beam.value();
    request.bestOf = bestOf.value();  // applies to temperatures > 0 only
    auto validated = request.validate(model);
    if (!validated) return validated.error();
    d = validated->decoding;
    s.maxBeams = validated->maxBeams;
    d.sampleLen = sampleLen.value();
    d.seed = uint64_t(seed.value());
    d.patience = float(patience.value());
    if (d.patience > 0.0f && d.beamSize == 0) return makeError("--patience needs --beam-size above 1");
    if (auto lp = options.value("length-penalty")) {
        auto alpha = options.doubleValue("length-penalty", 0.0);
        if (!alpha) return alpha.error();
        if (alpha.value() < 0.0 || alpha.value() > 1.0) return makeError("--length-penalty must be in [0, 1]");
        d.lengthPenalty = float(alpha.value());
    }
    const std::string rules = options.value("beam-rules", "openai");
    if (rules == "ctranslate2" || rules == "faster-whisper") d.beamRules = BeamSearchRules::CTranslate2;
    else if (rules != "openai") return makeError("--beam-rules must be openai or ctranslate2, got '" + rules + "'");
    d.withoutTimestamps = options.has("no-timestamps");
    s.transcribe.temperatures = fallbackTemperatures(float(temperature.value()), float(increment.value()));

    auto cr = optionalThreshold(options, "compression-ratio-threshold", 2.4);
    auto lp = optionalThreshold(options, "logprob-threshold", -1.0);
    auto ns = optionalThreshold(options, "no-speech-threshold", 0.6);
    for (auto* r : {&cr, &lp, &ns})
        if (!*r) return r->error();
    s.transcribe.thresholds = {cr.value(), lp.value(), ns.value()};
    s.transcribe.conditionOnPreviousText = !options.has("no-condition-on-previous-text");
    s.transcribe.initialPrompt = options.value("initial-prompt", "");
    s.transcribe.cutRepetitionLoops = !options.has("no-loop-cut");
    s.transcribe.wordTimestamps = options.has("word-timestamps");
    auto width = options.intValue("max-line-width", 0);
    auto count = options.intValue("max-line-count", 0);
    for (auto* r : {&width, &count})
        if (!*r) return r->error();
    if (width.value() < 0 || width.value() > 10000) return makeError("--max-line-width must be between 1 and 10000");
    if (count.value() < 0 || count.value() > 1000) return makeError("--max-line-count must be between 1 and 1000");
    if (options.value("max-line-width") && width.value() == 0) return makeError("--max-line-width must be between 1 and 10000");
    if (options.value("max-line-count") && count.value() == 0) return makeError("--max-line-count must be between 1 and 1000");
    s.subtitles = {width.value(), count.value(), options.has("highlight-words")};
    for (const char* name : {"max-line-width", "max-line-count", "highlight-words"}) {
        if (options.has(name) && !s.transcribe.wordTimestamps) {
            return makeError(std::string("--") + name + " needs --word-timestamps");
        }
    }
    if (s.transcribe.wordTimestamps && d.withoutTimestamps) {
        return makeError("--word-timestamps needs the segment timestamps (drop --no-timestamps)");
    }

    s.outputDir = options.value("output-dir", "");
    const std::string format = options.value("output-format", s.outputDir.empty() ? "txt" : "all");
    if (format == "all") {
        s.formats = {ExportFormat::Txt, ExportFormat::Srt, ExportFormat::Vtt, ExportFormat::Json};
    } else {
        auto f = parseExportFormat(format);
        if (!f) return f.error();
        s.formats = {f.value()};
    }
    s.quiet = options.has("quiet");
    return s;
}

// Writes beside the target and renames, so that a failure (disk full, permissions) never leaves a
// half-written file under the target's name.
Result<void> writeFile(const fs::path& path, const std::string& content) {
    const fs::path partial = fs::path(path).concat(".part");
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) return makeError("cannot write " + path.string() + ": " + std::strerror(errno));
    out << content;
    out.close();
    std::error_code ec;
    if (!out) {
        fs::remove(partial, ec);
        return makeError("cannot write " + path.string() + " (disk full?)");
    }
    fs::rename(partial, path, ec);
    if (ec) {
        fs::remove(partial, ec);
        return makeError("cannot write " + path.string() + ": " + ec.message());
    }
    return {};
}

int runTranscribe(const Options& options) {
    auto fail = [](const std::string& message, int code) {
        std::fprintf(stderr, "hearsay-cli transcribe: %s\n", message.c_str());
        return code;
    };
    if (!options.value("model")) return fail("--model PATH is required (see --help)", 2);
    if (options.positional().empty()) return fail("no audio file given (see --help)", 2);
    auto threads = options.intValue("threads", 0);
    if (!threads) return fail(threads.message(), 2);
    if (threads.value() < 0) return fail("--threads must not be negative", 2);
    auto backendKind = parseBackendKind(options.value("backend", "auto"));
    if (!backendKind) return fail(backendKind.message(), 2);
    auto precision = parsePrecision(options.value("precision", "fp16"));
    if (!precision) return fail(precision.message(), 2);

    // Settings that do not depend on the model are checked before the (slow) model load.
    if (auto early = readSettings(options, WhisperConfig{}); !early) return fail(early.message(), 2);

    const fs::path modelPath = *options.value("model");
    EngineOptions engineOptions;
    engineOptions.backend = backendKind.value();
    engineOptions.backendOptions = BackendOptions{threads.value(), 0, precision.value()};
    auto engine = Engine::load(modelPath, engineOptions);
    // A backend that cannot be used (no GPU, a CUDA error, too little GPU memory) may not stop the CPU.
    auto advice = [&](const Error& e, BackendKind ran) {
        return cpuBackendMayHelp(e.kind, ran) ? "; the CPU backend may do it: --backend cpu" : "";
    };
    if (!engine) return fail(engine.message() + advice(engine.error(), backendKind.value()), 1);
    const WhisperConfig& config = engine->model().config();

    auto settings = readSettings(options, config);
    if (!settings) return fail(settings.message(), 2);
    const Settings& s = settings.value();
    if (!s.outputDir.empty()) {
        std::error_code ec;
        fs::create_directories(s.outputDir, ec);
        if (ec) return fail("cannot create the output directory " + s.outputDir + ": " + ec.message(), 1);
    }

    SessionOptions sessionOptions;
    sessionOptions.maxBeams = s.maxBeams;
    sessionOptions.selfAttentionCache = !options.has("no-self-cache");
    sessionOptions.crossAttentionCache = !options.has("no-cross-cache");
    sessionOptions.stepGraphs = !options.has("no-step-graphs");
    const BackendKind ran = engine->backend().kind();
    auto session = engine->createSession(sessionOptions);
    if (!session) return fail(session.message() + advice(session.error(), ran), 1);
    if (!s.quiet)
        std::fprintf(stderr, "hearsay-cli transcribe: model %s (%s), %s, self cache %s, cross cache %s\n",
                     modelPath.string().c_str(), config.isMultilingual() ? "multilingual" : "English-only",
                     engine->backend().name().c_str(), sessionOptions.selfAttentionCache ? "on" : "off",
                     sessionOptions.crossAttentionCache ? "on" : "off");

    g_cancelRequest.store(&session.value()->controls()->cancel);
    std::signal(SIGINT, onTranscribeInterrupt);
    struct RestoreInterrupt {
        ~RestoreInterrupt() {
            std::signal(SIGINT, SIG_DFL);
            g_cancelRequest.store(nullptr);
        }
    } restoreInterrupt;

    int failures = 0;
    bool cancelled = false;
    for (const std::string& file : options.positional()) {
        auto audio = readAudio(file);
        if (!audio) {
            std::fprintf(stderr, "hearsay-cli transcribe: %s\n", audio.message().c_str());
            ++failures;
            continue;
        }
        const double duration = audio->durationSeconds();
        std::vector<Segment> done;  // kept for a cancelled run
        double reached = 0.0;
        TranscribeProgress progress = [&](double fraction, const std::vector<Segment>& produced) {
            done.insert(done.end(), produced.begin(), produced.end());
            reached = fraction * duration;
            if (!s.quiet)
                std::fprintf(stderr, "hearsay-cli transcribe: %s: %3.0f%% (%.1f of %.1f s)\n", file.c_str(),
                             fraction * 100.0, fraction * duration, duration);
        };
        auto transcript = transcribe(*session.value(), engine->tokenizer(), audio->samples, s.transcribe, progress);
        if (!transcript && transcript.kind() == ErrorKind::Cancelled) {
            std::fprintf(stderr, "hearsay-cli transcribe: %s: cancelled at %.1f of %.1f s; writing the %zu segments done\n",
                         file.c_str(), reached, duration, done.size());
            transcript = partialTranscript(file, std::move(done));
            cancelled = true;
        } else if (!transcript) {
            std::fprintf(stderr, "hearsay-cli transcribe: %s: %s%s\n", file.c_str(), transcript.message().c_str(),
                         advice(transcript.error(), ran));
            ++failures;
            continue;
        }
        transcript->source = file;
        const RunStatistics& r = transcript->statistics;
        if (!s.quiet && !cancelled)
            std::fprintf(stderr,
                         "hearsay-cli transcribe: %s: language %s, %zu segments, %.2f s audio in %.2f s (RTF %.3f), "
                         "encoder %.1f ms, decode %.2f ms/token, self cache %zu B, cross cache %zu B\n",
                         file.c_str(), transcript->language.c_str(), transcript->segments.size(), r.audioSeconds,
                         r.wallSeconds, r.realTimeFactor(), r.encoderMs, r.decodeMsPerToken, r.selfCacheBytes,
                         r.crossCacheBytes);
        for (ExportFormat format : s.formats) {
            const std::string content = exportTranscript(transcript.value(), format, s.subtitles);
            if (s.outputDir.empty()) {
                std::fwrite(content.data(), 1, content.size(), stdout);
                std::fflush(stdout);
                continue;
            }
            const fs::path out = fs::path(s.outputDir) / (fs::path(file).filename().string() + "." + fileExtension(format));
            if (auto w = writeFile(out, content); !w) {
                // The transcript is not lost: it goes to stdout instead.
                std::fprintf(stderr, "hearsay-cli transcribe: %s; the %s transcript follows on stdout\n",
                             w.message().c_str(), fileExtension(format));
                std::fwrite(content.data(), 1, content.size(), stdout);
                std::fflush(stdout);
                ++failures;
            } else if (!s.quiet) {
                std::fprintf(stderr, "hearsay-cli transcribe: wrote %s\n", out.string().c_str());
            }
        }
        if (cancelled) return 130;  // 128 + SIGINT, as a shell reports an interrupted command
    }
    return failures == 0 ? 0 : 1;
}

} // namespace

HEARSAY_CLI_COMMAND(transcribe, "transcribe", "transcribe audio files to TXT, SRT, VTT or JSON", declareTranscribe,
                    runTranscribe);

} // namespace hearsay::cli
