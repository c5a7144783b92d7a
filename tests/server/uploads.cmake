# server/uploads tests: the tar reader, the upload policy (data rows named after the attack), extraction
# of hostile archives into a real directory, the patch's text rules, and the task's patch checked with
# git apply.
foreach(test tst_tar_reader tst_upload_policy tst_upload_extractor tst_git_diff_text tst_workspace_patch)
    warren_add_test(${test} SOURCES uploads/${test}.cpp LIBS warren_uploads LABELS unit)
endforeach()
