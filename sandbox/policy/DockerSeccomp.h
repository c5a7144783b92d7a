#pragma once
// The seccomp table rendered as a Docker/OCI seccomp profile (`--security-opt seccomp=FILE`), from the same
// expanded rows (SeccompRule::alternatives) that compileBpf() turns into BPF, so both backends enforce one
// table. The container runtime (runc, crun) builds its filter with libseccomp from this profile, so the
// rows become the same libseccomp rules the BPF filter is made of: default allow, each alternative one
// rule of SCMP_CMP_MASKED_EQ comparisons, only the native architecture.

#include "common/Result.h"
#include "sandbox/policy/SeccompPolicy.h"

#include <string>
#include <vector>

namespace warren::sandbox {

struct DockerSeccompProfile {
    std::string json; // the profile, pretty-printed; the same policy and options give the same bytes
    // Where a runtime enforces less than the BPF filter, one sentence each (for --explain and preflight):
    // a syscall this system's libseccomp cannot name (runtimes resolve names with libseccomp and skip the
    // ones they do not know), and the bad-architecture action (OCI has no field for it).
    std::vector<std::string> differences;
};

// Fails like compileBpf(): options.skip names a row that does not exist, or the machine is neither
// x86_64 nor aarch64 (the table's argument positions hold only there).
Result<DockerSeccompProfile> renderDockerSeccomp(const SeccompPolicy& policy, const SeccompOptions& options);

} // namespace warren::sandbox
