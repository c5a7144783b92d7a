# Control-plane integration tests (flood): `warren run` with flood-agent as the agent, 200,000 events and a
# flood with bad lines in it, checked in the SQLite database itself.
find_package(SQLite3 REQUIRED)
warren_add_test(tst_control_flood SOURCES tst_control_flood.cpp
                LIBS warren_cli_test_support Qt6::Core SQLite::SQLite3 nlohmann_json::nlohmann_json
                LABELS integration)
add_dependencies(tst_control_flood flood-agent warren) # the test runs both; the sandbox tools come with warren
set_tests_properties(tst_control_flood PROPERTIES TIMEOUT 600)
# Under ASan beside other tests the 200,000 events took 215 s to store and their check as long again: more
# than QtTest's 300 s for one function. The ctest timeout above still bounds the whole.
set_property(TEST tst_control_flood APPEND PROPERTY ENVIRONMENT "QTEST_FUNCTION_TIMEOUT=590000")
set_property(TEST tst_control_flood APPEND PROPERTY ENVIRONMENT "WARREN_FLOOD_AGENT=$<TARGET_FILE:flood-agent>")

# eventStored only for what is on disk: a LocalControlPlane in this process under flood-agent, each signalled
# event looked up through a second SQLite connection.
warren_add_test(tst_control_stored SOURCES tst_control_stored.cpp
                LIBS warren_control SQLite::SQLite3 nlohmann_json::nlohmann_json LABELS integration)
add_dependencies(tst_control_stored flood-agent)
set_tests_properties(tst_control_stored PROPERTIES TIMEOUT 600)
set_property(TEST tst_control_stored APPEND PROPERTY ENVIRONMENT "WARREN_FLOOD_AGENT=$<TARGET_FILE:flood-agent>")
