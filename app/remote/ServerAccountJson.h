#pragma once
// warrend's answers to GET /v1/server and GET /v1/me read into what Settings' "Test connection" shows (the
// probe, ServerProbe). Pure: the answers come from whatever listens at the URL the user typed, so one of
// another shape is an error that says so, never an exception (tests/fuzz/fuzz_remote_answers).

#include "app/control/PlaneChooser.h"
#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <string>

namespace warren::remote {

// server: the URL asked. An error when serverInfo is not a warrend's, or me not an account.
Result<control::ServerAccount> serverAccountFromJson(const std::string& server, const nlohmann::json& serverInfo,
                                                     const nlohmann::json& me);

} // namespace warren::remote
