# agent_state tests: the checkpoint's JSON form, its atomic store and the seq mark.
foreach(test tst_checkpoint tst_checkpoint_store)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_agent_state LABELS unit)
endforeach()
