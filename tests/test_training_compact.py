"""Training stores the compact observation (#49): envs, rollout buffers and imitation chunks
hold uint8, and the networks expand it inside torch to the float32 values bit for bit, so a
policy trained so reads exactly what the float observation gave it."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="needs the train extra")
pytest.importorskip("sb3_contrib", reason="needs the train extra")

from training_runs import tiny_ppo  # noqa: E402

from agents.farlight.policy.cache import SHIP_IDS  # noqa: E402
from agents.farlight.policy.compact_input import CompactInput  # noqa: E402
from farlight_env.encode.compact import BYTE_HIGH  # noqa: E402
from farlight_env.encode.layout import COUNTER_HIGH  # noqa: E402
from tests import scenarios  # noqa: E402
from tests.test_compact_observation import CODEC, ENCODER, random_game_batches  # noqa: E402
from training.farlight.envs import TRAINING_OBSERVATION, probe_env  # noqa: E402
from training.farlight.sb3 import imitation, train_ppo  # noqa: E402

EXPAND = CompactInput(CODEC)


def torch_expand(codes: np.ndarray) -> np.ndarray:
    return EXPAND(torch.from_numpy(codes)).numpy()


@pytest.mark.parametrize("num_players", [2, 5])
def test_torch_expands_every_position_of_a_game_as_numpy_does(num_players: int) -> None:
    """Every seat's observation at every decision of a random game: the torch expansion of
    its compact form is the encoder's float32 vector, byte for byte (uint8 or float-held)."""
    for floats in random_game_batches(num_players, seed=num_players):
        codes = CODEC.compact(floats)
        assert torch_expand(codes).tobytes() == floats.tobytes()
        held = EXPAND(torch.from_numpy(codes.astype(np.float32))).numpy()
        assert held.tobytes() == floats.tobytes()


def test_torch_expands_two_byte_counters_and_any_declared_codes() -> None:
    """Crew past 255 takes its high byte; codes anywhere up to each declared high (summed bid
    values with their float32 steps included) expand as CompactCodec.expand does."""
    game = scenarios.make_game(3, seed=5)
    scenarios.give(game, 1, crew=1000, science=300, points=COUNTER_HIGH)
    floats = ENCODER.encode(game, 1)
    assert torch_expand(CODEC.compact(floats)).tobytes() == floats.tobytes()
    rng = np.random.default_rng(0)
    for _ in range(20):
        code = rng.integers(0, CODEC.code_high + 1)
        bids = CODEC.fields["bids"]
        values = code[bids.start + 2 : bids.slice.stop : 3]
        values[(values % 16 == 0) & (values >= 32)] = 0  # nothing lies a step below zero
        codes = np.concatenate([code & BYTE_HIGH, code[CODEC.wide] >> 8]).astype(np.uint8)
        assert torch_expand(codes).tobytes() == CODEC.expand(codes).tobytes()


def test_float_observations_pass_and_other_sizes_are_refused() -> None:
    floats = torch.zeros(2, CODEC.size)
    assert EXPAND(floats) is floats
    with pytest.raises(ValueError, match=f"{CODEC.size} floats or {CODEC.compact_size}"):
        EXPAND(torch.zeros(2, CODEC.size + 1, dtype=torch.uint8))


def test_the_rollout_buffers_ship_ids_travel_through_the_expansion() -> None:
    codes = torch.zeros(3, CODEC.compact_size, dtype=torch.uint8)
    ids = torch.arange(6).reshape(3, 2)
    setattr(codes, SHIP_IDS, ids)
    assert getattr(EXPAND(codes), SHIP_IDS) is ids


def test_training_envs_observe_and_buffers_store_the_compact_form(tmp_path) -> None:
    """A tiny run: the env's Box is uint8, the rollout buffer holds uint8 (a quarter of the
    float bytes), and the exported policy reads float observations of the encoder's size."""
    config = tiny_ppo(tmp_path / "run", eval_every=0)
    probe = probe_env(config)
    assert TRAINING_OBSERVATION == "compact"
    assert probe.observation_space.dtype == np.uint8
    assert probe.observation_space.shape == (CODEC.compact_size,)
    model = train_ppo.train(config, progress=False)
    stored = model.rollout_buffer.observations
    assert stored.dtype == np.uint8 and stored.shape[-1] == CODEC.compact_size
    from agents.farlight.policy import PolicyAgent

    agent = PolicyAgent(str(tmp_path / "run" / "policy.pt"))
    assert agent.config["obs_size"] == CODEC.size


def test_the_policy_decides_the_same_on_compact_and_float_observations(tmp_path) -> None:
    """The trained SB3 policy's logits on a compact observation are its logits on the float32
    one: the expansion is exact, so nothing the network reads changes."""
    model = train_ppo.train(tiny_ppo(tmp_path / "run", eval_every=0), progress=False)
    policy = model.policy
    floats = np.stack(next(iter(random_game_batches(2, seed=3))))
    codes = CODEC.compact(floats)
    with torch.no_grad():
        from_codes = imitation.actor_logits(policy, torch.from_numpy(codes))
        from_floats = imitation.actor_logits(policy, torch.from_numpy(floats))
    assert torch.equal(from_codes, from_floats)


def test_imitation_chunks_hold_the_compact_form() -> None:
    observations, masks, actions = imitation.heuristic_decisions(1, 2, seed=0)
    assert observations.dtype == np.uint8 and observations.shape[1] == CODEC.compact_size
    assert len(observations) == len(masks) == len(actions) > 0
