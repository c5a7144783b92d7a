# Tests of app/egress/.
foreach(test tst_egress_policy tst_inside_destinations tst_proxy_head)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_egress LABELS unit)
endforeach()
warren_add_test(tst_egress_proxy SOURCES tst_egress_proxy.cpp LIBS warren_egress LABELS unit)
warren_add_test(tst_network_questions SOURCES tst_network_questions.cpp LIBS warren_tasks LABELS unit)
