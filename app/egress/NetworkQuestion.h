#pragma once
// A question the egress proxy of a task with `--network ask` puts to the user: may the agent reach this
// host? It travels as an approval (the window's card, the terminal's prompt, warrend's approvals API) whose
// tool is "network" and whose id starts with "network.", both the control plane's alone: an agent's
// approval.request for that tool, and an agent's event with such an id, are refused. Pure.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace warren::control {

inline constexpr std::string_view kNetworkTool = "network";
inline constexpr std::string_view kNetworkQuestionPrefix = "network.";

struct NetworkQuestion {
    std::string host; // a DNS name, lowercase, no trailing dot
    std::uint16_t port = 0;
    std::string method; // the request's: "CONNECT", "GET", ...

    std::string target() const { return host + ":" + std::to_string(port); }
    // The approval's arguments: {"host", "port", "method"}.
    nlohmann::json toJson() const;
    // The question an approval carries, or nullopt when it is not one (another tool, other arguments).
    static std::optional<NetworkQuestion> fromApproval(std::string_view tool, const nlohmann::json& arguments);
    friend bool operator==(const NetworkQuestion&, const NetworkQuestion&) = default;
};

// "network.RUN.N": unique in the task, as a tool call's approval id is ("RUN.ID").
std::string networkQuestionId(std::uint64_t run, std::uint64_t number);
bool isNetworkQuestionId(std::string_view id);
// Whether an event (its type, envelope tool and data) asks or decides a network question: an agent's such
// event is a forgery.
bool isNetworkQuestionEvent(std::string_view type, const std::optional<std::string>& tool, const nlohmann::json& data);

} // namespace warren::control
