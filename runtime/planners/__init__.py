"""Planners: write a codeplan for an instruction (offline, OpenAI-compatible LLM, or a file)."""
