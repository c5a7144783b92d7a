# Tests of agent_core/net/.
