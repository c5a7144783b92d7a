# Tests of app/tasks/ and app/proxy/ToolProxy: the pure parts of launching a task, the proxy with a real store.
warren_add_test(tst_agent_sandbox SOURCES tst_agent_sandbox.cpp LIBS warren_tasks LABELS unit)
warren_add_test(tst_tool_proxy SOURCES tst_tool_proxy.cpp LIBS warren_tasks LABELS unit)
