"""Typed literal values: a fact's object that is a number, a date, a boolean, a quantity or a URL.

A literal is a value of its fact, not a thing: two countries with the same area must not share a
node, so a literal is stored as a node of its own fact (kgtool.ingest.load.GraphRows.literal:
``(:Entity:Literal)``, id derived from the head, the relation and the value) with the typed value
copied onto the ``(:Fact)`` (cypher/ingest/merge_literals.cypher).

Detection in untyped text (a TSV cell, a JSONL string, an untyped N-Triples literal) is
conservative: only the whole cell, trimmed, and only these forms:

- integer: ``42``, ``-7``, ``1,234,567`` (a leading zero, as in ``007`` or ``02139``, is a code:
  left a name);
- float: ``3.14``, ``-0.5``, ``1,234.5``, ``6.02e23``;
- quantity: an integer or float, a space optional, then a unit of UNITS (``603,500 km2``,
  ``12.5 kg``, ``30 %``);
- date: ISO ``1990-03-12``, ``1990-03``, ``1990-03-12T10:00:00Z`` (the day is kept), and
  ``12 March 1990``, ``March 12, 1990``, ``March 1990`` (English month names or their
  three-letter forms); a bare year such as ``1990`` is an integer unless the type says date/year;
- boolean: ``true`` / ``false`` (any case); ``yes`` / ``no`` only when the type says boolean;
- url: ``http://`` or ``https://`` followed by no spaces (the reader decides whether a URL cell
  is a value or an entity written as an IRI: kgtool.ingest.facts).

Anything else stays an entity name. A stated type (JSONL ``tail_type``, a TSV ``tail_type``
column, an N-Triples ``^^xsd:`` datatype) is followed instead, and a value that does not read as
its type is a bad record. Dates are normalised to ISO with their precision (year, month, day).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

# the id prefix of a literal's node (kgtool.ingest.load.GraphRows.literal)
LITERAL_PREFIX = "lit:"

# the types a file may state; "entity" and "string" say: not a detected value
TYPES = ("entity", "string", "integer", "float", "number", "date", "year", "boolean", "url", "quantity")

UNITS = frozenset({
    "km", "km2", "km²", "sq km", "m", "m2", "m²", "cm", "mm", "mi", "sq mi", "ft", "in", "ha", "acre", "acres",
    "kg", "g", "mg", "t", "lb", "lbs", "l", "ml", "%", "°c", "°f", "k", "km/h", "mph", "m/s", "s", "min", "h",
    "kw", "mw", "gw", "kwh", "w", "v", "hz", "mhz", "ghz", "mb", "gb", "tb",
})

XSD = "http://www.w3.org/2001/XMLSchema#"
_XSD_TYPES = {
    **{name: "integer" for name in ("integer", "int", "long", "short", "byte", "nonNegativeInteger",
                                     "positiveInteger", "negativeInteger", "nonPositiveInteger", "unsignedInt",
                                     "unsignedLong", "unsignedShort", "unsignedByte")},
    "decimal": "float", "double": "float", "float": "float",
    "date": "date", "dateTime": "date", "gYear": "year", "gYearMonth": "date",
    "boolean": "boolean", "anyURI": "url", "string": "string",
}

_MONTHS = {name: i for i, names in enumerate(
    (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
     ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
     ("november", "nov"), ("december", "dec")), start=1) for name in names}
_MONTH = "(?P<mon>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"

_INT = r"[+-]?(?:0|[1-9]\d{0,2}(?:,\d{3})+|[1-9]\d*)"
_FLOAT = r"[+-]?(?:(?:0|[1-9]\d{0,2}(?:,\d{3})+|[1-9]\d*)\.\d+(?:[eE][+-]?\d+)?|(?:0|[1-9]\d*)[eE][+-]?\d+)"
_NUMBER_RE = re.compile(rf"^(?:(?P<float>{_FLOAT})|(?P<int>{_INT}))$")
_QUANTITY_RE = re.compile(rf"^(?P<number>{_FLOAT}|{_INT})\s*(?P<unit>[^\d\s].*)$")
_ISO_RE = re.compile(r"^(?P<y>-?\d{4})(?:-(?P<m>\d{2})(?:-(?P<d>\d{2})(?:T[0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?)?)?$")
_DMY_RE = re.compile(rf"^(?P<d>\d{{1,2}})\s+{_MONTH}\s+(?P<y>\d{{3,4}})$", re.IGNORECASE)
_MDY_RE = re.compile(rf"^{_MONTH}\s+(?P<d>\d{{1,2}}),?\s+(?P<y>\d{{3,4}})$", re.IGNORECASE)
_MY_RE = re.compile(rf"^{_MONTH}\s+(?P<y>\d{{3,4}})$", re.IGNORECASE)
_URL_RE = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Literal:
    """A typed value: `lexical` is its canonical text (what makes two spellings one value),
    `text` what the file wrote. datatype: integer, float, date, boolean, url, string.
    A date's lexical is ISO at its precision (1990, 1990-03, 1990-03-12)."""

    datatype: str
    lexical: str
    text: str
    precision: str | None = None  # a date's: year, month or day
    unit: str | None = None  # a quantity's

    @property
    def value(self):
        """The typed value as Python has it (a date at its first day for a year or a month)."""
        if self.datatype == "integer":
            return int(self.lexical)
        if self.datatype == "float":
            return float(self.lexical)
        if self.datatype == "boolean":
            return self.lexical == "true"
        if self.datatype == "date":
            return date.fromisoformat(day_of(self.lexical))
        return self.lexical


def day_of(iso: str) -> str:
    """The first day of an ISO year or month ("1990" -> "1990-01-01"), a day as it is."""
    parts = iso.split("-") if not iso.startswith("-") else ["-" + iso[1:].split("-")[0], *iso[1:].split("-")[1:]]
    return "-".join([parts[0], *(parts[1:] + ["01", "01"])[:2]])


def detect(text: str) -> Literal | None:
    """The literal an untyped cell is, or None for a name (see the module docstring)."""
    cell = text.strip()
    if not cell or len(cell) > 100:
        return None
    return (_number(cell) or _date(cell, year_alone=False) or _quantity(cell) or _boolean(cell, yes_no=False)
            or _url(cell))


def typed(text, kind: str, unit: str | None = None) -> Literal | None:
    """The literal `text` is as the stated type `kind` (TYPES), None for "entity", or ValueError
    saying why it does not read as that type."""
    if kind not in TYPES:
        raise ValueError(f"unknown type {kind!r}; use one of: {', '.join(TYPES)}")
    if kind == "entity":
        return None
    if isinstance(text, bool):
        raw = "true" if text else "false"
    elif isinstance(text, (int, float)):
        raw = repr(text)
    else:
        raw = str(text)
    cell = raw.strip()
    found: Literal | None
    if kind == "string":
        found = Literal("string", cell, raw)
    elif kind in ("integer", "float", "number"):
        found = _number(cell)
        if found is not None and kind == "float" and found.datatype == "integer":
            found = Literal("float", repr(float(found.lexical)), found.text)
        if found is not None and kind == "integer" and found.datatype != "integer":
            found = None
    elif kind in ("date", "year"):
        found = _date(cell, year_alone=True)
        if found is not None and kind == "year" and found.precision != "year":
            found = None
    elif kind == "boolean":
        found = _boolean(cell, yes_no=True)
    elif kind == "url":
        found = _url(cell)
    else:  # quantity
        found = _quantity(cell) if unit is None else _number(cell)
        if found is not None and unit is not None:
            found = Literal(found.datatype, found.lexical, f"{cell} {unit}", unit=unit.strip())
    if found is None:
        raise ValueError(f"{cell!r} is not a {kind}")
    return Literal(found.datatype, found.lexical, raw.strip(), found.precision, unit or found.unit)


def from_xsd(lexical: str, datatype_iri: str) -> Literal | None:
    """An N-Triples typed literal ("1990"^^xsd:gYear); None for a datatype kgtool does not type
    (kept as today: a name). A value that does not read as its datatype raises ValueError."""
    if not datatype_iri.startswith(XSD):
        return None
    kind = _XSD_TYPES.get(datatype_iri[len(XSD):])
    if kind is None or kind == "string":
        return None
    return typed(lexical, kind)


def _number(cell: str) -> Literal | None:
    m = _NUMBER_RE.match(cell)
    if m is None:
        return None
    if m.group("int") is not None:
        return Literal("integer", str(int(cell.replace(",", ""))), cell)
    return Literal("float", repr(float(cell.replace(",", ""))), cell)


def _quantity(cell: str) -> Literal | None:
    m = _QUANTITY_RE.match(cell)
    if m is None or m.group("unit").strip().lower() not in UNITS:
        return None
    number = _number(m.group("number"))
    return Literal(number.datatype, number.lexical, cell, unit=m.group("unit").strip()) if number else None


def _date(cell: str, *, year_alone: bool) -> Literal | None:
    m = _ISO_RE.match(cell)
    if m is not None:
        if m.group("m") is None and not year_alone:
            return None  # a bare number: an integer, unless the type says year
        y, mo, d = m.group("y"), m.group("m"), m.group("d")
    else:
        for pattern in (_DMY_RE, _MDY_RE, _MY_RE):
            m = pattern.match(cell)
            if m is not None:
                break
        else:
            return None
        groups = m.groupdict()
        y = groups["y"].zfill(4)
        mo = f"{_MONTHS[groups['mon'].lower().rstrip('.')]:02d}"
        d = f"{int(groups['d']):02d}" if groups.get("d") else None
    iso = "-".join(p for p in (y, mo, d) if p)
    try:
        date.fromisoformat(day_of(iso)) if not iso.startswith("-") else None
    except ValueError:
        return None  # 1990-13-45 is no date
    return Literal("date", iso, cell, precision="day" if d else "month" if mo else "year")


def _boolean(cell: str, *, yes_no: bool) -> Literal | None:
    word = cell.lower()
    if word in ("true", "false"):
        return Literal("boolean", word, cell)
    if yes_no and word in ("yes", "no"):
        return Literal("boolean", "true" if word == "yes" else "false", cell)
    return None


def _url(cell: str) -> Literal | None:
    return Literal("url", cell, cell) if _URL_RE.match(cell) else None
