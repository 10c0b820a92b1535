// The CLI's options: each command declares them on its CLI11 subcommand with these helpers
// (typed values with ranges, choices, flags, positionals; the help text is generated from the
// declarations), and reads what was given through Options, a by-name view of the parsed result.
#pragma once

#include "core/util/result.h"

#include <CLI/CLI.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hearsay::cli {

// Declarations. `names` as CLI11 takes them ("--threads", "-q,--quiet"); `value` names the value
// in the help ("PATH", "LIST").
CLI::Option* addText(CLI::App& app, const std::string& names, const std::string& value, const std::string& help);
// addInt and addNumber: a value in [lowest, highest], the range appended to the help.
CLI::Option* addInt(CLI::App& app, const std::string& names, long long lowest, long long highest,
                    const std::string& help);
CLI::Option* addNumber(CLI::App& app, const std::string& names, std::optional<double> lowest,
                       std::optional<double> highest, const std::string& help);  // std::nullopt: no bound there
CLI::Option* addChoice(CLI::App& app, const std::string& names, const std::vector<std::string>& choices,
                       const std::string& help);  // case-insensitive; the value read is the choice's spelling
CLI::Option* addFlag(CLI::App& app, const std::string& names, const std::string& help);
// A word without an option name: one (many = false) or any number of them, in declaration order
// in Options::positional().
CLI::Option* addPositional(CLI::App& app, const std::string& name, const std::string& help, bool many = false);

// An integer in [lowest, highest] ("--threads: 4294967297 is not an integer from 0 to 4096").
CLI::Validator integerIn(long long lowest, long long highest);
// A number in [lowest, highest]; std::nullopt bounds are open. orNone: the word none (None,
// NONE) is also accepted.
CLI::Validator numberIn(std::optional<double> lowest, std::optional<double> highest, bool orNone = false);

// A file that exists (the value must name one).
CLI::Validator existingFile();

// What one parsed subcommand was given, by long option name (without the dashes).
class Options {
public:
    explicit Options(const CLI::App& app);
    Options() = default;

    bool has(const std::string& name) const { return m_values.count(name) || m_flags.count(name); }
    std::optional<std::string> value(const std::string& name) const;
    std::string value(const std::string& name, const std::string& fallback) const;
    Result<int> intValue(const std::string& name, int fallback) const;
    Result<double> doubleValue(const std::string& name, double fallback) const;
    const std::vector<std::string>& positional() const { return m_positional; }
    // The words that followed the command's name on the command line, as given (for reports).
    const std::vector<std::string>& words() const { return m_words; }
    void setWords(std::vector<std::string> words) { m_words = std::move(words); }

private:
    std::map<std::string, std::string> m_values;
    std::set<std::string> m_flags;
    std::vector<std::string> m_positional;
    std::vector<std::string> m_words;
};

} // namespace hearsay::cli
