#pragma once
// The built-in seccomp table compiled to BPF at build time (tool/seccomp_precompile.cpp), for both
// network policies with no row skipped: what nearly every sandbox uses. A profile that skips rows is
// compiled at launch instead; seccompFilterFor() chooses.

#include "common/Result.h"
#include "sandbox/policy/SeccompPolicy.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace warren::sandbox {

// Generated: the bytes compileBpf() returns for the built-in table.
extern const std::string_view kPrecompiledFilterNetworkDenied;
extern const std::string_view kPrecompiledFilterNetworkAllowed;

Result<std::vector<std::uint8_t>> seccompFilterFor(const SeccompOptions& options);

} // namespace warren::sandbox
