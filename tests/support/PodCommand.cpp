// PodCommand: the host command the kubelet double runs for a pod (see the header).
#include "tests/support/PodCommand.h"

namespace warren::test {

using nlohmann::json;

namespace {

const json& firstContainer(const json& pod) {
    static const json null;
    const json& spec = pod.contains("spec") ? pod["spec"] : null;
    if (!spec.is_object() || !spec.contains("containers") || !spec["containers"].is_array() ||
        spec["containers"].empty())
        return null;
    return spec["containers"][0];
}

std::vector<std::string> strings(const json& container, const char* key) {
    std::vector<std::string> out;
    if (container.contains(key) && container[key].is_array())
        for (const auto& item : container[key])
            if (item.is_string())
                out.push_back(item.get<std::string>());
    return out;
}

} // namespace

Result<std::vector<HostMount>> hostMounts(const json& container,
                                          const std::map<std::string, std::string>& volumeDirs) {
    std::vector<HostMount> mounts;
    if (!container.is_object() || !container.contains("volumeMounts"))
        return mounts;
    for (const auto& mount : container["volumeMounts"]) {
        const std::string volume = mount.value("name", "");
        const auto dir = volumeDirs.find(volume);
        if (dir == volumeDirs.end())
            return makeError(ErrorCode::InvalidArgument,
                             "volumeMount of an undeclared volume \"" + volume + "\"");
        const std::string subPath = mount.value("subPath", "");
        mounts.push_back(
            {mount.value("mountPath", ""), subPath.empty() ? dir->second : dir->second + "/" + subPath});
    }
    return mounts;
}

std::string onHost(const std::string& path, const std::vector<HostMount>& mounts) {
    const HostMount* best = nullptr;
    for (const auto& mount : mounts) {
        const std::string& at = mount.mountPath;
        if (at.empty())
            continue;
        const bool under = path == at || (path.size() > at.size() && path.compare(0, at.size(), at) == 0 &&
                                          (at.back() == '/' || path[at.size()] == '/'));
        if (under && (!best || at.size() > best->mountPath.size()))
            best = &mount;
    }
    return best ? best->hostPath + path.substr(best->mountPath.size()) : path;
}

Result<PodCommand> podCommand(const json& pod, const std::vector<HostMount>& mounts,
                              const std::map<std::string, std::string>& commands,
                              const std::string& hostPathVariable) {
    const json& container = firstContainer(pod);
    if (!container.is_object())
        return makeError(ErrorCode::InvalidArgument, "the pod has no container");
    // As a container runtime does: command replaces the image's entrypoint, args follow it. The double has
    // no image, so a pod without a command has nothing to run.
    std::vector<std::string> argv = strings(container, "command");
    if (argv.empty())
        return makeError(ErrorCode::InvalidArgument,
                         "the container has no command (the kubelet double knows no image's entrypoint)");
    for (auto& arg : strings(container, "args"))
        argv.push_back(std::move(arg));

    PodCommand command;
    if (const auto mapped = commands.find(argv[0]); mapped != commands.end())
        command.executable = mapped->second;
    else if (argv[0].starts_with('/'))
        command.executable = onHost(argv[0], mounts);
    else
        return makeError(ErrorCode::NotFound,
                         "exec: \"" + argv[0] +
                             "\": executable file not found in $PATH "
                             "(the kubelet double runs only the commands its test maps)");
    for (std::size_t i = 1; i < argv.size(); ++i)
        argv[i] = onHost(argv[i], mounts);
    command.argv = std::move(argv);
    command.workingDir = onHost(container.value("workingDir", ""), mounts);

    bool pathSet = false;
    if (container.contains("env") && container["env"].is_array()) {
        for (const auto& variable : container["env"]) {
            if (!variable.contains("value") || !variable["value"].is_string())
                continue; // valueFrom: a reference the double does not resolve
            const std::string name = variable.value("name", "");
            pathSet = pathSet || name == "PATH";
            command.environment.push_back(name + "=" + onHost(variable["value"].get<std::string>(), mounts));
        }
    }
    if (!pathSet)
        command.environment.push_back("PATH=" + hostPathVariable);
    return command;
}

} // namespace warren::test
