#pragma once
// The scripted model (DESIGN §4) on the control plane's side: serves the turns of a script file, parsed
// by the one parser in warren_protocol. The turn served is the number of assistant messages already in
// the conversation, so the provider holds no position: a resumed agent gets the turn it is at.

#include "agent_core/protocol/Script.h"
#include "app/providers/Provider.h"

namespace warren::control {

class ScriptedProvider : public Provider {
public:
    // Reads and parses the script; an error names the file and what is wrong in it.
    static Result<std::unique_ptr<ScriptedProvider>> load(const std::string& path);
    explicit ScriptedProvider(protocol::Script script);

    ChatCall* chat(const protocol::LlmChatParams& params, QObject* parent) override;
    std::string describe() const override;

    // The reply to a conversation, or the error when the script has no turn for it. Pure.
    Result<protocol::LlmChatResult> replyTo(const protocol::LlmChatParams& params) const;

private:
    protocol::Script m_script;
};

} // namespace warren::control
