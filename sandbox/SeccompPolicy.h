#pragma once
// The seccomp deny list as data: one row per rule, each with the reason it exists. The table lives in
// resources/seccomp/default.json (embedded at build time); compileBpf() is the one translator into the
// classic-BPF program bwrap loads with --seccomp FD. (The container backend will render the same rows
// to a Docker seccomp JSON profile.)

#include "Result.h"

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace warren::sandbox {

// One comparison on a syscall argument. libseccomp cannot compare one argument twice in one rule, so
// every condition is a single masked equality: (arg[index] & mask) == value.
struct SeccompArgMatch {
    unsigned index = 0;
    std::uint64_t mask = 0;
    std::uint64_t value = 0;
};

struct SeccompRule {
    enum class Action { Errno, Kill };
    enum class When { Always, NetworkDenied }; // NetworkDenied: only when the profile's network is "none"

    std::string id;                    // stable name, used by the profile's "seccomp.skip" list
    std::vector<std::string> syscalls; // all get the same action and conditions
    Action action = Action::Errno;
    int errnoValue = 1; // EPERM unless the row says otherwise (ENOSYS for clone3)
    When when = When::Always;
    // The rule matches when ANY of these alternatives matches (each alternative is a conjunction of
    // masked comparisons on distinct arguments). Empty: the syscall always matches.
    std::vector<std::vector<SeccompArgMatch>> alternatives;
    std::string reason; // why the rule exists, with a CVE where there is one
};

struct SeccompOptions {
    bool networkDenied = true;     // profile network "none": AF_INET/AF_INET6 sockets are refused too
    std::set<std::string> skip;    // row ids the profile disables
};

class SeccompPolicy {
public:
    static Result<SeccompPolicy> fromJson(std::string_view json);
    static const SeccompPolicy& builtIn(); // the embedded default table

    const std::vector<SeccompRule>& rules() const { return m_rules; }
    bool hasRule(std::string_view id) const;

    // The BPF program (array of struct sock_filter) for bwrap --seccomp. Non-native architectures
    // (i386, x32) are killed. Fails if options.skip names a row that does not exist.
    Result<std::vector<std::uint8_t>> compileBpf(const SeccompOptions& options) const;

private:
    std::vector<SeccompRule> m_rules;
};

} // namespace warren::sandbox
