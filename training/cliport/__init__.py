"""Training of the CLIPort-style actor (`ravens_env.cliport`): data, losses, evaluation."""
