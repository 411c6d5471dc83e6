"""The input `probe bisect` and `probe timeline` take, checked before the registry is asked:
the recipe (RECIPE, or RECIPE@KEY in another setup), that it applies to the agent in that
setup, and the observation compared."""

from __future__ import annotations

import typing

from probes.agents import Agent
from probes.catalog.names import recipe_named
from probes.catalog.recipes import get
from probes.catalog.setup import base_of, parse_pairs, split_stem
from probes.classify import CLASSIFIERS
from probes.errors import InputError
from probes.pipeline.run import load_recipe
from probes.suggest import perhaps


def observation_names(recipe: str) -> list[str]:
    """The observations the recipe's classifier always reports (its TypedDict's keys)."""
    fn = CLASSIFIERS[get(base_of(recipe)).classifier].fn
    obs = typing.get_args(typing.get_type_hints(fn).get("return"))
    return list(typing.get_type_hints(obs[1])) if len(obs) == 2 else []


def check_observation(recipe: str, observation: str | None) -> None:
    if observation is None:
        return
    known = observation_names(recipe)
    if known and observation not in known:
        raise InputError(
            f"--observation {observation[:60]!r}: {recipe} reports no such observation "
            f"(it reports {', '.join(known)}){perhaps(observation, known)}"
        )


def check_recipe(agent: Agent, recipe: str, observation: str | None) -> None:
    """Everything about the input that can be refused before the registry is asked (a recipe
    may be RECIPE@KEY: the recipe in another setup)."""
    name, key = split_stem(recipe)
    recipe_named(name)
    load_recipe(name, agent, parse_pairs([key]))  # applies to the agent, in that setup
    check_observation(name, observation)
