#pragma once
// What the container launches of one process check before they start, kept between launches: the engine's
// own checks (found, `info`, seccomp) and an image found present, each for kPreflightKept; the limits are
// checked afresh against the kept `info`. Only what passed is kept, so a problem fixed shows at the next
// launch; one that arises meanwhile (an image removed, the engine stopped) is the engine's own error when it
// runs the container. The sweep of killed launchers' containers is due at a process's first launch, then
// once per kPreflightKept. Here podman's checks and sweep were about 480 ms of a 690 ms launch
// (docs/BENCHMARKS.md, "Container backend"). Thread-safe.

#include "sandbox/Preflight.h"

#include <chrono>
#include <string>

namespace warren::sandbox {

inline constexpr std::chrono::seconds kPreflightKept{60};

// runContainerPreflight, from what was kept where it may be.
PreflightReport keptContainerPreflight(ContainerEngine engine, const std::string& image, const SandboxLimits& limits);

// Whether the engine at enginePath is due a sweep now; true counts it as swept.
bool sweepDue(const std::string& enginePath);

} // namespace warren::sandbox
