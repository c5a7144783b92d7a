#pragma once
// The names that become directories of the filesystem backend, checked before they get there: a
// namespace is one safe path segment, a memory prefix a relative path of such segments.

#include "common/Result.h"

#include <cstddef>
#include <string_view>

namespace warren::agent {

inline constexpr std::string_view kDefaultNamespace = "default";

// [A-Za-z0-9._-]{1,64}, not starting with '.' (no ".", "..", or hidden directories).
// Error: "namespace \"a/b\": use 1 to 64 of A-Z a-z 0-9 . _ -, not starting with '.'".
Status validateNamespace(std::string_view ns);

inline constexpr std::size_t kMaxMemoryKeyBytes = 1024;
inline constexpr std::size_t kMaxMemoryValueBytes = 1024 * 1024;

// 1 to kMaxMemoryKeyBytes bytes of UTF-8. Error: "key: is empty".
Status validateMemoryKey(std::string_view key);
// At most kMaxMemoryValueBytes bytes of UTF-8.
Status validateMemoryValue(std::string_view value);

// Empty, or segments of [A-Za-z0-9._-]+ joined by '/': no empty segment (leading, trailing or double
// '/'), no "." or "..", at most 512 bytes. Error names the prefix and the problem.
Status validateMemoryPrefix(std::string_view prefix);

} // namespace warren::agent
