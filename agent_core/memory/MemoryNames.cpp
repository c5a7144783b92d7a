#include "agent_core/memory/MemoryNames.h"

#include "common/Utf8.h"

#include <string>

namespace warren::agent {

namespace {

bool isNameChar(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

bool allNameChars(std::string_view text) {
    for (const char c : text) {
        if (!isNameChar(c))
            return false;
    }
    return true;
}

constexpr std::size_t kMaxNamespaceBytes = 64;
constexpr std::size_t kMaxPrefixBytes = 512;

} // namespace

Status validateNamespace(std::string_view ns) {
    if (ns.empty() || ns.size() > kMaxNamespaceBytes || !allNameChars(ns) || ns.front() == '.')
        return makeError(ErrorCode::InvalidArgument,
                         "namespace \"" + std::string(ns) +
                             "\": use 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.'");
    return Ok{};
}

Status validateMemoryKey(std::string_view key) {
    if (key.empty())
        return makeError(ErrorCode::InvalidArgument, "key: is empty");
    if (key.size() > kMaxMemoryKeyBytes)
        return makeError(ErrorCode::InvalidArgument, "key: is " + std::to_string(key.size()) +
                                                         " bytes long; at most " +
                                                         std::to_string(kMaxMemoryKeyBytes) + " are allowed");
    if (firstInvalidUtf8(key))
        return makeError(ErrorCode::InvalidArgument, "key: is not valid UTF-8");
    return Ok{};
}

Status validateMemoryValue(std::string_view value) {
    if (value.size() > kMaxMemoryValueBytes)
        return makeError(ErrorCode::InvalidArgument, "value: is " + std::to_string(value.size()) +
                                                         " bytes long; at most " +
                                                         std::to_string(kMaxMemoryValueBytes) +
                                                         " are allowed: save a summary, or the path "
                                                         "of a file in the workspace");
    if (firstInvalidUtf8(value))
        return makeError(ErrorCode::InvalidArgument, "value: is not valid UTF-8");
    return Ok{};
}

Status validateMemoryPrefix(std::string_view prefix) {
    const auto refuse = [&](const std::string& why) {
        return makeError(ErrorCode::InvalidArgument, "memory_prefix \"" + std::string(prefix) + "\": " + why);
    };
    if (prefix.size() > kMaxPrefixBytes)
        return refuse("longer than " + std::to_string(kMaxPrefixBytes) + " bytes");
    std::string_view rest = prefix;
    while (!rest.empty()) {
        const auto slash = rest.find('/');
        const std::string_view segment = rest.substr(0, slash);
        if (segment.empty())
            return refuse("has an empty segment (a leading, trailing or double '/')");
        if (segment == "." || segment == "..")
            return refuse("has a \"" + std::string(segment) + "\" segment");
        if (!allNameChars(segment))
            return refuse("use segments of A-Z a-z 0-9 . _ - separated by '/'");
        if (slash == std::string_view::npos)
            break;
        rest.remove_prefix(slash + 1);
        if (rest.empty())
            return refuse("has an empty segment (a leading, trailing or double '/')");
    }
    return Ok{};
}

} // namespace warren::agent
