"""Registry ids: ``checkers/<variant>-v0`` in PettingZoo's AEC registry and in Gymnasium's.

``import checkers_env`` calls :func:`register_envs`, so after it::

    pettingzoo.make("aec", "checkers/russian-v0")          # the wrapped AEC env (checkers_env.aec.env)
    gymnasium.make("checkers/russian-v0", opponent="minimax:2")   # the learner against an opponent
    gymnasium.make_vec("checkers/russian-v0", num_envs=256,
                       vectorization_mode="vector_entry_point")  # the batched single-agent view

Keyword arguments given to ``make`` pass through to the env: rule overrides
(``forced_capture=False``), ``max_moves``, and for the Gymnasium ids the
single-agent options (``opponent``, ``agent``, ``illegal_action``). The ids
are the same string in both registries; each names the view that its
library expects.

Registering needs the two libraries' registries, so it imports
``gymnasium.envs.registration`` and ``pettingzoo`` (about 50 and 30 ms after
numpy, measured on the development machine) but no env module of this
package, no torch and no pygame: the entry points are strings, loaded by
``make``. A library that is not installed is skipped (its ids are simply
not registered; the envs say which extra to install when used directly).
"""

from __future__ import annotations

from .core.variants import variant_names

__all__ = ["env_ids", "register_envs", "registered_ids"]

AEC_ENTRY_POINT = "checkers_env.aec:env"
GYM_ENTRY_POINT = "checkers_env.gym_env:SingleAgentEnv"
GYM_VECTOR_ENTRY_POINT = "checkers_env.gym_vector:GymVectorEnv"

registered_ids: dict[str, list[str]] = {"pettingzoo": [], "gymnasium": []}
"""The ids :func:`register_envs` registered, per library (empty for a library not installed)."""


def env_ids() -> list[str]:
    """``checkers/<variant>-v0`` for every named variant."""
    return [f"checkers/{name}-v0" for name in variant_names()]


def register_envs() -> dict[str, list[str]]:
    """Register every id with PettingZoo and Gymnasium, where installed; return :data:`registered_ids`.

    Calling it again registers nothing twice (an id already in a registry,
    by an earlier call or by the user, is left as it is).
    """
    # the lists are filled in place: modules that took a reference (aec.registered_ids) see the ids
    registered_ids["pettingzoo"][:] = _register_pettingzoo()
    registered_ids["gymnasium"][:] = _register_gymnasium()
    return registered_ids


def _register_pettingzoo() -> list[str]:
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # not installed, or a PettingZoo before 1.26 (no registry)
        return []
    ids = []
    for name, env_id in zip(variant_names(), env_ids()):
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=AEC_ENTRY_POINT, kwargs={"variant": name})
        ids.append(env_id)
    return ids


def _register_gymnasium() -> list[str]:
    try:
        from gymnasium.envs.registration import register, registry
    except ImportError:
        return []
    ids = []
    for name, env_id in zip(variant_names(), env_ids()):
        if env_id not in registry:
            # No max_episode_steps: the env's own max_moves cap counts whole moves, a TimeLimit would count legs.
            register(
                id=env_id,
                entry_point=GYM_ENTRY_POINT,
                vector_entry_point=GYM_VECTOR_ENTRY_POINT,
                kwargs={"variant": name},
            )
        ids.append(env_id)
    return ids
