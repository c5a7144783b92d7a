#pragma once
// A child's output arrives in reads that end anywhere, often inside a multi-byte character. Whatever is
// streamed or shown to the model is cut on character boundaries only, so a reader never sees half of "é".
// Bytes that are not valid UTF-8 pass through unchanged: repairing them is the wire encoder's job.

#include <cstddef>
#include <string>
#include <string_view>

namespace warren::agent {

class Utf8Chunker {
public:
    // The bytes held back from before followed by bytes, less an incomplete trailing sequence, which is
    // held back until the next push or finish().
    std::string push(std::string_view bytes);

    // At the end of the stream: whatever is held back, as it is.
    std::string finish();

    std::size_t heldBackBytes() const { return m_pending.size(); }

private:
    std::string m_pending; // at most 3 bytes
};

} // namespace warren::agent
