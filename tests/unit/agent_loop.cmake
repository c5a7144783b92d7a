# agent_loop tests: the embedding API of warren_agent_core.
warren_add_test(tst_agent_api SOURCES tst_agent_api.cpp LIBS warren_agent_core LABELS unit)
