"""The Gymnasium view passes Gymnasium's own checker and solves a task with the oracle."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium.utils.env_checker import check_env

from ravens_env.agents.oracle import OracleActor
from ravens_env.gym_env import TabletopGymEnv, register_all


def test_gymnasium_checker_accepts_it():
    env = TabletopGymEnv("put-block-in-bowl")
    check_env(env, skip_render_check=True)
    env.close()


def test_registered_ids_and_an_oracle_episode_earns_the_reward():
    register_all()
    env = gym.make("codeplan/put-block-in-bowl-v0")
    obs, info = env.reset(seed=0)
    assert obs["color"].shape == (320, 160, 3) and info["instruction"].startswith("put the")
    sim = env.unwrapped.sim
    a = OracleActor(sim).act(sim.observe(), info["instruction"])
    action = np.array([*a.pick, a.pick_yaw, *a.place, a.place_yaw])
    _, reward, terminated, truncated, info = env.step(action)
    assert reward == 1.0 and terminated and not truncated and info["action"]["ok"]
    env.close()
