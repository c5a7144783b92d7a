# agent_tools tests
