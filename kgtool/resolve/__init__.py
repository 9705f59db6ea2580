"""Entity resolution: one entity per thing across sources (issue 30).

- base.py: what resolvers compare (EntityView), what they propose (Candidate), the guards
- resolvers.py: the registered resolvers (id, exact, fuzzy, embedding)
- plan.py: scored pairs -> merges (clusters, survivors, ambiguity)
- store.py: on the graph: merge with a record, undo, list, explain
- ingest.py: ingest's part (ids of merged entities go to their survivors; resolve after)
- evaluate.py: precision / recall on a labelled pair file

This module imports nothing, so the CLI can name the choices without loading numpy.
"""

# what `--resolve` / `--resolver` accept; the id resolver runs first under every other one
CHOICES = ("exact", "fuzzy", "embedding", "id", "none")

# measured on tests/data/resolve/pairs.jsonl (`kgtool resolve pairs`): the best F1 with precision >= 0.98
DEFAULT_RESOLVER = "fuzzy"
