"""What every package shares: how numbers are measured and traced (intervals, time summaries,
provenance) and, later, the model families' common base.

The bottom of the import order (docs/ARCHITECTURE.md): every other package may import it and it
imports none of them, so training and evaluation alike can stamp and summarise what they publish.
"""
