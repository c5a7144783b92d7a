#include "sandbox/bwrap/BwrapCommand.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace warren::sandbox {
namespace {

// A mount step: the destination orders it (parents before children), args are its bwrap options.
struct MountStep {
    std::string dest;
    std::vector<std::string> args;
};

class CommandBuilder {
public:
    void add(std::initializer_list<std::string> words) { m_argv.insert(m_argv.end(), words); }
    int data(std::string bytes, std::string purpose) {
        const int fd = BwrapCommand::kStatusFd + 1 + static_cast<int>(m_data.size());
        m_data.push_back({fd, std::move(bytes), std::move(purpose)});
        return fd;
    }
    std::vector<std::string>& argv() { return m_argv; }
    std::vector<DataFd>& dataFds() { return m_data; }

private:
    std::vector<std::string> m_argv;
    std::vector<DataFd> m_data;
};

std::string passwdFile(const SandboxProfile& profile) {
    const auto& u = profile.user;
    return "root:x:0:0:root:/root:/usr/sbin/nologin\n" + u.name + ":x:" + std::to_string(u.uid) + ":" +
           std::to_string(u.gid) + ":Warren sandbox:" + u.home + ":" + u.shell +
           "\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
}

std::string groupFile(const SandboxProfile& profile) {
    return "root:x:0:\n" + profile.user.name + ":x:" + std::to_string(profile.user.gid) + ":\nnogroup:x:65534:\n";
}

std::string hostsFile(const SandboxProfile& profile) {
    return "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\t" + profile.hostname + "\n";
}

std::string bytesOption(std::uint64_t megabytes) { return std::to_string(mebibytesToBytes(megabytes)); }

Result<std::vector<std::string>> mountArgs(const MountSpec& mount, const HostLookup& lookup) {
    using Type = MountSpec::Type;
    switch (mount.type) {
    case Type::RoBind:
    case Type::Bind:
    case Type::Mirror: {
        const HostEntry entry = lookup(mount.source);
        if (entry.kind == HostEntry::Kind::Missing) {
            if (mount.optional)
                return std::vector<std::string>{};
            return makeError(ErrorCode::NotFound, "mount source " + mount.source + " (for " + mount.dest +
                                                      ") does not exist on this host; create it, or mark the "
                                                      "mount \"optional\": true in the profile");
        }
        if (mount.type == Type::Mirror && entry.kind == HostEntry::Kind::Symlink)
            return std::vector<std::string>{"--symlink", entry.linkTarget, mount.dest};
        return std::vector<std::string>{mount.type == Type::Bind ? "--bind" : "--ro-bind", mount.source, mount.dest};
    }
    case Type::Symlink:
        return std::vector<std::string>{"--symlink", mount.target, mount.dest};
    case Type::Tmpfs:
        // 1777 mirrors /tmp's usual mode; the tmpfs belongs to the sandbox user, who may need to share it
        // with nothing else anyway.
        return std::vector<std::string>{"--perms", "1777", "--size", bytesOption(mount.sizeMb), "--tmpfs", mount.dest};
    case Type::Proc:
        // Read-only as a whole: bwrap covers a few /proc entries, but under a root invoker the sandbox's
        // uid is host uid 0, to which /proc/sys (core_pattern!) and sysrq-trigger grant write access.
        return std::vector<std::string>{"--proc", mount.dest, "--remount-ro", mount.dest};
    case Type::Dev:
        return std::vector<std::string>{"--dev", mount.dest};
    }
    return std::vector<std::string>{};
}

std::string joinPath(const std::string& base, const std::string& relative) { return base + "/" + relative; }

} // namespace

HostEntry lookupHostPath(const std::string& path) {
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0)
        return {};
    if (S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        const ssize_t n = readlink(path.c_str(), target, sizeof target - 1);
        if (n < 0)
            return {};
        return {HostEntry::Kind::Symlink, std::string(target, static_cast<std::size_t>(n))};
    }
    return {S_ISDIR(st.st_mode) ? HostEntry::Kind::Directory : HostEntry::Kind::File, {}};
}

std::string shellQuote(const std::string& word) {
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("@%+=:,./-_").find(c) != std::string_view::npos;
    });
    if (plain)
        return word;
    std::string quoted = "'";
    for (char c : word)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string shellCommandLine(const std::vector<std::string>& argv) {
    std::string line;
    for (const auto& word : argv)
        line += (line.empty() ? "" : " ") + shellQuote(word);
    return line;
}

std::string BwrapCommand::commandLine() const { return shellCommandLine(argv); }

Result<BwrapCommand> buildBwrapCommand(const SandboxProfile& profile, const BwrapRequest& request,
                                       const HostLookup& lookup) {
    if (request.command.empty())
        return makeError(ErrorCode::InvalidArgument, "no command to run in the sandbox");
    if (request.seccompFilter.empty())
        return makeError(ErrorCode::InvalidArgument, "no seccomp filter: the sandbox never runs without one");

    CommandBuilder b;
    b.add({request.bwrapPath});
    // Every namespace, always: the profile decides what is visible, never whether isolation is on.
    // Outside uid (even root) maps to an unprivileged uid inside; no capabilities; no nested user
    // namespaces; a new session so the sandbox has no controlling terminal to inject input into.
    b.add({"--unshare-user", "--uid", std::to_string(profile.user.uid), "--gid", std::to_string(profile.user.gid),
           "--disable-userns", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
           "--unshare-cgroup", "--hostname", profile.hostname, "--die-with-parent", "--new-session",
           "--cap-drop", "ALL", "--clearenv"});

    for (const auto& [name, value] : sandboxEnvironment(profile, request.hostEnv))
        b.add({"--setenv", name, value});

    std::vector<MountStep> steps;
    for (const auto& mount : profile.mounts) {
        auto args = mountArgs(mount, lookup);
        if (!args)
            return args.error();
        if (!args->empty())
            steps.push_back({mount.dest, std::move(*args)});
    }
    auto dataMount = [&](const std::string& dest, std::string bytes) {
        const int fd = b.data(std::move(bytes), dest);
        steps.push_back({dest, {"--ro-bind-data", std::to_string(fd), dest}});
    };
    // A plain file in the sandbox's root tmpfs (remounted read-only at the end) needs no mount. Where a
    // profile mount covers the path, writing a file there would write to the host: mount it instead.
    auto dataFile = [&](const std::string& dest, std::string bytes) {
        auto under = [&dest](const std::string& mountPoint) {
            return dest == mountPoint || dest.rfind(mountPoint + "/", 0) == 0;
        };
        const bool covered = under(profile.workspaceDest) ||
                             std::any_of(profile.mounts.begin(), profile.mounts.end(),
                                         [&](const MountSpec& m) { return under(m.dest); });
        if (covered)
            return dataMount(dest, std::move(bytes));
        const int fd = b.data(std::move(bytes), dest);
        steps.push_back({dest, {"--perms", "0444", "--file", std::to_string(fd), dest}});
    };
    dataFile("/etc/passwd", passwdFile(profile));
    dataFile("/etc/group", groupFile(profile));
    dataFile("/etc/hosts", hostsFile(profile));
    dataFile("/etc/hostname", profile.hostname + "\n");

    const std::string& ws = profile.workspaceDest;
    steps.push_back({ws, {profile.workspaceWritable ? "--bind" : "--ro-bind", profile.workspaceSource, ws}});
    for (const auto& entry : request.protection.entries) {
        const std::string source = joinPath(profile.workspaceSource, entry.relative);
        const std::string dest = joinPath(ws, entry.relative);
        switch (entry.kind) {
        case ProtectionEntry::Kind::Pin:
            steps.push_back({dest, {profile.workspaceWritable ? "--bind" : "--ro-bind", source, dest}});
            break;
        case ProtectionEntry::Kind::ReadOnly:
            steps.push_back({dest, {"--ro-bind", source, dest}});
            break;
        case ProtectionEntry::Kind::PlaceholderFile:
            dataMount(dest, std::string());
            break;
        case ProtectionEntry::Kind::PlaceholderDir:
            steps.push_back({dest, {"--perms", "0555", "--size", "4096", "--tmpfs", dest, "--remount-ro", dest}});
            break;
        }
    }
    // Parents before children; a stable sort keeps the order of steps on the same path.
    std::stable_sort(steps.begin(), steps.end(), [](const MountStep& x, const MountStep& y) { return x.dest < y.dest; });
    for (auto& step : steps)
        b.argv().insert(b.argv().end(), step.args.begin(), step.args.end());

    // Nothing but the mounts above may be written: the root tmpfs itself has no size cap.
    b.add({"--remount-ro", "/"});
    const int seccompFd = b.data(std::string(request.seccompFilter.begin(), request.seccompFilter.end()), "seccomp filter");
    b.add({"--chdir", ws, "--seccomp", std::to_string(seccompFd), "--json-status-fd",
           std::to_string(BwrapCommand::kStatusFd)});
    // Without bwrap's own reaper as pid 1, which keeps bwrap's stdio open for as long as the sandbox runs:
    // the command's stdio is then held by the command alone.
    if (request.commandIsInit)
        b.add({"--as-pid-1"});

    // Everything after argv[0] and before "--" goes on a descriptor, NUL-terminated (bwrap --args). A NUL
    // inside a word would split it into options of its own there, so no word may hold one.
    const auto holdsNul = [](const std::string& word) { return word.find('\0') != std::string::npos; };
    for (const std::vector<std::string>* words : {&std::as_const(b.argv()), &request.command})
        if (const auto bad = std::find_if(words->begin(), words->end(), holdsNul); bad != words->end())
            return makeError(ErrorCode::InvalidArgument,
                             "a sandbox option or command word holds a NUL character: " + shellQuote(*bad) +
                                 "; remove it from the profile or the command");
    std::string options;
    for (auto it = b.argv().begin() + 1; it != b.argv().end(); ++it)
        options += *it + '\0';
    b.data(std::move(options), "bwrap's options (--args)");
    b.add({"--"});
    b.argv().insert(b.argv().end(), request.command.begin(), request.command.end());

    BwrapCommand command;
    command.argv = std::move(b.argv());
    command.dataFds = std::move(b.dataFds());
    command.commandIsInit = request.commandIsInit;
    command.commandWords = request.command.size();
    return command;
}

std::vector<std::string> BwrapCommand::execArgv() const {
    if (argv.empty() || dataFds.empty() || commandWords == 0 || commandWords + 2 > argv.size())
        return argv;
    std::vector<std::string> exec{argv.front(), "--args", std::to_string(dataFds.back().fd)};
    exec.insert(exec.end(), argv.end() - static_cast<std::ptrdiff_t>(commandWords) - 1, argv.end()); // "--" on
    return exec;
}

} // namespace warren::sandbox
