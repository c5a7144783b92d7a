# Tests of app/providers/: the pure wire-format parts, then the HTTP providers against MockLlmServer.
foreach(test tst_sse_parser tst_openai_stream tst_anthropic_stream tst_request_body tst_retry_policy
             tst_provider_config)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_providers LABELS unit)
endforeach()
warren_add_test(tst_provider_catalog SOURCES tst_provider_catalog.cpp LIBS warren_providers LABELS unit)
find_package(Qt6 6.4 REQUIRED COMPONENTS Network)
warren_add_test(tst_providers_http SOURCES tst_providers_http.cpp
                LIBS warren_providers warren_mock_llm Qt6::Network LABELS integration)
target_compile_definitions(tst_providers_http PRIVATE WARREN_HOMEPAGE="${WARREN_HOMEPAGE}") # what the build sends
# The handoff summary request over the real OpenAI and Anthropic wire formats, and its answers checked.
warren_add_test(tst_handoff_wire SOURCES tst_handoff_wire.cpp
                LIBS warren_providers warren_agent_prompt warren_mock_llm Qt6::Network LABELS integration)
