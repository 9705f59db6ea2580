"""The N-Triples reader of fact files (kgtool.ingest.facts documents the format).

IRIs become readable names, label predicates name their subject, and an object literal with an
xsd datatype (or an untyped one that reads as a value) becomes a typed value of its fact
(kgtool.ingest.literals); a language-tagged or xsd:string literal stays a name.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kgtool.ingest.facts import (_WIKIDATA_ENTITY, _WIKIDATA_PROPERTY, FactsReadResult, _fact, _keep, _lines,
                                 _merge, readable_name, readable_relation)
from kgtool.ingest.literals import Literal, detect, from_xsd
from kgtool.ingest.records import BadRecord

# --------------------------------------------------------------------------- N-Triples

_IRI = r"<([^<>\"{}|^`\\\s]*)>"
_BNODE = r"(_:[A-Za-z0-9_][A-Za-z0-9_.\-]*)"
_LITERAL = r"\"((?:[^\"\\\n\r]|\\.)*)\"(?:@([A-Za-z]+(?:-[A-Za-z0-9]+)*)|\^\^<([^<>\s]*)>)?"
_NT_LINE = re.compile(rf"^\s*(?:{_IRI}|{_BNODE})\s*{_IRI}\s*(?:{_IRI}|{_BNODE}|{_LITERAL})\s*\.\s*(?:#.*)?$")
_ESCAPES = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))")
_SIMPLE_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}

_NAME_PREDICATES = frozenset({
    "http://www.w3.org/2000/01/rdf-schema#label", "http://www.w3.org/2004/02/skos/core#prefLabel",
    "http://schema.org/name", "https://schema.org/name", "http://xmlns.com/foaf/0.1/name",
})
_ALIAS_PREDICATES = frozenset({
    "http://www.w3.org/2004/02/skos/core#altLabel", "http://schema.org/alternateName",
    "https://schema.org/alternateName",
})


def _unescape(text: str) -> str:
    def one(m: re.Match) -> str:
        if m.group(1) or m.group(2):
            return chr(int(m.group(1) or m.group(2), 16))
        return _SIMPLE_ESCAPES.get(m.group(3), "\\" + m.group(3))

    return _ESCAPES.sub(one, text)


@dataclass
class _Term:
    iri: str | None = None
    bnode: str | None = None
    literal: str | None = None
    lang: str | None = None
    datatype: str | None = None


def read_nt(path: Path, result: FactsReadResult) -> None:
    # two passes: a label may come after the triples that use its IRI
    triples: list[tuple[str, _Term, str, _Term]] = []
    names: dict[str, list[str]] = {}
    aliases: dict[str, list[str]] = {}
    for lineno, text, reason in _lines(path):
        where = f"{path}:{lineno}"
        if text is not None and text.lstrip().startswith("#"):
            continue
        result.records_read += 1
        if reason is not None:
            result.bad.append(BadRecord(where, reason))
            continue
        m = _NT_LINE.match(text)
        if m is None:
            result.bad.append(BadRecord(where, "not an N-Triples statement (<subject> <predicate> object .)"))
            continue
        subject = m.group(1) if m.group(1) is not None else m.group(2)  # labels are keyed by IRI or blank node
        predicate = m.group(3)
        if m.group(4) is not None:
            obj = _Term(iri=m.group(4))
        elif m.group(5) is not None:
            obj = _Term(bnode=m.group(5))
        else:
            obj = _Term(literal=_unescape(m.group(6)), lang=m.group(7), datatype=m.group(8))
        if obj.literal is not None and predicate in _NAME_PREDICATES | _ALIAS_PREDICATES:
            if obj.lang is None or obj.lang.lower().split("-")[0] == "en":
                bucket = names if predicate in _NAME_PREDICATES else aliases
                values = bucket.setdefault(subject, [])
                if obj.literal.strip() and obj.literal not in values:
                    values.append(obj.literal)
            continue
        triples.append((where, _Term(iri=m.group(1), bnode=m.group(2)), predicate, obj))

    def entity(term: _Term) -> tuple[str, str | None, tuple[str, ...]]:
        if term.literal is not None:
            return term.literal, None, ()
        key = term.iri or term.bnode or ""
        qid = _WIKIDATA_ENTITY.match(key)
        labels = names.get(key, [])
        local, more = readable_name(key) if term.iri else (key, ())
        if labels:
            name, extra = labels[0], (*labels[1:], local, *more)
        else:
            name, extra = local, more
        return name, qid.group(1) if qid else None, _merge(extra, aliases.get(key, ()), name)

    for where, subject, predicate, obj in triples:
        h_name, h_id, h_aliases = entity(subject)
        t_name, t_id, t_aliases = entity(obj)
        prop = _WIKIDATA_PROPERTY.match(predicate)
        label = names[predicate][0] if names.get(predicate) else readable_relation(predicate)
        try:
            literal = _nt_literal(obj)
        except ValueError as exc:
            _keep(result, where, f"the literal {exc}")
            continue
        fact = _fact(h_name, label, t_name, where, head_id=h_id, tail_id=t_id,
                     relation_id=prop.group(1) if prop else None, head_aliases=list(h_aliases),
                     tail_aliases=list(t_aliases), readable=False,
                     tail_type="entity" if literal is None else None, literal=literal)
        _keep(result, where, fact)


def _nt_literal(term: _Term) -> Literal | None:
    """The typed value of an object literal: by its xsd datatype, else (untyped, no language tag)
    as detected in its text; None for an IRI, a language-tagged or an xsd:string literal (a name)."""
    if term.literal is None or term.lang is not None:
        return None
    if term.datatype is not None:
        return from_xsd(term.literal, term.datatype)
    return detect(term.literal)
