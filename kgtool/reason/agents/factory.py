"""The agent families (`offline`, `llm`), registered by name.

A family's factory builds the roles for one answer from the KnowledgeGraph's
shared models, the answer's scope and its pool memo; config keys are the
factory's keyword arguments.
"""
from __future__ import annotations

from kgtool.core.registry import Registry
from kgtool.reason.agents.base import AgentSet

AGENTS = Registry("agent family")
# Roles beyond CARE's four that a method asks for with RunContext.role(name), one entry per
# family: "<family>.<role>" -> factory(env), env being the answer's RoleEnv (kgtool.reason.context:
# the graph's services, the session-bound graph, the agent family, the linker, the other roles).
# Register lazily ("module:attr") so listing imports nothing.
ROLES = Registry("agent role")


@AGENTS.register("offline", description="no LLM: graph-guided relation-path planning, MiniLM relation matching, "
                                        "structural checks")
def offline_agents(kg, scope, memo: dict | None = None) -> AgentSet:
    from kgtool.reason.agents.offline import Thresholds, build_offline_agents
    from kgtool.reason.graphview import GraphView

    view = GraphView(kg.db, kg.catalog, scope, memo)
    agents = build_offline_agents(view, kg.matcher, thresholds=Thresholds.from_settings(kg.settings))
    return AgentSet("offline", agents.planner, agents.selector, agents.critic, agents.generator, view=view)


@AGENTS.register("llm", description="any OpenAI-compatible endpoint: the papers' role prompts, JSON validated, "
                                    "cached, metered")
def llm_agents(kg, scope, memo: dict | None = None) -> AgentSet:
    from kgtool.reason.agents.llm import (
        LLMCritic,
        LLMGenerator,
        LLMPlanner,
        LLMSelector,
    )
    from kgtool.reason.agents.llm_fallback import OfflineBackup, WithFallback, fallback_enabled
    from kgtool.reason.graphview import GraphView

    client = kg.llm_client
    roles = {"planner": LLMPlanner(client), "selector": LLMSelector(client), "critic": LLMCritic(client),
             "generator": LLMGenerator(client)}
    if not fallback_enabled(kg):
        return AgentSet("llm", *roles.values(), usage_source=client)
    # a role whose replies stay unusable hands the step to its offline role, over this answer's graph view
    view = GraphView(kg.db, kg.catalog, scope, memo)
    backup = OfflineBackup(kg, scope, memo, view)
    wrapped = [WithFallback(role, lambda name=name: getattr(backup.agents, name), name, client)
               for name, role in roles.items()]
    return AgentSet("llm", *wrapped, usage_source=client, view=view, backup=backup)


# What a method uses beside its roles, from the offline implementations: a method imports no module of
# agents/offline or agents/llm* itself (tests/test_layers.py), so these are imported on first use here.

def reranker(services, choice: str = "auto"):
    """C2RAG's reranker of text evidence that `choice` names, over the graph's services
    (kgtool.reason.agents.offline.c2rag_rerank.build_reranker: "offline", "cross_encoder", "auto" or a model)."""
    from kgtool.reason.agents.offline.c2rag_rerank import build_reranker

    return build_reranker(services, choice)


def text_answer(reader, retrieve, question: str, link_mentions, **options):
    """(answer, passages read, passage id) for `question` from text alone, by the "text_reader" role
    `reader` (kgtool.reason.agents.offline.text_reader.text_answer, whose keywords `options` are)."""
    from kgtool.reason.agents.offline.text_reader import text_answer as answer

    return answer(reader, retrieve, question, link_mentions, **options)


def read_answer(reader, rerank, retrieve, question: str, link_mentions, **options):
    """The answer read off passages with a chain's answers as support, its binding confirmed or replaced
    (kgtool.reason.agents.offline.reagent_read.read_answer, whose keywords `options` are)."""
    from kgtool.reason.agents.offline.reagent_read import read_answer as read

    return read(reader, rerank, retrieve, question, link_mentions, **options)


# VoG's roles (kgtool.reason.methods.vog): plan, retrieve, verify, revise
ROLES.register("offline.vog_shared", "kgtool.reason.agents.offline.vog:shared",
               description="VoG: relation profiles and mention tests the offline VoG roles share within an answer")
ROLES.register("offline.vog_planner", "kgtool.reason.agents.offline.vog:planner",
               description="VoG plan agent: the offline planner's graph-guided path as plan steps")
ROLES.register("offline.vog_retriever", "kgtool.reason.agents.offline.vog:retriever",
               description="VoG retrieve agent: relation and entity scores from the relation matcher")
ROLES.register("offline.vog_verifier", "kgtool.reason.agents.offline.vog:verifier",
               description="VoG verify agent: structural and relation-fit checks with a confidence")
ROLES.register("offline.vog_reviser", "kgtool.reason.agents.offline.vog:reviser",
               description="VoG plan revision within the local, lookahead or global context")
ROLES.register("llm.vog_planner", "kgtool.reason.agents.llm_fallback:vog_planner",
               description="VoG plan agent: the whole plan (thought, action, relation, expected entity)")
ROLES.register("llm.vog_retriever", "kgtool.reason.agents.llm_fallback:vog_retriever",
               description="VoG retrieve agent: embedding scores, the LLM keeps relations and picks the fact")
ROLES.register("llm.vog_verifier", "kgtool.reason.agents.llm_fallback:vog_verifier",
               description="VoG verify agent: an LLM judge of a step against its facts, with a confidence")
ROLES.register("llm.vog_reviser", "kgtool.reason.agents.llm_fallback:vog_reviser",
               description="VoG plan revision by the LLM within the local, lookahead or global context")
ROLES.register("offline.c2rag_planner", "kgtool.reason.agents.offline.c2rag:OfflineConstraintPlanner",
               description="C2RAG constraints from the offline planner's graph path; variants from relation phrasings")
ROLES.register("offline.c2rag_reader", "kgtool.reason.agents.offline.c2rag:OfflineReader",
               description="C2RAG textual recovery by ranked entity spans; the answer is the target's binding")
ROLES.register("offline.text_reader", "kgtool.reason.agents.offline.text_reader:text_reader",
               description="the offline reader C2RAG, ReAgent and bm25-reader share: typed spans of passages, "
                           "comparisons from each entity's text")
ROLES.register("llm.c2rag_planner", "kgtool.reason.agents.llm_fallback:c2rag_planner",
               description="C2RAG atomic constraint triples with typed placeholders and relation variants (LLM)")
ROLES.register("llm.c2rag_reader", "kgtool.reason.agents.llm_fallback:c2rag_reader",
               description="C2RAG textual recovery and the final answer over constraint-aligned evidence (LLM)")
ROLES.register("offline.safe_generator", "kgtool.reason.agents.offline.safe_generator:offline_generator",
               description="SAFE next atomic step: the selector's best fact for the plan's next part, steered by "
                           "the feedback (rejected facts skipped, suggested fact cited, final answer when told)")
ROLES.register("offline.safe_feedback", "kgtool.reason.agents.offline.safe_feedback:offline_feedback",
               description="SAFE feedback as a KG-grounded verifier: each step checked in Cypher (fact in force, "
                           "superseded by an edit, connected, loops) and by relation fit, typed by SafeError")
ROLES.register("llm.safe_generator", "kgtool.reason.agents.llm_fallback:safe_generator",
               description="SAFE next atomic step (LLM): cite one numbered fact, infer, or answer, after feedback")
ROLES.register("llm.safe_feedback", "kgtool.reason.agents.llm_fallback:safe_feedback",
               description="SAFE feedback model (LLM): one SafeError type, a diagnosis and guidance per step")

# ReAgent's roles (kgtool.reason.methods.reagent): decomposer, text retrieval, verifier, assembler,
# supervisor, controller. Text retrieval reads passages the same way for both families.
ROLES.register("offline.reagent_decomposer", "kgtool.reason.agents.offline.reagent:decomposer",
               description="ReAgent decomposer: the offline planner; challenged, it plans again with passages in view")
ROLES.register("offline.reagent_text", "kgtool.reason.agents.offline.reagent:text_evidence",
               description="ReAgent retriever, text side: sentences of passages read as one-hop links")
ROLES.register("offline.reagent_verifier", "kgtool.reason.agents.offline.reagent:verifier",
               description="ReAgent verifier: the offline selector's checks over facts and text links")
ROLES.register("offline.reagent_assembler", "kgtool.reason.agents.offline.reagent:assembler",
               description="ReAgent answer assembler: a complete, connected chain that explains the question")
ROLES.register("offline.reagent_supervisor", "kgtool.reason.agents.offline.reagent:supervisor",
               description="ReAgent supervisor: roll back to just before the latest culprit of a conflict set")
ROLES.register("offline.reagent_controller", "kgtool.reason.agents.offline.reagent:controller",
               description="ReAgent controller: challenge once, then override with the best-supported branch")
ROLES.register("llm.reagent_decomposer", "kgtool.reason.agents.llm_fallback:reagent_decomposer",
               description="ReAgent decomposer (LLM): sub-questions; challenged, a different decomposition")
ROLES.register("llm.reagent_text", "kgtool.reason.agents.offline.reagent:text_evidence",
               description="ReAgent retriever, text side: sentences of passages read as one-hop links (no LLM)")
ROLES.register("llm.reagent_verifier", "kgtool.reason.agents.llm_fallback:reagent_verifier",
               description="ReAgent verifier (LLM): accepts candidates consistent with the verified facts")
ROLES.register("llm.reagent_assembler", "kgtool.reason.agents.llm_fallback:reagent_assembler",
               description="ReAgent answer assembler (LLM): the final answer, or an escalation")
ROLES.register("llm.reagent_supervisor", "kgtool.reason.agents.llm_fallback:reagent_supervisor",
               description="ReAgent supervisor (LLM): which conflict set to roll back, and to before which assertion")
ROLES.register("llm.reagent_controller", "kgtool.reason.agents.llm_fallback:reagent_controller",
               description="ReAgent controller (LLM): challenge, override, escalate or none")
