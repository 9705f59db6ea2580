"""Trace statements that take one map parameter (kgtool.reason.trace.PACKED): the server plans each once."""
from __future__ import annotations

from kgtool.graph import queries
from kgtool.reason.trace import PACKED, packed


def test_packed_statements_read_every_parameter_from_one_map():
    for name in PACKED:
        q = queries.get(name)
        # a top-level parameter beside the map would bring back a plan per size of its value
        assert q.params == ("p",) and q.declared_params == ("p",), (name, q.params, q.declared_params)
    assert packed("reagent/record", {"run_id": "r", "assertions": []}) == {"p": {"run_id": "r", "assertions": []}}
    assert packed("hop/record_step", {"run_id": "r"}) == {"run_id": "r"}  # the others take theirs as they are
    assert "hop/record_step" not in PACKED and "p" not in queries.get("hop/record_step").params
