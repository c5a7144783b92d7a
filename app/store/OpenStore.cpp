#include "app/store/OpenStore.h"

#include "app/store/postgres/PgConnection.h"
#include "app/store/postgres/PgStore.h"
#include "app/store/sqlite/SqliteStore.h"

#include <utility>

namespace warren::control {

Result<std::unique_ptr<Store>> openStore(const std::string& location, const std::string& writer) {
    if (isPostgresUrl(location))
        return openPgStore(location, writer);
    return openSqliteStore(location);
}

StoreOpener storeOpener(std::string location, std::string writer) {
    return [location = std::move(location), writer = std::move(writer)] {
        return openStore(location, writer);
    };
}

} // namespace warren::control
