#pragma once
// What the API server says while we watch, and what it means for the sandbox. Pure.
//
// A watch answers one JSON object per line: {"type": ADDED|MODIFIED|DELETED|BOOKMARK|ERROR, "object": ...}.
// A BOOKMARK carries only a newer resourceVersion; an ERROR carries a Status, and one with code 410 means the
// version we resumed from was compacted away: list again and watch from the list's version.

#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace warren::kube {

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

struct WatchEvent {
    WatchEventType type = WatchEventType::Added;
    nlohmann::json object;
};

Result<WatchEvent> parseWatchEvent(std::string_view line);
// The object's metadata.resourceVersion, or "".
std::string resourceVersionOf(const nlohmann::json& object);
// The object's metadata.name, or "" (also when the answer is not an object or the name not a string).
std::string nameOf(const nlohmann::json& object);
// A list's items, or an empty array when the answer is not a list: an API server's answer may have any
// shape, and a wrong one must read as nothing rather than throw.
const nlohmann::json& itemsOf(const nlohmann::json& list);
// An ERROR event whose Status says the resourceVersion is too old (410 Gone / Expired).
bool isResourceVersionExpired(const WatchEvent& event);
// An ERROR event's Status message, for a person.
std::string watchErrorMessage(const WatchEvent& event);

// Where a pod is on its way, as far as the sandbox is concerned.
enum class PodProgress {
    Waiting, // Pending: being scheduled, pulling the image, starting
    Stuck,   // Pending for a reason the user must fix (image cannot be pulled, cannot be scheduled)
    Running, // the container runs, not yet ready
    Ready,   // running and ready
    Ended,   // Succeeded or Failed: exitCode says how, when the container ran
};

struct PodState {
    PodProgress progress = PodProgress::Waiting;
    std::string reason;           // "ImagePullBackOff", "Unschedulable", "OOMKilled", "Completed", ...
    std::string message;          // the cluster's words, when it gave some
    std::optional<int> exitCode;  // Ended with a container that ran
    bool succeeded = false;       // Ended: phase Succeeded
};

PodState podState(const nlohmann::json& pod);
// An agent-sandbox Sandbox: Ready from its Ready condition; otherwise Waiting with the condition's reason.
PodState sandboxState(const nlohmann::json& sandbox);
// For messages: "Ready", "Waiting (ContainerCreating)", "Ended with exit code 137 (OOMKilled)".
std::string describePodState(const PodState& state);

} // namespace warren::kube
