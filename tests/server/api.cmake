# warrend end to end: the server process on a PostgreSQL of its own, real HTTP, real sandboxes.
warren_add_test(tst_warrend SOURCES tst_warrend.cpp WarrendServer.cpp
                LIBS Qt6::Network warren_postgres_test_support warren_cli_test_support nlohmann_json::nlohmann_json LABELS integration postgres)
set_property(TEST tst_warrend APPEND PROPERTY ENVIRONMENT "WARREN_WARREND=$<TARGET_FILE:warrend>")
set_tests_properties(tst_warrend PROPERTIES TIMEOUT 600)
target_compile_definitions(tst_warrend PRIVATE WARREN_OPENAPI="${CMAKE_SOURCE_DIR}/docs/openapi.json")
warren_add_test(tst_serve_options SOURCES tst_serve_options.cpp LIBS warren_api LABELS unit server)
warren_add_test(tst_provider_key_request SOURCES tst_provider_key_request.cpp LIBS warren_api LABELS unit server)
# Provider keys end to end: each user's own key or the server's, sealed at rest, in no response, event, log
# or sandbox.
warren_add_test(tst_warrend_keys SOURCES tst_warrend_keys.cpp WarrendServer.cpp
                LIBS Qt6::Network warren_postgres_test_support warren_cli_test_support warren_mock_llm
                     warren_store_postgres nlohmann_json::nlohmann_json LABELS integration postgres)
set_property(TEST tst_warrend_keys APPEND PROPERTY ENVIRONMENT "WARREN_WARREND=$<TARGET_FILE:warrend>")
set_tests_properties(tst_warrend_keys PROPERTIES TIMEOUT 600)
