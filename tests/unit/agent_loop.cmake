# agent_loop tests: the embedding API of warren_agent_core.
warren_add_test(tst_agent_api SOURCES tst_agent_api.cpp LIBS warren_agent_core LABELS unit)
# What the loop does with a model's reply: settings into llm.chat, cut replies, thinking blocks kept.
warren_add_test(tst_model_replies SOURCES tst_model_replies.cpp LIBS warren_agent_core LABELS unit)
# A model's mistakes and what it is told: bad calls answered, nudges, the output budget, the prompt.
warren_add_test(tst_model_mistakes SOURCES tst_model_mistakes.cpp LIBS warren_agent_core LABELS unit)
# The checks a call passes before it runs (pure).
warren_add_test(tst_call_check SOURCES tst_call_check.cpp LIBS warren_agent_core LABELS unit)
# The system prompt with the facts of the run, and the project's instructions (AGENTS.md and the like).
warren_add_test(tst_system_prompt SOURCES tst_system_prompt.cpp LIBS warren_agent_prompt LABELS unit)
# The handoff summary compaction asks the model for: the request and the check of the answer (pure).
warren_add_test(tst_handoff_prompt SOURCES tst_handoff_prompt.cpp LIBS warren_agent_prompt warren_agent_context
                LABELS unit)
# What the model reads of a tool's output: the token budget, head and tail, the hint (pure).
warren_add_test(tst_output_budget SOURCES tst_output_budget.cpp LIBS warren_agent_context LABELS unit)
# Sub-agents: the tools a role allows and the brief (pure), the path claims.
warren_add_test(tst_agent_roles SOURCES tst_agent_roles.cpp LIBS warren_agent_core LABELS unit)
# Which file-editing tool each model family is offered (pure).
warren_add_test(tst_family_tools SOURCES tst_family_tools.cpp LIBS warren_agent_prompt LABELS unit)
# A reply's read-only calls run at the same time (ConcurrentCalls), answered in call order by the loop.
warren_add_test(tst_concurrent_calls SOURCES tst_concurrent_calls.cpp LIBS warren_agent_core LABELS unit)
warren_add_test(tst_read_ahead SOURCES tst_read_ahead.cpp LIBS warren_agent_core LABELS unit)
# A reply's tool calls (CallRunner) without the rest of the loop: approval, claims, guards, what a stop leaves.
warren_add_test(tst_call_runner SOURCES tst_call_runner.cpp LIBS warren_agent_core LABELS unit)
