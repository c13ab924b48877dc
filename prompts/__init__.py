"""Planner prompt files (plain text, `string.Template` placeholders), shipped as package data."""
