"""Entity resolution: one entity per thing across sources (issue 30).

- base.py: what resolvers compare (EntityView), what they propose (Candidate), the guards
- names.py: what two names say against being one thing (numbers, direction words, initials, ...)
- evidence.py: Fellegi-Sunter agreement weights of a pair, contradictions, the merge decision
- resolvers.py: the registered resolvers (id, exact, fuzzy, embedding, evidence)
- plan.py: scored pairs -> merges (clusters, survivors, ambiguity)
- store.py: on the graph: merge with a record, undo, list, explain
- ingest.py: ingest's part (ids of merged entities go to their survivors; resolve after)
- evaluate.py: precision / recall on a labelled pair file

This module imports nothing, so the CLI can name the choices without loading numpy.
"""

# what `--resolve` / `--resolver` accept; the id resolver runs first under every other one
CHOICES = ("evidence", "exact", "fuzzy", "embedding", "id", "none")

# precision first: merges only on evidence beyond the name (kgtool.resolve.evidence); the name
# resolvers (exact, fuzzy, embedding) merge on names alone and are there to be chosen
DEFAULT_RESOLVER = "evidence"
