# `warren reply` end to end: a finished task continued with the user's message, through the CLI, a sandboxed
# agent and mock OpenAI-compatible and Anthropic servers in the test process; replies that cannot be taken.
find_package(Qt6 6.4 REQUIRED COMPONENTS Network)
warren_add_test(tst_control_reply SOURCES tst_control_reply.cpp LIBS warren_cli_test_support warren_mock_llm Qt6::Network
                LABELS integration)
set_tests_properties(tst_control_reply PROPERTIES TIMEOUT 300)
