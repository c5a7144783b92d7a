# server/accounts: API keys, limits, the account checks, the sealed provider keys and the operator's secret file.
# tst_tenant_skill_packs: a tenant's skill packs on real folders, and the attacks on them refused.
foreach(test tst_api_key tst_limits tst_account_checks tst_sealed_secret tst_provider_key_secret tst_tenant_skill_packs)
    warren_add_test(${test} SOURCES accounts/${test}.cpp LIBS warren_accounts LABELS unit server)
endforeach()

# The account store against a real PostgreSQL, started per test in a temporary directory.
warren_add_test(tst_account_store SOURCES accounts/tst_account_store.cpp
                LIBS warren_accounts warren_store_open warren_store_contract warren_postgres_test_support
                LABELS "server;postgres")
set_tests_properties(tst_account_store PROPERTIES TIMEOUT 300)

# warrend admin: the parser, the commands against a real PostgreSQL, and the executable's dispatch.
warren_add_test(tst_admin_command SOURCES accounts/tst_admin_command.cpp
                LIBS warren_accounts warren_postgres_test_support LABELS "server;postgres")
set_property(TEST tst_admin_command APPEND PROPERTY ENVIRONMENT "WARREND=$<TARGET_FILE:warrend>")
set_tests_properties(tst_admin_command PROPERTIES TIMEOUT 300)
add_dependencies(tst_admin_command warrend)
