#pragma once
// What a tool shows the model is capped: a command that prints 50 MB must not flood the context. The head
// (how it started) and the tail (how it ended, usually the error) are what a reader needs, so both are
// kept, about half of the limit each, and the cut between them is marked with the number of bytes left
// out. Memory stays bounded by the limit however much is appended.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace warren::agent {

class OutputCap {
public:
    explicit OutputCap(std::size_t limitBytes);

    void append(std::string_view bytes);

    // Everything appended when it fits the limit; otherwise the head, a marker line
    // "\n[... N bytes cut ...]\n" and the tail. The cut never splits a UTF-8 character, so N can exceed
    // the overflow by up to 6 bytes. Text size <= limit + kMaxMarkerBytes.
    std::string text() const;

    bool truncated() const { return m_totalBytes > m_limit; }
    std::uint64_t totalBytes() const { return m_totalBytes; }

    static constexpr std::size_t kMaxMarkerBytes = 48;

private:
    std::string tailInOrder() const;

    std::size_t m_limit;
    std::size_t m_headLimit;
    std::string m_head;
    std::string m_tail;          // a ring of m_limit - m_headLimit bytes once the head is full
    std::size_t m_tailStart = 0; // the oldest byte in the ring
    std::size_t m_tailFilled = 0;
    std::uint64_t m_totalBytes = 0;
};

} // namespace warren::agent
