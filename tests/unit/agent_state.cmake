# agent_state tests
