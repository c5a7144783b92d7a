#include "server/accounts/Limits.h"

#include "common/JsonFields.h"

#include <algorithm>

namespace warren::accounts {

using nlohmann::json;

const std::array<LimitInfo, kLimitCount>& allLimits() {
    static const std::array<LimitInfo, kLimitCount> limits{{
        {LimitName::MaxConcurrent, "max_concurrent", "--max-concurrent", false, 0, "tasks running at once"},
        {LimitName::MemoryMb, "memory_mb", "--memory-mb", true, 1, "memory per task, MiB"},
        {LimitName::Pids, "pids", "--pids", true, 1, "processes and threads per task"},
        {LimitName::CpuSeconds, "cpu_seconds", "--cpu-seconds", true, 1, "CPU time per process, seconds"},
        {LimitName::TimeoutSec, "timeout_sec", "--timeout-sec", true, 1, "wall-clock time per run, seconds"},
        {LimitName::FileSizeMb, "file_size_mb", "--file-size-mb", true, 1, "largest file a task writes, MiB"},
        {LimitName::TokensPerMonth, "tokens_per_month", "--tokens-per-month", false, 0,
         "model tokens per calendar month (UTC)"},
        {LimitName::IdleSleepSec, "idle_sleep_sec", "--idle-sleep-sec", false, 1,
         "seconds a task may only wait for its user before its sandbox goes (it sleeps until answered)"},
        {LimitName::RetentionDays, "retention_days", "--retention-days", false, 1,
         "days a finished task keeps its workspace, checkpoints, snapshots and artifacts (its record and "
         "events stay)"},
        {LimitName::DiskMb, "disk_mb", "--disk-mb", false, 1,
         "MiB the uploads, workspaces and kept task files may take on the server"},
    }};
    return limits;
}

const LimitInfo& limitInfo(LimitName name) {
    return allLimits()[static_cast<std::size_t>(name)];
}

std::optional<LimitName> limitByKey(std::string_view key) {
    for (const LimitInfo& info : allLimits())
        if (info.key == key)
            return info.name;
    return std::nullopt;
}

Status checkLimitValue(LimitName name, std::uint64_t value, const std::string& where) {
    const LimitInfo& info = limitInfo(name);
    const std::uint64_t least = info.least;
    if (value < least || value > kMaxLimitValue)
        return makeError(ErrorCode::InvalidArgument,
                         where + ": " + std::string(info.key) + " (" + std::string(info.meaning) +
                             ") must be a whole number from " + std::to_string(least) + " to " +
                             std::to_string(kMaxLimitValue) + ", got " + std::to_string(value) +
                             (least > 0 && value == 0 ? " (to lift the limit, leave it unset)" : ""));
    return Ok{};
}

bool Limits::empty() const {
    return std::none_of(m_values.begin(), m_values.end(),
                        [](const auto& value) { return value.has_value(); });
}

Result<Limits> limitsFromJson(const json& object, LimitsScope scope, const std::string& where) {
    if (auto status = json_fields::requireObject(object, where); !status)
        return status.error();
    Limits limits;
    for (const auto& [key, value] : object.items()) {
        const auto name = limitByKey(key);
        if (!name || (scope == LimitsScope::Request && !limitInfo(*name).sandbox)) {
            std::string known;
            for (const LimitInfo& info : allLimits())
                if (scope == LimitsScope::Quota || info.sandbox)
                    known += (known.empty() ? "" : ", ") + std::string(info.key);
            return makeError(ErrorCode::InvalidArgument,
                             json_fields::joinPath(where, key) + ": not a limit " +
                                 (scope == LimitsScope::Request ? "a task may ask for" : "of a quota") +
                                 " (known: " + known + ")");
        }
        if (value.is_null())
            continue;
        if (!value.is_number_unsigned())
            return makeError(ErrorCode::InvalidArgument, json_fields::joinPath(where, key) +
                                                             ": must be a whole number or null, got " +
                                                             json_fields::describeJson(value));
        const auto number = value.get<std::uint64_t>();
        if (auto status = checkLimitValue(*name, number, where); !status)
            return status.error();
        limits.set(*name, number);
    }
    return limits;
}

namespace {

json optionalToJson(const std::optional<std::uint64_t>& value) {
    return value ? json(*value) : json(nullptr);
}

} // namespace

json limitsToJson(const Limits& limits) {
    json out = json::object();
    for (const LimitInfo& info : allLimits())
        out[std::string(info.key)] = optionalToJson(limits.get(info.name));
    return out;
}

std::string_view limitLevelName(LimitLevel level) {
    switch (level) {
    case LimitLevel::None:
        return "none";
    case LimitLevel::Request:
        return "request";
    case LimitLevel::User:
        return "user";
    case LimitLevel::Tenant:
        return "tenant";
    }
    return "none";
}

EffectiveLimits effectiveLimits(const Limits& request, const Limits& user, const Limits& tenant) {
    EffectiveLimits effective{request, user, tenant, {}};
    for (const LimitInfo& info : allLimits()) {
        EffectiveLimit& limit = effective.limits[static_cast<std::size_t>(info.name)];
        // Most specific first: a later level decides only when strictly smaller.
        const std::pair<LimitLevel, std::optional<std::uint64_t>> levels[] = {
            {LimitLevel::Request, request.get(info.name)},
            {LimitLevel::User, user.get(info.name)},
            {LimitLevel::Tenant, tenant.get(info.name)},
        };
        for (const auto& [level, value] : levels)
            if (value && (!limit.value || *value < *limit.value))
                limit = EffectiveLimit{value, level};
    }
    return effective;
}

json effectiveLimitsToJson(const EffectiveLimits& effective) {
    json out = json::object();
    for (const LimitInfo& info : allLimits()) {
        const EffectiveLimit& limit = effective.get(info.name);
        out[std::string(info.key)] = {
            {"value", optionalToJson(limit.value)},
            {"decided_by", limitLevelName(limit.decidedBy)},
            {"request", optionalToJson(effective.request.get(info.name))},
            {"user", optionalToJson(effective.user.get(info.name))},
            {"tenant", optionalToJson(effective.tenant.get(info.name))},
        };
    }
    return out;
}

sandbox::SandboxLimits applyToSandbox(const EffectiveLimits& effective, sandbox::SandboxLimits profile) {
    const std::pair<LimitName, std::uint64_t*> fields[] = {
        {LimitName::MemoryMb, &profile.memoryMb},     {LimitName::Pids, &profile.pids},
        {LimitName::CpuSeconds, &profile.cpuSeconds}, {LimitName::TimeoutSec, &profile.timeoutSec},
        {LimitName::FileSizeMb, &profile.fileSizeMb},
    };
    for (const auto& [name, field] : fields)
        if (const auto& value = effective.get(name).value)
            *field = *value;
    return profile;
}

} // namespace warren::accounts
