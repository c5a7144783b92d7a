# agent_memory tests
