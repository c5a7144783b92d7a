#include "app/tasks/WorkspaceScope.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <pwd.h>
#include <string_view>
#include <unistd.h>

namespace warren::control {

namespace fs = std::filesystem;

namespace {

// Top-level folders of the system: each holds what is not a project's.
constexpr std::array<std::string_view, 19> kSystemFolders{
    "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/media", "/mnt",
    "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/usr", "/var"};

// Folders of a home that hold credentials, and nothing an agent works on. (Not all of ~/.local: Warren's
// own data, where the demo's and a fork's workspaces are, is in ~/.local/share/warren.)
constexpr std::array<std::string_view, 10> kCredentialFolders{
    ".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".password-store", ".config", ".local/share/keyrings", ".mozilla"};

// Whether inner is outer or inside it.
bool within(const fs::path& inner, const fs::path& outer) {
    auto [end, rest] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
    return end == outer.end();
}

const std::string kChoose = " Choose the project's own folder (warren run --workspace DIR, or the window's workspace field).";

} // namespace

std::optional<std::string> tooBroadWorkspace(const fs::path& canonical, const fs::path& home) {
    const fs::path path = canonical.lexically_normal();
    const std::string shown = path.string();
    if (path == path.root_path())
        return "the workspace " + shown + " is the whole machine: the agent would read and change every file "
               "you can." + kChoose;
    const fs::path normalHome = home.lexically_normal();
    if (!home.empty() && path == normalHome)
        return "the workspace " + shown + " is your home folder: the agent would read and change all of it, "
               "your keys (~/.ssh) and every project in it." + kChoose;
    if (!home.empty() && within(normalHome, path))
        return "the workspace " + shown + " holds your home folder: the agent would read and change it, your "
               "keys (~/.ssh) and every project in it." + kChoose;
    if (std::find(kSystemFolders.begin(), kSystemFolders.end(), shown) != kSystemFolders.end() || shown == "/tmp")
        return "the workspace " + shown + " is a system folder, not a project's." + kChoose;
    if (!home.empty())
        for (std::string_view folder : kCredentialFolders)
            if (within(path, normalHome / folder))
                return "the workspace " + shown + " is in ~/" + std::string(folder) +
                       ", which holds credentials and settings, not a project." + kChoose;
    return std::nullopt;
}

fs::path userHome() {
    if (const char* home = std::getenv("HOME"); home && *home)
        return home;
    if (const passwd* entry = ::getpwuid(::getuid()); entry && entry->pw_dir)
        return entry->pw_dir;
    return {};
}

} // namespace warren::control
