"""Training of the OFA-style encoder-decoder VQA model (`vrs.ofa`)."""
