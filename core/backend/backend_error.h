// How an exception thrown inside a backend becomes an Error at the engine's boundary: the kind
// from the exception's type (what a caller acts on), the text from what() after a context.
#pragma once

#include "core/backend/backend.h"
#include "core/util/result.h"

#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hearsay {

// bad_alloc (the backends' allocation failures, which name the bytes requested and the memory
// free, or a host container's): OutOfMemory. logic_error (an op's argument checks, the same on
// every backend): BadInput. Anything else (a CUDA or cuBLAS failure): Device.
inline ErrorKind backendErrorKind(const std::exception& e) {
    if (dynamic_cast<const std::bad_alloc*>(&e)) return ErrorKind::OutOfMemory;
    if (dynamic_cast<const std::logic_error*>(&e)) return ErrorKind::BadInput;
    return ErrorKind::Device;
}

// The exception's text; a bare std::bad_alloc (a host container) says nothing, so it is named.
inline std::string describeBackendException(const std::exception& e) {
    if (dynamic_cast<const std::bad_alloc*>(&e) && std::string_view(e.what()) == std::bad_alloc().what()) {
        return "out of memory (a host allocation failed)";
    }
    return e.what();
}

// Whether the CPU backend may do a job that failed with `kind` on the backend `failed`: the device
// could not be used or ran out of memory, and it was not the CPU already (the CPU has no fall
// back). The rule the CLI's advice and the GUI's offer share.
inline bool cpuBackendMayHelp(ErrorKind kind, BackendKind failed) {
    return (kind == ErrorKind::Device || kind == ErrorKind::OutOfMemory) && failed != BackendKind::Cpu;
}

inline Error backendError(std::string_view context, const std::exception& e) {
    return Error{std::string(context) + describeBackendException(e), backendErrorKind(e)};
}

} // namespace hearsay
