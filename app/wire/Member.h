#pragma once
// The readers of answers from outside take a member of a value that may not be an object at all:
// operator[] and value() throw or assert there, and find() on such a value trips -Wnull-dereference.

#include <nlohmann/json.hpp>

namespace warren::wire {

// object[key] when object is an object that has it, else null.
inline const nlohmann::json& member(const nlohmann::json& object, const char* key) {
    static const nlohmann::json none;
    if (!object.is_object())
        return none;
    const auto it = object.find(key);
    return it == object.end() ? none : *it;
}

} // namespace warren::wire
