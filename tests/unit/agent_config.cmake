# agent_config tests
warren_add_test(tst_agent_config SOURCES tst_agent_config.cpp LIBS warren_agent_config LABELS unit)

# warren_agent_context (agent_core/context/): compaction and the guard policies.
foreach(test tst_compaction tst_guards)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_agent_context LABELS unit)
endforeach()
