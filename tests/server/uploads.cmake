# server/uploads tests: the tar reader, the upload policy (data rows named after the attack), extraction
# of hostile archives into a real directory, a task's workspace copied from its upload's tree (and trees removed and measured) at any depth, and
# artifacts that are not regular files refused unopened.
foreach(test tst_tar_reader tst_upload_policy tst_upload_extractor tst_workspace_copy tst_artifact_file)
    warren_add_test(${test} SOURCES uploads/${test}.cpp LIBS warren_uploads LABELS unit)
endforeach()
