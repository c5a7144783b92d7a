#include "sandbox/policy/SandboxProfile.h"

#include "common/JsonFields.h"

#include <algorithm>

namespace warren::resources {
extern const std::string_view defaultProfileJson;
}

namespace warren::sandbox {
namespace {

using nlohmann::json;
using namespace json_fields;

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
    MountSpec mount;
    mount.dest = dest;
    std::string type;
    Error error;
    if (!take(requireObject(value, where), error) ||
        !take(checkKeys(value, {"type", "source", "target", "size_mb", "optional"}, where, ListKnown::Yes),
              error) ||
        !takeIfPresent(getOptionalString(value, "type", where), type, error) ||
        !takeIfPresent(getOptionalString(value, "source", where), mount.source, error) ||
        !takeIfPresent(getOptionalString(value, "target", where), mount.target, error) ||
        !takeIfPresent(getOptionalUint(value, "size_mb", where), mount.sizeMb, error) ||
        !takeIfPresent(getOptionalBool(value, "optional", where), mount.optional, error))
        return profileError(error.message);
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
        return profileError(
            where + ".size_mb is required for a tmpfs (an uncapped tmpfs can fill the host's memory)");
    if (mount.type != MountSpec::Type::Tmpfs && mount.sizeMb != 0)
        return profileError(where + ".size_mb only applies to type tmpfs");
    return mount;
}

Status readLimits(const json& value, SandboxLimits& limits) {
    const std::string where = "limits";
    Error error;
    if (!take(checkKeys(value,
                        {"memory_mb", "pids", "cpu_seconds", "file_size_mb", "open_files", "address_space_mb",
                         "timeout_sec", "address_space_floor_mb"},
                        where, ListKnown::Yes),
              error) ||
        !takeIfPresent(getOptionalUint(value, "memory_mb", where), limits.memoryMb, error) ||
        !takeIfPresent(getOptionalUint(value, "pids", where), limits.pids, error) ||
        !takeIfPresent(getOptionalUint(value, "cpu_seconds", where), limits.cpuSeconds, error) ||
        !takeIfPresent(getOptionalUint(value, "file_size_mb", where), limits.fileSizeMb, error) ||
        !takeIfPresent(getOptionalUint(value, "open_files", where), limits.openFiles, error) ||
        !takeIfPresent(getOptionalUint(value, "address_space_mb", where), limits.addressSpaceMb, error) ||
        !takeIfPresent(getOptionalUint(value, "timeout_sec", where), limits.timeoutSec, error) ||
        !takeIfPresent(getOptionalUint(value, "address_space_floor_mb", where), limits.addressSpaceFloorMb, error))
        return profileError(error.message);
    return Ok{};
}

Status readUser(const json& value, SandboxUser& user) {
    const std::string where = "user";
    Error error;
    if (!take(checkKeys(value, {"name", "uid", "gid", "home", "shell"}, where, ListKnown::Yes), error) ||
        !takeIfPresent(getOptionalString(value, "name", where), user.name, error) ||
        !takeIfPresent(getOptionalInt(value, "uid", where, 0, UINT32_MAX), user.uid, error) ||
        !takeIfPresent(getOptionalInt(value, "gid", where, 0, UINT32_MAX), user.gid, error) ||
        !takeIfPresent(getOptionalString(value, "home", where), user.home, error) ||
        !takeIfPresent(getOptionalString(value, "shell", where), user.shell, error))
        return profileError(error.message);
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
    const std::string where = "workspace";
    Error error;
    if (!take(checkKeys(value, {"source", "dest", "writable"}, where, ListKnown::Yes), error) ||
        !takeIfPresent(getOptionalString(value, "source", where), profile.workspaceSource, error) ||
        !takeIfPresent(getOptionalString(value, "dest", where), profile.workspaceDest, error) ||
        !takeIfPresent(getOptionalBool(value, "writable", where), profile.workspaceWritable, error))
        return profileError(error.message);
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
        auto text = readString(v, "env." + name);
        if (!text)
            return profileError(text.error().message);
        if (name.empty() || name.find('=') != std::string::npos)
            return profileError("env has an invalid variable name \"" + name + "\"");
        env[name] = std::move(text).value();
    }
    return Ok{};
}

} // namespace

const json& defaultProfileJson() {
    static const json document = json::parse(resources::defaultProfileJson);
    return document;
}

Result<json> parseProfileLayer(const std::string& text, const std::string& origin) {
    auto layer = parseJson(text);
    if (!layer)
        return makeError(ErrorCode::InvalidArgument,
                         origin + ": not valid JSON (" + layer.error().message + ")");
    if (!layer->is_object())
        return makeError(ErrorCode::InvalidArgument, origin + ": a sandbox profile must be a JSON object");
    return layer;
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
    std::string network = "none";
    json user, workspace, limits, seccomp;
    Error error;
    if (!take(checkKeys(document,
                        {"hostname", "user", "workspace", "mounts", "env", "env_passthrough", "network",
                         "limits", "seccomp", "protected_paths"},
                        "", ListKnown::Yes),
              error) ||
        !takeIfPresent(getOptionalString(document, "hostname", ""), profile.hostname, error) ||
        !take(getStringArray(document, "env_passthrough", "", false), profile.envPassthrough, error) ||
        !takeIfPresent(getOptionalString(document, "network", ""), network, error) ||
        !take(getOptionalObject(document, "user", ""), user, error) ||
        !take(getOptionalObject(document, "workspace", ""), workspace, error) ||
        !take(getOptionalObject(document, "limits", ""), limits, error) ||
        !take(getOptionalObject(document, "seccomp", ""), seccomp, error))
        return profileError(error.message);
    if (network == "none")
        profile.network = NetworkPolicy::None;
    else if (network == "loopback")
        profile.network = NetworkPolicy::Loopback;
    else
        return profileError("network \"" + network + "\" is not one of none, loopback");

    if (auto status = readUser(user, profile.user); !status)
        return status.error();
    if (auto status = readWorkspace(workspace, profile); !status)
        return status.error();
    if (const auto mounts = document.find("mounts"); mounts != document.end()) {
        if (!mounts->is_object())
            return profileError("mounts must be an object keyed by destination path");
        for (const auto& [dest, value] : mounts->items()) {
            auto mount = readMount(dest, value);
            if (!mount)
                return mount.error();
            profile.mounts.push_back(std::move(*mount));
        }
    }
    if (const auto env = document.find("env"); env != document.end())
        if (auto status = readEnv(*env, profile.env); !status)
            return status.error();
    if (auto status = readLimits(limits, profile.limits); !status)
        return status.error();
    if (!take(checkKeys(seccomp, {"skip"}, "seccomp", ListKnown::Yes), error) ||
        !take(getStringArray(seccomp, "skip", "seccomp", false), profile.seccompSkip, error))
        return profileError(error.message);
    if (const auto paths = document.find("protected_paths"); paths != document.end())
        if (auto status = readProtectedPaths(*paths, profile.protectedPaths); !status)
            return status.error();

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
        protectedJson[path.path + (path.directory ? "/" : "")] =
            path.onlyIfExists ? json("if-exists") : json(true);
    return {
        {"hostname", hostname},
        {"user",
         {{"name", user.name},
          {"uid", user.uid},
          {"gid", user.gid},
          {"home", user.home},
          {"shell", user.shell}}},
        {"workspace",
         {{"source", workspaceSource}, {"dest", workspaceDest}, {"writable", workspaceWritable}}},
        {"mounts", mountsJson},
        {"env", env},
        {"env_passthrough", envPassthrough},
        {"network", networkPolicyName(network)},
        {"limits",
         {{"memory_mb", limits.memoryMb},
          {"pids", limits.pids},
          {"cpu_seconds", limits.cpuSeconds},
          {"file_size_mb", limits.fileSizeMb},
          {"open_files", limits.openFiles},
          {"address_space_mb", limits.addressSpaceMb},
          {"timeout_sec", limits.timeoutSec},
          {"address_space_floor_mb", limits.addressSpaceFloorMb}}},
        {"seccomp", {{"skip", seccompSkip}}},
        {"protected_paths", protectedJson},
    };
}

} // namespace warren::sandbox
