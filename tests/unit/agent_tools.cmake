# agent_tools tests: workspace paths, the file tools, snapshots and the execution cache. Each builds a
# real tree (directories, symlinks, FIFOs) in a QTemporaryDir; they pass as root and as any user.
foreach(test tst_workspace_path tst_file_tools tst_workspace_snapshot tst_execution_cache)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_agent_tools LABELS unit)
endforeach()
