#include "sandbox/bwrap/UsernsRestriction.h"

#include <array>
#include <fstream>
#include <sstream>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::sandbox {

namespace {

using Status = PreflightCheck::Status;

// The programs the profile attaches to (packaging/apparmor/warren).
constexpr std::array<std::string_view, 3> kAttachedPrograms = {"/usr/bin/warren", "/usr/bin/warren-sandbox",
                                                               "/usr/bin/warrend"};

const std::string kSysctl = "kernel.apparmor_restrict_unprivileged_userns";
const std::string kLiftForAll = "or, for every program until the next boot: sudo sysctl -w " + kSysctl + "=0";

bool labelIsWarren(const std::string& label) {
    const std::string prefix = std::string(kAppArmorProfileName) + " (";
    return label == kAppArmorProfileName || label.rfind(prefix, 0) == 0;
}

bool profileLoaded(const std::string& profiles) {
    std::istringstream lines(profiles);
    std::string line;
    while (std::getline(lines, line))
        if (labelIsWarren(line))
            return true;
    return false;
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\0'))
        text.pop_back();
    return text;
}

std::optional<std::string> readFile(const char* path) {
    std::ifstream file(path);
    if (!file)
        return std::nullopt;
    std::stringstream content;
    content << file.rdbuf();
    return content.str();
}

} // namespace

PreflightCheck usernsRestrictionCheck(const UsernsRestrictionInputs& in) {
    PreflightCheck check{"apparmor", Status::Ok, {}, {}};
    if (in.restrictSysctl.empty() || in.restrictSysctl == "0") {
        check.detail = in.restrictSysctl.empty()
                           ? "this kernel has no " + kSysctl + ": AppArmor does not restrict user namespaces"
                           : kSysctl + " is 0: AppArmor does not restrict user namespaces";
        return check;
    }
    check.detail = kSysctl + " is " + in.restrictSysctl +
                   ": a process without privileges may create a user namespace only if its AppArmor profile "
                   "allows it";
    if (in.runningAsRoot) {
        check.detail += "; this process runs as root, which the restriction does not apply to";
        return check;
    }
    if (in.bwrapSetuid) {
        check.detail += "; bwrap is setuid root and creates the namespaces with its privileges";
        return check;
    }
    if (labelIsWarren(in.ownLabel)) {
        check.detail += "; this program runs under Warren's AppArmor profile (" + in.ownLabel +
                        "), which the bwrap it starts inherits with the right to create them";
        return check;
    }

    check.status = Status::Warning;
    const std::string label = in.ownLabel.empty() ? "no AppArmor label" : "label " + in.ownLabel;
    const std::string load = std::string("sudo apparmor_parser -r ") + kAppArmorProfileFile;
    const std::string install = std::string("sudo install -m 644 ") + kAppArmorProfileSource + " " +
                                kAppArmorProfileFile + " && " + load;
    bool attached = false;
    for (auto program : kAttachedPrograms)
        attached = attached || in.program == program;
    if (!attached) {
        check.detail += "; Warren's profile lifts it only for /usr/bin/warren, /usr/bin/warren-sandbox and "
                        "/usr/bin/warrend, and this program is " +
                        (in.program.empty() ? std::string("another one") : in.program) + " (" + label + ")";
        check.fix =
            "Run the installed Warren (the warren package: sudo apt install ./warren_VERSION_amd64.deb, "
            "see the README), " +
            kLiftForAll;
        return check;
    }
    if (in.loadedProfiles && profileLoaded(*in.loadedProfiles)) {
        check.detail +=
            "; Warren's profile is loaded, but this program started before it was (" + label + ")";
        check.fix = "Start " + in.program + " again.";
        return check;
    }
    if (in.profileInstalled) {
        check.detail += std::string("; Warren's profile is installed at ") + kAppArmorProfileFile +
                        " but not loaded (" + label + ")";
        check.fix = "Load it: " + load + ", then start " + in.program + " again; " + kLiftForAll;
        return check;
    }
    check.detail +=
        std::string("; Warren's profile is not installed at ") + kAppArmorProfileFile + " (" + label + ")";
    check.fix = "Install and load it: " + install + ", then start " + in.program + " again; " + kLiftForAll;
    return check;
}

UsernsRestrictionInputs readUsernsRestrictionInputs(bool runningAsRoot, bool bwrapSetuid) {
    UsernsRestrictionInputs in;
    in.restrictSysctl =
        trimmed(readFile("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").value_or(""));
    // The LSM-specific file first (Linux 5.8+, where several LSMs stack), else the shared one.
    auto label = readFile("/proc/self/attr/apparmor/current");
    if (!label)
        label = readFile("/proc/self/attr/current");
    in.ownLabel = trimmed(label.value_or(""));
    in.loadedProfiles = readFile("/sys/kernel/security/apparmor/profiles");
    struct stat st {};
    in.profileInstalled = ::stat(kAppArmorProfileFile, &st) == 0;
    char exe[4096];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0)
        in.program.assign(exe, static_cast<std::size_t>(n));
    in.runningAsRoot = runningAsRoot;
    in.bwrapSetuid = bwrapSetuid;
    return in;
}

} // namespace warren::sandbox
