#pragma once
// An idmapped view of a host directory: the same files, mounted elsewhere, with one uid and one gid shown
// (and written) as another. The container backend binds such a view of a root-owned workspace instead of the
// workspace itself, so the container runs as an unprivileged uid and what it writes lands on the host as
// root's (docs/SECURITY.md, "User and workspace ownership"). Podman's --uidmap and the runtime's own
// idmapped binds cannot do this on every host Warren supports; the kernel's mount API can, for root.
//
// Needs root (CAP_SYS_ADMIN), Linux 5.12 and a filesystem that supports idmapped mounts (ext4, xfs, btrfs,
// tmpfs from 6.3, ...; not NFS or a FUSE file system, for example): otherwise the error says so, and the
// caller fails closed.

#include "common/Result.h"

#include <cstdint>
#include <string>

namespace warren::sandbox {

struct IdmappedView {
    std::string source;        // the host directory (canonical)
    std::string path;          // where the view is mounted: a directory this creates, in a private directory
    std::uint32_t hostUid = 0; // owner on disk of what the view shows as viewUid, and of what viewUid writes
    std::uint32_t hostGid = 0;
    std::uint32_t viewUid = 0; // as whom it appears through the view; every other uid appears as nobody
    std::uint32_t viewGid = 0;
    friend bool operator==(const IdmappedView&, const IdmappedView&) = default;
};

// Creates view.path and mounts the view there, with everything mounted below source (AT_RECURSIVE).
// On failure nothing is left mounted.
Status mountIdmappedView(const IdmappedView& view);
// Detaches a view (lazily: the container that used it may still be going away) and removes its directory.
// Harmless when nothing is mounted there; never removes anything through a view still mounted.
void unmountIdmappedView(const std::string& path);

} // namespace warren::sandbox
