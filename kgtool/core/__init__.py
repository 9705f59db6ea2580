"""Value types, text normalisation and registries that every layer shares.

Nothing here imports from another kgtool package except `errors`: the layers
above (graph, models, ingest, retrieve, reason, eval, api, cli) import it.
"""
