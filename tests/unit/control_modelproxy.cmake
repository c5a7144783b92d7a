# Tests of app/modelproxy/: the pure parts, then the proxy over real sockets against MockLlmServer.
foreach(test tst_model_request_head tst_incoming_body tst_key_mask)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_model_proxy LABELS unit)
endforeach()
warren_add_test(tst_model_usage SOURCES tst_model_usage.cpp LIBS warren_model_proxy warren_mock_llm LABELS unit)
warren_add_test(tst_model_proxy SOURCES tst_model_proxy.cpp
                LIBS warren_model_proxy warren_proxy warren_agent_net warren_mock_llm Qt6::Network LABELS integration)
