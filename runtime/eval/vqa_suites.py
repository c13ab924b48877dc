"""Named VQA benchmark suites for `codeplan eval vqa --suite NAME`: data, models, paper numbers.

Why a suite: a published table must come from one command. A suite fixes the held-out data
(the exact `codeplan datagen vqa` settings and seeds, made on first use and reused after: the
generator skips finished shards), the reasoners compared and the reference numbers printed
beside ours, so `codeplan eval vqa --suite paper-table1` reproduces docs/RESULTS.md's table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

# The seed paper's Table 1: fine-tuned OFA-base accuracy (%) per data family; the pre-trained
# model scored 0% on all of them.
PAPER_OFA_BASE = {"block_stack": 87.9, "block_bowl": 55.9, "global_table": 49.0, "unseen": 42.2}


ALL_SPLITS = ("block_stack", "block_bowl", "global_table", "unseen", "cogent_a", "cogent_b")


@dataclass(frozen=True)
class VqaSuite:
    """Held-out data settings, the reasoners to compare, and reference rows {label: {split: %}}."""

    name: str
    data: Path
    splits: tuple[str, ...]
    images_per_split: int
    questions_per_image: int
    seed_offset: int
    models: tuple[str, ...]
    reference: dict[str, dict[str, float]] = field(default_factory=dict)
    variant: str = "default"
    renderer: str = "pybullet"
    shard_size: int = 100
    workers: int = 2  # Blender renders on both cores itself: one process
    # Other suites measured beside this one, one overall column each (Table 1's Blender
    # variant): their data made if missing, the column left out with a note if it cannot be.
    columns: tuple[str, ...] = ()

    def datagen_command(self) -> str:
        """The `codeplan datagen vqa` command line that makes this suite's data."""
        extra = "".join(f" --{k} {v}" for k, v, d in (("variant", self.variant, "default"),
                                                      ("renderer", self.renderer, "pybullet"))
                        if v != d)
        return (f"codeplan datagen vqa --out {self.data} --splits {','.join(self.splits)} "
                f"--images-per-split {self.images_per_split} --questions-per-image "
                f"{self.questions_per_image} --shard-size {self.shard_size} --seed-offset "
                f"{self.seed_offset} --workers {self.workers}{extra}")


def _look_suite(look: str, seed_offset: int,
                models: tuple[str, ...] = ("detector", "detector-dr", "detector-dr-wide",
                                           "ofa-custom")) -> VqaSuite:
    """A held-out look's suite (issue 27): every split, 100 images x 10 questions each, on
    seeds of its own, in `data/vqa-<look>`."""
    return VqaSuite(name=look, data=Path(f"data/vqa-{look}"), splits=ALL_SPLITS,
                    images_per_split=100, questions_per_image=10, seed_offset=seed_offset,
                    models=models, variant=look, shard_size=50)


SUITES: dict[str, VqaSuite] = {
    "paper-table1": VqaSuite(
        name="paper-table1", data=Path("data/vqa-val"),
        splits=ALL_SPLITS, images_per_split=200, questions_per_image=10, seed_offset=100_000,
        models=("detector", "detector-dr", "detector-pyramid", "ofa-pretrained", "ofa-custom",
                "ofa-mixture"),
        reference={"seed paper: OFA-base fine-tuned": PAPER_OFA_BASE}, columns=("blender",)),
    # Issue 27's transfer sets: looks no shipped model was trained on (the held-out check of
    # `eval vqa` says so per model), kept out of every training mixture. `studio` (session 22)
    # was the held-out one once `random` drew regular table patterns after reading `foreign`;
    # `kitchen` (session 24) is since `random` was widened after reading `studio`'s failures.
    "foreign": _look_suite("foreign", 800_000, models=("detector", "detector-dr", "ofa-custom")),
    "studio": _look_suite("studio", 850_000, models=("detector", "detector-dr", "ofa-custom")),
    "kitchen": _look_suite("kitchen", 880_000),
    # `workshop` (session 24): written after kitchen was measured, before any change made for
    # it; first measured in session 25 (stage 9, light tables).
    "workshop": _look_suite("workshop", 890_000),
    # `gallery` (session 25): written after workshop was measured, before any change made for
    # it; first measured in session 29 (stage 10: exposure and low light in `random`).
    "gallery": _look_suite("gallery", 860_000),
    # `lobby` (session 29): written before stage 10 was measured and before any change made
    # after it; first measured in session 29 (stage 11: speckled tables in `random`).
    "lobby": _look_suite("lobby", 870_000),
    # `library` (session 30): written before the widened detector (stage 12) was trained or
    # measured; first measured with it.
    "library": _look_suite("library", 820_000),
    # `piano` (session 30): written after library was measured, before the next change to
    # `random`.
    "piano": _look_suite("piano", 830_000),
    # `steel` (session 30): written after piano was measured, before any next change to
    # `random`; first measured in session 31 (stage 14).
    "steel": _look_suite("steel", 840_000),
    # `baize` (session 31): written after steel was measured (stage 14), before the next
    # change to `random`; first measured in session 31 (stage 15, shipped).
    "baize": _look_suite("baize", 810_000),
    # `slate` (session 31): written after baize was measured (stage 15), before the next
    # change to `random`; first measured in session 31 (stage 16, not shipped).
    "slate": _look_suite("slate", 980_000),
    # `linen` (session 32): written after slate was measured (stage 16, not shipped), before
    # the next change to `random`.
    "linen": _look_suite("linen", 1_010_000),
    # `bamboo` (session 32): written after linen was measured (stage 17c shipped), before the
    # next change; its light and meshes are one draw of `random` (seed 1313).
    "bamboo": _look_suite("bamboo", 1_020_000),
    # `parquet` (session 33): written after bamboo was measured (stage 18 shipped), before the
    # next change; its light, meshes, noise and blur are one draw of `random` (seed 1414).
    "parquet": _look_suite("parquet", 1_030_000),
    # `concrete` (session 35): written after parquet was measured (stage 19 shipped), before
    # the next change; its light, meshes, noise, blur and stand are one draw of `random`
    # (seed 1515).
    "concrete": _look_suite("concrete", 1_050_000),
    # `carpet` (session 35): written while stage 20 trained, before anything was measured on
    # it, for the change after stage 20; its light, meshes, noise, blur and stand are one draw
    # of `random` (seed 1616).
    "carpet": _look_suite("carpet", 1_060_000),
    # `terracotta` (session 36): written before the change after stage 20 (decals) was
    # measured anywhere; its light, meshes, noise, blur and stand are one draw of `random`
    # (seed 1717).
    "terracotta": _look_suite("terracotta", 1_070_000),
    # `pebbles` (session 36): written after terracotta was measured, for the next change,
    # before it was chosen; its light, meshes, noise, blur and stand are one draw of `random`
    # (seed 1818).
    "pebbles": _look_suite("pebbles", 1_090_000),
    # `brick` (session 37): written after pebbles was read (with no change), for the next
    # change, before it was chosen; its light, meshes, noise, blur and stand are one draw of
    # `random` (seed 1919).
    "brick": _look_suite("brick", 1_100_000),
    # `rubber` (session 40): written after stage 24 was read, for the next change, before it
    # was chosen; its light, meshes, noise, blur and stand are one draw of `random` (seed
    # 2020). Seed offset 1,110,000 (kept free for it since session 38).
    "rubber": _look_suite("rubber", 1_110_000),
    "blender": VqaSuite(
        name="blender", data=Path("data/vqa-blender"), splits=ALL_SPLITS,
        images_per_split=20, questions_per_image=10, seed_offset=400_000,
        models=("detector", "detector-dr", "ofa-custom", "ofa-mixture"), renderer="blender",
        shard_size=20,
        workers=1),
}


def get_suite(name: str) -> VqaSuite:
    """The suite called `name`; ValueError listing the known ones."""
    if name not in SUITES:
        raise ValueError(f"unknown VQA suite {name!r}; suites: {', '.join(SUITES)}")
    return SUITES[name]


def column_data(suite: VqaSuite, progress: bool = True) -> tuple[Path | None, str]:
    """(data dir, "") for a column suite, or (None, why not) when its data is missing and its
    renderer cannot run here: a machine without Blender still gets the rest of the table. A
    finished data dir is used as it is (the generator would ask for the renderer first)."""
    from datagen.blender_client import BlenderUnavailableError

    try:
        return prepare_data(suite, progress=progress), ""
    except BlenderUnavailableError as e:
        if (suite.data / "hf" / "dataset_dict.json").is_file():
            return suite.data, ""
        return None, f"{suite.name}: not measured, {suite.data} is missing and {e}"


def prepare_data(suite: VqaSuite, workers: int = 2, progress: bool = True) -> Path:
    """Make the suite's held-out data if it is missing or unfinished; returns its directory."""
    from datagen import generate

    generate(suite.data, list(suite.splits), suite.images_per_split,
             questions_per_image=suite.questions_per_image, shard_size=suite.shard_size,
             workers=min(workers, suite.workers), seed_offset=suite.seed_offset,
             renderer=suite.renderer, variant=suite.variant, progress=progress)
    return suite.data
