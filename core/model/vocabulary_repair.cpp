// Restores the true bytes of lossily stored whisper.cpp vocabulary entries (see the header).
#include "core/model/vocabulary_repair.h"

#include <span>
#include <string_view>

namespace hearsay {
namespace {

struct VocabularyFix {
    int id;
    const char* bytes;
    int length;
};

#include "core/model/vocabulary_repair_data.inc"

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

} // namespace

VocabularyRepair repairWhisperCppVocabulary(std::vector<std::string>& tokens, bool multilingual) {
    std::span<const VocabularyFix> fixes = multilingual ? std::span<const VocabularyFix>(kMultilingualFixes)
                                                        : std::span<const VocabularyFix>(kEnglishFixes);
    VocabularyRepair result;
    for (const auto& fix : fixes) {
        if (size_t(fix.id) >= tokens.size()) continue;
        const std::string_view truth(fix.bytes, size_t(fix.length));
        const std::string& stored = tokens[size_t(fix.id)];
        if (stored == truth) continue;
        if (stored.find(kReplacementCharacter) == std::string::npos) {
            result.recognised = false;
            return result;
        }
    }
    for (const auto& fix : fixes) {
        if (size_t(fix.id) >= tokens.size()) continue;
        std::string& stored = tokens[size_t(fix.id)];
        const std::string_view truth(fix.bytes, size_t(fix.length));
        if (stored != truth) {
            stored.assign(truth);
            ++result.repaired;
        }
    }
    return result;
}

} // namespace hearsay
