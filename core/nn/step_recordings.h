// The decoder step recorded once per shape and replayed per token (a CUDA graph on the GPU, a
// tape on the CPU): recordings keyed by beam count, cross-cache switch and buffer epoch, and
// the rule that a shape is recorded only after it has run once eagerly.
#pragma once

#include "core/backend/backend.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace hearsay {

// What a recorded step depends on besides the per-step values in index buffers.
struct StepShape {
    int beams = 0;
    bool crossCache = false;  // on: attends to the cross cache; off: re-projects the encoder output
    uint64_t epoch = 0;       // buffer epoch: bumped whenever a buffer the step uses is reallocated

    bool operator==(const StepShape&) const = default;
};

class StepRecordings {
public:
    // The recording of `shape`, or null. A shape of another epoch drops every recording first
    // (they refer to buffers that are gone) and forgets which shapes have run.
    RecordedWork* find(const StepShape& shape);
    // Whether `shape` has run eagerly since its epoch began (scratch sized, libraries warm).
    bool hasRun(const StepShape& shape) const;
    void markRun(const StepShape& shape);
    // Keeps `work` as the recording of `shape`; returns it.
    RecordedWork* store(const StepShape& shape, std::unique_ptr<RecordedWork> work);

private:
    void enterEpoch(uint64_t epoch);

    struct Entry {
        StepShape shape;
        std::unique_ptr<RecordedWork> work;
    };
    uint64_t m_epoch = 0;
    std::vector<Entry> m_recorded;   // few: beam counts × cross switch
    std::vector<StepShape> m_ran;    // shapes run eagerly in this epoch
};

} // namespace hearsay
