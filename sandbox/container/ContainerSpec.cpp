#include "sandbox/container/ContainerSpec.h"

#include <algorithm>

namespace warren::sandbox {
namespace {

// The host's own system files in the default profile: in a container the image provides them. A profile
// mount of one of these paths onto itself is therefore not bound (and said so in the notes).
constexpr const char* kImageProvidedPaths[] = {"/usr",
                                               "/bin",
                                               "/sbin",
                                               "/lib",
                                               "/lib32",
                                               "/lib64",
                                               "/etc/ld.so.cache",
                                               "/etc/alternatives",
                                               "/etc/ssl/certs",
                                               "/etc/localtime"};

bool imageProvidesMount(const MountSpec& mount) {
    if (mount.type != MountSpec::Type::RoBind && mount.type != MountSpec::Type::Mirror)
        return false;
    return mount.source == mount.dest &&
           std::find(std::begin(kImageProvidedPaths), std::end(kImageProvidedPaths), mount.dest) !=
               std::end(kImageProvidedPaths);
}

// What a profile's bind mount (ro-bind, bind, mirror) binds: the host entry, or nullopt when it is skipped:
// an optional source that does not exist, or a mirrored symlink, which no engine can create (said in
// notEnforced). A required source that does not exist is an error.
Result<std::optional<HostEntry>> bindSource(const MountSpec& mount, const HostLookup& lookup,
                                            const std::string& engine,
                                            std::vector<std::string>& notEnforced) {
    const HostEntry entry = lookup(mount.source);
    if (entry.kind == HostEntry::Kind::Missing) {
        if (mount.optional)
            return std::optional<HostEntry>();
        return makeError(ErrorCode::NotFound,
                         "mount source " + mount.source + " (for " + mount.dest +
                             ") does not exist on this host; create it, or mark the mount "
                             "\"optional\": true in the profile");
    }
    if (mount.type == MountSpec::Type::Mirror && entry.kind == HostEntry::Kind::Symlink) {
        notEnforced.push_back("mount " + mount.dest + ": the symlink to " + entry.linkTarget +
                              " is not created (" + engine + " cannot create symlinks)");
        return std::optional<HostEntry>();
    }
    return std::optional<HostEntry>(entry);
}

ContainerMount hostPath(ContainerMount::Purpose purpose, std::string source, std::string dest, bool readOnly,
                        bool directory = false) {
    ContainerMount mount;
    mount.purpose = purpose;
    mount.source = std::move(source);
    mount.dest = std::move(dest);
    mount.readOnly = readOnly;
    mount.directory = directory;
    return mount;
}

// A mount with no host path.
ContainerMount inside(ContainerMount::Kind kind, ContainerMount::Purpose purpose, std::string dest,
                      bool readOnly) {
    ContainerMount mount;
    mount.kind = kind;
    mount.purpose = purpose;
    mount.dest = std::move(dest);
    mount.readOnly = readOnly;
    return mount;
}

class SpecBuilder {
public:
    SpecBuilder(const SandboxProfile& profile, const ContainerSpecInput& input)
        : m_profile(profile), m_input(input), m_onHost(!input.dataDir.empty()) {}

    Status profileMounts(const HostLookup& lookup);
    void systemFiles();
    void workspace();
    ContainerSpec take() { return std::move(m_spec); }

private:
    void add(ContainerMount mount) { m_spec.mounts.push_back(std::move(mount)); }
    std::string dataFile(const std::string& name, std::string bytes, std::string purpose) {
        const std::string path = m_input.dataDir + "/" + name;
        if (std::none_of(m_spec.files.begin(), m_spec.files.end(),
                         [&](const DockerDataFile& file) { return file.hostPath == path; }))
            m_spec.files.push_back({path, std::move(bytes), std::move(purpose)});
        return path;
    }

    const SandboxProfile& m_profile;
    const ContainerSpecInput& m_input;
    const bool m_onHost;
    ContainerSpec m_spec;
};

Status SpecBuilder::profileMounts(const HostLookup& lookup) {
    using Kind = ContainerMount::Kind;
    using Purpose = ContainerMount::Purpose;
    std::vector<std::string> fromImage;
    bool proc = false, dev = false;
    for (const auto& mount : m_profile.mounts) {
        if (imageProvidesMount(mount)) {
            fromImage.push_back(mount.dest);
            continue;
        }
        switch (mount.type) {
        case MountSpec::Type::RoBind:
        case MountSpec::Type::Bind:
        case MountSpec::Type::Mirror: {
            if (!m_onHost) {
                if (mount.optional)
                    break;
                return makeError(ErrorCode::InvalidArgument,
                                 "the profile binds the host's " + mount.source + " at " + mount.dest +
                                     ", which no cluster node has; remove it from the profile, or mark it "
                                     "\"optional\"");
            }
            auto source = bindSource(mount, lookup, m_input.engineWords, m_spec.notEnforced);
            if (!source)
                return source.error();
            if (!*source)
                break;
            add(hostPath(Purpose::ProfileMount, mount.source, mount.dest, mount.type != MountSpec::Type::Bind,
                         (*source)->kind == HostEntry::Kind::Directory));
            break;
        }
        case MountSpec::Type::Symlink:
            m_spec.notEnforced.push_back("mount " + mount.dest + ": the symlink to " + mount.target +
                                         " is not created (" + m_input.engineWords +
                                         " cannot create symlinks)");
            break;
        case MountSpec::Type::Tmpfs: {
            ContainerMount memory = inside(Kind::Memory, Purpose::ProfileMount, mount.dest, false);
            memory.sizeMb = mount.sizeMb;
            add(std::move(memory));
            break;
        }
        case MountSpec::Type::Proc:
            proc = true;
            break;
        case MountSpec::Type::Dev:
            dev = true;
            break;
        }
    }
    m_spec.profileAsksForProcAndDev = proc && dev;
    if (!fromImage.empty()) {
        std::string list;
        for (const auto& dest : fromImage)
            list += (list.empty() ? "" : ", ") + dest;
        m_spec.notes.push_back("from the image " + m_input.image +
                               ", read-only, instead of the host's: " + list);
    }
    return Ok{};
}

void SpecBuilder::systemFiles() {
    using Purpose = ContainerMount::Purpose;
    if (!m_onHost) {
        m_spec.notes.push_back("/etc/passwd and /etc/group are the image's: it must name uid " +
                               std::to_string(m_input.uid));
        return;
    }
    add(hostPath(Purpose::SystemFile,
                 dataFile("passwd", containerPasswdFile(m_profile, m_input.uid, m_input.gid), "/etc/passwd"),
                 "/etc/passwd", true));
    add(hostPath(Purpose::SystemFile,
                 dataFile("group", containerGroupFile(m_profile, m_input.gid), "/etc/group"), "/etc/group",
                 true));
}

void SpecBuilder::workspace() {
    using Kind = ContainerMount::Kind;
    using Purpose = ContainerMount::Purpose;
    const std::string& ws = m_profile.workspaceDest;
    const bool writable = m_profile.workspaceWritable;
    if (m_onHost) {
        add(hostPath(Purpose::Workspace, m_input.workspaceHostPath, ws, !writable, true));
    } else {
        add(inside(Kind::UploadedWorkspace, Purpose::Workspace, ws, !writable));
        m_spec.notes.push_back(
            "workspace: an empty directory on the node, which the agent fills from the upload "
            "and whose changes come back the same way");
    }
    for (const auto& entry : m_input.protection.entries) {
        const std::string dest = ws + "/" + entry.relative;
        // The path bound over itself: from the same host path as the workspace, so it shows the same owners.
        auto over = [&](bool readOnly) {
            if (m_onHost)
                add(hostPath(Purpose::ProtectedPath, m_input.workspaceHostPath + "/" + entry.relative, dest,
                             readOnly));
            else {
                ContainerMount path = inside(Kind::WorkspacePath, Purpose::ProtectedPath, dest, readOnly);
                path.relative = entry.relative;
                add(std::move(path));
            }
        };
        switch (entry.kind) {
        case ProtectionEntry::Kind::Pin:
            over(!writable);
            break;
        case ProtectionEntry::Kind::ReadOnly:
            over(true);
            break;
        case ProtectionEntry::Kind::PlaceholderFile:
            if (!m_onHost) {
                m_spec.notEnforced.push_back("protected path " + entry.relative +
                                             ": a file the pod may not create; on a cluster it is not held");
                break;
            }
            add(hostPath(Purpose::Placeholder, dataFile("empty", {}, "empty placeholder"), dest, true));
            break;
        case ProtectionEntry::Kind::PlaceholderDir:
            add(inside(Kind::EmptyDirectory, Purpose::Placeholder, dest, true));
            break;
        }
    }
}

} // namespace

Result<ContainerSpec> buildContainerSpec(const SandboxProfile& profile, const ContainerSpecInput& input,
                                         const HostLookup& lookup) {
    if (input.dataDir.empty() != input.workspaceHostPath.empty())
        return makeError(
            ErrorCode::InvalidArgument,
            "a container on this host needs both its data directory and the workspace's host path");
    SpecBuilder builder(profile, input);
    if (auto ok = builder.profileMounts(lookup); !ok)
        return ok.error();
    builder.systemFiles();
    builder.workspace();
    ContainerSpec spec = builder.take();
    spec.env = sandboxEnvironment(profile, input.hostEnv);
    return spec;
}

} // namespace warren::sandbox
