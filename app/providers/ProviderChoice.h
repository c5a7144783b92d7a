#pragma once
// A task's provider as `--provider` and TaskSpec::provider spell it: a provider by name or URL ("openai",
// "openai-compatible:URL", ...: parseProviderSpec reads those), or a scripted model's script file,
// "scripted:FILE". The one place that spelling is written and taken apart. Pure.

#include <string>
#include <string_view>
#include <utility>

namespace warren::control {

class ProviderChoice {
public:
    static constexpr std::string_view kScriptedPrefix = "scripted:";
    // What a server shows of a scripted task's provider: its script file is the server's path.
    static constexpr const char* kScriptedName = "scripted";

    static ProviderChoice parse(std::string_view text) {
        if (text.starts_with(kScriptedPrefix))
            return scripted(std::string(text.substr(kScriptedPrefix.size())));
        return ProviderChoice(false, std::string(text));
    }
    static ProviderChoice scripted(std::string scriptFile) { return ProviderChoice(true, std::move(scriptFile)); }

    bool isScripted() const { return m_scripted; }
    // A scripted choice's script file ("" when the text ended at the colon); "" for any other.
    std::string scriptFile() const { return m_scripted ? m_value : std::string(); }
    std::string toString() const { return m_scripted ? std::string(kScriptedPrefix) + m_value : m_value; }

private:
    ProviderChoice(bool scripted, std::string value) : m_scripted(scripted), m_value(std::move(value)) {}

    bool m_scripted = false;
    std::string m_value; // the provider as written, or the script file
};

} // namespace warren::control
