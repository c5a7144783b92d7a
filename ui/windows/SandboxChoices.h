#pragma once
// The sandbox backends Settings and the new-task bar both offer: bubblewrap always, Podman or Docker only
// where its client is on PATH. The item data is the backend's name (sandbox::backendName).

#include "sandbox/Backend.h"

class QComboBox;
class QString;

namespace warren::ui {

// current is kept selectable even when its engine is not found (shown as such), so that opening a form
// never changes a stored choice behind the user's back.
void fillBackends(QComboBox* box, const QString& current);
// The backend chosen in a box fillBackends() filled.
sandbox::Backend chosenBackend(const QComboBox* box);

} // namespace warren::ui
