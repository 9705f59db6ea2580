"""Text normalisation shared by every layer: one name normaliser, one word
tokenizer, one light stemmer, one relation key.

`normalize` compares names (entity linking, answer matching); `fold` lowercases
and strips accents without changing length (so offsets stay valid); `tokenize`
gives word tokens with offsets, stems and a content flag; `words` is the bag of
folded words that lexical scorers (BM25, token coverage) use.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

_SPACES = re.compile(r"\s+")

# Same-length replacements: typographic quotes and dashes look different but
# mean the same in names. Being one-to-one keeps character offsets valid, so
# find_mentions can apply it to text before matching.
_LOOKALIKES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "`": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2039": "'",
        "\u203a": "'",
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u00a0": " ",
    }
)
# Sentence punctuation and quotes around a name are not part of it; brackets
# and symbols such as '+' or '#' can be ('C++', 'Up (film)'), so they stay.
_EDGE_CHARS = " \t\r\n\"'.,;:!?\u2026"
_PAIRS = {"(": ")", "[": "]", "{": "}"}


def clean_text(text: str) -> str:
    """Text as kgtool reads a name or a question: format characters (zero-width spaces and joiners, BOM,
    bidi marks) removed, as they sit inside words and go without a trace; control characters and other
    separators read as a space; spaces collapsed. The one rule for names at ingest (through `normalize`)
    and for questions (kgtool.reason.runner), so a name with such characters can be asked about."""
    if text.isascii() and text.isprintable():
        return " ".join(text.split())
    kept = "".join("" if unicodedata.category(ch) == "Cf" else ch if ch.isprintable() else " " for ch in text)
    return " ".join(kept.split())


@lru_cache(maxsize=1 << 16)
def normalize(text: str) -> str:
    """Normalise a name for comparison: NFKC, unified quotes/dashes, casefold,
    collapsed whitespace, without surrounding punctuation or quotes.

    >>> normalize('  “Hey   Jude.” ')
    'hey jude'

    Pure and cached: corpora repeat the same names constantly.
    """
    text = unicodedata.normalize("NFKC", clean_text(text)).translate(_LOOKALIKES).casefold()
    text = _SPACES.sub(" ", text).strip(_EDGE_CHARS)
    # a name wrapped whole in brackets, e.g. "(Hey Jude)", loses the brackets
    while len(text) >= 2 and _PAIRS.get(text[0]) == text[-1] and _balanced(text[1:-1]):
        text = text[1:-1].strip(_EDGE_CHARS)
    return text


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0



# Function words and question glue. They carry no relation meaning, so they
# neither count as parts of the question to explain nor as lexical evidence.
# Kept general English on purpose: no word here is tied to a relation.
STOPWORDS: frozenset[str] = frozenset(
    """a an the and or but nor of in on at to for from by with as into onto upon
    about over under within without through between among per via than then
    is are was were be been being am do does did done has have had having
    will would shall should can could may might must
    it its it's this that these those there here their theirs they them he him
    his she her hers we our ours you your yours i me my mine one ones
    what which who whom whose where when why how whats
    s t also just only very much many some any all each both either neither
    not no yes so such same other another own
    if whether while since until though although because
    thing things something someone somebody anything anyone
    whereas thus hence""".split()
)

_WORD = re.compile(r"\w+(?:['’]\w+)*")

# Inflectional and common derivational endings, longest first. Stripping them
# is enough for phrase matching ("citizenship"/"citizen", "creator"/"created");
# a full morphological analyser would be overkill for short relation phrases.
_SUFFIXES: tuple[str, ...] = (
    "ships", "ship", "hoods", "hood", "ions", "ion",
    "ments", "ment", "nesses", "ness", "ings", "ing", "ers", "er", "ors", "or",
    "edly", "ed", "ies", "es", "s", "ly", "al",
)
_MIN_STEM = 3
_MIN_PREFIX = 5


def fold(text: str) -> str:
    """Lowercase and strip accents so spellings of one name meet.

    Length-preserving (one character in, one out), so offsets found in the
    folded text are valid in the original.
    """
    if text.isascii():
        return text.lower()
    out = []
    for ch in text:
        low = ch.lower()
        if len(low) != 1:
            low = ch
        base = "".join(c for c in unicodedata.normalize("NFKD", low) if not unicodedata.combining(c))
        out.append(base.lower() if len(base) == 1 else low)
    return "".join(out)


# a pure function of one word, asked for ~10k times an answer (every token of every text tokenised)
@lru_cache(maxsize=1 << 16)
def light_stem(word: str) -> str:
    """Strip one inflectional/derivational ending, then normalise a final y."""
    w = fold(word).replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = w.replace("'", "")
    for suffix in _SUFFIXES:
        # Some endings need a longer remainder: "nation" is not "nat" + ion,
        # "author" is not "auth" + or.
        min_stem = {"ion": 4, "ions": 4, "or": 5, "ors": 5}.get(suffix, _MIN_STEM)
        if w.endswith(suffix) and len(w) - len(suffix) >= min_stem:
            if suffix == "ies":
                w = w[:-3] + "i"
            elif suffix in ("es",) and not w[:-2].endswith(("s", "x", "z", "ch", "sh")):
                w = w[:-1]  # "languages" -> "language", not "languag"
            elif suffix == "s" and w.endswith(("ss", "us", "is")):
                pass
            else:
                w = w[: -len(suffix)]
            break
    # Doubled consonant left by -ed/-ing/-er ("planned", "runner").
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]
    if len(w) > 3 and w.endswith("y"):
        w = w[:-1] + "i"
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]
    return w


def stems_match(a: str, b: str) -> bool:
    """Equal stems, or one a prefix of the other and long enough to be telling."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= _MIN_PREFIX and long_.startswith(short) and len(short) / len(long_) >= 0.6


@dataclass(frozen=True)
class Token:
    text: str
    stem: str
    start: int
    end: int
    content: bool


def tokenize(text: str, exclude: Sequence[tuple[int, int]] = ()) -> list[Token]:
    """Word tokens with character offsets; tokens inside `exclude` spans are dropped."""
    # a pure function of its arguments, and the planner's phrase scorers tokenise the same few phrases
    # and glosses tens of thousands of times an answer (~10 % of an answer's time); a new list each
    # call, since callers may change theirs (Tokens are frozen). Passages and sentences are rarely
    # tokenised twice: they are not kept, so the cache stays a few MB
    exclude = tuple((int(s), int(e)) for s, e in exclude)
    if len(text) > _MEMO_CHARS:
        return list(_tokenize.__wrapped__(text, exclude))
    return list(_tokenize(text, exclude))


_MEMO_CHARS = 200


@lru_cache(maxsize=1 << 15)
def _tokenize(text: str, exclude: tuple[tuple[int, int], ...]) -> tuple[Token, ...]:
    out: list[Token] = []
    for m in _WORD.finditer(text):
        start, end = m.span()
        if any(s <= start < e or s < end <= e for s, e in exclude):
            continue
        word = m.group(0)
        low = fold(word)
        base = low.split("'")[0].split("’")[0]
        content = base not in STOPWORDS and low not in STOPWORDS and not low.isdigit() and len(base) > 1
        out.append(Token(word, light_stem(word), start, end, content))
    return tuple(out)



def content_stems(text: str) -> list[str]:
    return [t.stem for t in tokenize(text) if t.content]


_PLAIN_WORD = re.compile(r"\w+")


def words(text: str | None, *, drop_stopwords: bool = True) -> list[str]:
    """Folded word tokens (no offsets), stopwords optionally dropped: what lexical scorers index."""
    if not text:
        return []
    found = _PLAIN_WORD.findall(fold(text))
    if drop_stopwords:
        found = [w for w in found if w not in STOPWORDS]
    return found


@lru_cache(maxsize=1 << 16)
def normalise_label(label: str) -> str:
    """A relation label or phrase folded, with its whitespace collapsed."""
    return re.sub(r"\s+", " ", fold(label)).strip()


_PARENS = re.compile(r"\s*\([^()]*\)")


def strip_disambiguation(title: str) -> str:
    """A page title as the name it is about: 'Hello Love (song)' -> 'Hello Love'. Every parenthesis goes,
    not only a trailing one ('Gold (band) discography' is about Gold's records): the one stripper the
    ingest's aliases, the passages' titles and the readers' answers share."""
    return _PARENS.sub("", title).strip() or title.strip()


def relation_key(label: str, relation_id: str | None = None) -> str:
    """Facts of one relation share this key: its id when known, else its normalised label."""
    return relation_id.strip() if relation_id and relation_id.strip() else "rel:" + normalize(label)
