#pragma once
// Ids the server makes: an upload's "u-" and 16 random hex digits (tasks keep the control plane's "t-").

#include <string>

namespace warren::server {

std::string newUploadId();

} // namespace warren::server
