// Option parsing for the CLI commands (see options.h).
#include "app/cli/options.h"

#include <cstdlib>

namespace hearsay::cli {

Result<Options> Options::parse(const std::vector<std::string>& args, const std::set<std::string>& valued,
                               const std::set<std::string>& flags) {
    Options options;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg.size() < 2 || arg.compare(0, 2, "--") != 0 || arg == "--") {
            if (arg == "--") {
                for (size_t j = i + 1; j < args.size(); ++j) options.m_positional.push_back(args[j]);
                break;
            }
            options.m_positional.push_back(arg);
            continue;
        }
        std::string name = arg.substr(2);
        std::optional<std::string> inlineValue;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        if (valued.count(name)) {
            if (inlineValue) {
                options.m_values[name] = *inlineValue;
            } else if (i + 1 < args.size()) {
                options.m_values[name] = args[++i];
            } else {
                return makeError("option --" + name + " needs a value");
            }
        } else if (flags.count(name)) {
            if (inlineValue) return makeError("option --" + name + " takes no value");
            options.m_flags.insert(name);
        } else {
            return makeError("unknown option --" + name);
        }
    }
    return options;
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
    char* end = nullptr;
    long n = std::strtol(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0') return makeError("option --" + name + " expects an integer, got '" + *v + "'");
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
