"""`CliportActor`: the learned actor behind the `act(obs, instruction) -> PickPlace` seam.

It reads only what the system under test may see — the top-down heightmap (color + height) and
the step in words — and returns a world-frame PickPlace: the pick at the attention argmax
(pick_yaw 0, as CLIPort's suction primitive), the place at the transport argmax, turned by the
chosen rotation bin. A policy cannot know which objects exist, so the caller passes the names
it perceived (`known_objects`) and a step naming anything else is refused with a clear error
instead of being executed at a guessed location.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import torch

from ravens_env.agents.oracle import parse_step
from ravens_env.cliport.actions import labels_to_action
from ravens_env.cliport.checkpoint import load_checkpoint, save_checkpoint
from ravens_env.cliport.language import make_encoder
from ravens_env.cliport.policy import Prediction, to_input
from ravens_env.types import Observation, PickPlace

__all__ = ["CliportActor", "load_checkpoint", "save_checkpoint", "step_objects"]


def step_objects(instruction: str) -> list[str]:
    """Object names a step mentions: 'put the red block on the green block and the blue block'
    -> ['red block', 'green block', 'blue block'] (ValueError if it is not a put-step)."""
    pick, place = parse_step(instruction)
    return [pick, *(n.strip() for n in re.split(r"\s+and\s+(?:the\s+)?", place))]


class CliportActor:
    """A trained CLIPort-style policy loaded from a checkpoint directory."""

    name = "cliport"

    def __init__(self, checkpoint_dir: str | Path, device: str = "cpu") -> None:
        self.device = torch.device(device)
        self.model, self.config = load_checkpoint(checkpoint_dir, self.device)
        self.encoder = make_encoder(self.config.language, self.config.lang_dim,
                                    self.config.language_path)
        self.last_prediction: Prediction | None = None  # pixels and scores, for traces

    def act(self, obs: Observation, instruction: str,
            known_objects: list[str] | None = None) -> PickPlace:
        """One pick-place for `instruction` on `obs`; ValueError on a wrong image shape, a step
        that is not 'put the X in/on the Y', or an object missing from `known_objects`."""
        self.check_observation(obs)
        check_instruction(instruction, known_objects)
        x = to_input(obs.color, obs.height, self.config)[None].to(self.device)  # (1, 4, H, W)
        lang = self.encoder.encode([instruction]).to(self.device)  # (1, lang_dim)
        pred = self.model.predict(x, lang)[0]
        self.last_prediction = pred
        return labels_to_action(pred.pick, pred.place, pred.rotation, obs.height,
                                self.config.n_rotations)

    def check_observation(self, obs: Observation) -> None:
        """The network is fully convolutional, but its training images had one size: refuse
        others rather than act on a silently misaligned pixel grid."""
        want = self.config.image_shape
        height = np.asarray(obs.height)
        if height.shape != want:
            raise ValueError(f"heightmap must have shape {want} (rows along y, cols along x), "
                             f"got {height.shape}")
        color = np.asarray(obs.color)
        if color.shape != (*want, 3):
            raise ValueError(f"heightmap color must have shape {(*want, 3)}, got {color.shape}")


def check_instruction(instruction: str, known_objects: list[str] | None) -> list[str]:
    """The step's object names; ValueError naming any that is not among `known_objects`."""
    names = step_objects(instruction)
    if known_objects is None:
        return names
    known = {k.strip().lower() for k in known_objects}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"step {instruction!r} names {', '.join(map(repr, unknown))}: not "
                         f"among the known objects: {', '.join(known_objects) or 'none'}")
    return names
