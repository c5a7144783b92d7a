#include "agent_core/team/AgentTools.h"

#include "agent_core/team/AgentRoles.h"
#include "agent_core/tools/ToolArguments.h"

namespace warren::agent {

using nlohmann::json;

namespace {

json stringProperty(const char* description) {
    return {{"type", "string"}, {"description", description}};
}

class SpawnAgentTool : public Tool {
public:
    SpawnAgentTool(AgentTeam& team, AgentSeat caller, std::vector<std::string> callerTools)
        : m_team(team), m_caller(std::move(caller)), m_callerTools(std::move(callerTools)) {}

    static protocol::ToolSpec spec() {
        std::string roles;
        for (const auto& role : roleNames())
            roles += (roles.empty() ? "" : ", ") + role;
        return {"spawn_agent",
                "Start a sub-agent that works beside you in this sandbox and workspace, with a fresh context: "
                "only its brief and the project's instructions. It runs while you go on; wait_agents returns its "
                "final message and the files it changed. Give independent pieces of work to separate sub-agents "
                "and say in each brief which files are theirs: two agents never write the same file at once.",
                json{{"type", "object"},
                     {"properties",
                      {{"brief", stringProperty("What it is to do, everything it needs to know, and what to report")},
                       {"role", {{"type", "string"},
                                 {"enum", roleNames()},
                                 {"description", "worker (default): your tools; explorer: read-only (read_file, "
                                                 "list_files, search). One of: " + roles}}}}},
                     {"required", {"brief"}},
                     {"additionalProperties", false}}};
    }

    ToolOutcome run(const json& arguments, const ToolEnv& env) override {
        auto args = ToolArguments::read("spawn_agent", arguments, {"brief", "role"});
        if (!args)
            return failure(args.error().message);
        auto brief = args->string("brief");
        auto role = args->optionalString("role");
        if (!brief)
            return failure(brief.error().message);
        if (!role)
            return failure(role.error().message);
        auto id = m_team.spawn(m_caller, m_callerTools, env.callId, *brief, role->value_or(std::string(kDefaultRole)));
        if (!id)
            return failure("spawn_agent: " + id.error().message);
        ToolOutcome outcome;
        outcome.output = "Started " + *id + ". It works beside you now; call wait_agents to get its final message "
                         "and the files it changed, send_agent to tell it more, close_agent to stop it.";
        return outcome;
    }

private:
    AgentTeam& m_team;
    AgentSeat m_caller;
    std::vector<std::string> m_callerTools;
};

class WaitAgentsTool : public Tool {
public:
    WaitAgentsTool(AgentTeam& team, AgentSeat caller) : m_team(team), m_caller(std::move(caller)) {}

    static protocol::ToolSpec spec() {
        return {"wait_agents",
                "Wait for sub-agents you started to end, and read their final messages and the files they changed.",
                json{{"type", "object"},
                     {"properties",
                      {{"agents", {{"type", "array"},
                                   {"items", {{"type", "string"}}},
                                   {"description", "Their ids; absent: all yours whose results you have not read"}}},
                       {"any", {{"type", "boolean"},
                                {"description", "Return when the first of them ends (default: when all have)"}}}}},
                     {"additionalProperties", false}}};
    }

    ToolOutcome run(const json& arguments, const ToolEnv& env) override {
        auto args = ToolArguments::read("wait_agents", arguments, {"agents", "any"});
        if (!args)
            return failure(args.error().message);
        auto any = args->optionalBool("any");
        if (!any)
            return failure(any.error().message);
        std::vector<std::string> ids;
        if (arguments.is_object() && arguments.contains("agents") && !arguments["agents"].is_null()) {
            const auto& list = arguments["agents"];
            if (!list.is_array())
                return failure("wait_agents: \"agents\" must be an array of agent ids");
            for (const auto& id : list) {
                if (!id.is_string())
                    return failure("wait_agents: \"agents\" must be an array of agent ids");
                ids.push_back(id.get<std::string>());
            }
        }
        return m_team.wait(m_caller, std::move(ids), any->value_or(false), env.deadline, *env.cancellation);
    }

private:
    AgentTeam& m_team;
    AgentSeat m_caller;
};

class SendAgentTool : public Tool {
public:
    SendAgentTool(AgentTeam& team, AgentSeat caller) : m_team(team), m_caller(std::move(caller)) {}

    static protocol::ToolSpec spec() {
        return {"send_agent",
                "Send a message to a sub-agent you started; it reads it before its next model call.",
                json{{"type", "object"},
                     {"properties", {{"agent", stringProperty("Its id")}, {"message", stringProperty("What to tell it")}}},
                     {"required", {"agent", "message"}},
                     {"additionalProperties", false}}};
    }

    ToolOutcome run(const json& arguments, const ToolEnv&) override {
        auto args = ToolArguments::read("send_agent", arguments, {"agent", "message"});
        if (!args)
            return failure(args.error().message);
        auto agent = args->string("agent");
        auto message = args->string("message");
        if (!agent)
            return failure(agent.error().message);
        if (!message)
            return failure(message.error().message);
        if (auto sent = m_team.send(m_caller, *agent, *message); !sent)
            return failure("send_agent: " + sent.error().message);
        ToolOutcome outcome;
        outcome.output = "Sent to " + *agent + ".";
        return outcome;
    }

private:
    AgentTeam& m_team;
    AgentSeat m_caller;
};

class CloseAgentTool : public Tool {
public:
    CloseAgentTool(AgentTeam& team, AgentSeat caller) : m_team(team), m_caller(std::move(caller)) {}

    static protocol::ToolSpec spec() {
        return {"close_agent",
                "Stop a sub-agent you started (and any it started), and read what it had done.",
                json{{"type", "object"},
                     {"properties", {{"agent", stringProperty("Its id")}}},
                     {"required", {"agent"}},
                     {"additionalProperties", false}}};
    }

    ToolOutcome run(const json& arguments, const ToolEnv&) override {
        auto args = ToolArguments::read("close_agent", arguments, {"agent"});
        if (!args)
            return failure(args.error().message);
        auto agent = args->string("agent");
        if (!agent)
            return failure(agent.error().message);
        return m_team.close(m_caller, *agent);
    }

private:
    AgentTeam& m_team;
    AgentSeat m_caller;
};

} // namespace

const std::vector<std::string>& agentToolNames() {
    static const std::vector<std::string> names = {"spawn_agent", "wait_agents", "send_agent", "close_agent"};
    return names;
}

std::vector<ToolEntry> agentTools(AgentTeam& team, const AgentSeat& caller, const std::vector<std::string>& callerTools) {
    AgentTeam* t = &team;
    return {{SpawnAgentTool::spec(), [t, caller, callerTools] { return std::make_unique<SpawnAgentTool>(*t, caller, callerTools); }},
            {WaitAgentsTool::spec(), [t, caller] { return std::make_unique<WaitAgentsTool>(*t, caller); }},
            {SendAgentTool::spec(), [t, caller] { return std::make_unique<SendAgentTool>(*t, caller); }},
            {CloseAgentTool::spec(), [t, caller] { return std::make_unique<CloseAgentTool>(*t, caller); }}};
}

} // namespace warren::agent
