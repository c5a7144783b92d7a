#include "sandbox/container/ContainerUser.h"

namespace warren::sandbox {

ContainerUser chooseContainerUser(const SandboxProfile& profile, const ContainerUserInput& input) {
    ContainerUser user;
    user.uid = profile.user.uid;
    user.gid = profile.user.gid;
    const std::string profileUid = std::to_string(profile.user.uid);
    if (input.rootlessEngine && input.keepIdAvailable) {
        user.keepId = true;
        user.hostOwnerUid = input.invokerUid;
        user.hostOwnerGid = input.invokerGid;
        user.note = "user: the invoking user is uid " + profileUid +
                    " inside (--userns=keep-id), as with bwrap; files written in the workspace are the user's";
        return user;
    }
    if (input.rootlessEngine) {
        user.notEnforced = "user: rootless docker has no per-container uid map, so files the sandbox writes in the "
                           "workspace belong to a subordinate uid of the invoking user (uid " + profileUid +
                           " inside), not to the user as with bwrap";
        return user;
    }
    if (input.invokerUid != 0) {
        user.uid = input.invokerUid;
        user.gid = input.invokerGid;
        user.note = "user: a rootful engine has no per-container uid map, so the sandbox runs as the invoking "
                    "user's uid " + std::to_string(user.uid) + " (not the profile's " + profileUid +
                    "), which keeps files it writes in the workspace the user's";
    } else if (input.workspaceOwnerUid != 0) {
        user.uid = input.workspaceOwnerUid;
        user.gid = input.workspaceOwnerGid;
        user.note = "user: Warren runs as root, and the container never does: it runs as the workspace's owner, "
                    "uid " + std::to_string(user.uid) + " (not the profile's " + profileUid +
                    "), so files it writes in the workspace stay the owner's";
    } else {
        user.workspaceView = IdmappedView{profile.workspaceSource, input.viewPath,     input.workspaceOwnerUid,
                                          input.workspaceOwnerGid, user.uid,           user.gid};
        user.note = "user: Warren and the workspace's owner are root, and the container never is: it runs as uid " +
                    profileUid + " on an idmapped view of the workspace, where root's files are uid " + profileUid +
                    "'s and what it writes is root's on the host, as with bwrap; files of other users appear as "
                    "nobody's there";
    }
    user.hostOwnerUid = user.uid;
    user.hostOwnerGid = user.gid;
    return user;
}

std::string containerPasswdFile(const SandboxProfile& profile, std::uint32_t uid, std::uint32_t gid) {
    const auto& u = profile.user;
    return "root:x:0:0:root:/root:/usr/sbin/nologin\n" + u.name + ":x:" + std::to_string(uid) + ":" +
           std::to_string(gid) + ":Warren sandbox:" + u.home + ":" + u.shell +
           "\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n";
}

std::string containerGroupFile(const SandboxProfile& profile, std::uint32_t gid) {
    return "root:x:0:\n" + profile.user.name + ":x:" + std::to_string(gid) + ":\nnogroup:x:65534:\n";
}

} // namespace warren::sandbox
