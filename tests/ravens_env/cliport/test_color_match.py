"""Colour-match maps: exact at the named colour, ordered like the mentions, wired into the
semantic stream only when configured, and a metric fit on CLIPort's seen colours still finds
most unseen ones (the reason the design is a shared linear metric)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from ravens_env.cliport.color_match import ColorMatch
from ravens_env.cliport.color_words import lexicon, rgb_features
from ravens_env.cliport.config import preset
from ravens_env.cliport.policy import CliportModel, to_input
from ravens_env.colors import ALL_COLORS, COLORS_255, DARK_FACTOR, SEEN_COLORS, UNSEEN_COLORS
from training.cliport.train import color_match_loss


def _config(**kw):
    return preset("cpu", language="hash+rgb", lang_dim=70, color_match_dim=8, **kw)


def _lang(texts: list[str]) -> torch.Tensor:
    """(N, 70): a zero sentence part, then the named colours' lexicon RGB."""
    return torch.tensor(np.stack([np.concatenate([np.zeros(64, np.float32), rgb_features(t)])
                                  for t in texts]))


def _strip(rgbs: list[tuple[int, int, int]], config) -> torch.Tensor:
    """A (1, 3, 1, N) normalised image whose pixels are the given 0-255 colours."""
    color = np.array(rgbs, np.uint8)[None]  # (1, N, 3)
    return to_input(color, np.zeros(color.shape[:2], np.float32), config)[None, :3]


def test_a_pixel_of_the_named_lexicon_colour_scores_one_and_others_less():
    torch.manual_seed(0)
    config = _config()
    match = ColorMatch(config)
    css = [tuple(round(255 * c) for c in lexicon()[name]) for name in ("red", "blue", "gold")]
    with torch.no_grad():
        maps = match(_strip(css, config), _lang(["put the red block in the blue bowl"]))
    assert maps.shape == (1, 2, 1, 3)
    assert maps[0, 0, 0, 0] == pytest.approx(1.0, abs=1e-5)  # mention 0: the block, red
    assert maps[0, 1, 0, 1] == pytest.approx(1.0, abs=1e-5)  # mention 1: the bowl, blue
    assert (maps[0, 0, 0, 1:] < 0.999).all() and (maps[0, 1, 0, [0, 2]] < 0.999).all()
    assert ((maps >= 0) & (maps <= 1)).all()


def _sim_palette() -> tuple[list[str], list[tuple[int, int, int]]]:
    """The simulator's colours, plain and dark, as names and 0-255 RGB."""
    names, rgbs = [], []
    for name in ALL_COLORS:
        for factor, prefix in ((1.0, ""), (DARK_FACTOR, "dark ")):
            names.append(prefix + name)
            rgbs.append(tuple(int(c * factor) for c in COLORS_255[name]))
    return names, rgbs


def test_a_metric_fit_on_seen_colours_tells_every_task_colour_from_its_neighbours():
    """Fit on CLIPort's seen colours (plain and dark) only; then, among the colours a
    put-block-in-bowl episode can hold (its split's), each word must find its own. Unseen
    colours are the point: the word side may only shift the whole palette."""
    torch.manual_seed(0)
    config = _config()
    match = ColorMatch(config)
    names, rgbs = _sim_palette()
    strip = _strip(rgbs, config)
    seen = [n for n in names if n.removeprefix("dark ") in SEEN_COLORS]
    optimizer = torch.optim.Adam(match.parameters(), lr=3e-2)
    for _ in range(600):  # each seen word must pick its own pixel out of the whole palette
        logits = -match.distances(strip.expand(len(seen), -1, -1, -1),
                                  _lang([f"the {n} block" for n in seen]))[:, 0].flatten(1)
        loss = F.cross_entropy(logits, torch.tensor([names.index(n) for n in seen]))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    for split in (SEEN_COLORS, UNSEEN_COLORS):
        columns = [names.index(c) for c in split]
        with torch.no_grad():
            maps = match(strip.expand(len(split), -1, -1, -1),
                         _lang([f"the {c} block" for c in split]))[:, 0, 0][:, columns]
        found = [split[int(i)] for i in maps.argmax(dim=1)]
        assert found == list(split)


def test_the_grounding_loss_is_lower_when_the_demo_picks_the_named_colour():
    config = _config(widths=(8, 16), stem_width=8)
    model = CliportModel(config)
    css = {name: [round(255 * c) for c in lexicon()[name]] for name in ("red", "blue")}
    color = np.full((320, 160, 3), 128, np.uint8)
    color[40:60, 40:60], color[200:240, 80:120] = css["red"], css["blue"]  # block, bowl
    x = to_input(color[None], np.zeros((1, 320, 160), np.float32), config)
    lang = _lang(["put the red block in the blue bowl"])
    block, bowl = torch.tensor([[50, 50]]), torch.tensor([[220, 100]])
    with torch.no_grad():
        right = color_match_loss(model, x, lang, block, bowl, config.stride)
        swapped = color_match_loss(model, x, lang, bowl, block, config.stride)
        none = color_match_loss(CliportModel(preset("cpu", language="hash+rgb", lang_dim=70,
                                                    widths=(8, 16), stem_width=8)),
                                x, lang, block, bowl, config.stride)
    assert right < swapped - 1.0
    assert float(none) == 0.0


def test_only_the_semantic_stream_reads_the_maps_and_only_when_configured():
    with_maps = CliportModel(_config())
    without = CliportModel(preset("cpu", language="hash+rgb", lang_dim=70))
    assert with_maps.pick.net.semantic.match is not None
    assert without.pick.net.semantic.match is None
    assert with_maps.pick.net.semantic.encoder.stem[0].in_channels == 3 + 2
    assert with_maps.pick.net.spatial.encoder.stem[0].in_channels == 4
    pick, place = with_maps(torch.randn(1, 4, 320, 160), _lang(["put the red block in the blue"
                                                                " bowl"]), torch.tensor([[40, 40]]))
    assert pick.shape == (1, 1, 320, 160) and place.shape == (1, 36, 320, 160)


def test_colour_match_needs_an_rgb_language_and_a_non_negative_size():
    with pytest.raises(ValueError, match="color_match_dim needs a '\\+rgb' language"):
        preset("cpu", language="hash", color_match_dim=8)
    with pytest.raises(ValueError, match="color_match_dim must be >= 0"):
        preset("cpu", language="hash+rgb", lang_dim=70, color_match_dim=-1)


def test_a_checkpoint_from_before_the_word_shift_loads_as_no_shift():
    model = CliportModel(_config(widths=(8, 16), stem_width=8))
    state = {k: v for k, v in model.state_dict().items() if "word_" not in k}
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, ColorMatch):
                module.word_gain.fill_(0.3)
                module.word_shift.fill_(0.2)
    model.load_state_dict(state)  # strict: nothing missing once the defaults are filled in
    match = model.pick.net.semantic.match
    assert match.word_gain.item() == 1.0 and not match.word_shift.detach().any()


def _zero_heads(model: CliportModel) -> None:
    """Make the networks' own logits constant, so that only the colour prior ranks pixels."""
    with torch.no_grad():
        for net in (model.pick.net, model.place.key, model.place.query):
            for head in (net.spatial.head, net.semantic.head):
                head.weight.zero_()
                head.bias.fill_(0.1)


def test_the_colour_prior_alone_picks_the_first_colour_and_places_at_the_second():
    torch.manual_seed(0)
    config = _config(widths=(8, 16), stem_width=8, color_prior=True)
    model = CliportModel(config)
    _zero_heads(model)
    css = {name: [round(255 * c) for c in lexicon()[name]] for name in ("red", "blue", "gold")}
    color = np.full((320, 160, 3), 128, np.uint8)
    color[40:60, 40:60], color[200:240, 80:120] = css["red"], css["blue"]  # block, bowl
    color[120:150, 20:50] = css["gold"]  # a distractor
    x = to_input(color[None], np.zeros((1, 320, 160), np.float32), config)
    (pred,) = model.predict(x, _lang(["put the red block in the blue bowl"]))
    assert 40 <= pred.pick[0] < 60 and 40 <= pred.pick[1] < 60
    assert 200 <= pred.place[0] < 240 and 80 <= pred.place[1] < 120
    (swapped,) = model.predict(x, _lang(["put the blue block in the red bowl"]))
    assert 200 <= swapped.pick[0] < 240 and 40 <= swapped.place[0] < 60


def test_the_colour_prior_is_zero_for_a_step_naming_no_colour_and_off_unless_configured():
    torch.manual_seed(0)
    config = _config(widths=(8, 16), stem_width=8, color_prior=True)
    match = ColorMatch(config)
    rgb = torch.randn(2, 3, 8, 4)
    lang = _lang(["put the block in the bowl", "put the red block in the blue bowl"])
    with torch.no_grad():
        prior = match.prior(rgb, lang, 1)
        d2 = match.distances(rgb, lang)
    assert prior.shape == (2, 1, 8, 4)
    assert not prior[0].any()  # no colour named: the network alone decides
    assert torch.equal(prior[1, 0], -d2[1, 1])
    assert CliportModel(config).pick.prior_gain is not None
    assert CliportModel(_config(widths=(8, 16), stem_width=8)).pick.prior_gain is None
    with pytest.raises(ValueError, match="color_prior needs colour-match maps"):
        preset("cpu", language="hash+rgb", lang_dim=70, color_prior=True)
