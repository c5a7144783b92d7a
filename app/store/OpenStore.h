#pragma once
// Which Store a location names: a PostgreSQL URL (postgresql://, postgres://) opens a PgStore, anything
// else is the path of a SQLite file. The server's --database takes either.

#include "app/store/Store.h"
#include "common/Result.h"

#include <memory>
#include <string>

namespace warren::control {

Result<std::unique_ptr<Store>> openStore(const std::string& location);

// openStore(location) as a StoreOpener (EventWriter's, reconnecting on its own thread).
StoreOpener storeOpener(std::string location);

} // namespace warren::control
