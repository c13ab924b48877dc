"""A local LLM for the planner: the packaged model (fetched, never installed) and its server."""
