#include "app/wire/ServerAnswers.h"

#include "app/wire/Member.h"
#include "common/JsonFields.h"

namespace warren::wire {

using nlohmann::json;
using json_fields::memberString;
using json_fields::memberUint;

json ServerInfo::toJson() const {
    return {{"name", name}, {"version", version}, {"api_version", apiVersion}, {"sandbox", sandbox}};
}

ServerInfo ServerInfo::fromJson(const json& answer) {
    return {memberString(answer, "name"), memberString(answer, "version"), memberUint(answer, "api_version"),
            memberString(answer, "sandbox")};
}

json Me::toJson() const {
    return {{"user", user},
            {"tenant", tenant},
            {"quotas", quotas},
            {"usage", {{"active_tasks", activeTasks}, {"tokens_this_month", tokensThisMonth}}}};
}

Me Me::fromJson(const json& answer) {
    Me me;
    me.user = memberString(answer, "user");
    me.tenant = memberString(answer, "tenant");
    if (const json& quotas = member(answer, "quotas"); quotas.is_object())
        me.quotas = quotas;
    const json& usage = member(answer, "usage");
    me.activeTasks = memberUint(usage, "active_tasks");
    me.tokensThisMonth = memberUint(usage, "tokens_this_month");
    return me;
}

} // namespace warren::wire
