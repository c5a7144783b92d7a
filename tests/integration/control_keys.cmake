# Control-plane integration tests (keys): the `warren` CLI with a sandboxed agent and a mock model server
# in the test process — the real model path (streamed tool calls, usage, 401, 429) and that the provider's
# API key never reaches the sandbox, the event log, the database or warren's output.
find_package(Qt6 6.4 REQUIRED COMPONENTS Network)
warren_add_test(tst_control_model SOURCES tst_control_model.cpp LIBS warren_model_run_fixture LABELS integration)
warren_add_test(tst_control_keys SOURCES tst_control_keys.cpp LIBS warren_cli_test_support warren_mock_llm Qt6::Network
                LABELS integration)
set_tests_properties(tst_control_model tst_control_keys PROPERTIES TIMEOUT 300)
