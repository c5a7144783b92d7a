#pragma once
// A YAML document as JSON, through libyaml: kubectl writes kubeconfig files in YAML, and JSON (which YAML 1.2
// contains) is read by the same path. Pure: text in, a value or an error naming the line out.
//
// Mappings become objects and sequences arrays. A plain scalar that YAML's core schema reads as null, a
// boolean or an integer becomes that JSON type; every other scalar, and every quoted one, is a string.
// Anchors, aliases and tags are refused: kubeconfig has none, and an alias can multiply a small file into a
// huge value ("billion laughs").

#include "common/Result.h"

#include <nlohmann/json.hpp>
#include <string_view>

namespace warren::kube {

// The first document of text; an empty text is null.
Result<nlohmann::json> parseYaml(std::string_view text);

} // namespace warren::kube
