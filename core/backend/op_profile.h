// Time per op kind and shape, for the bench's profiles of a decode step and of the encoder
// (`bench --op-profile`): where the time goes, and how many bytes each op reads and how much
// arithmetic it does.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace hearsay {

// One row of a profile: every run of ops with the same label ("linear 1x384->51865 f16").
struct OpTime {
    std::string op;
    int64_t calls = 0;
    double ms = 0.0;     // summed over the calls
    double bytes = 0.0;  // what the calls read (weights, activations, keys and values), summed; 0: not counted
    double flops = 0.0;  // multiply-adds × 2 of the calls (products and attention), summed; 0: not counted
};

// What a backend says of one op when it is taped or timed.
struct OpInfo {
    std::string label;
    double bytes = 0.0;
    double flops = 0.0;
};

// A thread-safe table of OpTime rows.
class OpProfile {
public:
    void add(const OpInfo& info, double ms) {
        std::lock_guard lock(m_mutex);
        OpTime& row = m_rows[info.label];
        row.op = info.label;
        ++row.calls;
        row.ms += ms;
        row.bytes += info.bytes;
        row.flops += info.flops;
    }
    // The rows so far, longest total time first; the table starts anew.
    std::vector<OpTime> take();

private:
    std::mutex m_mutex;
    std::map<std::string, OpTime> m_rows;
};

} // namespace hearsay
