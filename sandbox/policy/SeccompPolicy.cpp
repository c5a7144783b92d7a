#include "sandbox/policy/SeccompPolicy.h"

#include "common/JsonFields.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <linux/bpf_common.h>
#include <linux/filter.h>
#include <memory>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <unistd.h>

namespace warren::resources {
extern const std::string_view defaultSeccompJson;
}

namespace warren::sandbox {

namespace {

using nlohmann::json;

// Names a table may use in masks and values. Taken from the system headers so that no kernel number is
// typed by hand here.
struct NamedConstant {
    std::string_view name;
    std::uint64_t value;
};

constexpr std::uint64_t u64(long long value) {
    return static_cast<std::uint64_t>(value);
}

constexpr NamedConstant kConstants[] = {
    {"CLONE_NEWNS", u64(CLONE_NEWNS)},
    {"CLONE_NEWCGROUP", u64(CLONE_NEWCGROUP)},
    {"CLONE_NEWUTS", u64(CLONE_NEWUTS)},
    {"CLONE_NEWIPC", u64(CLONE_NEWIPC)},
    {"CLONE_NEWUSER", u64(CLONE_NEWUSER)},
    {"CLONE_NEWPID", u64(CLONE_NEWPID)},
    {"CLONE_NEWNET", u64(CLONE_NEWNET)},
    {"CLONE_NEWTIME", u64(CLONE_NEWTIME)},
    {"AF_UNIX", u64(AF_UNIX)},
    {"AF_INET", u64(AF_INET)},
    {"AF_INET6", u64(AF_INET6)},
    {"SOCK_STREAM", u64(SOCK_STREAM)},
    {"SOCK_DGRAM", u64(SOCK_DGRAM)},
    {"IPPROTO_ICMP", u64(IPPROTO_ICMP)},
    {"IPPROTO_TCP", u64(IPPROTO_TCP)},
    {"IPPROTO_UDP", u64(IPPROTO_UDP)},
    {"IPPROTO_ICMPV6", u64(IPPROTO_ICMPV6)},
    {"IPPROTO_MPTCP", u64(IPPROTO_MPTCP)},
    {"TIOCSTI", u64(TIOCSTI)},
    {"TIOCLINUX", u64(TIOCLINUX)},
    {"TIOCSETD", u64(TIOCSETD)},
    {"PER_LINUX", u64(PER_LINUX)},
};

// The errnos a deny rule can sensibly return.
constexpr std::pair<std::string_view, int> kErrnos[] = {
    {"EPERM", EPERM},
    {"EACCES", EACCES},
    {"ENOSYS", ENOSYS},
    {"EINVAL", EINVAL},
    {"ENOTTY", ENOTTY},
    {"EOPNOTSUPP", EOPNOTSUPP},
    {"EAFNOSUPPORT", EAFNOSUPPORT},
    {"EPROTONOSUPPORT", EPROTONOSUPPORT},
    {"ESOCKTNOSUPPORT", ESOCKTNOSUPPORT},
};

// System calls newer than the libseccomp this is built against. Since Linux 5.1 (pidfd_send_signal, 424)
// every architecture but alpha uses the same number for a new syscall, so one number serves x86_64 and
// aarch64 alike.
constexpr std::pair<std::string_view, int> kNewerSyscalls[] = {
    {"open_tree_attr", 467}, // Linux 6.15
};

constexpr unsigned kMaxArgIndex = 5;
constexpr int kMaxErrno = 4095; // the kernel caps SECCOMP_RET_ERRNO data at MAX_ERRNO

std::optional<int> newerSyscallNumber(std::string_view name) {
    for (const auto& [known, number] : kNewerSyscalls) {
        if (known == name) {
            return number;
        }
    }
    return std::nullopt;
}

bool isSyscallOnX86_64(const std::string& name) {
    return seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name.c_str()) >= 0 ||
           newerSyscallNumber(name).has_value();
}

// The native number of a syscall, or a negative value when the native architecture has no such call.
int nativeSyscallNumber(const std::string& name) {
    const int number = seccomp_syscall_resolve_name(name.c_str());
    if (number == __NR_SCMP_ERROR) {
        return newerSyscallNumber(name).value_or(__NR_SCMP_ERROR);
    }
    return number;
}

std::string hex(std::uint64_t value) {
    char buffer[24];
    std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
    return buffer;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && text.front() == ' ') {
        text.remove_prefix(1);
    }
    while (!text.empty() && text.back() == ' ') {
        text.remove_suffix(1);
    }
    return text;
}

// ---- expressions: a JSON unsigned integer, or a string of names and numbers joined by '|' ----

std::optional<std::uint64_t> parseTerm(std::string_view term, std::string& error) {
    if (term.empty()) {
        error = "empty term";
        return std::nullopt;
    }
    if (term.front() >= '0' && term.front() <= '9') {
        std::string_view digits = term;
        int base = 10;
        if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
            base = 16;
            digits.remove_prefix(2);
        }
        std::uint64_t value = 0;
        const auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
        if (status != std::errc() || end != digits.data() + digits.size()) {
            error = "\"" + std::string(term) + "\" is not a 64-bit number";
            return std::nullopt;
        }
        return value;
    }
    for (const auto& constant : kConstants) {
        if (constant.name == term) {
            return constant.value;
        }
    }
    error = "unknown constant \"" + std::string(term) + "\"";
    return std::nullopt;
}

std::optional<std::uint64_t> parseExpression(const json& node, std::string& error) {
    if (node.is_number_unsigned()) {
        return node.get<std::uint64_t>();
    }
    if (!node.is_string()) {
        error =
            "expected a non-negative integer or a string such as \"CLONE_NEWNS|0x10\", got " + node.dump();
        return std::nullopt;
    }
    const std::string& text = node.get_ref<const std::string&>();
    std::uint64_t result = 0;
    std::string_view rest = text;
    while (true) {
        const auto bar = rest.find('|');
        const auto value = parseTerm(trim(rest.substr(0, bar)), error);
        if (!value) {
            error = "in \"" + text + "\": " + error;
            return std::nullopt;
        }
        result |= *value;
        if (bar == std::string_view::npos) {
            return result;
        }
        rest.remove_prefix(bar + 1);
    }
}

// ---- JSON rows into SeccompRule ----
// The shared reader (json_fields) checks presence and types; where it fails, the table says what a rule
// needs instead of what JSON type it wanted, because whoever edits the table reads these messages.

template <typename T, std::size_t N>
std::optional<T> lookUp(const std::string& name, const std::pair<std::string_view, T> (&choices)[N]) {
    for (const auto& [known, value] : choices) {
        if (known == name) {
            return value;
        }
    }
    return std::nullopt;
}

constexpr std::pair<std::string_view, SeccompCondition::Op> kOps[] = {
    {"any_bit", SeccompCondition::Op::AnyBit},
    {"eq", SeccompCondition::Op::Eq},
    {"in", SeccompCondition::Op::In},
    {"not_in", SeccompCondition::Op::NotIn},
};
constexpr std::pair<std::string_view, SeccompRule::Action> kActions[] = {
    {"errno", SeccompRule::Action::Errno},
    {"kill", SeccompRule::Action::Kill},
};
constexpr std::pair<std::string_view, SeccompRule::When> kWhens[] = {
    {"always", SeccompRule::When::Always},
    {"network-denied", SeccompRule::When::NetworkDenied},
};

// The string at key looked up in choices; nullopt when absent, not a string or not a choice.
template <typename T, std::size_t N>
std::optional<T> getChoice(const json& object, const char* key,
                           const std::pair<std::string_view, T> (&choices)[N]) {
    const auto name = json_fields::getString(object, key, "");
    return name ? lookUp(*name, choices) : std::nullopt;
}

std::string rowLabel(const json& row, std::size_t position) {
    const auto id = json_fields::getString(row, "id", ""); // an error for a row that is not an object, too
    return id ? "rule \"" + *id + "\"" : "rule #" + std::to_string(position + 1);
}

Error tableError(const std::string& label, const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, "seccomp table: " + label + ": " + message);
}

Result<std::uint64_t> readExpression(const json& value, const std::string& label, const std::string& where) {
    std::string error;
    const auto result = parseExpression(value, error);
    if (!result) {
        return tableError(label, where + error);
    }
    return *result;
}

// The values of "in" and "not_in".
Result<std::vector<std::uint64_t>> readValues(const json& node, const std::string& label,
                                              const std::string& where, const std::string& op) {
    const auto values = json_fields::getValue(node, "values", label);
    if (!values || !values->is_array() || node.contains("value")) {
        return tableError(label, where + "\"" + op + "\" takes a \"values\" array");
    }
    std::vector<std::uint64_t> out;
    for (const auto& item : *values) {
        const auto value = readExpression(item, label, where + "\"values\": ");
        if (!value) {
            return value.error();
        }
        out.push_back(*value);
    }
    return out;
}

Result<SeccompCondition> parseCondition(const json& node, const std::string& label) {
    if (!node.is_object()) {
        return tableError(label, "each entry of \"args\" must be an object, got " + node.dump());
    }
    if (const auto key = json_fields::findUnknownKey(node, {"index", "op", "mask", "value", "values"})) {
        return tableError(label, "condition has unknown key \"" + *key + "\"");
    }
    SeccompCondition condition;
    const auto index = json_fields::getInt(node, "index", label, 0, kMaxArgIndex);
    if (!index) {
        return tableError(label, "condition needs \"index\", the argument position 0-5");
    }
    condition.index = static_cast<unsigned>(*index);
    const std::string where = "condition on argument " + std::to_string(condition.index) + ": ";

    const auto opName = json_fields::getString(node, "op", label);
    const auto op = opName ? lookUp(*opName, kOps) : std::nullopt;
    if (!op) {
        return tableError(label, where + "\"op\" must be \"any_bit\", \"eq\", \"in\" or \"not_in\"");
    }
    condition.op = *op;

    if (!node.contains("mask")) {
        return tableError(label, where + "\"mask\" is required: it says which bits of the argument the "
                                         "kernel reads (0xffffffff for an int)");
    }
    const auto mask = readExpression(node.at("mask"), label, where + "\"mask\": ");
    if (!mask) {
        return mask.error();
    }
    condition.mask = *mask;

    const bool hasValue = node.contains("value");
    const bool hasValues = node.contains("values");
    switch (condition.op) {
    case SeccompCondition::Op::AnyBit:
        if (hasValue || hasValues) {
            return tableError(label, where + "\"any_bit\" takes only \"mask\" (the bits), no value");
        }
        break;
    case SeccompCondition::Op::Eq: {
        if (!hasValue || hasValues) {
            return tableError(label, where + "\"eq\" takes one \"value\"");
        }
        const auto value = readExpression(node.at("value"), label, where + "\"value\": ");
        if (!value) {
            return value.error();
        }
        condition.values.push_back(*value);
        break;
    }
    case SeccompCondition::Op::In:
    case SeccompCondition::Op::NotIn: {
        auto values = readValues(node, label, where, *opName);
        if (!values) {
            return values.error();
        }
        condition.values = std::move(values).value();
        break;
    }
    }
    return condition;
}

Status readAction(const json& row, const std::string& label, SeccompRule& rule) {
    const auto action = getChoice(row, "action", kActions);
    if (!action) {
        return tableError(label, "\"action\" must be \"errno\" or \"kill\"");
    }
    rule.action = *action;
    if (rule.action == SeccompRule::Action::Kill) {
        if (row.contains("errno")) {
            return tableError(label, "action \"kill\" takes no \"errno\"");
        }
        return Ok{};
    }
    const auto name = json_fields::getString(row, "errno", label);
    if (!name) {
        return tableError(label, "action \"errno\" needs \"errno\", a name such as \"EPERM\"");
    }
    const auto value = lookUp(*name, kErrnos);
    if (!value) {
        return tableError(label, "unknown errno \"" + *name + "\"");
    }
    rule.errnoValue = *value;
    return Ok{};
}

Result<SeccompRule> parseRule(const json& row, std::size_t position) {
    const std::string label = rowLabel(row, position);
    if (!row.is_object()) {
        return tableError(label, "must be an object");
    }
    if (const auto key = json_fields::findUnknownKey(
            row, {"id", "syscalls", "action", "errno", "when", "args", "reason"})) {
        return tableError(label, "unknown key \"" + *key + "\"");
    }

    SeccompRule rule;
    auto id = json_fields::getString(row, "id", label);
    if (!id) {
        return tableError(label, "\"id\" is required and must be a string");
    }
    rule.id = std::move(id).value();

    const auto syscalls = json_fields::getValue(row, "syscalls", label);
    if (!syscalls || !syscalls->is_array()) {
        return tableError(label, "\"syscalls\" is required and must be an array of syscall names");
    }
    for (const auto& name : *syscalls) {
        auto text = json_fields::readString(name, label);
        if (!text) {
            return tableError(label, "\"syscalls\" must hold names, got " + name.dump());
        }
        rule.syscalls.push_back(std::move(text).value());
    }

    if (auto status = readAction(row, label, rule); !status) {
        return status.error();
    }

    if (row.contains("when")) {
        const auto when = getChoice(row, "when", kWhens);
        if (!when) {
            return tableError(label, "\"when\" must be \"always\" or \"network-denied\"");
        }
        rule.when = *when;
    }

    if (row.contains("args")) {
        const auto args = json_fields::getValue(row, "args", label);
        if (!args->is_array() || args->empty()) {
            return tableError(label, "\"args\" must be a non-empty array of conditions (leave it out to "
                                     "match every call)");
        }
        for (const auto& node : *args) {
            auto condition = parseCondition(node, label);
            if (!condition) {
                return condition.error();
            }
            rule.conditions.push_back(std::move(condition).value());
        }
    }

    auto reason = json_fields::getString(row, "reason", label);
    if (!reason) {
        return tableError(label, "\"reason\" is required: every rule says why it exists");
    }
    rule.reason = std::move(reason).value();
    return rule;
}

// ---- semantic checks shared by fromJson and fromRules ----

std::optional<std::string> checkCondition(const SeccompCondition& condition) {
    const std::string where = "condition on argument " + std::to_string(condition.index) + ": ";
    if (condition.index > kMaxArgIndex) {
        return "argument index " + std::to_string(condition.index) + " is not 0-5";
    }
    if (condition.mask == 0) {
        return where + "the mask is 0, so the condition would not look at the argument";
    }
    switch (condition.op) {
    case SeccompCondition::Op::AnyBit:
        if (!condition.values.empty()) {
            return where + "any_bit takes no values";
        }
        return std::nullopt;
    case SeccompCondition::Op::Eq:
        if (condition.values.size() != 1) {
            return where + "eq takes exactly one value";
        }
        break;
    case SeccompCondition::Op::In:
    case SeccompCondition::Op::NotIn:
        if (condition.values.empty()) {
            return where + "the list of values is empty";
        }
        break;
    }
    std::set<std::uint64_t> seen;
    for (const auto value : condition.values) {
        if ((value & ~condition.mask) != 0) {
            return where + "value " + hex(value) + " has bits outside the mask " + hex(condition.mask) +
                   ", so it can never match";
        }
        if (!seen.insert(value).second) {
            return where + "value " + hex(value) + " is listed twice";
        }
    }
    return std::nullopt;
}

std::optional<std::string> checkRule(const SeccompRule& rule) {
    if (rule.id.empty() || !std::all_of(rule.id.begin(), rule.id.end(), [](char c) {
            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
        })) {
        return "the id must be non-empty and use only a-z, 0-9 and '-'";
    }
    if (rule.syscalls.empty()) {
        return "\"syscalls\" is empty";
    }
    std::set<std::string> seen;
    for (const auto& name : rule.syscalls) {
        if (!seen.insert(name).second) {
            return "syscall \"" + name + "\" is listed twice";
        }
        if (!isSyscallOnX86_64(name)) {
            return "\"" + name + "\" is not a system call on x86_64";
        }
    }
    if (rule.action == SeccompRule::Action::Errno && (rule.errnoValue < 1 || rule.errnoValue > kMaxErrno)) {
        return "errno " + std::to_string(rule.errnoValue) + " is outside 1-4095";
    }
    std::set<unsigned> indices;
    for (const auto& condition : rule.conditions) {
        if (const auto problem = checkCondition(condition)) {
            return problem;
        }
        if (!indices.insert(condition.index).second) {
            return "two conditions on argument " + std::to_string(condition.index) +
                   "; express them as one (libseccomp compares an argument once per rule)";
        }
    }
    if (trim(rule.reason).empty()) {
        return "\"reason\" is empty: every rule says why it exists";
    }
    return std::nullopt;
}

// ---- compiling ----

struct FilterDeleter {
    void operator()(void* context) const { seccomp_release(context); }
};
using FilterContext = std::unique_ptr<void, FilterDeleter>;

struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
};

Error libseccompError(const std::string& what, int rc) {
    return makeError(ErrorCode::System, "seccomp: " + what + " failed: " + std::strerror(-rc));
}

Result<std::vector<std::uint8_t>> exportBpf(void* context) {
    const int fd = ::memfd_create("warren-seccomp", MFD_CLOEXEC);
    if (fd < 0) {
        return makeError(ErrorCode::System,
                         std::string("seccomp: memfd_create for the filter failed: ") + std::strerror(errno));
    }
    const FdCloser closer{fd};
    if (const int rc = seccomp_export_bpf(context, fd); rc < 0) {
        return libseccompError("exporting the BPF program", rc);
    }
    std::vector<std::uint8_t> program;
    std::uint8_t buffer[4096];
    for (off_t offset = 0;;) {
        const ssize_t got = ::pread(fd, buffer, sizeof buffer, offset);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            return makeError(ErrorCode::System,
                             std::string("seccomp: reading the BPF program back failed: ") +
                                 std::strerror(errno));
        }
        if (got == 0) {
            break;
        }
        program.insert(program.end(), buffer, buffer + got);
        offset += got;
    }
    if (program.empty() || program.size() % sizeof(sock_filter) != 0) {
        return makeError(ErrorCode::System, "seccomp: libseccomp exported a malformed BPF program (" +
                                                std::to_string(program.size()) + " bytes)");
    }
    const std::size_t instructions = program.size() / sizeof(sock_filter);
    if (instructions > BPF_MAXINSNS) {
        return makeError(ErrorCode::InvalidArgument,
                         "seccomp: the filter has " + std::to_string(instructions) +
                             " instructions, more than the kernel's limit of " +
                             std::to_string(BPF_MAXINSNS) +
                             "; rules with long \"not_in\" lists are the usual cause");
    }
    return program;
}

} // namespace

// ---- expansion ----

std::vector<SeccompArgMatch> expandCondition(const SeccompCondition& condition) {
    const unsigned index = condition.index;
    std::vector<SeccompArgMatch> matches;
    switch (condition.op) {
    case SeccompCondition::Op::AnyBit:
        for (unsigned bit = 0; bit < 64; ++bit) {
            const std::uint64_t flag = std::uint64_t{1} << bit;
            if ((condition.mask & flag) != 0) {
                matches.push_back({index, flag, flag});
            }
        }
        break;
    case SeccompCondition::Op::Eq:
    case SeccompCondition::Op::In: {
        const std::set<std::uint64_t> values(condition.values.begin(), condition.values.end());
        for (const auto value : values) {
            matches.push_back({index, condition.mask, value & condition.mask});
        }
        break;
    }
    case SeccompCondition::Op::NotIn: {
        // Walk the mask's bits from the top. `walked` holds the bits decided so far, `prefix` their values,
        // `listed` the values that agree with the prefix. A branch no listed value takes is one match.
        std::vector<unsigned> bits;
        for (unsigned bit = 64; bit-- > 0;) {
            if ((condition.mask & (std::uint64_t{1} << bit)) != 0) {
                bits.push_back(bit);
            }
        }
        std::vector<std::uint64_t> listed;
        for (const auto value : condition.values) {
            listed.push_back(value & condition.mask);
        }
        auto walk = [&](auto& self, std::size_t depth, std::uint64_t walked, std::uint64_t prefix,
                        const std::vector<std::uint64_t>& agreeing) -> void {
            if (depth == bits.size()) {
                return; // every bit decided and a listed value agrees: this value is allowed
            }
            const std::uint64_t flag = std::uint64_t{1} << bits[depth];
            for (const std::uint64_t side : {std::uint64_t{0}, flag}) {
                std::vector<std::uint64_t> next;
                std::copy_if(agreeing.begin(), agreeing.end(), std::back_inserter(next),
                             [&](std::uint64_t value) { return (value & flag) == side; });
                if (next.empty()) {
                    matches.push_back({index, walked | flag, prefix | side});
                } else {
                    self(self, depth + 1, walked | flag, prefix | side, next);
                }
            }
        };
        walk(walk, 0, 0, 0, listed);
        break;
    }
    }
    return matches;
}

std::vector<std::vector<SeccompArgMatch>> expandConditions(const std::vector<SeccompCondition>& conditions) {
    std::vector<std::vector<SeccompArgMatch>> alternatives{{}};
    for (const auto& condition : conditions) {
        const auto matches = expandCondition(condition);
        std::vector<std::vector<SeccompArgMatch>> product;
        product.reserve(alternatives.size() * matches.size());
        for (const auto& partial : alternatives) {
            for (const auto& match : matches) {
                auto extended = partial;
                extended.push_back(match);
                product.push_back(std::move(extended));
            }
        }
        alternatives = std::move(product);
    }
    return alternatives;
}

// ---- SeccompPolicy ----

Result<SeccompPolicy> SeccompPolicy::fromJson(std::string_view text) {
    // A key given twice would silently drop one setting of a security table (RFC 7493 refuses it too).
    const auto document = json_fields::parseJson(text, {.rejectDuplicateKeys = true});
    if (!document) {
        return makeError(ErrorCode::InvalidArgument,
                         "seccomp table: not valid JSON: " + document.error().message);
    }
    const auto rows = json_fields::getValue(*document, "rules", "");
    if (!rows || !rows->is_array()) {
        return makeError(ErrorCode::InvalidArgument, "seccomp table: expected an object {\"rules\": [...]}");
    }
    if (const auto key = json_fields::findUnknownKey(*document, {"rules"})) {
        return makeError(ErrorCode::InvalidArgument, "seccomp table: unknown top-level key \"" + *key + "\"");
    }
    std::vector<SeccompRule> rules;
    for (std::size_t position = 0; position < rows->size(); ++position) {
        auto rule = parseRule((*rows)[position], position);
        if (!rule) {
            return rule.error();
        }
        rules.push_back(std::move(rule).value());
    }
    return fromRules(std::move(rules));
}

Result<SeccompPolicy> SeccompPolicy::fromRules(std::vector<SeccompRule> rules) {
    std::set<std::string> ids;
    for (std::size_t position = 0; position < rules.size(); ++position) {
        SeccompRule& rule = rules[position];
        const std::string label =
            rule.id.empty() ? "rule #" + std::to_string(position + 1) : "rule \"" + rule.id + "\"";
        if (const auto problem = checkRule(rule)) {
            return tableError(label, *problem);
        }
        if (!ids.insert(rule.id).second) {
            return tableError(label, "the id is used by an earlier rule too; ids must be unique");
        }
        rule.alternatives = expandConditions(rule.conditions);
    }
    SeccompPolicy policy;
    policy.m_rules = std::move(rules);
    return policy;
}

const SeccompPolicy& SeccompPolicy::builtIn() {
    static const SeccompPolicy policy = [] {
        auto parsed = fromJson(resources::defaultSeccompJson);
        if (!parsed) {
            // The embedded table is checked by the unit tests; reaching this is a build defect, and a
            // sandbox without its filter must not start.
            std::fprintf(stderr, "warren: the built-in seccomp table is invalid: %s\n",
                         parsed.error().message.c_str());
            std::abort();
        }
        return std::move(parsed).value();
    }();
    return policy;
}

bool SeccompPolicy::hasRule(std::string_view id) const {
    return std::any_of(m_rules.begin(), m_rules.end(),
                       [&](const SeccompRule& rule) { return rule.id == id; });
}

Result<std::vector<std::uint8_t>> SeccompPolicy::compileBpf(const SeccompOptions& options) const {
    for (const auto& id : options.skip) {
        if (!hasRule(id)) {
            std::string known;
            for (const auto& rule : m_rules) {
                known += (known.empty() ? "" : ", ") + rule.id;
            }
            return makeError(ErrorCode::InvalidArgument, "seccomp.skip names \"" + id +
                                                             "\", which is not a rule of the seccomp table "
                                                             "(rules: " +
                                                             known + ")");
        }
    }

    // The argument positions in the table (clone's flags in argument 0, no socketcall multiplexer) hold
    // on these two; elsewhere a rule could silently test the wrong argument.
    const std::uint32_t native = seccomp_arch_native();
    if (native != SCMP_ARCH_X86_64 && native != SCMP_ARCH_AARCH64) {
        return makeError(ErrorCode::Unsupported,
                         "seccomp: the filter table is written for x86_64 and aarch64; "
                         "this machine's architecture is not supported");
    }

    FilterContext context(seccomp_init(SCMP_ACT_ALLOW));
    if (!context) {
        return makeError(ErrorCode::System, "seccomp: seccomp_init failed");
    }
    // i386 (int $0x80) and x32 (syscall numbers with bit 30 set) reach the same kernel with other syscall
    // numbers; a filter written for x86_64 would not recognise them, so they end the process.
    if (const int rc = seccomp_attr_set(context.get(), SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
        rc < 0) {
        return libseccompError("setting the bad-architecture action", rc);
    }

    for (const auto& rule : m_rules) {
        if (options.skip.count(rule.id) != 0) {
            continue;
        }
        if (rule.when == SeccompRule::When::NetworkDenied && !options.networkDenied) {
            continue;
        }
        const std::uint32_t action = rule.action == SeccompRule::Action::Kill
                                         ? SCMP_ACT_KILL_PROCESS
                                         : SCMP_ACT_ERRNO(static_cast<std::uint32_t>(rule.errnoValue));
        for (const auto& name : rule.syscalls) {
            const int number = nativeSyscallNumber(name);
            if (number < 0) {
                continue; // not a syscall of this architecture: nothing can make it
            }
            for (const auto& alternative : rule.alternatives) {
                std::vector<scmp_arg_cmp> comparisons;
                for (const auto& match : alternative) {
                    comparisons.push_back({match.index, SCMP_CMP_MASKED_EQ, match.mask, match.value});
                }
                const int rc =
                    seccomp_rule_add_array(context.get(), action, number,
                                           static_cast<unsigned>(comparisons.size()), comparisons.data());
                if (rc < 0) {
                    return libseccompError("rule \"" + rule.id + "\" on " + name, rc);
                }
            }
        }
    }
    return exportBpf(context.get());
}

} // namespace warren::sandbox
