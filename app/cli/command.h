// The CLI's subcommands register themselves here, one file each (cmd_*.cpp), so main() stays a
// dispatcher and adding a command touches no shared file. A command declares its options on its
// CLI11 subcommand (options.h) and runs with what was parsed.
#pragma once

#include "app/cli/options.h"

#include <functional>
#include <string>
#include <vector>

namespace hearsay::cli {

using DeclareFunction = std::function<void(CLI::App& command)>;
using CommandFunction = std::function<int(const Options& options)>;

struct Command {
    std::string name;
    std::string summary;
    DeclareFunction declare;
    CommandFunction run;
    bool hidden = false;  // not listed in the help (an internal protocol)
};

std::vector<Command>& commandRegistry();

struct CommandRegistrar {
    CommandRegistrar(std::string name, std::string summary, DeclareFunction declare, CommandFunction run,
                     bool hidden = false) {
        commandRegistry().push_back({std::move(name), std::move(summary), std::move(declare), std::move(run), hidden});
    }
};

} // namespace hearsay::cli

#define HEARSAY_CLI_COMMAND(id, name, summary, declare, function) \
    static ::hearsay::cli::CommandRegistrar hearsayCommand_##id(name, summary, declare, function)
#define HEARSAY_CLI_HIDDEN_COMMAND(id, name, summary, declare, function) \
    static ::hearsay::cli::CommandRegistrar hearsayCommand_##id(name, summary, declare, function, true)
