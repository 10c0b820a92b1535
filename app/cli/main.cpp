// hearsay-cli: the Hearsay engine from the command line (transcribe, stream, bench, models).
// The commands and their options are declared with CLI11 (command.h, options.h); a value the
// declarations refuse is one line on stderr naming the option, and exit status 2.
#include "app/cli/command.h"
#include "hearsay_commit.h"  // generated at every build (app/build_commit.cmake)

#include <algorithm>
#include <cstdio>
#include <exception>

namespace hearsay::cli {

std::vector<Command>& commandRegistry() {
    static std::vector<Command> commands;
    return commands;
}

} // namespace hearsay::cli

namespace {

// The subcommand the command line named (the deepest one parsed), or null.
CLI::App* namedCommand(CLI::App& app) {
    auto parsed = app.get_subcommands();
    return parsed.empty() ? nullptr : parsed.back();
}

} // namespace

int main(int argc, char** argv) {
    using namespace hearsay::cli;
    CLI::App app("Hearsay: speech recognition with Whisper models, from the command line.", "hearsay-cli");
    app.get_formatter()->column_width(34);
    app.require_subcommand(0, 1);
    bool version = false;
    app.add_flag("-V,--version", version, "print the version and the commit it was built from");

    auto commands = commandRegistry();
    std::sort(commands.begin(), commands.end(), [](auto& a, auto& b) { return a.name < b.name; });
    std::vector<std::pair<CLI::App*, const Command*>> declared;
    for (const Command& command : commands) {
        CLI::App* sub = app.add_subcommand(command.name, command.summary);
        if (command.hidden) sub->group("");
        command.declare(*sub);
        declared.emplace_back(sub, &command);
    }
    // The words `help` and `version` as commands, as before the options: hidden aliases.
    CLI::App* helpWord = app.add_subcommand("help", "print this help")->group("");
    CLI::App* versionWord = app.add_subcommand("version", "print the version")->group("");
    // Set after the commands are added (they would inherit it).
    app.footer("Run 'hearsay-cli COMMAND --help' for a command's options; --version prints the version.");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help
        CLI::App* command = namedCommand(app);
        const std::string name = command ? "hearsay-cli " + command->get_name() : "hearsay-cli";
        std::fprintf(stderr, "%s: %s (see %s --help)\n", name.c_str(), e.what(), name.c_str());
        return 2;
    }
    if (version || versionWord->parsed()) {
        std::printf("hearsay-cli %s (commit %s)\n", HEARSAY_VERSION, HEARSAY_GIT_COMMIT);
        return 0;
    }
    // The overview (App::help would describe the subcommand parsed, here `help` itself).
    const std::string overview = app.get_formatter()->make_help(&app, "hearsay-cli", CLI::AppFormatMode::Normal);
    if (helpWord->parsed()) {
        std::fputs(overview.c_str(), stdout);
        return 0;
    }
    for (const auto& [sub, command] : declared) {
        if (!sub->parsed()) continue;
        try {
            Options options(*sub);
            // The command's name is the first word that is not an option (the program has no valued ones).
            for (int i = 1; i < argc; ++i) {
                if (command->name == argv[i]) {
                    options.setWords(std::vector<std::string>(argv + i + 1, argv + argc));
                    break;
                }
            }
            return command->run(options);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "hearsay-cli %s: error: %s\n", command->name.c_str(), e.what());
            return 1;
        }
    }
    std::fputs(overview.c_str(), stderr);  // no command
    return 2;
}
