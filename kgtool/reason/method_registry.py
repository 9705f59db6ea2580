"""The registry of reasoning methods: each entry names its module ("module:Class"), imported on first use.

It sits below every method (importing none of them), so the trace renderers
can look up what a run's method declares without depending on the methods.
"""
from kgtool.core.registry import Registry

METHODS = Registry("method")
DEFAULT_METHOD = "care"  # what `kgtool ask` answers with unless told otherwise
METHODS.register("care", "kgtool.reason.methods.care:Care", version="1",
                 description="CARE: planner, selector over the top-K facts of each hop, critic with bounded "
                             "backtracking (reselect the next stored candidate, else grounded generation)")
METHODS.register("vog", "kgtool.reason.methods.vog:Vog", version="1",
                 description="VoG: a whole plan drafted first, each step verified against graph evidence, failed "
                             "steps revised with a UCB bandit over local, lookahead or global context")
# versions change with a method's behaviour: c2rag 2 weighs stated facts above passage facts (text_margin)
METHODS.register("c2rag", "kgtool.reason.methods.c2rag:C2Rag", version="2",
                 description="C2RAG: atomic constraint triples grounded by anchors, relation variants and a reranker; "
                             "N_eff sufficiency check; bindings propagated; textual recovery where the graph is not "
                             "sufficient")
METHODS.register("safe", "kgtool.reason.methods.safe:Safe", version="1",
                 description="SAFE: one atomic step at a time, each typed by a feedback model (SafeError taxonomy: "
                             "KG-grounded verifier offline) and retried with its diagnosis and guidance")
METHODS.register("reagent", "kgtool.reason.methods.reagent:ReAgent", version="1",
                 description="ReAgent: decomposer, retriever (graph, then passages), verifier with local backtracking, "
                             "assembler, supervisor with global rollback to a checkpoint, controller; assertions, "
                             "checkpoints, rollbacks and messages stored on the Run")
METHODS.register("reagent-no-backtrack", "kgtool.reason.methods.reagent:ReAgentNoBacktrack", version="1",
                 description="ReAgent without backtracking (the paper's ablation): strictly forward, conflicts only "
                             "recorded")
METHODS.register("bm25-reader", "kgtool.reason.methods.bm25_reader:Bm25Reader", version="1",
                 description="baseline: the BM25 top passage for the question, its best entity span (no graph, "
                             "no model)")
