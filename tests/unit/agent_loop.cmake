# agent_loop tests: the embedding API of warren_agent_core.
warren_add_test(tst_agent_api SOURCES tst_agent_api.cpp LIBS warren_agent_core LABELS unit)
# What the loop does with a model's reply: settings into llm.chat, cut replies, thinking blocks kept.
warren_add_test(tst_model_replies SOURCES tst_model_replies.cpp LIBS warren_agent_core LABELS unit)
