# agent_mcp tests: the .mcp.json document (McpServers) and MCP's messages (McpWire), both pure.
foreach(test tst_mcp_servers tst_mcp_wire)
    warren_add_test(${test} SOURCES ${test}.cpp LIBS warren_agent_mcp LABELS unit)
endforeach()
