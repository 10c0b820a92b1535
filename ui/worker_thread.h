// The thread a worker object lives on, owned by a smart pointer whose deleter stops it:
// quit() ends its event loop, wait() lets the current job return, then the QThread is freed.
#pragma once

#include <QThread>

#include <memory>

namespace hearsay::ui {

struct QuitAndWait {
    void operator()(QThread* thread) const {
        thread->quit();
        thread->wait();
        delete thread;
    }
};

using WorkerThread = std::unique_ptr<QThread, QuitAndWait>;

} // namespace hearsay::ui
