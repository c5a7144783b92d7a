# Tests of app/cli/: the terminal live view and the command-line parser, both pure.
foreach(test tst_live_view tst_cli_arguments tst_approval_question)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_cli_core LABELS unit)
endforeach()
