#include "sandbox/policy/DockerSeccomp.h"

#include <nlohmann/json.hpp>
#include <seccomp.h>

namespace warren::sandbox {
namespace {

using nlohmann::json;

// The runtime resolves each name with libseccomp, as compileBpf() does; a name libseccomp does not know
// at all (__NR_SCMP_ERROR) is a call newer than the library, any other negative number a call this
// architecture does not have.
enum class NameStatus { Native, UnknownToLibseccomp, NotOnThisArch };

NameStatus nameStatus(const std::string& name) {
    const int number = seccomp_syscall_resolve_name(name.c_str());
    if (number == __NR_SCMP_ERROR)
        return NameStatus::UnknownToLibseccomp;
    return number < 0 ? NameStatus::NotOnThisArch : NameStatus::Native;
}

} // namespace

Result<DockerSeccompProfile> renderDockerSeccomp(const SeccompPolicy& policy, const SeccompOptions& options) {
    for (const auto& id : options.skip) {
        if (!policy.hasRule(id))
            return makeError(ErrorCode::InvalidArgument,
                             "seccomp.skip names \"" + id + "\", which is not a rule of the seccomp table");
    }
    std::string architecture;
    switch (seccomp_arch_native()) {
    case SCMP_ARCH_X86_64:
        architecture = "SCMP_ARCH_X86_64";
        break;
    case SCMP_ARCH_AARCH64:
        architecture = "SCMP_ARCH_AARCH64";
        break;
    default:
        return makeError(ErrorCode::Unsupported, "seccomp: the filter table is written for x86_64 and aarch64; "
                                                 "this machine's architecture is not supported");
    }

    DockerSeccompProfile profile;
    json syscalls = json::array();
    for (const auto& rule : policy.rules()) {
        if (options.skip.count(rule.id) != 0)
            continue;
        if (rule.when == SeccompRule::When::NetworkDenied && !options.networkDenied)
            continue;
        json names = json::array();
        for (const auto& name : rule.syscalls) {
            switch (nameStatus(name)) {
            case NameStatus::NotOnThisArch:
                continue; // compileBpf() skips it too: nothing can make this call here
            case NameStatus::UnknownToLibseccomp:
                profile.differences.push_back(
                    name + " (rule " + rule.id + ") is newer than this system's libseccomp; container runtimes "
                    "name system calls through libseccomp and skip names it does not know, so a runtime built "
                    "against it does not filter " + name + ", which the bwrap filter denies by number");
                break;
            case NameStatus::Native:
                break;
            }
            names.push_back(name);
        }
        if (names.empty())
            continue;
        // One entry per alternative: the runtime adds each entry as one libseccomp rule whose comparisons
        // all must hold, which is what compileBpf() adds for the same alternative.
        for (const auto& alternative : rule.alternatives) {
            json entry = {{"names", names}, {"comment", rule.id}};
            if (rule.action == SeccompRule::Action::Kill) {
                entry["action"] = "SCMP_ACT_KILL_PROCESS";
            } else {
                entry["action"] = "SCMP_ACT_ERRNO";
                entry["errnoRet"] = rule.errnoValue;
            }
            if (!alternative.empty()) {
                json args = json::array();
                for (const auto& match : alternative) {
                    // For SCMP_CMP_MASKED_EQ, OCI's "value" is the mask and "valueTwo" the datum.
                    args.push_back({{"index", match.index},
                                    {"value", match.mask},
                                    {"valueTwo", match.value},
                                    {"op", "SCMP_CMP_MASKED_EQ"}});
                }
                entry["args"] = std::move(args);
            }
            syscalls.push_back(std::move(entry));
        }
    }
    // Only the native architecture: libseccomp then sends i386 and x32 calls to its bad-architecture
    // action, as in the BPF filter, which sets that action to kill the process. OCI has no field for it, so
    // the runtime keeps libseccomp's default, which kills the calling thread.
    profile.differences.push_back(
        "system calls of a foreign architecture (i386, x32) kill the calling thread instead of the whole "
        "process: an OCI seccomp profile cannot choose libseccomp's bad-architecture action. They are never "
        "executed either way");
    const json document = {{"defaultAction", "SCMP_ACT_ALLOW"},
                           {"architectures", json::array({architecture})},
                           {"syscalls", std::move(syscalls)}};
    profile.json = document.dump(2) + "\n";
    return profile;
}

} // namespace warren::sandbox
