"""CARE's four agent roles without an LLM, one module per role.

The planner does not parse the question on its own: it lets the graph propose
readings. From the linked topic entity it walks the graph hop by hop (a beam
search over `GraphView.neighborhoods`, one read per depth) and keeps the paths
whose relations account for the question's wording, each hop for a part of
the question no earlier hop explained. The relations of the best path become the plan. The selector, the
critic and the generator then check single facts and chains with the same
relation matcher plus structural tests (who is the head, does the chain
connect, does the evidence name both ends).

None of this knows about Neo4j: the agents see a `GraphView`, which the
database layer implements with one read per call.
"""
from __future__ import annotations

from typing import NamedTuple

from kgtool.core.types import Embedder
from kgtool.reason.agents.offline.common import (
    GraphView,
    OfflinePlan,
    Thresholds,
    first_per_group,
)
from kgtool.reason.agents.offline.critic import OfflineCritic
from kgtool.reason.agents.offline.generator import OfflineGenerator
from kgtool.reason.agents.offline.planner import OfflinePlanner
from kgtool.reason.agents.offline.selector import OfflineSelector
from kgtool.reason.relmatch import RelationMatcher


class OfflineAgents(NamedTuple):
    planner: OfflinePlanner
    selector: OfflineSelector
    critic: OfflineCritic
    generator: OfflineGenerator
    matcher: RelationMatcher


def build_offline_agents(
    graph: GraphView, embedder: Embedder | RelationMatcher, *, thresholds: Thresholds = Thresholds(),
    **planner_options
) -> OfflineAgents:
    """The four offline agents over one graph view, sharing one matcher (and its caches) and thresholds."""
    matcher = embedder if isinstance(embedder, RelationMatcher) else RelationMatcher(embedder)
    return OfflineAgents(
        OfflinePlanner(graph, matcher, thresholds=thresholds, **planner_options),
        OfflineSelector(graph, matcher, thresholds=thresholds),
        OfflineCritic(graph, matcher, thresholds=thresholds),
        OfflineGenerator(graph, matcher, thresholds=thresholds),
        matcher,
    )


__all__ = ["GraphView", "OfflineAgents", "OfflineCritic", "OfflineGenerator", "OfflinePlan", "OfflinePlanner",
           "OfflineSelector", "Thresholds", "build_offline_agents", "first_per_group"]
