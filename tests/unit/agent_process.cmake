# agent_process tests: the output cap, UTF-8 chunking, running and reaping tool processes, the shell tool.
foreach(test tst_output_cap tst_utf8_chunker tst_process_runner tst_process_seal tst_process_tree_usage)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_agent_process LABELS unit)
endforeach()
warren_add_test(tst_shell_tool SOURCES tst_shell_tool.cpp LIBS warren_agent_tools LABELS unit)
