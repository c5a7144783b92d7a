#pragma once
// A task's secrets bound to hosts at each launch (DESIGN §12): looked up by name through the face (the
// desktop's keychain), each given a placeholder unique to this launch; then the task's certificate authority
// written where the plan mounts it, and the SecretProxy that alone holds the values.

#include "app/secretproxy/SecretProxy.h"
#include "app/tasks/LaunchPlan.h"
#include "app/tasks/RunnerEnvironment.h"
#include "common/Result.h"

#include <memory>
#include <vector>

namespace warren::control {

class SecretStore;

// The secret kept as NAME in store (`warren secrets set NAME --host ...`); an error says how to store it.
Result<HostSecret> lookUpHostSecret(const std::string& name, SecretStore& store);

// Each of the task's secrets, looked up through the face, with its placeholder: the one the task's earlier
// launches had (kept in taskDir/secret-placeholders.json, which no sandbox mounts), so what the agent wrote
// with it (a credential helper's config, say) still works after a resume or a reply; else a new one. An
// error names the secret that is missing and how to store it.
Result<std::vector<TaskSecret>> lookUpTaskSecrets(const TaskRecord& task, const TaskSpec& spec, const FaceHooks& face,
                                                  const std::string& taskDir);

// nullptr when the task has no secrets. The authority's certificate (and the system's authorities with it)
// is written to the plan's files; the certificates in egressCa (a PEM file; empty: none) are trusted upstream.
Result<std::unique_ptr<SecretProxy>> startSecretProxy(const LaunchPlan& plan, const std::string& egressCa,
                                                      std::vector<TaskSecret> secrets);

} // namespace warren::control
