#pragma once
// Errors as values at module boundaries: a Result<T> holds either a T or an Error whose message says what
// failed and what to do. std::expected is C++23; this is the small subset Warren needs.

#include <string>
#include <utility>
#include <variant>

namespace warren {

enum class ErrorCode {
    InvalidArgument, // the caller's input (profile, flag, path) is wrong
    NotFound,        // a file, program or mount source does not exist
    Unsupported,     // the kernel or system lacks a feature the policy requires
    System,          // a system call failed unexpectedly
    Unavailable,     // a service (a database server) cannot be reached now: reconnecting and retrying may work
};

struct Error {
    ErrorCode code = ErrorCode::System;
    std::string message;
};

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_state(std::move(value)) {}
    Result(Error error) : m_state(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(m_state); }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<T>(m_state); }
    const T& value() const& { return std::get<T>(m_state); }
    T&& value() && { return std::get<T>(std::move(m_state)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const { return std::get<Error>(m_state); }

private:
    std::variant<T, Error> m_state;
};

struct Ok {};
using Status = Result<Ok>;

inline Error makeError(ErrorCode code, std::string message) { return Error{code, std::move(message)}; }

} // namespace warren
