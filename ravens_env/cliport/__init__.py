"""The CLIPort-style two-stream transporter networks (torch): configuration, streams, pick
attention and place transport, sentence embeddings. Importing this package imports torch."""

from ravens_env.cliport.config import CliportConfig, preset
from ravens_env.cliport.policy import CliportModel, Prediction, count_parameters, to_input

__all__ = ["CliportConfig", "CliportModel", "Prediction", "count_parameters", "preset",
           "to_input"]
