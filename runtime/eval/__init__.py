"""Evaluation suites and benchmarks: closed-loop tables, VQA tables, diagnostics, stats out.

Everything here runs the core loop (or a reasoner) many times and writes figures; nothing in
the core loop imports it.
"""
