#include "server/api/SandboxLabels.h"

#include "sandbox/pod/KubeManifest.h"

namespace warren::server {

namespace {

std::string labelValue(const std::string& name, const char* kind, std::int64_t id) {
    return sandbox::isLabelValue(name) ? name : std::string(kind) + "-" + std::to_string(id);
}

} // namespace

std::map<std::string, std::string> sandboxLabels(const accounts::Account& owner) {
    return {{kTenantLabel, labelValue(owner.tenantName, "tenant", owner.tenantId)},
            {kUserLabel, labelValue(owner.userName, "user", owner.userId)}};
}

} // namespace warren::server
