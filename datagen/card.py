"""The dataset card: `<out>/README.md`, what a generated dataset is, in words a user reads.

Why a card as well as manifest.json: the manifest is for programs (seed ranges, counts); the
card says what the variant changed and what the data may be used for — above all that the
`foreign` look is an evaluation set no training mixture may draw from (the held-out check of
`codeplan eval vqa` reads the manifests and marks a checkpoint that saw it).
"""

from __future__ import annotations

from datagen.looks import COLOR_RANGES, FOREIGN_PALETTE, LOOK_VARIANTS, TABLE_KINDS

VARIANT_TEXT = {
    "default": "the simulator's front camera (320x240), the image the closed-loop controller "
               "sends: one palette, one light, one table, one mesh per object type",
    "jitter": "the front camera's eye and target moved up to 3 cm per axis and its vertical "
              "field of view 62 +- 4 degrees",
    "arm": "the arm's tip moved over the table (3-20 cm above what is below it), so the arm "
           "is in view and may hide objects",
    "hires": "the front camera at 640x480",
    "random": "domain randomisation, drawn per image and recorded in each scene's `look`: "
              "every colour name's RGB uniform in its range (table below; the darker shade "
              "keeps its name at 0.55 of the value); light direction (20-90 degrees up, any "
              "azimuth), white balance +-22%, ambient 0.4-0.85, diffuse 0.15-0.55, specular "
              "0-0.3, shadows in half the images; the table " + "/".join(TABLE_KINDS) +
              " with a dark-to-pale colour (value 0.15-0.85) of saturation 0-0.5; blocks "
              "chamfered by 0-50% of "
              "their half size and scaled 0.75-1.15; bowls of rim radius 5.5-7.9 cm, height "
              "2.2-5 cm, straight or (half of them) curved walls, 8-48 facets; the jitter "
              "camera; Gaussian blur 0-1.2 "
              "px and pixel noise 0-6; an exposure gain of 0.8-1.5 (log-uniform, clipped at "
              "white); the arm in view in 30% of the images",
    "clutter": "the `random` variant with its table cluttered (issue 27, session 38): flat "
               "squares 2-5 cm across in the colours blocks have (4-30 per square metre, 3 in "
               "10 at the darker shade) on every table, and on half of them a mosaic of "
               "cells 5-9 cm across, each its own shade, with dark or pale joints; drawn "
               "after all of `random`'s look draws, so `random` at the same seed offset has "
               "the same scenes and look but for the table (its control)",
    "foreign": "ONE held-out look, none of which the `random` variant draws: the xkcd colour "
               "survey's most-named RGB per colour (not CLIPort's palette), a warm low light "
               "from behind on the right with shadows, a tiled table, rounded blocks, curved "
               "bowls; the jitter camera, blur 0.6 px, noise 2; the arm in view in 30% of the "
               "images. An evaluation set: never put it in a training mixture",
    "studio": "a SECOND look kept out of training (issue 27, session 22; a dev look since "
              "session 24 widened `random`'s light and meshes after reading its failures, "
              "so that only its palette and felt table are nothing `random` draws): a third "
              "palette (hand-picked paint-chip values inside each name's range), a cool "
              "bright light from the right front without shadows, a dark blue-green felt "
              "table, blocks chamfered by 45% and 12% larger, shallow wide bowls of 10 "
              "facets; the jitter camera, noise 4; the arm in view in 30% of the images. An "
              "evaluation set: never put it in a training mixture",
    "kitchen": "a THIRD held-out look (issue 27, session 24), none of which the `random` "
               "variant draws: a fourth palette (glossy toy plastic inside each name's "
               "range), a warm-white overhead light with shadows and strong highlights, a "
               "pale speckled granite worktop, blocks slightly bevelled and 10% smaller, deep "
               "narrow bowls of 28 facets; the jitter camera, blur 0.5 px, noise 1.5; the arm "
               "in view in 30% of the images. An evaluation set: never put it in a training "
               "mixture",
    "workshop": "a FOURTH held-out look (issue 27, session 24, written after the kitchen look "
                "was measured), none of which the `random` variant draws: a fifth palette "
                "(matte hobby paint inside each name's range), a low evening sun from the "
                "front left with long shadows, a cork-board table, blocks bevelled by 20%, "
                "hexagonal bowls; the jitter camera, blur 0.8 px, noise 3; the arm in view in "
                "30% of the images. An evaluation set: never put it in a training mixture",
    "gallery": "a FIFTH held-out look (issue 27, session 25, written after the workshop look "
               "was measured), none of which the `random` variant draws: a sixth palette (soft "
               "gallery-print colours inside each name's range), a green-tinted fluorescent "
               "light from overhead without shadows, a dark green veined marble table, blocks "
               "20% larger, wide shallow bowls of 20 facets; the jitter camera, blur 1.5 px, "
               "noise 8; the arm in view in 30% of the images. An evaluation set: never put it "
               "in a training mixture",
    "lobby": "a SIXTH held-out look (issue 27, session 29, written before stage 10 of the "
             "detector was measured), none of which the `random` variant draws: a seventh "
             "palette (enamel-sign colours inside each name's range), a daylight from behind "
             "with shadows, a terrazzo floor (stone chips of four colours in a cream ground), "
             "blocks bevelled by 30%, curved bowls of 18 facets; the jitter camera, blur 0.6 "
             "px, noise 2.5; the arm in view in 30% of the images. An evaluation set: never "
             "put it in a training mixture",
    "library": "a SEVENTH held-out look (issue 27, session 30, written before the widened "
               "detector of stage 12 was trained), none of which the `random` variant draws: an "
               "eighth palette (book-cloth colours inside each name's range), a warm desk-lamp "
               "light from the front right with shadows, an oxblood leather desk top, blocks "
               "12% smaller and bevelled by 5%, curved bowls of 14 facets; the jitter camera, "
               "blur 0.4 px, noise 2; the arm in view in 30% of the images. An evaluation set: "
               "never put it in a training mixture",
    "piano": "an EIGHTH held-out look (issue 27, session 30, written after the library look was "
             "measured), none of which the `random` variant draws: a ninth palette (macaron "
             "pastels near the pale side of each name's range), a cool white light from the "
             "front left with shadows and strong gloss, a near-black lacquered table, blocks "
             "bevelled by 25%, heptagonal bowls; the jitter camera, blur 0.3 px, noise 1; the "
             "arm in view in 30% of the images. An evaluation set: never put it in a training "
             "mixture",
    "steel": "a NINTH held-out look (issue 27, session 30, written after the piano look was "
             "measured), none of which the `random` variant draws: a tenth palette (vivid "
             "signal colours), a backlight from behind the table with shadows toward the "
             "camera and a metallic sheen, a brushed steel top, blocks 20% smaller, wide curved "
             "bowls of 24 facets; the jitter camera, blur 0.5 px, noise 3; the arm in view in "
             "30% of the images. An evaluation set: never put it in a training mixture",
    "baize": "a TENTH held-out look (issue 27, session 31, written after the steel look was "
             "measured and before the next change to `random`), whose palette, light and "
             "table the `random` variant does not draw: an eleventh palette (board-game "
             "pieces), a warm pendant lamp straight overhead with hard shadows and little "
             "ambient light, a card table's saturated green baize; ordinary meshes "
             "(bevelled blocks, straight bowls of 12 facets); the jitter camera, blur 0.3 px, "
             "noise 2; the arm in view in 30% of the images. An evaluation set: never put it "
             "in a training mixture",
    "slate": "an ELEVENTH held-out look (issue 27, session 31, written after the baize look "
             "was measured and before the next change to `random`), whose palette and table "
             "the `random` variant does not draw: a twelfth palette (wax crayons), a dark "
             "cleft slate top; an ordinary slightly cool light from the front right with "
             "shadows and ordinary meshes (bevelled blocks, straight bowls of 16 facets); the "
             "jitter camera, blur 0.4 px, noise 1.5; the arm in view in 30% of the images. An "
             "evaluation set: never put it in a training mixture",
    "linen": "a TWELFTH held-out look (issue 27, session 32, written after the slate look "
             "was measured and before the next change to `random`), whose palette and table "
             "the `random` variant does not draw: a thirteenth palette (poster paints), an "
             "oatmeal linen cloth of coarse, uneven threads; an ordinary slightly cool "
             "daylight from one side, 30 degrees up, with shadows, and ordinary meshes "
             "(bevelled blocks 10% smaller, straight bowls of 20 facets); the jitter camera, "
             "blur 0.4 px, noise 2; the arm in view in 30% of the images. An evaluation set: "
             "never put it in a training mixture",
    "bamboo": "a THIRTEENTH held-out look (issue 27, session 32, written after the linen look "
              "was measured and before the next change), whose palette and table the "
              "`random` variant does not draw: a fourteenth palette (gouache), a bamboo slat "
              "top; a light and meshes taken from one draw of `random` (seed 1313): cool "
              "light from the front left with shadows, strongly bevelled blocks, curved bowls "
              "of 24 facets; the jitter camera, blur 1.1 px, noise 1.7; the arm in view in 30% "
              "of the images. An evaluation set: never put it in a training mixture",
    "parquet": "a FOURTEENTH held-out look (issue 27, session 33, written after the bamboo "
               "look was measured and before the next change), whose palette and table the "
               "`random` variant does not draw: a fifteenth palette (coloured pencils), a "
               "honey-oak basket-weave parquet; a light, meshes, noise and blur taken from one "
               "draw of `random` (seed 1414): slightly cool light from behind on the left with "
               "shadows, bevelled blocks, straight bowls of 24 facets; the jitter camera, blur "
               "0.03 px, noise 5.3; the arm in view in 30% of the images. An evaluation set: "
               "never put it in a training mixture",
    "concrete": "a FIFTEENTH held-out look (issue 27, session 35, written after the parquet "
                "look was measured and before the next change), whose palette and table the "
                "`random` variant does not draw: a sixteenth palette (enamel paints), a pale "
                "polished concrete floor with pores, aggregate and hairline cracks; a light, "
                "meshes, noise, blur and stand taken from one draw of `random` (seed 1515): a "
                "warm light from high above without shadows, lightly bevelled blocks, wide "
                "curved bowls of 10 facets; the jitter camera, blur 0.9 px, noise 0.9; the arm "
                "in view in 30% of the images. An evaluation set: never put it in a training "
                "mixture",
    "carpet": "a SIXTEENTH held-out look (issue 27, session 35, written while stage 20 "
              "trained, for the change after it), whose palette and table the `random` "
              "variant does not draw: a seventeenth palette (acrylic paints), slate-blue "
              "carpet tiles of loop pile; a light, meshes, noise, blur and stand taken from "
              "one draw of `random` (seed 1616): cool light from the front with shadows and "
              "dim ambient, lightly bevelled blocks 9% smaller, straight bowls of 24 facets; "
              "the jitter camera, blur 0.7 px, noise 3.1; the arm in view in 30% of the "
              "images. An evaluation set: never put it in a training mixture",
    "terracotta": "a SEVENTEENTH held-out look (issue 27, session 36, written before the "
                  "change after stage 20, stage 22's decals, was measured anywhere), whose "
                  "palette and "
                  "table the `random` variant does not draw: an eighteenth palette (oil "
                  "pastels), hexagonal terracotta tiles in pale grout; a light, meshes, noise, "
                  "blur and stand taken from one draw of `random` (seed 1717): near-white "
                  "light from high on the front right without shadows, lightly bevelled "
                  "blocks, wide straight bowls of 16 facets; the jitter camera, blur 1.1 px, "
                  "noise 0.9; the arm in view in 30% of the images. An evaluation set: never "
                  "put it in a training mixture",
    "pebbles": "an EIGHTEENTH held-out look (issue 27, session 36, written after terracotta "
               "was measured, for the next change, before it was chosen), whose palette and "
               "table the `random` variant does not draw: a nineteenth palette "
               "(screen-printing inks), river pebbles about a block's size in dark mortar; a "
               "light, meshes, noise, blur and stand taken from one draw of `random` (seed "
               "1818): slightly warm light from high in front without shadows, strongly "
               "bevelled blocks, curved bowls of 24 facets; the jitter camera, blur 0.6 px, "
               "noise 0.8; the arm in view in 30% of the images. An evaluation set: never put "
               "it in a training mixture",
    "brick": "a NINETEENTH held-out look (issue 27, session 37, written after pebbles was "
             "read, before the next change was chosen), whose palette and table the `random` "
             "variant does not draw: a twentieth palette (gouache paints), a running bond of "
             "red-brown bricks in pale mortar; a light, meshes, noise, blur and stand taken "
             "from one draw of `random` (seed 1919): warm light from overhead with shadows, "
             "lightly bevelled blocks, straight bowls of 32 facets; the jitter camera, blur "
             "0.95 px, noise 5.5; the arm in view in 30% of the images. An evaluation set: "
             "never put it in a training mixture",
    "rubber": "a TWENTIETH held-out look (issue 27, session 40, written after stage 24 was "
              "read, before the next change was chosen), whose palette and table the `random` "
              "variant does not draw: a twenty-first palette (alcohol-marker inks), a dark "
              "gray rubber mat studded with round coins in staggered rows; a light, meshes, "
              "noise, blur and stand taken from one draw of `random` (seed 2020): slightly "
              "cool, mostly ambient light from the front right with shadows, strongly bevelled "
              "blocks, wide curved bowls of 24 facets; the jitter camera, blur 1.2 px, noise "
              "2.8; the arm in view in 30% of the images. An evaluation set: never put it in a "
              "training mixture",
}


def dataset_card(manifest: dict) -> str:
    """Markdown text of the card of one dataset (from its manifest)."""
    settings = manifest.get("settings", {})
    variant, renderer = settings.get("variant", "default"), settings.get("renderer", "pybullet")
    families = manifest.get("families", {})
    lines = [f"# codeplan VQA data: {variant} variant, {renderer} renderer", "",
             f"Made by `{manifest.get('command', 'codeplan datagen vqa')}`.", "",
             f"**Variant `{variant}`**: {VARIANT_TEXT.get(variant, variant)}.", ""]
    if renderer == "blender":
        lines += ["**Renderer `blender`**: Cycles through `bpy`, CLEVR-style materials and "
                  "lights; never in a training mixture of the shipped models.", ""]
    lines += ["| split | images | questions | shard seeds |", "|---|---|---|---|"]
    lines += [f"| {name} | {f['images']} | {f['questions']} | {f['shard_seeds'][0]}-"
              f"{f['shard_seeds'][1]} |" for name, f in families.items()]
    lines += ["", "A scene is a function of its shard seed whatever the variant: a dataset at "
              "another `--seed-offset` shares none of these scenes.", ""]
    if variant in LOOK_VARIANTS:
        lines += ["Colour names (HSV boxes; hue in degrees, a range lo > hi wraps through 0):",
                  "", "| name | hue | saturation | value | foreign look's RGB |",
                  "|---|---|---|---|---|"]
        lines += [f"| {n} | {r.hue[0]:g}-{r.hue[1]:g} | {r.sat[0]:g}-{r.sat[1]:g} | "
                  f"{r.val[0]:g}-{r.val[1]:g} | {FOREIGN_PALETTE[n]} |"
                  for n, r in COLOR_RANGES.items()]
        lines.append("")
    return "\n".join(lines)
