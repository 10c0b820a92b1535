// The CLI's option declarations and their parsed values (see options.h).
#include "app/cli/options.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace hearsay::cli {
namespace {

std::string formatNumber(double v) {
    std::ostringstream out;
    out << v;
    return out.str();
}

// Help text wrapped for the description column (CLI11 indents the lines after a newline).
std::string wrapped(const std::string& text, size_t width = 64) {
    std::string out, line;
    std::istringstream words(text);
    for (std::string word; words >> word;) {
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            out += line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    return out + line;
}

std::string rangeText(std::optional<double> lowest, std::optional<double> highest) {
    if (lowest && highest) return formatNumber(*lowest) + " to " + formatNumber(*highest);
    if (lowest) return formatNumber(*lowest) + " or more";
    if (highest) return formatNumber(*highest) + " or less";
    return {};
}

std::string longName(const CLI::Option& option) {
    if (!option.get_lnames().empty()) return option.get_lnames().front();
    return option.get_name();
}

} // namespace

CLI::Validator integerIn(long long lowest, long long highest) {
    const std::string range = std::to_string(lowest) + " to " + std::to_string(highest);
    return CLI::Validator(
        [lowest, highest, range](std::string& input) -> std::string {
            errno = 0;
            char* end = nullptr;
            const long long v = std::strtoll(input.c_str(), &end, 10);
            if (input.empty() || *end != '\0' || errno == ERANGE || v < lowest || v > highest)
                return "'" + input + "' is not an integer from " + range;
            return {};
        },
        "");
}

CLI::Validator numberIn(std::optional<double> lowest, std::optional<double> highest, bool orNone) {
    const std::string range = rangeText(lowest, highest);
    return CLI::Validator(
        [lowest, highest, range, orNone](std::string& input) -> std::string {
            if (orNone && (input == "none" || input == "None" || input == "NONE")) return {};
            char* end = nullptr;
            const double v = std::strtod(input.c_str(), &end);
            const bool number = !input.empty() && *end == '\0' && std::isfinite(v);
            if (!number || (lowest && v < *lowest) || (highest && v > *highest))
                return "'" + input + "' is not a number" + (range.empty() ? "" : " from " + range) +
                       (orNone ? " or none" : "");
            return {};
        },
        "");
}

CLI::Validator existingFile() {
    return CLI::Validator(CLI::ExistingFile).description("");  // the help names the value FILE already
}

CLI::Option* addText(CLI::App& app, const std::string& names, const std::string& value, const std::string& help) {
    // Given twice, the last one counts (as with the options of most programs).
    return app.add_option(names, CLI::callback_t{}, wrapped(help))
        ->type_name(value)
        ->type_size(1)
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

CLI::Option* addInt(CLI::App& app, const std::string& names, long long lowest, long long highest,
                    const std::string& help) {
    const std::string range = " [" + std::to_string(lowest) + " to " + std::to_string(highest) + "]";
    return addText(app, names, "N", help + range)->check(integerIn(lowest, highest));
}

CLI::Option* addNumber(CLI::App& app, const std::string& names, std::optional<double> lowest,
                       std::optional<double> highest, const std::string& help) {
    const std::string range = rangeText(lowest, highest);
    return addText(app, names, "X", help + (range.empty() ? "" : " [" + range + "]"))->check(numberIn(lowest, highest));
}

CLI::Option* addChoice(CLI::App& app, const std::string& names, const std::vector<std::string>& choices,
                       const std::string& help) {
    std::string value;
    for (const std::string& c : choices) value += (value.empty() ? "" : "|") + c;
    // A transform, not a check: the value read is then the choice as declared (GGML is read as ggml).
    return addText(app, names, value, help)->transform(CLI::IsMember(choices, CLI::ignore_case).description(""));
}

CLI::Option* addFlag(CLI::App& app, const std::string& names, const std::string& help) {
    return app.add_flag(names)->description(wrapped(help));
}

CLI::Option* addPositional(CLI::App& app, const std::string& name, const std::string& help, bool many) {
    auto* option = app.add_option(name, CLI::callback_t{}, wrapped(help))->type_name("")->type_size(1);
    if (!many) return option->expected(1);
    return option->expected(1, CLI::detail::expected_max_vector_size)->allow_extra_args(true);
}

Options::Options(const CLI::App& app) {
    for (const CLI::Option* option : app.get_options()) {
        if (option->count() == 0) continue;
        if (option->get_positional()) {
            for (const std::string& r : option->results()) m_positional.push_back(r);
        } else if (option->get_type_size_max() == 0) {
            m_flags.insert(longName(*option));
        } else if (!option->results().empty()) {
            m_values[longName(*option)] = option->results().back();
        }
    }
}

std::optional<std::string> Options::value(const std::string& name) const {
    auto it = m_values.find(name);
    if (it == m_values.end()) return std::nullopt;
    return it->second;
}

std::string Options::value(const std::string& name, const std::string& fallback) const {
    return value(name).value_or(fallback);
}

Result<int> Options::intValue(const std::string& name, int fallback) const {
    auto v = value(name);
    if (!v) return fallback;
    errno = 0;
    char* end = nullptr;
    const long n = std::strtol(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0' || errno == ERANGE || n < INT_MIN || n > INT_MAX)
        return makeError("option --" + name + " expects an integer, got '" + *v + "'");
    return int(n);
}

Result<double> Options::doubleValue(const std::string& name, double fallback) const {
    auto v = value(name);
    if (!v) return fallback;
    char* end = nullptr;
    double d = std::strtod(v->c_str(), &end);
    if (v->empty() || *end != '\0') return makeError("option --" + name + " expects a number, got '" + *v + "'");
    return d;
}

} // namespace hearsay::cli
