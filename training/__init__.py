"""Training and evaluation of the learned components (the CLIPort actor here) with accelerate."""
