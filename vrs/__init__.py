"""Visual reasoning service: answers questions about the front camera image."""
