#pragma once
// What an approval card shows of the call it asks about, so that a person can judge it before it happens:
// for a shell command, the whole command and the directory it runs in; for an edit (edit_file, write_file,
// apply_patch, and the CLIs' Edit and Write), the change as a unified diff, against the file as it is now
// when the face can read it, else against the text it replaces. A network question (--network ask) needs
// nothing more: its title and its reason (the control plane's) name the host, the port and the request.
// Pure: the face reads the file (FileReader), within the workspace, without following links; the call's
// arguments are the agent's, so nothing here trusts them beyond text.

#include "app/timeline/TimelineCard.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace warren::timeline {

struct CurrentFile {
    enum class State {
        Unknown,    // the face cannot read the workspace (a server's task): the call's own text is shown
        Absent,     // no such file now
        Text,       // text holds it
        Unreadable, // not a regular file, outside the workspace, too large: why says so
    };
    State state = State::Unknown;
    std::string text;
    std::string why;
};
// path: as the call names it (relative to the workspace, or /workspace/...).
using FileReader = std::function<CurrentFile(const std::string& path)>;

struct ApprovalPreview {
    std::string
        where; // one line: "runs in src/ of the workspace", "changes a.c: +2 −1", "reach host:443 (CONNECT)"
    TimelineCard::Body bodyKind = TimelineCard::Body::None;
    std::string body; // the command, or the diff
};

// Lines of a diff shown on the card; the change as made is shown whole on its file card afterwards.
inline constexpr std::size_t kPreviewDiffLines = 200;

// readFile may be empty (as Unknown).
ApprovalPreview approvalPreview(const std::string& tool, const nlohmann::json& arguments,
                                const FileReader& readFile);

} // namespace warren::timeline
