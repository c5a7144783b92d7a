#include "agent_core/process/OutputCap.h"

#include "common/Utf8.h"

#include <algorithm>

namespace warren::agent {

OutputCap::OutputCap(std::size_t limitBytes) : m_limit(limitBytes), m_headLimit(limitBytes / 2) {}

void OutputCap::append(std::string_view bytes) {
    m_totalBytes += bytes.size();
    if (m_head.size() < m_headLimit) {
        const std::size_t take = std::min(m_headLimit - m_head.size(), bytes.size());
        m_head.append(bytes.substr(0, take));
        bytes.remove_prefix(take);
    }
    const std::size_t capacity = m_limit - m_headLimit;
    if (bytes.empty() || capacity == 0)
        return;
    if (m_tail.size() != capacity)
        m_tail.assign(capacity, '\0'); // allocated once, on the first byte past the head
    if (bytes.size() >= capacity) {
        bytes.remove_prefix(bytes.size() - capacity);
        m_tail.assign(bytes);
        m_tailStart = 0;
        m_tailFilled = capacity;
        return;
    }
    // Write after the newest byte, wrapping; once full, each new byte replaces the oldest.
    std::size_t end = (m_tailStart + m_tailFilled) % capacity;
    const std::size_t first = std::min(bytes.size(), capacity - end);
    std::copy_n(bytes.data(), first, m_tail.begin() + static_cast<std::ptrdiff_t>(end));
    std::copy_n(bytes.data() + first, bytes.size() - first, m_tail.begin());
    const std::size_t overflow =
        m_tailFilled + bytes.size() > capacity ? m_tailFilled + bytes.size() - capacity : 0;
    m_tailFilled = std::min(capacity, m_tailFilled + bytes.size());
    m_tailStart = (m_tailStart + overflow) % capacity;
}

std::string OutputCap::tailInOrder() const {
    std::string tail;
    tail.reserve(m_tailFilled);
    const std::size_t firstPart = std::min(m_tailFilled, m_tail.size() - m_tailStart);
    tail.append(m_tail, m_tailStart, firstPart);
    tail.append(m_tail, 0, m_tailFilled - firstPart);
    return tail;
}

std::string OutputCap::text() const {
    if (!truncated())
        return m_head + tailInOrder();
    std::string_view head = m_head;
    head.remove_suffix(incompleteUtf8Suffix(head));
    const std::string tailBytes = tailInOrder();
    std::string_view tail = tailBytes;
    tail.remove_prefix(utf8ContinuationPrefix(tail));
    const std::uint64_t cut = m_totalBytes - head.size() - tail.size();
    std::string text;
    text.reserve(head.size() + tail.size() + kMaxMarkerBytes);
    text.append(head);
    text.append("\n[... " + std::to_string(cut) + " bytes cut ...]\n");
    text.append(tail);
    return text;
}

} // namespace warren::agent
