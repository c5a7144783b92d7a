# agent_memory tests: the ranking, AgentMemory on each backend, and the memory_* tools.
foreach(test tst_memory_ranking tst_agent_memory tst_memory_tools)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_agent_memory LABELS unit)
endforeach()
