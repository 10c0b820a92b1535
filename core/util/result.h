// Result<T>: the return type of every public entry point that can fail on bad input
// (load a model, read a file, open a device). It carries a value or a human-readable error,
// and the error its kind, so that callers decide by kind (offer the CPU backend, say
// "cancelled"), never by parsing the text.
#pragma once

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace hearsay {

// What went wrong, as a caller acts on it.
enum class ErrorKind {
    BadInput,     // the input or the request: a file, a model, an option, a call out of order
    Device,       // the backend's device could not be used or failed while running (a CUDA error)
    OutOfMemory,  // an allocation the backend (or the host) could not satisfy
    Cancelled,    // the caller asked the work to stop (SessionControls::cancel)
};

struct Error {
    std::string message;
    ErrorKind kind = ErrorKind::BadInput;

    // The same error with `context` before its message ("cannot load X: " + message); the kind stays.
    Error prefixed(std::string_view context) const { return Error{std::string(context) + message, kind}; }
};

// "bad input", "device failure", "out of memory", "cancelled".
inline std::string_view errorKindName(ErrorKind kind) {
    switch (kind) {
    case ErrorKind::BadInput: return "bad input";
    case ErrorKind::Device: return "device failure";
    case ErrorKind::OutOfMemory: return "out of memory";
    case ErrorKind::Cancelled: return "cancelled";
    }
    return "unknown";
}

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_state(std::in_place_index<0>, std::move(value)) {}
    Result(Error error) : m_state(std::in_place_index<1>, std::move(error)) {}

    bool ok() const { return m_state.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { assert(ok()); return std::get<0>(m_state); }
    const T& value() const& { assert(ok()); return std::get<0>(m_state); }
    T&& value() && { assert(ok()); return std::get<0>(std::move(m_state)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    const Error& error() const { assert(!ok()); return std::get<1>(m_state); }
    const std::string& message() const { return error().message; }
    ErrorKind kind() const { return error().kind; }

private:
    std::variant<T, Error> m_state;
};

// Result<void>: success or an error.
template <>
class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error) : m_error(std::move(error)), m_failed(true) {}

    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const Error& error() const { assert(m_failed); return m_error; }
    const std::string& message() const { return m_error.message; }
    ErrorKind kind() const { return m_error.kind; }

private:
    Error m_error;
    bool m_failed = false;
};

inline Error makeError(std::string message, ErrorKind kind = ErrorKind::BadInput) {
    return Error{std::move(message), kind};
}

} // namespace hearsay
