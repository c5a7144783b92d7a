# agent_tools tests: workspace paths, the file tools, snapshots, the execution cache and the diffs of file
# changes (tst_unified_diff runs git apply on what it writes, where git is installed). The tool tests build a
# real tree (directories, symlinks, FIFOs) in a QTemporaryDir; they pass as root and as any user.
foreach(test tst_workspace_path tst_file_tools tst_workspace_snapshot tst_execution_cache tst_unified_diff)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_agent_tools LABELS unit)
endforeach()

# apply_patch: its format read (pure), its hunks matched (pure), and the tool against a real workspace;
# update_plan: the plan read and reported.
foreach(test tst_patch_format tst_patch_hunks tst_apply_patch_tool tst_update_plan)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_agent_tools LABELS unit)
endforeach()
