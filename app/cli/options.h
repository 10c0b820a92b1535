// A small option parser shared by the CLI commands: --name value, --name=value, --flag,
// and positional arguments; unknown options are errors with a clear message.
#pragma once

#include "core/util/result.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hearsay::cli {

class Options {
public:
    // valued: options that take a value; flags: options that take none.
    static Result<Options> parse(const std::vector<std::string>& args, const std::set<std::string>& valued,
                                 const std::set<std::string>& flags);

    bool has(const std::string& name) const { return m_values.count(name) || m_flags.count(name); }
    std::optional<std::string> value(const std::string& name) const;
    std::string value(const std::string& name, const std::string& fallback) const;
    Result<int> intValue(const std::string& name, int fallback) const;
    Result<double> doubleValue(const std::string& name, double fallback) const;
    const std::vector<std::string>& positional() const { return m_positional; }

private:
    std::map<std::string, std::string> m_values;
    std::set<std::string> m_flags;
    std::vector<std::string> m_positional;
};

} // namespace hearsay::cli
