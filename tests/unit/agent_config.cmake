# agent_config tests
