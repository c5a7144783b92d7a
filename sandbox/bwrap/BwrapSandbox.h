#pragma once
// The bubblewrap backend of SandboxLaunch: prepareSandbox()'s steps, then SandboxProcess. Placeholders of
// protected paths, which bwrap creates in the host workspace, are removed when the sandbox is destroyed.

#include "common/Result.h"
#include "sandbox/SandboxLaunch.h"

#include <memory>

namespace warren::sandbox {

Result<std::unique_ptr<SandboxLaunch>> prepareBwrapLaunch(SandboxRequest request);

} // namespace warren::sandbox
