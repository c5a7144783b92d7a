#pragma once
// Ubuntu 23.10 and later restrict unprivileged user namespaces with AppArmor
// (kernel.apparmor_restrict_unprivileged_userns = 1): a process may create one only if its AppArmor profile
// has the `userns` rule. The Warren package ships such a profile, named "warren", attached to
// /usr/bin/warren, /usr/bin/warren-sandbox and /usr/bin/warrend (packaging/apparmor/warren,
// docs/SECURITY.md). This decides, from what the kernel shows, whether the restriction applies here and
// whether that profile lifts it, and says the exact fix when not. Pure, with a thin edge that reads /proc and
// /sys.

#include "sandbox/Preflight.h"

#include <optional>
#include <string>

namespace warren::sandbox {

inline constexpr const char* kAppArmorProfileName = "warren";
inline constexpr const char* kAppArmorProfileFile = "/etc/apparmor.d/warren";
// Where the package keeps the profile; its postinst copies it to kAppArmorProfileFile where the kernel
// mediates user namespaces (an older AppArmor cannot parse the `userns` rule).
inline constexpr const char* kAppArmorProfileSource = "/usr/share/warren/apparmor/warren";

struct UsernsRestrictionInputs {
    std::string restrictSysctl; // /proc/sys/kernel/apparmor_restrict_unprivileged_userns, trimmed; "" absent
    std::string ownLabel; // /proc/self/attr/apparmor/current, trimmed: "warren (unconfined)", "unconfined"
    std::optional<std::string> loadedProfiles; // /sys/kernel/security/apparmor/profiles; nullopt: unreadable
    bool profileInstalled = false;             // kAppArmorProfileFile exists
    std::string program;                       // this program's path, e.g. /usr/bin/warren
    bool runningAsRoot = false;
    bool bwrapSetuid = false;
};

// The "apparmor" check: Ok where the restriction is off, does not apply (root, setuid bwrap) or is lifted
// for this program by Warren's profile; a Warning with the fix otherwise (the sandbox trial then shows
// whether another profile lets bwrap through).
PreflightCheck usernsRestrictionCheck(const UsernsRestrictionInputs& inputs);

// Reads the inputs for this process.
UsernsRestrictionInputs readUsernsRestrictionInputs(bool runningAsRoot, bool bwrapSetuid);

} // namespace warren::sandbox
