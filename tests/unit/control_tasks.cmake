# Tests of app/tasks/, app/proxy/ToolProxy and app/control/Settings: a task's stored spec, a reply's checks,
# how a run ends, the pure parts of launching a task, the agent channel's backpressure on real pipes, the proxy with a real store, the
# settings.
warren_add_test(tst_task_spec SOURCES tst_task_spec.cpp LIBS warren_task_spec LABELS unit)
# The folders an agent is never given as its workspace.
warren_add_test(tst_workspace_scope SOURCES tst_workspace_scope.cpp LIBS warren_task_spec LABELS unit)
warren_add_test(tst_task_reply SOURCES tst_task_reply.cpp LIBS warren_tasks LABELS unit)
# When a finished task's files are due for removal, and what a refusal says after.
warren_add_test(tst_task_retention SOURCES tst_task_retention.cpp LIBS warren_tasks LABELS unit)
# A task moved to another control plane: which may move, its history read back strictly, the move under way.
# (tst_task_move is the server's test of the whole move, tests/server/api.cmake.)
warren_add_test(tst_task_move_unit SOURCES tst_task_move.cpp LIBS warren_tasks warren_agent_state LABELS unit)
warren_add_test(tst_run_ending SOURCES tst_run_ending.cpp LIBS warren_tasks LABELS unit)
# A task asleep: when a run only waits for its user, what the sleep keeps and the answer that wakes it.
# `warren cancel` heard through one watcher for all of a control plane's tasks.
warren_add_test(tst_cancel_requests SOURCES tst_cancel_requests.cpp LIBS warren_tasks LABELS unit)
warren_add_test(tst_task_sleep SOURCES tst_task_sleep.cpp LIBS warren_tasks LABELS unit)
warren_add_test(tst_launch_plan SOURCES tst_launch_plan.cpp LIBS warren_tasks LABELS unit)
warren_add_test(tst_agent_sandbox SOURCES tst_agent_sandbox.cpp LIBS warren_tasks LABELS unit)
# Where a CLI agent (Claude Code, Codex) is installed, on real directory layouts.
warren_add_test(tst_agent_cli SOURCES tst_agent_cli.cpp LIBS warren_tasks LABELS unit)
warren_add_test(tst_agent_channel SOURCES tst_agent_channel.cpp LIBS warren_tasks LABELS unit)
warren_add_test(tst_tool_proxy SOURCES tst_tool_proxy.cpp LIBS warren_tasks warren_store_sqlite LABELS unit)
warren_add_test(tst_settings SOURCES tst_settings.cpp LIBS warren_control warren_store_sqlite LABELS unit)
# The user's MCP servers in Settings: checked by the agent's reader, imported, under a task's own.
warren_add_test(tst_mcp_server_settings SOURCES tst_mcp_server_settings.cpp LIBS warren_control_api LABELS unit)
# Where warren and warrend find the agent, in a build tree and installed.
warren_add_test(tst_agent_binary SOURCES tst_agent_binary.cpp LIBS warren_engine LABELS unit)
# The engine's soft limit of open files raised to the hard one, for hundreds of tasks' descriptors.
warren_add_test(tst_open_file_limit SOURCES tst_open_file_limit.cpp LIBS warren_engine LABELS unit)
# The socket a kube sandbox's agent connects to, attacked: tokens, hellos, replays, floods.
warren_add_test(tst_agent_listener SOURCES tst_agent_listener.cpp LIBS warren_tasks LABELS unit)
# The digests of a cluster pod's tokens, for the replica that takes its task over.
warren_add_test(tst_pod_tokens SOURCES tst_pod_tokens.cpp LIBS warren_tasks LABELS unit)
# A task's secrets at each launch: looked up, their placeholders kept across launches, stored as warren
# secrets set stores them.
warren_add_test(tst_task_secrets SOURCES tst_task_secrets.cpp LIBS warren_tasks LABELS unit)
