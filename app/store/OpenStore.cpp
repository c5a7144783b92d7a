#include "app/store/OpenStore.h"

#include "app/store/postgres/PgConnection.h"
#include "app/store/postgres/PgStore.h"
#include "app/store/sqlite/SqliteStore.h"

#include <utility>

namespace warren::control {

Result<std::unique_ptr<Store>> openStore(const std::string& location) {
    if (isPostgresUrl(location))
        return openPgStore(location);
    return openSqliteStore(location);
}

StoreOpener storeOpener(std::string location) {
    return [location = std::move(location)] {
        return openStore(location);
    };
}

} // namespace warren::control
