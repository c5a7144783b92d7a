#include "app/modelproxy/KeyMask.h"

#include <algorithm>
#include <utility>

namespace warren::control {

KeyMask::KeyMask(std::string key, std::string replacement)
    : m_key(std::move(key)), m_replacement(std::move(replacement)) {}

std::string KeyMask::masked(std::string text, const std::string& key, std::string_view replacement) {
    if (key.empty())
        return text;
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + replacement.size()))
        text.replace(at, key.size(), replacement);
    return text;
}

std::string KeyMask::feed(std::string_view bytes) {
    if (m_key.empty())
        return std::string(bytes);
    std::string text = masked(std::move(m_held) + std::string(bytes), m_key, m_replacement);
    m_held.clear();
    // The longest tail that is a proper start of the key (shorter than the key: a whole one was replaced).
    const std::size_t longest = std::min(text.size(), m_key.size() - 1);
    for (std::size_t length = longest; length > 0; --length) {
        if (std::string_view(text).substr(text.size() - length) == std::string_view(m_key).substr(0, length)) {
            m_held = text.substr(text.size() - length);
            text.resize(text.size() - length);
            break;
        }
    }
    return text;
}

std::string KeyMask::finish() {
    return std::exchange(m_held, {});
}

} // namespace warren::control
