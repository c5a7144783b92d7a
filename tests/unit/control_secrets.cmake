# Tests of app/secrets/.
foreach(test tst_file_secret_store tst_process_hardening)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_secrets LABELS unit)
endforeach()

# The keychain test talks to a real gnome-keyring: it runs inside a private D-Bus session with an unlocked
# keyring in a temporary home (tests/support/with-keychain.sh), so warren_add_test's plain add_test does not
# serve; it takes the same properties as the other tests.
add_executable(tst_keychain_secret_store tst_keychain_secret_store.cpp)
target_link_libraries(tst_keychain_secret_store PRIVATE Qt6::Core Qt6::Test warren_common warren_secrets)
add_test(NAME tst_keychain_secret_store
         COMMAND sh ${WARREN_TESTS_DIR}/support/with-keychain.sh $<TARGET_FILE:tst_keychain_secret_store>)
get_test_property(tst_file_secret_store ENVIRONMENT warren_test_environment)
set_tests_properties(tst_keychain_secret_store PROPERTIES LABELS unit ENVIRONMENT "${warren_test_environment}")
