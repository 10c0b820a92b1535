// hearsay-cli models: lists the official Whisper sizes and their dimensions.
#include "app/cli/command.h"
#include "app/cli/options.h"
#include "core/model/whisper_config.h"

#include <cstdio>

namespace hearsay::cli {
namespace {

int runModels(const std::vector<std::string>& args) {
    auto options = Options::parse(args, {}, {"help"});
    if (!options) {
        std::fprintf(stderr, "hearsay-cli models: %s\n", options.message().c_str());
        return 2;
    }
    if (options->has("help")) {
        std::printf("usage: hearsay-cli models\n  Lists the official Whisper sizes with their dimensions.\n");
        return 0;
    }
    std::printf("%-16s %6s %7s %7s %6s %6s %6s\n", "name", "width", "layers", "dec.l", "heads", "mels", "vocab");
    for (const auto& name : WhisperConfig::officialNames()) {
        auto c = WhisperConfig::fromName(name).value();
        std::printf("%-16s %6d %7d %7d %6d %6d %6d\n", name.c_str(), c.nAudioState, c.nAudioLayer, c.nTextLayer,
                    c.nAudioHead, c.nMels, c.nVocab);
    }
    return 0;
}

} // namespace

HEARSAY_CLI_COMMAND(models, "models", "list the official Whisper sizes and their dimensions", runModels);

} // namespace hearsay::cli
