#pragma once
// UTF-8, walked one way for every part. Validation is strict (RFC 3629): a peer that sends overlong
// forms, surrogates or code points past U+10FFFF is sending bytes that different decoders read
// differently, so the protocol refuses them. Cutting never splits a character, so a reader never sees
// half of "é"; bytes that are not UTF-8 are left for validUtf8 or the wire encoder to repair.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace warren {

// One character: the code point and how many bytes (1..4) encode it.
struct Utf8Char {
    char32_t codePoint;
    std::size_t length;
};

// The character whose valid sequence starts at bytes[i], or nullopt when none does (a stray continuation
// byte, an overlong form, a surrogate, past U+10FFFF, cut short by the end). i must be < bytes.size().
std::optional<Utf8Char> utf8CharAt(std::string_view bytes, std::size_t i);

// The offset of the first byte that does not begin a valid UTF-8 sequence, or nullopt when all are valid.
std::optional<std::size_t> firstInvalidUtf8(std::string_view bytes);

// bytes with every byte that does not begin a valid UTF-8 sequence replaced by U+FFFD.
std::string validUtf8(std::string_view bytes);

// The longest prefix of text no longer than limit bytes that does not end inside a UTF-8 sequence (it
// backs up over at most 3 continuation bytes: a longer run is not one character).
std::string_view utf8Prefix(std::string_view text, std::size_t limit);

// How many bytes at the end of bytes form the start of a multi-byte sequence that is still missing bytes
// (0..3). An invalid tail is not "incomplete" and gives 0.
std::size_t incompleteUtf8Suffix(std::string_view bytes);

// How many continuation bytes (10xxxxxx) begin bytes, at most 3: the rest of a character whose start
// lies before bytes.
std::size_t utf8ContinuationPrefix(std::string_view bytes);

} // namespace warren
