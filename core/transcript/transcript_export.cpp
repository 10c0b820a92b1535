// TXT, SRT, WebVTT and JSON writers for transcripts.
#include "core/transcript/transcript_export.h"
#include "core/util/strings.h"

#include "core/transcript/timestamp_format.h"
#include "core/util/json_text.h"

using nlohmann::json;

namespace hearsay {
namespace {

void replaceAll(std::string& s, std::string_view from, std::string_view to) {
    for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
}

// Cue text: one line (a blank line would end the cue), no "-->" (it would read as a timing line).
std::string cueText(std::string_view text) {
    std::string s = stripWhitespace(text);
    for (char& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    replaceAll(s, "-->", "->");
    return s;
}

std::string escapeVtt(const std::string& text) {
    std::string s = text;
    replaceAll(s, "&", "&amp;");
    replaceAll(s, "<", "&lt;");
    replaceAll(s, ">", "&gt;");
    return s;
}

} // namespace

std::string toTxt(const Transcript& transcript) {
    std::string out;
    for (const Segment& segment : transcript.segments) {
        std::string line = cueText(segment.text);
        if (line.empty()) continue;
        out += line;
        out += '\n';
    }
    return out;
}

std::string toSrt(const Transcript& transcript, const SubtitleOptions& subtitles) {
    std::string out;
    int index = 1;
    for (const SubtitleCue& cue : subtitleCues(transcript, subtitles)) {
        out += std::to_string(index++) + "\n";
        out += formatTimestamp(cue.start, true, ',') + " --> " + formatTimestamp(cue.end, true, ',') + "\n";
        out += cue.text + "\n\n";
    }
    return out;
}

std::string toVtt(const Transcript& transcript, const SubtitleOptions& subtitles) {
    std::string out = "WEBVTT\n\n";
    for (const SubtitleCue& cue : subtitleCues(transcript, subtitles, escapeVtt)) {
        out += formatTimestamp(cue.start, false, '.') + " --> " + formatTimestamp(cue.end, false, '.') + "\n";
        out += cue.text + "\n\n";
    }
    return out;
}

json wordsToJson(const std::vector<Word>& words) {
    json array = json::array();
    for (const Word& w : words) {
        json word;
        word["word"] = w.word;
        word["start"] = w.start;
        word["end"] = w.end;
        word["probability"] = w.probability;
        array.push_back(word);
    }
    return array;
}

std::string toJson(const Transcript& transcript, int indent) {
    json root;
    root["source"] = transcript.source;
    root["language"] = transcript.language;
    root["text"] = transcript.text;
    if (!transcript.languageProbabilities.empty()) {
        json probabilities = json::object();
        for (const auto& [code, p] : transcript.languageProbabilities) probabilities[code] = double(p);
        root["language_probabilities"] = probabilities;
    }
    json segments = json::array();
    bool withWords = false;
    for (const Segment& s : transcript.segments) withWords = withWords || !s.words.empty();
    for (const Segment& s : transcript.segments) {
        json j;
        j["id"] = s.id;
        j["seek"] = s.seek;
        j["start"] = s.start;
        j["end"] = s.end;
        j["text"] = s.text;
        j["tokens"] = s.tokens;
        j["temperature"] = double(s.temperature);
        j["avg_logprob"] = s.avgLogprob;
        j["compression_ratio"] = s.compressionRatio;
        j["no_speech_prob"] = s.noSpeechProb;
        if (withWords) j["words"] = wordsToJson(s.words);
        segments.push_back(j);
    }
    root["segments"] = segments;
    const RunStatistics& r = transcript.statistics;
    json stats;
    stats["audio_seconds"] = r.audioSeconds;
    stats["wall_seconds"] = r.wallSeconds;
    stats["real_time_factor"] = r.realTimeFactor();
    stats["encoder_ms"] = r.encoderMs;
    stats["decode_ms"] = r.decodeMs;
    stats["decode_calls"] = r.decodeCalls;
    stats["decode_ms_per_token"] = r.decodeMsPerToken;
    stats["sampled_tokens"] = r.sampledTokens;
    stats["windows"] = r.windows;
    stats["fallbacks"] = r.fallbacks;
    stats["silent_windows"] = r.silentWindows;
    stats["repetition_loops_cut"] = r.repetitionLoopsCut;
    if (r.alignedWindows > 0) {
        stats["word_timestamps_ms"] = r.wordTimestampsMs;
        stats["aligned_windows"] = r.alignedWindows;
    }
    stats["self_cache"] = r.selfCache;
    stats["cross_cache"] = r.crossCache;
    stats["self_cache_bytes"] = r.selfCacheBytes;
    stats["cross_cache_bytes"] = r.crossCacheBytes;
    root["statistics"] = stats;
    std::string out = dumpJson(root, indent);
    out += '\n';
    return out;
}

std::string exportTranscript(const Transcript& transcript, ExportFormat format, const SubtitleOptions& subtitles) {
    switch (format) {
    case ExportFormat::Txt: return toTxt(transcript);
    case ExportFormat::Srt: return toSrt(transcript, subtitles);
    case ExportFormat::Vtt: return toVtt(transcript, subtitles);
    case ExportFormat::Json: return toJson(transcript);
    }
    return {};
}

Result<ExportFormat> parseExportFormat(std::string_view name) {
    if (name == "txt") return ExportFormat::Txt;
    if (name == "srt") return ExportFormat::Srt;
    if (name == "vtt") return ExportFormat::Vtt;
    if (name == "json") return ExportFormat::Json;
    return makeError("unknown output format '" + std::string(name) + "' (expected txt, srt, vtt, json or all)");
}

const char* fileExtension(ExportFormat format) {
    switch (format) {
    case ExportFormat::Txt: return "txt";
    case ExportFormat::Srt: return "srt";
    case ExportFormat::Vtt: return "vtt";
    case ExportFormat::Json: return "json";
    }
    return "txt";
}

} // namespace hearsay
