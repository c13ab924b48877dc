"""CLEVR-style VQA data for the visual reasoning service: scenes from the simulator's tasks,
PyBullet or Blender (bpy) renders, balanced questions in the vrs question language, HF datasets
+ CLEVR files.

    from datagen import generate
    generate("data/vqa", ["block_bowl", "unseen"], images_per_split=1000, workers=2)

`generate` is imported lazily, so that light modules (families, palette) do not pull in
`datasets` and the simulator.
"""

from __future__ import annotations

__all__ = ["generate"]


def __getattr__(name: str):
    if name == "generate":
        from datagen.pipeline import generate

        return generate
    raise AttributeError(f"module 'datagen' has no attribute {name!r}")
