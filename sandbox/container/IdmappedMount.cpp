#include "sandbox/container/IdmappedMount.h"

#include "common/UniqueFd.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace warren::sandbox {
namespace {

Error failed(const IdmappedView& view, const std::string& step, int error) {
    return makeError(
        error == ENOSYS || error == EINVAL || error == EPERM ? ErrorCode::Unsupported : ErrorCode::System,
        "cannot make an idmapped view of " + view.source + " (" + step + ": " + std::strerror(error) +
            "); idmapped mounts need root, Linux 5.12 or later, and a "
            "file system that supports them (not NFS, FUSE or overlayfs, nor tmpfs before Linux 6.3)");
}

Status writeProcFile(const std::string& path, const std::string& text) {
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
    if (fd.get() < 0 || ::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()))
        return makeError(ErrorCode::System, "cannot write " + path + ": " + std::strerror(errno));
    return Ok{};
}

// A user namespace that maps the view's ids: "inside" is the id on disk, "outside" the one seen through the
// view. A child process creates it and lives until the parent (as root) has written its maps and opened it.
Result<int> userNamespaceFor(const IdmappedView& view) {
    int ready[2], release[2];
    if (::pipe2(ready, O_CLOEXEC) != 0)
        return failed(view, "pipe", errno);
    if (::pipe2(release, O_CLOEXEC) != 0) {
        const int error = errno;
        ::close(ready[0]);
        ::close(ready[1]);
        return failed(view, "pipe", error);
    }
    UniqueFd readyRead(ready[0]), readyWrite(ready[1]), releaseRead(release[0]), releaseWrite(release[1]);
    const pid_t child = ::fork();
    if (child < 0)
        return failed(view, "fork", errno);
    if (child == 0) { // async-signal-safe calls only: the parent may have threads
        ::close(readyRead.get());
        ::close(releaseWrite.get()); // so that the parent's close is the end of the file
        const char status = ::unshare(CLONE_NEWUSER) == 0 ? '1' : '0';
        if (::write(readyWrite.get(), &status, 1) != 1)
            ::_exit(1);
        char byte;
        while (::read(releaseRead.get(), &byte, 1) < 0 && errno == EINTR) {
        }
        ::_exit(0);
    }
    readyWrite.reset();
    releaseRead.reset();
    char status = '0';
    ssize_t got;
    while ((got = ::read(readyRead.get(), &status, 1)) < 0 && errno == EINTR) {
    }
    Result<int> result = failed(view, "unshare(CLONE_NEWUSER)", EPERM);
    if (got == 1 && status == '1') {
        const std::string proc = "/proc/" + std::to_string(child);
        auto mapped = writeProcFile(proc + "/uid_map", std::to_string(view.hostUid) + " " +
                                                           std::to_string(view.viewUid) + " 1\n");
        if (mapped)
            mapped = writeProcFile(proc + "/gid_map", std::to_string(view.hostGid) + " " +
                                                          std::to_string(view.viewGid) + " 1\n");
        if (!mapped)
            result = makeError(ErrorCode::System, "cannot make an idmapped view of " + view.source + ": " +
                                                      mapped.error().message);
        else if (const int ns = ::open((proc + "/ns/user").c_str(), O_RDONLY | O_CLOEXEC); ns >= 0)
            result = ns;
        else
            result = failed(view, "open " + proc + "/ns/user", errno);
    }
    releaseWrite.reset(); // the child exits
    while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
    return result;
}

} // namespace

Status mountIdmappedView(const IdmappedView& view) {
    auto userns = userNamespaceFor(view);
    if (!userns)
        return userns.error();
    UniqueFd ns(*userns);
    UniqueFd tree(
        ::open_tree(AT_FDCWD, view.source.c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE));
    if (tree.get() < 0)
        return failed(view, "open_tree", errno);
    mount_attr attr{};
    attr.attr_set = MOUNT_ATTR_IDMAP;
    attr.userns_fd = static_cast<decltype(attr.userns_fd)>(ns.get());
    if (::mount_setattr(tree.get(), "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) != 0)
        return failed(view, "mount_setattr(MOUNT_ATTR_IDMAP)", errno);
    if (::mkdir(view.path.c_str(), 0700) != 0)
        return makeError(ErrorCode::System, "cannot create " + view.path + " for the idmapped view of " +
                                                view.source + ": " + std::strerror(errno));
    if (::move_mount(tree.get(), "", AT_FDCWD, view.path.c_str(), MOVE_MOUNT_F_EMPTY_PATH) != 0) {
        const int error = errno;
        ::rmdir(view.path.c_str());
        return failed(view, "move_mount onto " + view.path, error);
    }
    return Ok{};
}

void unmountIdmappedView(const std::string& path) {
    // EINVAL when nothing is mounted there (never mounted, or unmounted before); the rmdir then still runs.
    ::umount2(path.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW);
    ::rmdir(path.c_str());
}

} // namespace warren::sandbox
