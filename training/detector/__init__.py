"""Training of the detector behind the neuro-symbolic reasoner (`vrs.detector`)."""
