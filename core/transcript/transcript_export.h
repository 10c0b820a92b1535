// Writes a Transcript as TXT, SRT, VTT or JSON (segments with timing, text, token ids, log-prob and
// no-speech probability, plus the run statistics). Segments without text are not written as cues.
#pragma once

#include "core/transcript/transcript.h"
#include "core/util/result.h"

#include <string>
#include <string_view>

namespace hearsay {

enum class ExportFormat { Txt, Srt, Vtt, Json };

std::string toTxt(const Transcript& transcript);   // one stripped segment text per line
std::string toSrt(const Transcript& transcript);   // numbered cues, HH:MM:SS,mmm, "-->" in text defused
std::string toVtt(const Transcript& transcript);   // WEBVTT, & < > escaped as entities
std::string toJson(const Transcript& transcript, int indent = 2);
std::string exportTranscript(const Transcript& transcript, ExportFormat format);

Result<ExportFormat> parseExportFormat(std::string_view name);  // txt, srt, vtt, json
const char* fileExtension(ExportFormat format);                 // "txt", ...

} // namespace hearsay
