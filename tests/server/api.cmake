# warrend end to end: the server process on a PostgreSQL of its own, real HTTP, real sandboxes.
warren_add_test(tst_warrend SOURCES tst_warrend.cpp WarrendServer.cpp
                LIBS Qt6::Network warren_postgres_test_support warren_cli_test_support nlohmann_json::nlohmann_json LABELS integration postgres)
set_property(TEST tst_warrend APPEND PROPERTY ENVIRONMENT "WARREN_WARREND=$<TARGET_FILE:warrend>")
set_tests_properties(tst_warrend PROPERTIES TIMEOUT 600)
target_compile_definitions(tst_warrend PRIVATE WARREN_OPENAPI="${CMAKE_SOURCE_DIR}/docs/openapi.json")
warren_add_test(tst_serve_options SOURCES tst_serve_options.cpp LIBS warren_api LABELS unit server)
# Backpressure: a flooding agent waits while the database takes no events, and loses none.
warren_add_test(tst_warrend_backpressure SOURCES tst_warrend_backpressure.cpp WarrendServer.cpp
                LIBS Qt6::Network warren_tasks warren_store_postgres warren_postgres_test_support warren_cli_test_support nlohmann_json::nlohmann_json LABELS integration postgres)
add_dependencies(tst_warrend_backpressure flood-agent warrend)
set_property(TEST tst_warrend_backpressure APPEND PROPERTY ENVIRONMENT
             "WARREN_WARREND=$<TARGET_FILE:warrend>" "WARREN_FLOOD_AGENT=$<TARGET_FILE:flood-agent>")
set_tests_properties(tst_warrend_backpressure PROPERTIES TIMEOUT 600)
