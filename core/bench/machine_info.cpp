// Machine description from /proc/cpuinfo, /proc/meminfo, uname and the NVIDIA driver's /proc files.
#include "core/bench/machine_info.h"
#include "core/util/json_text.h"

#include <sched.h>
#include <sys/utsname.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

using nlohmann::json;

namespace hearsay {
namespace {

std::string trim(const std::string& s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return {};
    const auto last = s.find_last_not_of(" \t\r\n");
    return s.substr(first, last - first + 1);
}

// The value after "key:" on the first line starting with key, or empty. An exact key is one that
// is a prefix of others ("model" of "model name"): only blanks may lie between it and its colon.
std::string fieldOf(const std::string& path, const std::string& key, bool exact) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, key.size(), key) != 0) continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        if (exact && !trim(line.substr(key.size(), colon - key.size())).empty()) continue;
        return trim(line.substr(colon + 1));
    }
    return {};
}

std::string firstField(const std::string& path, const std::string& key) {
    return fieldOf(path, key, false);
}

std::string exactField(const std::string& path, const std::string& key) {
    return fieldOf(path, key, true);
}

} // namespace

MachineInfo collectMachineInfo() {
    MachineInfo m;
    m.cpuModel = firstField("/proc/cpuinfo", "model name");
    if (m.cpuModel.empty()) m.cpuModel = firstField("/proc/cpuinfo", "Model");
    // Virtual machines often name only the brand ("AMD EPYC"): the family and model tell a Zen 3
    // from a Zen 5, whose kernels and bandwidth differ.
    if (const std::string family = exactField("/proc/cpuinfo", "cpu family"); !family.empty()) {
        m.cpuModel += " (family " + family + " model " + exactField("/proc/cpuinfo", "model") + ")";
    }
    try {
        m.cpuMhz = std::stod(firstField("/proc/cpuinfo", "cpu MHz"));
    } catch (...) {
        m.cpuMhz = 0.0;
    }
    {
        std::istringstream flags(firstField("/proc/cpuinfo", "flags"));
        std::set<std::string> present;
        for (std::string f; flags >> f;) present.insert(f);
        for (const char* f : {"sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "avx512_fp16", "amx_tile"}) {
            if (!present.count(f)) continue;
            if (!m.cpuFlags.empty()) m.cpuFlags += ' ';
            m.cpuFlags += f;
        }
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) m.logicalCpus = CPU_COUNT(&set);
    if (m.logicalCpus <= 0) m.logicalCpus = int(std::thread::hardware_concurrency());

    const std::string memTotal = firstField("/proc/meminfo", "MemTotal");
    try {
        if (!memTotal.empty()) m.memoryBytes = size_t(std::stoull(memTotal)) * 1024;
    } catch (...) {
        m.memoryBytes = 0;
    }
    {
        std::ifstream in("/proc/loadavg");
        in >> m.loadAverage;
    }
    utsname names{};
    if (uname(&names) == 0) m.kernel = std::string(names.sysname) + " " + names.release;

    // NVIDIA's kernel driver publishes the GPU model and its version without any library.
    std::error_code ec;
    const std::filesystem::path gpus("/proc/driver/nvidia/gpus");
    if (std::filesystem::is_directory(gpus, ec)) {
        for (const auto& entry : std::filesystem::directory_iterator(gpus, ec)) {
            const std::string model = firstField((entry.path() / "information").string(), "Model");
            if (!model.empty()) {
                m.gpuName = model;
                break;
            }
        }
    }
    {
        std::ifstream in("/proc/driver/nvidia/version");
        std::string line;
        if (std::getline(in, line)) m.gpuDriver = trim(line);
    }
    return m;
}

std::string compilerDescription() {
#if defined(__clang__)
    return "Clang " __clang_version__;
#elif defined(__GNUC__)
    return "GCC " __VERSION__;
#else
    return "unknown compiler";
#endif
}

std::string utcTimestamp() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

json toJson(const GpuInfo& g) {
    auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); };
    json j;
    j["index"] = g.index;
    j["name"] = g.name;
    j["computeCapability"] = std::to_string(g.computeMajor) + "." + std::to_string(g.computeMinor);
    j["memoryBytes"] = g.memoryBytes;
    j["freeMemoryBytes"] = g.freeMemoryBytes;
    j["multiprocessors"] = g.multiprocessors;
    j["smClockMhz"] = g.smClockMhz;
    j["memoryClockMhz"] = g.memoryClockMhz;
    j["memoryBusBits"] = g.memoryBusBits;
    j["driverVersion"] = g.driverVersion > 0 ? json(version(g.driverVersion)) : json();
    j["runtimeVersion"] = g.runtimeVersion > 0 ? json(version(g.runtimeVersion)) : json();
    return j;
}

json toJson(const MachineInfo& m) {
    json j;
    j["cpuModel"] = m.cpuModel;
    j["logicalCpus"] = m.logicalCpus;
    j["cpuMhz"] = m.cpuMhz;
    j["cpuFlags"] = m.cpuFlags;
    j["memoryBytes"] = m.memoryBytes;
    j["kernel"] = m.kernel;
    j["loadAverage"] = m.loadAverage;
    j["gpuName"] = m.gpuName.empty() ? json() : json(m.gpuName);
    j["gpuDriver"] = m.gpuDriver.empty() ? json() : json(m.gpuDriver);
    j["gpu"] = m.gpu ? toJson(*m.gpu) : json();
    return j;
}

json toJson(const BuildInfo& b) {
    json j;
    j["buildType"] = b.buildType;
    j["compiler"] = b.compiler;
    j["commit"] = b.commit;
    j["cuda"] = b.cuda;
    return j;
}

} // namespace hearsay
