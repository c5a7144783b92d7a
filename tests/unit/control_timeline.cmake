# Tests of app/timeline/: the fold of events into cards and counters and the command prefix, pure and Qt-free (QtTest only runs it).
foreach(test tst_timeline_fold tst_command_prefix tst_approval_preview)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_timeline LABELS unit)
endforeach()
