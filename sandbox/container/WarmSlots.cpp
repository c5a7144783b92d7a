#include "sandbox/container/WarmSlots.h"

#include "common/UniqueFd.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace warren::sandbox {
namespace {

constexpr unsigned long kQuiet = MS_NOSUID | MS_NODEV;

Error mountFailed(const std::string& what, const std::string& where) {
    return makeError(ErrorCode::System,
                     "cannot " + what + " at " + where + " for a warm container: " + std::strerror(errno));
}

// A detached copy of the source with its flags set, then attached: what propagates into the container is
// the mount as attached, so a read-only bind must be read-only before it is attached (a remount after
// would change only the host's copy).
Status bindOver(const std::string& source, const std::string& target, bool readOnly) {
    UniqueFd tree(::open_tree(AT_FDCWD, source.c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE));
    if (!tree.valid())
        return mountFailed("copy the mount of " + source, target);
    mount_attr attr{};
    attr.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | (readOnly ? MOUNT_ATTR_RDONLY : 0);
    if (::mount_setattr(tree.get(), "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) != 0)
        return mountFailed("restrict the bind of " + source, target);
    if (::move_mount(tree.get(), "", AT_FDCWD, target.c_str(), MOVE_MOUNT_F_EMPTY_PATH) != 0)
        return mountFailed("bind " + source, target);
    return Ok{};
}

Status tmpfsAt(const std::string& target, const std::string& options, unsigned long flags) {
    if (::mount("tmpfs", target.c_str(), "tmpfs", flags | kQuiet, options.c_str()) != 0)
        return mountFailed("mount a tmpfs", target);
    return Ok{};
}

// Empty entries only: a directory still holding anything (a mount that did not go) stays.
void removeEntries(const std::string& dir) {
    DIR* listing = ::opendir(dir.c_str());
    if (!listing)
        return;
    std::vector<std::pair<std::string, bool>> entries;
    while (dirent* entry = ::readdir(listing)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..")
            entries.emplace_back(dir + "/" + name, entry->d_type == DT_DIR);
    }
    ::closedir(listing);
    for (const auto& [path, directory] : entries)
        directory ? ::rmdir(path.c_str()) : ::unlink(path.c_str());
    ::rmdir(dir.c_str());
}

} // namespace

Status makeWarmDirectories(const std::string& dataDir, const DockerCommand& shape) {
    const std::string slots = dataDir + "/" + kWarmSlotsName;
    const std::string claim = dataDir + "/" + kWarmClaimName;
    if (::mkdir(slots.c_str(), 0700) != 0 || ::mkdir(claim.c_str(), 0700) != 0)
        return mountFailed("make a directory", dataDir);
    // Private first: a peer group of its own, so what a claim mounts reaches this container and nothing else.
    if (::mount(slots.c_str(), slots.c_str(), nullptr, MS_BIND, nullptr) != 0)
        return mountFailed("bind the slots", slots);
    if (::mount(nullptr, slots.c_str(), nullptr, MS_PRIVATE, nullptr) != 0 ||
        ::mount(nullptr, slots.c_str(), nullptr, MS_SHARED, nullptr) != 0) {
        const Error error = mountFailed("share the slots", slots);
        removeWarmDirectories(dataDir);
        return error;
    }
    for (const SlotBind& bind : shape.slotBinds) {
        const std::string entry = slots + "/" + bind.slot;
        const bool made =
            bind.mount.directory
                ? ::mkdir(entry.c_str(), 0700) == 0
                : ::close(::open(entry.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) == 0;
        if (!made) {
            const Error error = mountFailed("make the slot", entry);
            removeWarmDirectories(dataDir);
            return error;
        }
    }
    const std::string options = "size=16k,nr_inodes=16,mode=0700,uid=" + std::to_string(shape.uid) +
                                ",gid=" + std::to_string(shape.gid);
    if (auto mounted = tmpfsAt(claim, options, MS_NOEXEC); !mounted) {
        removeWarmDirectories(dataDir);
        return mounted;
    }
    return Ok{};
}

Status fillWarmSlots(const std::string& dataDir, const DockerCommand& shape,
                     const std::string& workspaceDest) {
    const std::string slots = dataDir + "/" + kWarmSlotsName;
    for (const SlotBind& bind : shape.slotBinds)
        if (auto bound = bindOver(bind.mount.source, slots + "/" + bind.slot, bind.mount.readOnly); !bound)
            return bound;
    const std::string workspace = slots + "/" + shape.workspaceSlot;
    for (const ContainerMount& mount : shape.claimMounts) {
        const std::string target = workspace + mount.dest.substr(workspaceDest.size());
        Status mounted = Ok{};
        switch (mount.kind) {
        case ContainerMount::Kind::HostPath:
            mounted = bindOver(mount.source, target, mount.readOnly);
            break;
        case ContainerMount::Kind::EmptyDirectory: // as DockerCommand's --tmpfs for it
            mounted = tmpfsAt(target, "size=4k,mode=0555", MS_RDONLY | MS_NOEXEC);
            break;
        case ContainerMount::Kind::Memory:
            mounted = tmpfsAt(target, "size=" + std::to_string(mount.sizeMb) + "m,mode=1777", 0);
            break;
        case ContainerMount::Kind::UploadedWorkspace:
        case ContainerMount::Kind::WorkspacePath:
            return makeError(ErrorCode::InvalidArgument, "a warm container binds this host's paths only");
        }
        if (!mounted)
            return mounted;
    }
    return Ok{};
}

void removeWarmDirectories(const std::string& dataDir) {
    for (const char* name : {kWarmSlotsName, kWarmClaimName}) {
        const std::string dir = dataDir + "/" + name;
        struct stat st {};
        if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        // Lazily, with all below: the container may still be going away. Twice for the slots (their shared
        // bind over the directory); EINVAL once nothing is mounted there.
        while (::umount2(dir.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW) == 0) {
        }
        removeEntries(dir);
    }
}

} // namespace warren::sandbox
