#pragma once
// What a failed API call means, in words a user can act on: the HTTP status and the Status object the API
// server answers with ({"kind":"Status","reason","message","details":{"causes":[...]}}). Pure.

#include "common/Result.h"

#include <string>
#include <string_view>

namespace warren::kube {

struct ApiFailure {
    int status = 0;     // the HTTP status
    std::string reason; // the Status's reason ("AlreadyExists", "Invalid", "Expired"); may be empty
    Error error;        // the message for a person
};

// what: the call, for the message ("creating Pod warren-1 in namespace ns"). server: the URL, for 401/403.
ApiFailure describeApiFailure(int status, std::string_view body, const std::string& what,
                              const std::string& server);

} // namespace warren::kube
