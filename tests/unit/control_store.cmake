# Tests of app/store/: the Store on SQLite (the contract in tests/support/StoreContract, shared with
# PostgreSQL's tst_pg_store, then schema and migrations) and the EventWriter.
# Both also use SQLite's C API directly: to check what the Store wrote, and to make writes fail.
find_package(SQLite3 REQUIRED)
warren_add_test(tst_store SOURCES tst_store.cpp LIBS warren_store_sqlite warren_store_contract SQLite::SQLite3 LABELS unit)
warren_add_test(tst_event_writer SOURCES tst_event_writer.cpp LIBS warren_store_sqlite SQLite::SQLite3 LABELS unit)
