# The desktop UI's pure parts and small widgets (offscreen).
foreach(test tst_ansi_text tst_sparkline tst_single_instance)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_ui LABELS unit)
endforeach()
