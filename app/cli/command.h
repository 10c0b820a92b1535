// The CLI's subcommands register themselves here, one file each (cmd_*.cpp), so main()
// stays a dispatcher and adding a command touches no shared file.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace hearsay::cli {

using CommandFunction = std::function<int(const std::vector<std::string>& args)>;

struct Command {
    std::string name;
    std::string summary;
    CommandFunction run;
};

std::vector<Command>& commandRegistry();

struct CommandRegistrar {
    CommandRegistrar(std::string name, std::string summary, CommandFunction run) {
        commandRegistry().push_back({std::move(name), std::move(summary), std::move(run)});
    }
};

} // namespace hearsay::cli

#define HEARSAY_CLI_COMMAND(id, name, summary, function) \
    static ::hearsay::cli::CommandRegistrar hearsayCommand_##id(name, summary, function)
