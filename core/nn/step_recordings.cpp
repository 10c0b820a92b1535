// StepRecordings: a small list of recorded decoder steps, invalidated by the buffer epoch.
#include "core/nn/step_recordings.h"

#include <algorithm>

namespace hearsay {

void StepRecordings::enterEpoch(uint64_t epoch) {
    if (epoch == m_epoch) return;
    m_recorded.clear();
    m_ran.clear();
    m_epoch = epoch;
}

RecordedWork* StepRecordings::find(const StepShape& shape) {
    enterEpoch(shape.epoch);
    for (const Entry& e : m_recorded) {
        if (e.shape == shape) return e.work.get();
    }
    return nullptr;
}

bool StepRecordings::hasRun(const StepShape& shape) const {
    return std::find(m_ran.begin(), m_ran.end(), shape) != m_ran.end();
}

void StepRecordings::markRun(const StepShape& shape) {
    enterEpoch(shape.epoch);
    if (!hasRun(shape)) m_ran.push_back(shape);
}

RecordedWork* StepRecordings::store(const StepShape& shape, std::unique_ptr<RecordedWork> work) {
    enterEpoch(shape.epoch);
    for (Entry& e : m_recorded) {
        if (e.shape == shape) {
            e.work = std::move(work);
            return e.work.get();
        }
    }
    m_recorded.push_back({shape, std::move(work)});
    return m_recorded.back().work.get();
}

} // namespace hearsay
