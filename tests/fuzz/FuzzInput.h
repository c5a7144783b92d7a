#pragma once
// What the libFuzzer targets share: a property that must hold stops the run where it broke (a trap is a
// crash libFuzzer saves the input of), and an input's first byte, which picks the parser of a family and the
// size of the pieces a streaming reader is fed in, so that every boundary gets split.

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace warren::fuzz {

inline void require(bool condition) {
    if (!condition)
        __builtin_trap();
}

struct FuzzInput {
    std::uint8_t selector = 0; // the first byte
    std::string_view body;     // the rest

    static FuzzInput from(const std::uint8_t* data, std::size_t size) {
        if (size == 0)
            return {};
        return {data[0], std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1)};
    }
    // Which of `count` parsers: the selector's low bits.
    unsigned pick(unsigned count) const { return selector % count; }
    // The size of the pieces a stream is fed in, 1 to 32, from the selector's high bits.
    std::size_t pieceSize() const { return 1 + (selector >> 3u); }
};

} // namespace warren::fuzz
