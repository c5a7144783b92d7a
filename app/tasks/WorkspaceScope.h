#pragma once
// Whether a folder is one an agent may be given as its workspace (mounted read-write at /workspace). A
// workspace is a project's folder: the whole machine (/), a system folder (/etc, /usr, ...), the user's home
// or a folder holding it (/home), and the home's credential folders (~/.ssh, ~/.aws, ...) are refused, in
// every face, because one prompt would give the agent every key and every project in them. Pure.

#include <filesystem>
#include <optional>
#include <string>

namespace warren::control {

// Why canonical (an absolute path with no symlinks, as TaskManager resolves it) is too broad to be a
// workspace for the user whose home is home; nullopt when it is a workspace.
std::optional<std::string> tooBroadWorkspace(const std::filesystem::path& canonical, const std::filesystem::path& home);

// The user's home: $HOME, else the password database's.
std::filesystem::path userHome();

} // namespace warren::control
