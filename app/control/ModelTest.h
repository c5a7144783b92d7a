#pragma once
// Test connection: one tiny model call with a provider, so Settings can say whether the model answers
// before a task runs. It asks for a few tokens, retries nothing, and gives up after kConnectionTestTimeout
// (ControlPlane.h) whatever the server does meanwhile: a server that accepts the connection and never
// answers is reported in seconds, with what to check. Deleting context abandons the test at once (its
// request is aborted; done never runs).

#include "app/control/ControlPlane.h"
#include "app/providers/ProviderConfig.h"

#include <functional>

class QNetworkAccessManager;
class QObject;

namespace warren::control {

// The config a test calls with: a reply of a few tokens, no retries. Pure.
ProviderConfig modelTestConfig(ProviderConfig config);

// What the user is told when the model said nothing within the test's time. Pure.
Error modelTestTimedOut(const ProviderConfig& config);

// config has its key (if it needs one). done runs once, in context's thread, unless context dies first.
void runModelTest(const ProviderConfig& config, QNetworkAccessManager* network, QObject* context,
                  std::function<void(Status)> done);

} // namespace warren::control
