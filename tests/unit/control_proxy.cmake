# Tests of app/proxy/.
foreach(test tst_task_tokens tst_approval_rules)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_proxy LABELS unit)
endforeach()
# workspace.pull and workspace.push: the agent's half and the control plane's over the protocol's lines,
# real directories both sides, and hostile archives from a forged control plane.
warren_add_test(tst_tree_transfer SOURCES tst_tree_transfer.cpp LIBS warren_proxy warren_agent_core
                warren_store_sqlite LABELS unit)
