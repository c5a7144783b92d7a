#include "sandbox/SandboxProfile.h"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <set>

namespace warren::resources {
extern const std::string_view defaultProfileJson;
}

namespace warren::sandbox {
namespace {

using nlohmann::json;

// Reads one JSON object strictly: every key must be consumed, so a typo in a profile is an error that
// names the key instead of a setting that silently does nothing.
class ObjectReader {
public:
    ObjectReader(const json& object, std::string where) : m_object(object), m_where(std::move(where)) {}

    template <typename T>
    bool read(const char* key, T& out) {
        auto it = m_object.find(key);
        m_seen.insert(key);
        if (it == m_object.end() || it->is_null())
            return true;
        if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {
            // nlohmann would turn -1 into a huge limit, 1.5 into 1 and true into 1: only whole numbers in
            // range count.
            if (!it->is_number()) {
                fail(m_where + "." + key + " has the wrong type (" + it->type_name() + ")");
                return false;
            }
            if (!it->is_number_unsigned() || it->template get<std::uint64_t>() > std::numeric_limits<T>::max()) {
                fail(m_where + "." + key + " must be a whole number from 0 to " +
                     std::to_string(std::numeric_limits<T>::max()));
                return false;
            }
        }
        try {
            out = it->template get<T>();
            return true;
        } catch (const json::exception&) {
            fail(m_where + "." + key + " has the wrong type (" + it->type_name() + ")");
            return false;
        }
    }

    const json* child(const char* key) {
        m_seen.insert(key);
        auto it = m_object.find(key);
        return it == m_object.end() || it->is_null() ? nullptr : &*it;
    }

    bool finish() {
        for (const auto& [key, value] : m_object.items()) {
            if (!m_seen.count(key))
                fail("unknown key " + m_where + "." + key);
        }
        return m_error.empty();
    }

    void fail(std::string message) {
        if (m_error.empty())
            m_error = std::move(message);
    }
    const std::string& error() const { return m_error; }

private:
    const json& m_object;
    std::string m_where;
    std::set<std::string> m_seen;
    std::string m_error;
};

Error profileError(const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, "invalid sandbox profile: " + message);
}

bool isAbsoluteClean(const std::string& path) {
    if (path.empty() || path[0] != '/')
        return false;
    // No "." or ".." components and no empty components: dests are compared as strings.
    std::size_t start = 1;
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string::npos)
            end = path.size();
        std::string part = path.substr(start, end - start);
        if ((part.empty() && end != path.size()) || part == "." || part == "..")
            return false;
        start = end + 1;
    }
    return path == "/" || path.back() != '/';
}

bool isRelativeClean(const std::string& path) {
    return !path.empty() && path[0] != '/' && isAbsoluteClean("/" + path);
}

const std::map<std::string, MountSpec::Type>& mountTypes() {
    static const std::map<std::string, MountSpec::Type> types = {
        {"ro-bind", MountSpec::Type::RoBind}, {"bind", MountSpec::Type::Bind},
        {"mirror", MountSpec::Type::Mirror},  {"symlink", MountSpec::Type::Symlink},
        {"tmpfs", MountSpec::Type::Tmpfs},    {"proc", MountSpec::Type::Proc},
        {"dev", MountSpec::Type::Dev}};
    return types;
}

Result<MountSpec> readMount(const std::string& dest, const json& value) {
    const std::string where = "mounts[\"" + dest + "\"]";
    if (!isAbsoluteClean(dest) || dest == "/")
        return profileError(where + ": the destination must be an absolute path below / without . or ..");
    if (!value.is_object())
        return profileError(where + " must be an object");
    MountSpec mount;
    mount.dest = dest;
    std::string type;
    ObjectReader reader(value, where);
    reader.read("type", type);
    reader.read("source", mount.source);
    reader.read("target", mount.target);
    reader.read("size_mb", mount.sizeMb);
    reader.read("optional", mount.optional);
    if (!reader.finish())
        return profileError(reader.error());
    auto it = mountTypes().find(type);
    if (it == mountTypes().end())
        return profileError(where + ".type \"" + type +
                            "\" is not one of ro-bind, bind, mirror, symlink, tmpfs, proc, dev");
    mount.type = it->second;
    const bool needsSource = mount.type == MountSpec::Type::RoBind || mount.type == MountSpec::Type::Bind ||
                             mount.type == MountSpec::Type::Mirror;
    if (needsSource && !isAbsoluteClean(mount.source))
        return profileError(where + ".source must be an absolute host path");
    if (!needsSource && !mount.source.empty())
        return profileError(where + ".source does not apply to type " + type);
    if (mount.type == MountSpec::Type::Symlink && mount.target.empty())
        return profileError(where + ".target is required for a symlink");
    if (mount.type != MountSpec::Type::Symlink && !mount.target.empty())
        return profileError(where + ".target only applies to type symlink");
    if (mount.type == MountSpec::Type::Tmpfs && mount.sizeMb == 0)
        return profileError(where + ".size_mb is required for a tmpfs (an uncapped tmpfs can fill the host's memory)");
    if (mount.type != MountSpec::Type::Tmpfs && mount.sizeMb != 0)
        return profileError(where + ".size_mb only applies to type tmpfs");
    return mount;
}

Status readLimits(const json& value, SandboxLimits& limits) {
    if (!value.is_object())
        return profileError("limits must be an object");
    ObjectReader reader(value, "limits");
    reader.read("memory_mb", limits.memoryMb);
    reader.read("pids", limits.pids);
    reader.read("cpu_seconds", limits.cpuSeconds);
    reader.read("file_size_mb", limits.fileSizeMb);
    reader.read("open_files", limits.openFiles);
    reader.read("address_space_mb", limits.addressSpaceMb);
    reader.read("timeout_sec", limits.timeoutSec);
    if (!reader.finish())
        return profileError(reader.error());
    return Ok{};
}

Status readUser(const json& value, SandboxUser& user) {
    if (!value.is_object())
        return profileError("user must be an object");
    ObjectReader reader(value, "user");
    reader.read("name", user.name);
    reader.read("uid", user.uid);
    reader.read("gid", user.gid);
    reader.read("home", user.home);
    reader.read("shell", user.shell);
    if (!reader.finish())
        return profileError(reader.error());
    // uid 0 inside would hand the sandbox root's identity on every file it can see.
    if (user.uid == 0 || user.gid == 0)
        return profileError("user.uid and user.gid must not be 0: the sandbox never runs as root inside");
    const bool nameOk = !user.name.empty() && std::all_of(user.name.begin(), user.name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    });
    if (!nameOk)
        return profileError("user.name must be a lowercase login name");
    if (!isAbsoluteClean(user.home) || !isAbsoluteClean(user.shell))
        return profileError("user.home and user.shell must be absolute paths");
    return Ok{};
}

Status readWorkspace(const json& value, SandboxProfile& profile) {
    if (!value.is_object())
        return profileError("workspace must be an object");
    ObjectReader reader(value, "workspace");
    reader.read("source", profile.workspaceSource);
    reader.read("dest", profile.workspaceDest);
    reader.read("writable", profile.workspaceWritable);
    if (!reader.finish())
        return profileError(reader.error());
    if (profile.workspaceSource.empty())
        return profileError("workspace.source is not set: pass --workspace DIR");
    if (profile.workspaceSource[0] != '/')
        return profileError("workspace.source must be an absolute path");
    if (!isAbsoluteClean(profile.workspaceDest) || profile.workspaceDest == "/")
        return profileError("workspace.dest must be an absolute path below /");
    return Ok{};
}

// Each entry is true (read-only; if missing, it cannot be created either), "if-exists" (read-only when
// present; the sandbox may create it) or false (not protected).
Status readProtectedPaths(const json& value, std::vector<ProtectedPath>& out) {
    if (!value.is_object())
        return profileError("protected_paths must be an object of path: true | \"if-exists\" | false");
    for (const auto& [key, mode] : value.items()) {
        const bool ifExists = mode.is_string() && mode.get<std::string>() == "if-exists";
        if (!mode.is_boolean() && !ifExists)
            return profileError("protected_paths[\"" + key + "\"] must be true, \"if-exists\" or false");
        if (mode.is_boolean() && !mode.get<bool>())
            continue;
        ProtectedPath entry;
        entry.directory = !key.empty() && key.back() == '/';
        entry.path = entry.directory ? key.substr(0, key.size() - 1) : key;
        entry.onlyIfExists = ifExists;
        if (!isRelativeClean(entry.path))
            return profileError("protected_paths[\"" + key +
                                "\"] must be a path relative to the workspace, without . or ..");
        out.push_back(entry);
    }
    return Ok{};
}

Status readEnv(const json& value, std::map<std::string, std::string>& env) {
    if (!value.is_object())
        return profileError("env must be an object of NAME: value");
    for (const auto& [name, v] : value.items()) {
        if (v.is_null())
            continue;
        if (!v.is_string())
            return profileError("env." + name + " must be a string");
        if (name.empty() || name.find('=') != std::string::npos)
            return profileError("env has an invalid variable name \"" + name + "\"");
        env[name] = v.get<std::string>();
    }
    return Ok{};
}

} // namespace

const json& defaultProfileJson() {
    static const json document = json::parse(resources::defaultProfileJson);
    return document;
}

Result<json> parseProfileLayer(const std::string& text, const std::string& origin) {
    try {
        json layer = json::parse(text);
        if (!layer.is_object())
            return makeError(ErrorCode::InvalidArgument, origin + ": a sandbox profile must be a JSON object");
        return layer;
    } catch (const json::parse_error& e) {
        return makeError(ErrorCode::InvalidArgument, origin + ": not valid JSON (" + e.what() + ")");
    }
}

Result<SandboxProfile> resolveProfile(const std::vector<json>& layers) {
    json merged = json::object();
    for (const auto& layer : layers)
        merged.merge_patch(layer);
    return SandboxProfile::fromJson(merged);
}

Result<SandboxProfile> SandboxProfile::fromJson(const json& document) {
    if (!document.is_object())
        return profileError("the profile must be a JSON object");
    SandboxProfile profile;
    ObjectReader reader(document, "profile");
    reader.read("hostname", profile.hostname);
    reader.read("env_passthrough", profile.envPassthrough);

    std::string network = "none";
    reader.read("network", network);
    if (network == "none")
        profile.network = NetworkPolicy::None;
    else if (network == "loopback")
        profile.network = NetworkPolicy::Loopback;
    else
        reader.fail("network \"" + network + "\" is not one of none, loopback");

    if (const json* user = reader.child("user"); user)
        if (auto status = readUser(*user, profile.user); !status)
            return status.error();
    const json emptyObject = json::object();
    const json* workspace = reader.child("workspace");
    if (auto status = readWorkspace(workspace ? *workspace : emptyObject, profile); !status)
        return status.error();
    if (const json* mounts = reader.child("mounts"); mounts) {
        if (!mounts->is_object())
            return profileError("mounts must be an object keyed by destination path");
        for (const auto& [dest, value] : mounts->items()) {
            if (value.is_null())
                continue;
            auto mount = readMount(dest, value);
            if (!mount)
                return mount.error();
            profile.mounts.push_back(std::move(*mount));
        }
    }
    if (const json* env = reader.child("env"); env)
        if (auto status = readEnv(*env, profile.env); !status)
            return status.error();
    if (const json* limits = reader.child("limits"); limits)
        if (auto status = readLimits(*limits, profile.limits); !status)
            return status.error();
    if (const json* seccomp = reader.child("seccomp"); seccomp) {
        if (!seccomp->is_object())
            return profileError("seccomp must be an object");
        ObjectReader seccompReader(*seccomp, "seccomp");
        seccompReader.read("skip", profile.seccompSkip);
        if (!seccompReader.finish())
            return profileError(seccompReader.error());
    }
    if (const json* paths = reader.child("protected_paths"); paths)
        if (auto status = readProtectedPaths(*paths, profile.protectedPaths); !status)
            return status.error();
    if (!reader.finish())
        return profileError(reader.error());

    if (profile.hostname.empty())
        profile.hostname = "sandbox";
    const bool hostnameOk = profile.hostname.size() <= 63 &&
                            std::all_of(profile.hostname.begin(), profile.hostname.end(), [](char c) {
                                return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
                            });
    if (!hostnameOk)
        return profileError("hostname \"" + profile.hostname + "\" must be at most 63 of a-z, 0-9 and -");
    for (const auto& mount : profile.mounts) {
        const std::string& ws = profile.workspaceDest;
        if (mount.dest == ws)
            return profileError("mounts[\"" + mount.dest + "\"] hides the workspace");
    }
    std::sort(profile.mounts.begin(), profile.mounts.end(),
              [](const MountSpec& a, const MountSpec& b) { return a.dest < b.dest; });
    return profile;
}

std::map<std::string, std::string> sandboxEnvironment(const SandboxProfile& profile,
                                                      const std::map<std::string, std::string>& hostEnv) {
    std::map<std::string, std::string> env;
    for (const auto& name : profile.envPassthrough)
        if (auto it = hostEnv.find(name); it != hostEnv.end())
            env[name] = it->second;
    for (const auto& [name, value] : profile.env)
        env[name] = value;
    return env;
}

std::string networkPolicyName(NetworkPolicy policy) {
    return policy == NetworkPolicy::None ? "none" : "loopback";
}

std::string mountTypeName(MountSpec::Type type) {
    for (const auto& [name, value] : mountTypes())
        if (value == type)
            return name;
    return "?";
}

json SandboxProfile::toJson() const {
    json mountsJson = json::object();
    for (const auto& mount : mounts) {
        json entry = {{"type", mountTypeName(mount.type)}};
        if (!mount.source.empty())
            entry["source"] = mount.source;
        if (!mount.target.empty())
            entry["target"] = mount.target;
        if (mount.sizeMb)
            entry["size_mb"] = mount.sizeMb;
        if (mount.optional)
            entry["optional"] = true;
        mountsJson[mount.dest] = entry;
    }
    json protectedJson = json::object();
    for (const auto& path : protectedPaths)
        protectedJson[path.path + (path.directory ? "/" : "")] = path.onlyIfExists ? json("if-exists") : json(true);
    return {
        {"hostname", hostname},
        {"user", {{"name", user.name}, {"uid", user.uid}, {"gid", user.gid}, {"home", user.home},
                  {"shell", user.shell}}},
        {"workspace", {{"source", workspaceSource}, {"dest", workspaceDest}, {"writable", workspaceWritable}}},
        {"mounts", mountsJson},
        {"env", env},
        {"env_passthrough", envPassthrough},
        {"network", networkPolicyName(network)},
        {"limits", {{"memory_mb", limits.memoryMb}, {"pids", limits.pids}, {"cpu_seconds", limits.cpuSeconds},
                    {"file_size_mb", limits.fileSizeMb}, {"open_files", limits.openFiles},
                    {"address_space_mb", limits.addressSpaceMb}, {"timeout_sec", limits.timeoutSec}}},
        {"seccomp", {{"skip", seccompSkip}}},
        {"protected_paths", protectedJson},
    };
}

} // namespace warren::sandbox
