# Tests of app/git/: the patch's text rules (git's diff tidied) and the task's patch checked with git apply.
foreach(test tst_git_diff_text tst_workspace_patch)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_git LABELS unit)
endforeach()
