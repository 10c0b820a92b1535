// hearsay-cli: the Hearsay engine from the command line (transcribe, stream, bench, models).
#include "app/cli/command.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>

namespace hearsay::cli {

std::vector<Command>& commandRegistry() {
    static std::vector<Command> commands;
    return commands;
}

} // namespace hearsay::cli

static void printUsage(FILE* out) {
    auto commands = hearsay::cli::commandRegistry();
    std::sort(commands.begin(), commands.end(), [](auto& a, auto& b) { return a.name < b.name; });
    std::fprintf(out, "usage: hearsay-cli COMMAND [OPTIONS]\n\ncommands:\n");
    for (const auto& c : commands) std::fprintf(out, "  %-18s %s\n", c.name.c_str(), c.summary.c_str());
    std::fprintf(out, "\nRun 'hearsay-cli COMMAND --help' for a command's options; --version prints the version.\n");
}

int main(int argc, char** argv) {
    if (argc < 2) {
        printUsage(stderr);
        return 2;
    }
    if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help")) {
        printUsage(stdout);
        return 0;
    }
    if (!std::strcmp(argv[1], "--version") || !std::strcmp(argv[1], "-V") || !std::strcmp(argv[1], "version")) {
        std::printf("hearsay-cli %s (commit %s)\n", HEARSAY_VERSION, HEARSAY_GIT_COMMIT);
        return 0;
    }
    std::vector<std::string> args(argv + 2, argv + argc);
    for (const auto& command : hearsay::cli::commandRegistry()) {
        if (command.name == argv[1]) {
            try {
                return command.run(args);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "hearsay-cli %s: error: %s\n", argv[1], e.what());
                return 1;
            }
        }
    }
    std::fprintf(stderr, "hearsay-cli: unknown command '%s'\n\n", argv[1]);
    printUsage(stderr);
    return 2;
}
