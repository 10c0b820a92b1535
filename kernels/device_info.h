// What CUDA devices this process can use. Any error from the runtime (no driver, driver
// too old, no device) means "no GPU" and is reported as text, never thrown.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hearsay::cuda {

struct DeviceInfo {
    int index = 0;
    std::string name;
    int computeMajor = 0;
    int computeMinor = 0;
    size_t totalMemory = 0;
    size_t freeMemory = 0;
    int multiprocessors = 0;
};

struct DeviceQuery {
    std::vector<DeviceInfo> devices;
    std::string error;  // why there are none, when there are none
    int driverVersion = 0;
    int runtimeVersion = 0;
};

DeviceQuery queryDevices();

} // namespace hearsay::cuda
