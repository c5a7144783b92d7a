# The PostgreSQL store against a real PostgreSQL server, started per test in a temporary directory
# (tests/support/PostgresServer): the connection, the Store contract, and what only PostgreSQL has.
warren_add_test(tst_pg_connection SOURCES tst_pg_connection.cpp
                LIBS warren_store_postgres warren_postgres_test_support LABELS "integration;postgres")
set_tests_properties(tst_pg_connection PROPERTIES TIMEOUT 300)
warren_add_test(tst_pg_store SOURCES tst_pg_store.cpp
                LIBS warren_store_postgres warren_store_open warren_store_contract warren_postgres_test_support
                LABELS "integration;postgres")
set_tests_properties(tst_pg_store PROPERTIES TIMEOUT 300)
# EventWriter into PgStore through restarts and outages: nothing lost, nothing written twice.
warren_add_test(tst_pg_event_writer SOURCES tst_pg_event_writer.cpp
                LIBS warren_store_postgres warren_store_open warren_store_contract warren_postgres_test_support
                LABELS "integration;postgres")
set_tests_properties(tst_pg_event_writer PROPERTIES TIMEOUT 600)
