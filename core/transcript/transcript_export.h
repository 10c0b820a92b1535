// Writes a Transcript as TXT, SRT, VTT or JSON (segments with timing, text, token ids, log-prob and
// no-speech probability, plus the run statistics). Segments without text are not written as cues.
#pragma once

#include "core/transcript/subtitle_cues.h"
#include "core/transcript/transcript.h"
#include <nlohmann/json_fwd.hpp>
#include "core/util/result.h"

#include <string>
#include <string_view>

namespace hearsay {

enum class ExportFormat { Txt, Srt, Vtt, Json };

std::string toTxt(const Transcript& transcript);   // one stripped segment text per line
// Subtitles: one cue per segment, or with word timestamps lines and cues as `subtitles` asks.
std::string toSrt(const Transcript& transcript, const SubtitleOptions& subtitles = {});  // numbered cues, HH:MM:SS,mmm, "-->" in text defused
std::string toVtt(const Transcript& transcript, const SubtitleOptions& subtitles = {});  // WEBVTT, & < > escaped as entities
// Segments gain "words": [{word, start, end, probability}] when the transcript has words.
std::string toJson(const Transcript& transcript, int indent = 2);
// Words as JSON, faster-whisper's names: [{word, start, end, probability}] (also the stream's events).
nlohmann::json wordsToJson(const std::vector<Word>& words);
std::string exportTranscript(const Transcript& transcript, ExportFormat format, const SubtitleOptions& subtitles = {});

Result<ExportFormat> parseExportFormat(std::string_view name);  // txt, srt, vtt, json
const char* fileExtension(ExportFormat format);                 // "txt", ...

} // namespace hearsay
