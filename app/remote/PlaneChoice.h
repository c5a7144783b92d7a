#pragma once
// Where the desktop's choice of control plane lives: DATA_DIR/control-plane.json, {"plane": "local" |
// "remote", "url": "https://host:8443"}, written whole (a temporary file renamed into place) so a crash
// never leaves half a choice. The API key is not in it: the keychain keeps it as kRemoteKeyName.
// Parsing and writing the text are pure, so each malformed file is a row of a test.

#include "app/control/PlaneChooser.h"
#include "common/Result.h"

#include <string>

namespace warren::remote {

// The file's name in the data directory.
inline constexpr const char* kPlaneChoiceFile = "control-plane.json";

// The file's text; an error names what is wrong and that Settings writes it again.
Result<control::PlaneChoice> parsePlaneChoice(const std::string& text);
std::string planeChoiceText(const control::PlaneChoice& choice);

// Local when the file does not exist.
Result<control::PlaneChoice> loadPlaneChoice(const std::string& dataDir);
Status savePlaneChoice(const std::string& dataDir, const control::PlaneChoice& choice);

} // namespace warren::remote
