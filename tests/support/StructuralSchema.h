#pragma once
// Checks a JSON document against an OpenAPI v3 structural schema, the form of a Kubernetes CRD's
// openAPIV3Schema: type (with format int32/int64 and x-kubernetes-int-or-string), properties (a field the
// schema does not name is a violation, unless x-kubernetes-preserve-unknown-fields), additionalProperties,
// required, items, enum, maxLength. "$ref": "#/definitions/NAME" reaches a shared definition of the file.
// Pure: each violation is one line naming its path, e.g. "spec.containers[0].securityContext.privileged:
// expected boolean".

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace warren::test {

std::vector<std::string> schemaViolations(const nlohmann::json& document, const nlohmann::json& schema,
                                          const nlohmann::json& definitions = nlohmann::json::object());

} // namespace warren::test
