# The PostgreSQL store against a real PostgreSQL server, started per test in a temporary directory
# (tests/support/PostgresServer): the connection, the Store contract, and what only PostgreSQL has.
warren_add_test(tst_pg_connection SOURCES tst_pg_connection.cpp
                LIBS warren_store_postgres warren_postgres_test_support LABELS "integration;postgres")
set_tests_properties(tst_pg_connection PROPERTIES TIMEOUT 300)
