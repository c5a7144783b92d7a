#pragma once
// A real key taken out of a stream of bytes on its way back to the sandbox, whatever pieces the network cuts
// it into: an upstream that echoes the key (in an error message, a debug field) must not hand it to the
// sandbox it was kept from. The model proxy replaces a provider's key with "[the API key]"; the egress
// proxy a secret's value with the task's placeholder for it. Pure.

#include <string>
#include <string_view>

namespace warren::control {

class KeyMask {
public:
    explicit KeyMask(std::string key, std::string replacement = std::string(kReplacement)); // "": masks nothing

    // The bytes that can be passed on now, every whole key replaced. A tail that may be the start of the key
    // is held back until the next piece (or finish) shows whether it is; a tail that cannot be is never
    // held, so a stream of SSE events (each ending in a blank line) is passed on without delay.
    std::string feed(std::string_view bytes);
    std::string finish(); // what was held back; the stream ended

    // text with every occurrence of key replaced.
    static std::string masked(std::string text, const std::string& key,
                              std::string_view replacement = kReplacement);
    static constexpr std::string_view kReplacement = "[the API key]";

private:
    std::string m_key;
    std::string m_replacement;
    std::string m_held;
};

} // namespace warren::control
