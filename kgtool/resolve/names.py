"""What two names say against being one thing, whatever their similarity.

Names that are close as strings are often different things told apart by one small
word: a number or ordinal ("Apollo 11", "Second Republic"), a regnal numeral or a
generational suffix ("Henry VII" / "Henry VIII", "Jr."), a direction word ("Eastern
Asia" / "Western Asia", "Sudan" / "South Sudan"), a middle name or initial ("M. Jordan"
/ "M. B. Jordan"), or a surname with one more letter ("Brown" / "Browne").
`name_contradiction(x, y)` names the first such difference between two names, or None.
The word lists are closed-class English (directions, ordinals, generations), not names
of any data set.
"""
from __future__ import annotations

import re
import unicodedata

from kgtool.core.text import normalize

_NUMBER = re.compile(r"[0-9]+")
_WORD = re.compile(r"[a-z0-9]+")

# a regnal or generational numeral of two letters or more ("II", "XIV"; a lone "I", "V" or "X" is as
# often a word or a letter), and the generational suffixes written in words
_ROMAN = re.compile(r"(?=[ivx]{2,}$)(x{0,3})(ix|iv|v?i{0,3})")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10}
_GENERATIONS = {"jr": "jr", "junior": "jr", "sr": "sr", "senior": "sr", "fils": "jr", "pere": "sr"}
_ORDINALS = {w: str(i) for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split(), start=1)}

# words that tell two parts of one place (or two things of one name) apart; one list, closed-class
DIRECTIONS = frozenset("""
north south east west northern southern eastern western
northeast northwest southeast southwest northeastern northwestern southeastern southwestern
upper lower central middle inner outer
""".split())

# words a middle part of a name may hold without naming anything ("Bank of the North")
_LINKING = frozenset("of the and de la le du des da di von van der del y et v vs versus".split())


# letters NFKD does not take apart
_LETTERS = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ð": "d", "ß": "ss", "æ": "ae", "œ": "oe", "ı": "i",
                          "þ": "th", "ħ": "h", "ŧ": "t"})


def fold(name: str) -> str:
    """A normalised name without accents ("São Paulo" and "Sao Paulo" alike): one name spelled two ways."""
    text = unicodedata.normalize("NFKD", normalize(name or "").translate(_LETTERS))
    return "".join(c for c in text if not unicodedata.combining(c))


def roman(token: str) -> int | None:
    if not _ROMAN.fullmatch(token):
        return None
    values = [_ROMAN_VALUES[c] for c in token]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def words(name: str) -> list[str]:
    """The lower-case words of a name, accents kept, hyphens and dots as breaks ("North-West" -> north, west)."""
    return _WORD.findall(normalize(name or "").replace("-", " ")) if name else []


def numbers(name: str) -> tuple[str, ...]:
    """The numbers a name holds, in any order ("August 6, 1945" -> 1945, 6): dates written differently
    agree on them. A regnal numeral or an ordinal word counts as its number ("Henry VIII", "Henry 8" and
    "Henry the Eighth" agree), "Jr."/"Sr." as themselves."""
    found = [n.lstrip("0") or "0" for n in _NUMBER.findall(name or "")]
    for token in _WORD.findall((name or "").lower()):
        value = roman(token)
        if value is not None:
            found.append(str(value))
        elif token in _GENERATIONS:
            found.append(_GENERATIONS[token])
        elif token in _ORDINALS:
            found.append(_ORDINALS[token])
    return tuple(sorted(found))


def directions(name: str) -> tuple[str, ...]:
    """The direction words of a name, "north-west" and "northwest" alike."""
    tokens = words(name)
    joined = [a + b for a, b in zip(tokens, tokens[1:]) if a + b in DIRECTIONS and a in DIRECTIONS]
    singles = [t for t in tokens if t in DIRECTIONS]
    return tuple(sorted(joined or singles))


def _similar_rest(x: list[str], y: list[str]) -> bool:
    """The words of two names other than direction and linking words are the same: the direction word
    is what tells them apart ("Asia" / "Eastern Asia"; not "Korea, Republic of" / "South Korea")."""
    rx = {t for t in x if t not in DIRECTIONS and t not in _LINKING}
    ry = {t for t in y if t not in DIRECTIONS and t not in _LINKING}
    return bool(rx) and rx == ry


def _middle(tokens: list[str]) -> list[str]:
    return [t for t in tokens[1:-1] if t not in _LINKING]


def name_contradiction(x: str, y: str) -> str | None:
    """Why names `x` and `y` name different things, or None (see the module docstring)."""
    nx, ny = numbers(x), numbers(y)
    if nx != ny:
        return f"different numbers in the names ({x!r}, {y!r})"
    tx, ty = words(x), words(y)
    dx, dy = directions(x), directions(y)
    if dx != dy and ((dx and dy) or _similar_rest(tx, ty)):
        return f"different direction words ({', '.join(dx) or 'none'} / {', '.join(dy) or 'none'})"
    if len(tx) >= 2 and len(ty) >= 2 and tx[-1] == ty[-1]:
        if tx[0] == ty[0] and _middle(tx) != _middle(ty):
            return f"different middle names or initials ({x!r}, {y!r})"
        ix, iy = tx[0], ty[0]
        if (len(ix) == 1 or len(iy) == 1) and ix[0] != iy[0]:
            return f"different initials ({x!r}, {y!r})"
    if len(tx) == len(ty) >= 2:
        differ = [(a, b) for a, b in zip(tx, ty) if a != b]
        if len(differ) == 1:
            a, b = sorted(differ[0], key=len)
            if len(a) >= 4 and len(b) == len(a) + 1 and b.startswith(a) and len(b) <= 8:
                return f"a name with one more letter ({a!r}, {b!r})"
    return None
