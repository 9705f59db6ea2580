"""What the analysts' console may run: an allow-list, checked on the server's own plan.

The console (`kgtool cypher`, `KnowledgeGraph.query`) is read-only in the
strict sense: a statement may only read this database's graph. Neo4j's query
type alone is not enough for that (it calls `LOAD CSV FROM 'http://...'`, a
server-side request, and `TERMINATE TRANSACTIONS`, which ends other clients'
work, plain reads), so the policy looks at every operator of the plan that
`EXPLAIN` returns and lets a statement through only when each one is a known
read operator, a procedure from a named read-only set, or a SHOW command about
the schema. Anything else, including operators a future Neo4j adds, is refused
with the reason. The statement then still runs in a read transaction, which
the server itself refuses to let write.

Every console statement also runs under a time limit (`console_timeout`,
KGTOOL_CONSOLE_TIMEOUT, `kgtool cypher --timeout 30s`; default 60 s, `0` or
`none` for none): the server ends a statement that runs longer, and the error
says it was the console's limit and how to raise it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from kgtool.errors import ConfigError, DatabaseError, ReadOnlyViolation

# Plan operators that only read the graph (names as Neo4j 5 reports them,
# without the "(All)"/"(Into)" variant and the "@database" suffix).
READ_OPERATORS = frozenset("""
ProduceResults Argument ArgumentTracker Projection Filter Limit ExhaustiveLimit Skip Sort PartialSort Top
PartialTop Top1WithTies Distinct OrderedDistinct EagerAggregation OrderedAggregation Aggregation Eager Optional
Unwind PartitionedUnwind CacheProperties EmptyResult EmptyRow Empty NullifyMetadata Input Anti AssertSameNode
AssertSameRelationship ProjectEndpoints Union OrderedUnion CartesianProduct Apply SemiApply AntiSemiApply
LetSemiApply LetAntiSemiApply SelectOrSemiApply SelectOrAntiSemiApply LetSelectOrSemiApply
LetSelectOrAntiSemiApply ConditionalApply AntiConditionalApply RollUpApply ValueHashJoin NodeHashJoin
NodeLeftOuterHashJoin NodeRightOuterHashJoin TriadicSelection TriadicBuild TriadicFilter
AllNodesScan PartitionedAllNodesScan NodeByLabelScan PartitionedNodeByLabelScan UnionNodeByLabelsScan
PartitionedUnionNodeByLabelsScan IntersectionNodeByLabelsScan PartitionedIntersectionNodeByLabelsScan
SubtractionNodeByLabelsScan PartitionedSubtractionNodeByLabelsScan NodeByIdSeek NodeByElementIdSeek
NodeIndexSeek PartitionedNodeIndexSeek NodeUniqueIndexSeek NodeIndexSeekByRange PartitionedNodeIndexSeekByRange
NodeUniqueIndexSeekByRange NodeIndexContainsScan NodeIndexEndsWithScan NodeIndexScan PartitionedNodeIndexScan
MultiNodeIndexSeek AssertingMultiNodeIndexSeek NodeCountFromCountStore RelationshipCountFromCountStore
DirectedRelationshipIndexSeek UndirectedRelationshipIndexSeek DirectedRelationshipIndexScan
UndirectedRelationshipIndexScan DirectedRelationshipIndexSeekByRange UndirectedRelationshipIndexSeekByRange
DirectedRelationshipIndexContainsScan UndirectedRelationshipIndexContainsScan
DirectedRelationshipIndexEndsWithScan UndirectedRelationshipIndexEndsWithScan
DirectedRelationshipUniqueIndexSeek UndirectedRelationshipUniqueIndexSeek
DirectedRelationshipUniqueIndexSeekByRange UndirectedRelationshipUniqueIndexSeekByRange
DirectedRelationshipTypeScan UndirectedRelationshipTypeScan DirectedUnionRelationshipTypesScan
UndirectedUnionRelationshipTypesScan DirectedAllRelationshipsScan UndirectedAllRelationshipsScan
DirectedRelationshipByIdSeek UndirectedRelationshipByIdSeek DirectedRelationshipByElementIdSeek
UndirectedRelationshipByElementIdSeek PartitionedDirectedRelationshipTypeScan
PartitionedUndirectedRelationshipTypeScan PartitionedDirectedAllRelationshipsScan
PartitionedUndirectedAllRelationshipsScan
Expand OptionalExpand VarLengthExpand BFSPruningVarLengthExpand PruningVarLengthExpand ShortestPath
StatefulShortestPath Repeat Trail
""".split())

# SHOW commands that describe this database's schema and callables; the others
# (transactions, settings, users, servers) concern other sessions or the DBMS.
SCHEMA_SHOW_OPERATORS = frozenset({"ShowIndexes", "ShowConstraints", "ShowProcedures", "ShowFunctions"})

# Procedures an analyst may call: they read the graph, its schema or its indexes.
READ_PROCEDURES = frozenset({
    "db.labels", "db.relationshipTypes", "db.propertyKeys", "db.schema.visualization",
    "db.schema.nodeTypeProperties", "db.schema.relTypeProperties", "db.index.fulltext.queryNodes",
    "db.index.fulltext.queryRelationships", "db.index.fulltext.listAvailableAnalyzers",
    "db.index.vector.queryNodes", "db.index.vector.queryRelationships", "db.ping", "db.info",
    "dbms.components",
})

DEFAULT_TIMEOUT = "60s"
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}

_PREFIX = re.compile(r"^\s*(EXPLAIN|PROFILE)\b\s*", re.IGNORECASE)
_COMMENT_LINE = re.compile(r"^\s*//[^\n]*(\n|$)")
_WRITES = {"w": "writes to the graph", "rw": "reads and writes the graph", "s": "changes the schema"}
_READ_ONLY = "`kgtool cypher` runs read-only queries on the graph only"


@dataclass(frozen=True)
class Statement:
    """An analyst's statement split into its mode (run, explain or profile) and body."""

    body: str
    mode: str = "run"  # run | explain | profile

    @classmethod
    def parse(cls, text: str) -> "Statement":
        if not isinstance(text, str) or not text.strip():
            raise ReadOnlyViolation("the query is empty; give a Cypher statement to run")
        rest = text
        while (m := _COMMENT_LINE.match(rest)) and m.end() > 0:
            rest = rest[m.end():]
        m = _PREFIX.match(rest)
        if not m:
            return cls(text, "run")
        body = rest[m.end():]
        if not body.strip():
            raise ReadOnlyViolation(f"{m.group(1).upper()} needs a statement after it")
        return cls(body, m.group(1).lower())


@dataclass
class Verdict:
    allowed: bool
    reason: str = ""
    operators: list[str] = field(default_factory=list)


def operator_name(operator_type: str) -> str:
    """`Expand(All)@neo4j` -> `Expand`."""
    return operator_type.split("@", 1)[0].split("(", 1)[0].strip()


def procedure_name(details: str | None) -> str:
    """`db.labels() :: (label :: STRING)` -> `db.labels`."""
    return (details or "").split("(", 1)[0].strip()


def _walk(plan: dict):
    yield plan
    for child in plan.get("children") or []:
        yield from _walk(child)


def judge(query_type: str | None, plan: dict | None) -> Verdict:
    """Whether the console may run a statement, from the query type and plan EXPLAIN gave."""
    if plan is None:
        return Verdict(False, f"refused: the server gave no plan for this statement, so it cannot be checked; "
                              f"{_READ_ONLY}")
    ops = list(_walk(plan))
    names = [operator_name(op.get("operatorType", "")) for op in ops]
    if "AdministrationCommand" in names or any(n.startswith(("Terminate", "Show")) and n not in SCHEMA_SHOW_OPERATORS
                                               for n in names):
        command = next(n for n in names if n == "AdministrationCommand" or n.startswith(("Terminate", "Show")))
        what = "an administration command" if command == "AdministrationCommand" else f"an administration command ({command})"
        return Verdict(False, f"refused: this is {what}, which manages users, transactions, settings or "
                              f"databases; {_READ_ONLY} (use Neo4j's own tools with an admin account for that)",
                       names)
    if "LoadCSV" in names:
        return Verdict(False, "refused: LOAD CSV reads files or URLs from the server, which the console does not "
                              f"allow; {_READ_ONLY} (load data with kgtool ingest)", names)
    for op, name in zip(ops, names):
        if name == "ProcedureCall":
            proc = procedure_name((op.get("args") or {}).get("Details"))
            if proc not in READ_PROCEDURES:
                return Verdict(False, f"refused: the procedure {proc or '(unknown)'} is not one the console allows; "
                                      f"it allows {', '.join(sorted(READ_PROCEDURES))}", names)
    if query_type in _WRITES:
        if query_type != "s" or not any(n == "ProcedureCall" for n in names):
            return Verdict(False, f"refused: this query {_WRITES[query_type]}; {_READ_ONLY} "
                                  "(writes go through kgtool ingest and the API)", names)
    unknown = sorted({n for n in names if n not in READ_OPERATORS and n not in SCHEMA_SHOW_OPERATORS
                      and n != "ProcedureCall"})
    if unknown:
        return Verdict(False, f"refused: the plan uses {', '.join(unknown)}, which is not among the read operators "
                              f"the console allows; {_READ_ONLY}", names)
    return Verdict(True, "", names)


def check(query_type: str | None, plan: dict | None) -> None:
    verdict = judge(query_type, plan)
    if not verdict.allowed:
        raise ReadOnlyViolation(verdict.reason)


def plan_lines(plan: dict, *, profiled: bool = False) -> list[str]:
    """The plan as an indented tree, one operator a line, with its details and row figures."""
    lines: list[str] = []

    def visit(op: dict, depth: int) -> None:
        args = op.get("args") or {}
        figures = []
        if profiled:
            figures.append(f"rows={op.get('rows', args.get('Rows', '?'))}")
            figures.append(f"db hits={op.get('dbHits', args.get('DbHits', '?'))}")
        estimated = args.get("EstimatedRows")
        if estimated is not None:
            figures.append(f"estimated rows={float(estimated):.0f}")
        details = args.get("Details")
        text = "  " * depth + operator_name(op.get("operatorType", "?"))
        if details:
            text += f"  {details}"
        if figures:
            text += "  (" + ", ".join(figures) + ")"
        lines.append(text)
        for child in op.get("children") or []:
            visit(child, depth + 1)

    visit(plan, 0)
    return lines


def parse_timeout(value) -> float | None:
    """A console time limit in seconds from `30s`, `500ms`, `2m`, `1h`, a number of seconds, or
    `0`/`none`/`off` for no limit (None)."""
    if value is None or isinstance(value, bool):
        raise ConfigError(f"console timeout {value!r}: give a duration such as 30s, 500ms or 2m (0 for none)")
    if isinstance(value, (int, float)):
        seconds = float(value)
    else:
        text = str(value).strip().lower()
        if text in ("none", "off", "no"):
            return None
        match = _DURATION.match(text)
        if not match:
            raise ConfigError(f"console timeout {value!r}: give a duration such as 30s, 500ms or 2m (0 for none)")
        seconds = float(match.group(1)) * _UNIT_SECONDS[(match.group(2) or "s").lower()]
    if seconds < 0:
        raise ConfigError(f"console timeout {value!r} is negative; give a duration such as 30s (0 for none)")
    return seconds or None


def describe_seconds(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:g} s"


def timed_out(exc: BaseException) -> bool:
    """True when the server ended a statement for running past its transaction timeout."""
    return "TransactionTimedOut" in (getattr(exc, "code", None) or "")


def timeout_error(seconds: float) -> DatabaseError:
    return DatabaseError(
        f"the query ran longer than the console's time limit of {describe_seconds(seconds)} and was stopped "
        "(nothing was changed); allow more with --timeout (e.g. --timeout 5m, 0 for none) or "
        "KGTOOL_CONSOLE_TIMEOUT, or narrow the query")
