// The table of spec-sheet peaks (NVIDIA datasheets; dense figures, half the "with sparsity" ones).
#include "core/bench/gpu_specs.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace hearsay {
namespace {

struct Entry {
    std::vector<std::string_view> all;   // every one of these appears in the upper-cased name
    std::vector<std::string_view> none;  // and none of these
    const char* model;
    double terabytesPerSecond;
    double denseFp16Teraflops;
};

// Order matters: the first entry that matches wins (NVL and PCIe before the plain SXM names).
const Entry kEntries[] = {
    {{"H200", "NVL"}, {}, "H200 NVL 141GB", 4.8, 835.0},
    {{"H200"}, {"NVL"}, "H200 SXM 141GB", 4.8, 989.4},
    {{"H100", "NVL"}, {}, "H100 NVL 94GB", 3.9, 835.0},
    {{"H100", "PCIE"}, {}, "H100 PCIe 80GB", 2.0, 756.0},
    {{"H100", "HBM3"}, {"PCIE", "NVL"}, "H100 SXM5 80GB", 3.35, 989.4},
    {{"H100", "SXM"}, {"PCIE", "NVL"}, "H100 SXM5 80GB", 3.35, 989.4},
    {{"A100", "SXM4", "80GB"}, {}, "A100 SXM4 80GB", 2.039, 312.0},
    {{"A100", "80GB", "PCIE"}, {}, "A100 PCIe 80GB", 1.935, 312.0},
    {{"A100", "40GB"}, {}, "A100 40GB", 1.555, 312.0},
};

} // namespace

std::optional<GpuSpec> lookupGpuSpec(std::string_view deviceName) {
    std::string upper(deviceName);
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    for (const Entry& e : kEntries) {
        const bool all = std::all_of(e.all.begin(), e.all.end(), [&](std::string_view s) { return upper.find(s) != std::string::npos; });
        const bool none = std::none_of(e.none.begin(), e.none.end(), [&](std::string_view s) { return upper.find(s) != std::string::npos; });
        if (all && none) {
            return GpuSpec{e.model, e.terabytesPerSecond * 1e12, e.denseFp16Teraflops * 1e12,
                           "NVIDIA datasheet: memory bandwidth, dense fp16 tensor-core rate (sparsity figure / 2)"};
        }
    }
    return std::nullopt;
}

} // namespace hearsay
