# Tests of app/store/: the Store (schema, migrations, every table, memory confinement) and the EventWriter.
# tst_store also reads the database through SQLite's C API to check what the Store wrote.
find_package(SQLite3 REQUIRED)
warren_add_test(tst_store SOURCES tst_store.cpp LIBS warren_store SQLite::SQLite3 LABELS unit)
warren_add_test(tst_event_writer SOURCES tst_event_writer.cpp LIBS warren_store LABELS unit)
