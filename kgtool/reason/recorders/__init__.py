"""Per-method state recorders, beside the trace recorder (kgtool.reason.trace).

The trace recorder writes what every method has (runs, steps, candidates,
verdicts, revisions); a method whose reasoning state has a shape of its own
writes and reads it through its recorder here, with the Cypher in
kgtool/cypher/<method>/: C2RAG's constraints, ReAgent's ledger (assertions,
messages, checkpoints, rollbacks), VoG's plan versions and revisions, SAFE's
attempts. A method module then holds its control flow and nothing else.
"""
