// A full disk, simulated without privileges: the file size limit (RLIMIT_FSIZE) makes the kernel
// refuse bytes of any file past `bytes` with EFBIG, where a full disk answers ENOSPC; the program
// sees the same failed write(2). SIGXFSZ, which the limit would also send, is ignored meanwhile.
// lift() (or the destructor) restores the limit: the disk has room again.
#pragma once

#include <csignal>
#include <sys/resource.h>

namespace hearsay::test {

class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        m_ok = getrlimit(RLIMIT_FSIZE, &m_saved) == 0;
        if (!m_ok) return;
        rlimit limited = m_saved;
        limited.rlim_cur = bytes;
        m_previousHandler = std::signal(SIGXFSZ, SIG_IGN);
        m_ok = setrlimit(RLIMIT_FSIZE, &limited) == 0;
    }
    ~FileSizeLimit() { lift(); }
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;

    bool ok() const { return m_ok; }
    void lift() {
        if (m_lifted) return;
        m_lifted = true;
        setrlimit(RLIMIT_FSIZE, &m_saved);
        std::signal(SIGXFSZ, m_previousHandler == SIG_ERR ? SIG_DFL : m_previousHandler);
    }

private:
    rlimit m_saved{};
    void (*m_previousHandler)(int) = SIG_DFL;
    bool m_ok = false;
    bool m_lifted = false;
};

} // namespace hearsay::test
