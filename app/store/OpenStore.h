#pragma once
// Which Store a location names: a PostgreSQL URL (postgresql://, postgres://) opens a PgStore, anything
// else is the path of a SQLite file. The server's --database takes either.
//
// writer names the control plane that writes through the store, where several write to one database
// (warrend's replicas): PostgreSQL's session setting `warren.writer`, which the server's rules read (its
// events of a task another replica has taken over are refused: docs/SERVER.md, "Replicas"). A SQLite file
// has one writer and ignores it.

#include "app/store/Store.h"
#include "common/Result.h"

#include <memory>
#include <string>

namespace warren::control {

Result<std::unique_ptr<Store>> openStore(const std::string& location, const std::string& writer = {});

// openStore(location, writer) as a StoreOpener (EventWriter's, reconnecting on its own thread).
StoreOpener storeOpener(std::string location, std::string writer = {});

} // namespace warren::control
