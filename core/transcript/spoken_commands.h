// Spoken punctuation and layout for dictation: "comma", "new line", "question mark" … said aloud
// become the characters, when the user turns spoken commands on. Whisper often writes its own
// punctuation around such words ("Anna, comma, new line."), so a command takes the punctuation
// and spaces around it with it; a new line drops the spaces after it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hearsay {

// The languages with a command table: en, de.
const std::vector<std::string>& spokenCommandLanguages();

// `text` with the spoken commands of `language` replaced (a language without a table: English).
std::string applySpokenCommands(std::string_view text, std::string_view language);

} // namespace hearsay
