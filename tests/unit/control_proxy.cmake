# Tests of app/proxy/.
foreach(test tst_task_tokens tst_approval_rules)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_proxy LABELS unit)
endforeach()
