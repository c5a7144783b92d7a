#pragma once
// The seccomp deny list as data: one row per rule, each with the reason it exists. The table lives in
// resources/seccomp/default.json (embedded at build time); compileBpf() is the one translator into the
// classic-BPF program bwrap loads with --seccomp FD. The container backend renders the same expanded rows
// (SeccompRule::alternatives) into a Docker seccomp JSON profile, so both backends enforce one table.

#include "common/Result.h"

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace warren::sandbox {

// One comparison on a syscall argument: (arg[index] & mask) == value. libseccomp 2.5 cannot compare one
// argument twice in one rule and Docker profiles cannot express "not in", so every condition of the table
// is expanded into alternatives made only of these.
struct SeccompArgMatch {
    unsigned index = 0;
    std::uint64_t mask = 0;
    std::uint64_t value = 0;

    bool operator==(const SeccompArgMatch&) const = default;
};

// A condition as the table writes it. The kernel truncates int-typed arguments, so the mask says which
// bits the kernel reads (0xffffffff for an int) and comparisons ignore the rest.
struct SeccompCondition {
    enum class Op {
        AnyBit, // any bit of mask is set (values unused)
        Eq,     // (arg & mask) == values[0]
        In,     // (arg & mask) is one of values
        NotIn,  // (arg & mask) is none of values
    };

    unsigned index = 0;
    Op op = Op::Eq;
    std::uint64_t mask = 0;
    std::vector<std::uint64_t> values; // each within mask

    bool operator==(const SeccompCondition&) const = default;
};

// The condition holds exactly when one of the returned matches holds. Pure; the condition must be valid
// (values within mask, at least one value for Eq/In/NotIn, a non-zero mask). NotIn walks a binary trie of
// the listed values from the mask's highest bit down: every branch that leads to no listed value becomes
// one match on the bits walked so far, so the matches are disjoint, cover exactly the other values, and
// come in ascending order of the values they cover. AnyBit gives one match per bit, In one per value.
std::vector<SeccompArgMatch> expandCondition(const SeccompCondition& condition);

// A conjunction of conditions on distinct arguments as alternatives: the cross product of each condition's
// expansion. No conditions: one empty alternative (the syscall always matches).
std::vector<std::vector<SeccompArgMatch>> expandConditions(const std::vector<SeccompCondition>& conditions);

struct SeccompRule {
    enum class Action { Errno, Kill };
    enum class When { Always, NetworkDenied }; // NetworkDenied: only when the profile's network is "none"

    std::string id;                    // stable name, used by the profile's "seccomp.skip" list
    std::vector<std::string> syscalls; // all get the same action and conditions
    Action action = Action::Errno;
    int errnoValue = 1; // the errno an Errno rule returns (EPERM unless the row says otherwise)
    When when = When::Always;
    std::vector<SeccompCondition> conditions; // all must hold; empty: the syscall always matches
    // expandConditions(conditions), filled in by the policy: the rule matches when ANY alternative
    // matches (each alternative is a conjunction of masked comparisons on distinct arguments).
    std::vector<std::vector<SeccompArgMatch>> alternatives;
    std::string reason; // why the rule exists, with a CVE where there is one
};

struct SeccompOptions {
    bool networkDenied = true;  // profile network "none": AF_INET/AF_INET6 sockets are refused too
    std::set<std::string> skip; // row ids the profile disables
};

class SeccompPolicy {
public:
    // Parses the table (format in docs/SECURITY.md). Strict: unknown keys, syscalls unknown on x86_64,
    // unknown errno or constant names, a missing reason and duplicate ids are errors naming the row.
    static Result<SeccompPolicy> fromJson(std::string_view json);
    // The same checks on rules built in code; fills in each rule's alternatives.
    static Result<SeccompPolicy> fromRules(std::vector<SeccompRule> rules);
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
