#pragma once
// What a quota can limit, and the limits a task runs with. The sandbox limits carry the sandbox profile's
// own names and units (SandboxProfile's "limits": memory_mb, pids, cpu_seconds, timeout_sec,
// file_size_mb), so a request's "limits", a quota and the resolved profile read alike; to these a quota
// adds max_concurrent (tasks running at once), tokens_per_month (model tokens per calendar month, UTC) and
// idle_sleep_sec (how long a task may only wait for its user before its sandbox goes: TaskRunner's idle time)
// retention_days (how long a finished task keeps its workspace, checkpoints, snapshots and artifacts:
// TaskRetention.h) and disk_mb (what the owner's uploads, workspaces and kept task files may take:
// DiskUse.h).
//
// A limit is a level's number or unset. Unset does not bind; a set limit always does, and so the sandbox
// limits are at least 1: the profile reads 0 as "no limit", and a quota of 0 MiB must not become that; so is
// idle_sleep_sec, which the control plane reads 0 of as "never", and retention_days ("for ever").
// max_concurrent and tokens_per_month may be 0 (the user or tenant may run nothing).
//
// The effective limits of a task are, per limit, the smallest of the request, the user's quota and the
// tenant's quota that is set: a user's quota narrows the tenant's, it never lifts a user above what the
// tenant has. Each says which level decided it, and the whole is the task's first event. Pure.

#include "common/Result.h"
#include "sandbox/policy/SandboxProfile.h"

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace warren::accounts {

enum class LimitName {
    MaxConcurrent,
    MemoryMb,
    Pids,
    CpuSeconds,
    TimeoutSec,
    FileSizeMb,
    TokensPerMonth,
    IdleSleepSec,
    RetentionDays,
    DiskMb,
};
inline constexpr std::size_t kLimitCount = 10;

struct LimitInfo {
    LimitName name;
    std::string_view key;  // JSON key and database column
    std::string_view flag; // warrend admin set-quota's option
    bool sandbox;          // a sandbox limit: a request may ask for it
    std::uint64_t least;   // the smallest value it may hold: 1 where 0 would read as "no limit" to its reader
    std::string_view meaning;
};

// Every limit, in the order they are shown.
const std::array<LimitInfo, kLimitCount>& allLimits();
const LimitInfo& limitInfo(LimitName name);
std::optional<LimitName> limitByKey(std::string_view key);

// The largest number a limit may hold: PostgreSQL's bigint.
inline constexpr std::uint64_t kMaxLimitValue = INT64_MAX;

// value is allowed for this limit; the error names the limit, the range and where.
Status checkLimitValue(LimitName name, std::uint64_t value, const std::string& where);

class Limits {
public:
    std::optional<std::uint64_t> get(LimitName name) const { return m_values[index(name)]; }
    void set(LimitName name, std::optional<std::uint64_t> value) { m_values[index(name)] = value; }
    bool empty() const;
    friend bool operator==(const Limits&, const Limits&) = default;

private:
    static std::size_t index(LimitName name) { return static_cast<std::size_t>(name); }
    std::array<std::optional<std::uint64_t>, kLimitCount> m_values{};
};

// Who reads a limits object: a task request may name only sandbox limits; a quota any.
enum class LimitsScope { Request, Quota };

// Reads {"memory_mb": 512, ...}: unknown keys and wrong types are errors naming where; null is unset.
Result<Limits> limitsFromJson(const nlohmann::json& object, LimitsScope scope, const std::string& where);
// Every limit, unset as null.
nlohmann::json limitsToJson(const Limits& limits);

enum class LimitLevel { None, Request, User, Tenant };
std::string_view limitLevelName(LimitLevel level);

struct EffectiveLimit {
    std::optional<std::uint64_t> value; // unset: no level limits it
    LimitLevel decidedBy = LimitLevel::None;
};

struct EffectiveLimits {
    Limits request, user, tenant; // what each level said, kept for the event
    std::array<EffectiveLimit, kLimitCount> limits{};

    const EffectiveLimit& get(LimitName name) const { return limits[static_cast<std::size_t>(name)]; }
};

// Per limit the smallest set value; on a tie the most specific level (request, then user, then tenant).
EffectiveLimits effectiveLimits(const Limits& request, const Limits& user, const Limits& tenant);

// The task's first event: {"memory_mb": {"value": 512, "decided_by": "tenant", "request": 1024,
// "user": null, "tenant": 512}, ...} for every limit, so a reader sees what was asked and why it is so.
nlohmann::json effectiveLimitsToJson(const EffectiveLimits& effective);

// The profile's limits with each effective sandbox limit that is set put in its place; a limit no level
// sets keeps the profile's value.
sandbox::SandboxLimits applyToSandbox(const EffectiveLimits& effective, sandbox::SandboxLimits profile);

} // namespace warren::accounts
