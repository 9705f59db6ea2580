"""Reading a question's relation phrases, in hop order, from its structure.

A multi-hop question names a chain of relations around one topic entity. English
nests them in a few ways, and each way fixes the order:

* possessives read outwards to the right: "T's a's b" is a, then b;
* "of" phrases read outwards to the left: "the b of the a of T" is a, then b;
  possessives bind tighter ("the b of T's a" is a, then b);
* relative clauses wrap the phrase they modify: "the firm employing T", "the
  company T works for", "the city where T was born" are each one relation,
  whose words sit on both sides of T;
* the question's frame ("Where was ... born?", "... is a citizen of which
  country?") names the last relation, or only the answer's type ("Which city is
  ...?", "Who is ...?").

`read_question` takes the question and the character span of its topic mention
and returns the relation phrases nearest-first (`Segment`s), with the
question word's answer-type hint. Only closed-class English words (articles,
auxiliaries, prepositions, question words and relative pronouns) are known
here; every other word is left for the graph to explain, so the reading holds
for any vocabulary of relations.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from kgtool.reason.lexicon import Lexicon
from kgtool.reason.reading.words import (
    AUXILIARIES, BE_FINITE as _BE, DETERMINERS, DO_FORMS as _DO, FREE_RELATIVES as _FREE_RELATIVES, FUNCTION_WORDS,
    GENERIC_NOUNS, IRREGULAR_PARTICIPLES, PREPOSITIONS, PRONOUNS, QUESTION_WORDS, RELATIVE_PRONOUNS, WHICH_WHAT,
)

# words keep inner hyphens, slashes and dots ("director/manager", "S.p.A"); "'s" is a word of its own
_WORD = re.compile(r"[’']s\b|\w+(?:[-/.]\w+)*|[^\w\s]", re.UNICODE)

# imperative openings of a request ("Name the ...", "Tell me ...")
IMPERATIVES = frozenset("name tell give list identify find show".split())
# nouns that name the answer itself rather than a relation ("the name of ...")
_NAMING = frozenset("name names title".split())
_PLACE_WORDS = {"where": "place", "who": "person", "whom": "person", "when": "time"}


@dataclass(frozen=True)
class Segment:
    """One relation phrase of the question: its words in question order and where they are."""

    words: tuple[str, ...]  # every word of the phrase (articles dropped)
    spans: tuple[tuple[int, int], ...]  # character spans of those words in the question
    optional: bool = False  # only the answer's type ("which city"): a hop may explain it, none must
    # the question's frame verb ("Who leads the government of ..."): often the last relation, but
    # often only a verb for the phrase before it, so a path may end without a hop of its own for it
    soft: bool = False
    # said without an article of its own ("birth" in "the place of birth", a frame's words): it
    # may be one relation with the phrase next to it; two phrases that each have their article
    # or possessive ("the head of government of the state", "T's mom's home country") are two
    bare: bool = False
    # the answer owns the phrase's noun ("the country whose capital is T", "Which country's currency is
    # T?"): the relation is the answer's own, read from its side, and T is its object
    owned: bool = False

    @property
    def text(self) -> str:
        return " ".join(self.words)

    @property
    def content(self) -> tuple[str, ...]:
        """The words a relation must account for (function words left out)."""
        return tuple(w for w in self.words if w.lower() not in FUNCTION_WORDS and w not in ("'s", "’s"))


@dataclass(frozen=True)
class QuestionReading:
    """A question's relation phrases, nearest the topic first, and what the answer should be."""

    question: str
    topic: tuple[int, int]
    segments: tuple[Segment, ...] = ()
    answer_type: str | None = None  # "person", "place", "time", or the noun after which/what

    @property
    def required(self) -> tuple[Segment, ...]:
        return tuple(s for s in self.segments if not s.optional and s.content)


@dataclass
class _Tok:
    text: str
    start: int
    end: int

    @property
    def low(self) -> str:
        return self.text.lower().replace("’", "'")


@dataclass
class _Chunk:
    """Words of one layer left of the topic, and how it joins the layer inside it."""

    toks: list[_Tok] = field(default_factory=list)
    joined_by_of: bool = False  # "... <chunk> of <inner>": a noun with its argument, not a clause
    owned: bool = False  # the words after "whose": the noun the outer layer's head owns
    kind: bool = False  # "the country whose": the head only says what the owner is, as a type word does


def tokenize_question(question: str) -> list[_Tok]:
    return [_Tok(m.group(), m.start(), m.end()) for m in _WORD.finditer(question)]


def read_question(question: str, topic: tuple[int, int]) -> QuestionReading:
    """The relation phrases of `question` around the topic mention at character span `topic`."""
    toks = tokenize_question(question)
    left = [t for t in toks if t.end <= topic[0]]
    right = [t for t in toks if t.start >= topic[1]]  # a word overlapping the mention is the mention
    while right and not (right[-1].text[0].isalnum() or right[-1].low == "'s"):
        right.pop()  # closing punctuation
    while left and not left[0].text[0].isalnum():
        left.pop(0)
    # quotes or brackets around the mention ('the performer of "T" holds ...') belong to the
    # name, not to a layer of the question: a stray quote would take the clause's verb
    while left and not left[-1].text[0].isalnum():
        left.pop()
    while right and not (right[0].text[0].isalnum() or right[0].low == "'s"):
        right.pop(0)
    segments: list[Segment] = []

    # 1. the possessive chain right of the topic, outwards
    i = 0
    while i < len(right) and right[i].low == "'s":
        j = i + 1
        while j < len(right) and not _ends_possessed(right, j):
            j += 1
        if j > i + 1:
            segments.append(_segment(right[i + 1 : j]))
        i = j
    verb_part = right[i:]  # a clause's verb, or the frame's predicate, said after the topic

    # 2. the layers left of the topic, innermost first
    chunks = _left_chunks(left)
    frame: list[_Tok] = []
    if chunks and _is_frame(chunks[-1].toks):
        frame = chunks.pop().toks
    if segments and all(t.low in PREPOSITIONS for t in verb_part):
        # "Where does T's zorb come from?", "the glorp that T's zorb comes from": a clause
        # still needs its verb, so the subject's last word is it
        waiting = _clause_owner(chunks)
        needs_verb = any(t.low in _DO for t in frame) or (
            waiting is not None and chunks[waiting].toks[-1].low in RELATIVE_PRONOUNS) or (
            any(t.low in AUXILIARIES for t in frame) and _is_participle(segments[-1].words[-1].lower()))
        if needs_verb and len(segments[-1].words) > 1:
            last = segments.pop()
            segments.append(Segment(last.words[:-1], last.spans[:-1]))
            s, e = last.spans[-1]
            verb_part = [_Tok(last.words[-1], s, e), *verb_part]
    elif segments and not frame and _opens_with_wh_phrase(verb_part) and len(segments[-1].words) > 1:
        # "The zorb of T's flimp grobs in which wint?": no frame and no auxiliary, so the
        # subject's last word is the sentence's verb
        last = segments.pop()
        segments.append(Segment(last.words[:-1], last.spans[:-1]))
        s, e = last.spans[-1]
        verb_part = [_Tok(last.words[-1], s, e), *verb_part]
    # 3. the verb part belongs to the innermost relative clause still waiting for its verb, else the frame
    first = 0
    if chunks and verb_part and all(t.low in DETERMINERS for t in chunks[0].toks):
        # 'the "Zorb" flimp grobbed in ...': the topic modifies the noun after it, whose phrase
        # ends where the clause's verb or a function word starts
        j = 0
        # after "does"/"did" the clause still needs its verb, the last content word said after the topic
        # ("Which firm does the Orvo Group own?": "own" is no noun the name modifies)
        stop = len(verb_part)
        if len(chunks) > 1 and not chunks[1].joined_by_of and chunks[1].toks[-1].low in RELATIVE_PRONOUNS:
            # "the N that the X <verb>s": a relative clause waits for its verb, which
            # the word after the name is; the article is the name's own
            stop = 0
        elif any(t.low in _DO for t in frame):
            stop = max((i for i, t in enumerate(verb_part) if _is_content(t)), default=0)
        while j < stop and _is_content(verb_part[j]) and not (j and _is_participle(verb_part[j].low)):
            j += 1
        if j:
            chunks[0] = _Chunk(chunks[0].toks + verb_part[:j], chunks[0].joined_by_of)
            verb_part, first = verb_part[j:], 1
        else:
            chunks.pop(0)  # "<verb> the X ...": the article is the name's own
    owner = _clause_owner(chunks, first) if verb_part else None
    if owner is not None:
        chunks[owner] = _Chunk(chunks[owner].toks + verb_part, chunks[owner].joined_by_of)
        verb_part, owner = [], None
    for k in range(len(chunks) - 1, -1, -1):
        toks = chunks[k].toks
        at = next((i for i, t in enumerate(toks[:-1]) if t.low == "whose"), None)
        if at is not None:
            # "the country whose citizen is married to T": the noun after "whose" and its verb
            # form a layer of their own inside the head's ("citizen ... married to", then "country")
            # "the country whose capital is T" (a noun and "is"): T is the owner's capital, one hop reaches
            # the owner, and its head only says what the owner is; with a verb ("whose citizen is married
            # to T") the head's noun names the hop from the noun's holder to it
            owned = toks[at + 1:]
            copula = len(owned) > 1 and owned[-1].low in _BE and all(_is_content(t) for t in owned[:-1])
            chunks[k:k + 1] = [_Chunk(owned, chunks[k].joined_by_of, owned=True),
                               _Chunk(toks[:at + 1], False, kind=copula)]
    for k, chunk in enumerate(chunks):
        words = chunk.toks + (verb_part if k == owner else [])
        content = [t.low for t in words if _is_content(t)]
        if content:
            naming = k == len(chunks) - 1 and all(w in _NAMING for w in content)
            segments.append(_segment(words, optional=naming or chunk.kind, owned=chunk.owned,
                                     bare=chunk.toks[0].low not in DETERMINERS))
    frame_words = frame + (verb_part if owner is None else [])
    answer_type = _answer_type(frame_words)
    owned = _owned_by_type(frame_words)
    type_words: list[_Tok] = []
    if owned is not None:
        # "Which country's currency is T?": the answer is a country, and the relation is its currency;
        # the type is a hint of its own, said after the relation phrase, as a type frame is
        type_words, frame_words = frame_words[:owned], frame_words[owned:]
    frame_content = [t for t in frame_words if _is_content(t)]
    if frame_content:
        # a frame that only names the answer's type ("Which city is ...") is a hint, unless
        # nothing else in the question names a relation
        only_type = answer_type is not None and [t.low for t in frame_content] == answer_type.split()
        optional = only_type and bool(segments)
        segments.append(_segment(frame_words, optional=optional, soft=not optional and bool(segments), bare=True,
                                 owned=bool(type_words)))
    if type_words:
        segments.append(_segment(type_words, optional=True, bare=True))
    return QuestionReading(question, topic, tuple(segments), answer_type)


def _owned_by_type(frame: list[_Tok]) -> int | None:
    """Where the possessed phrase starts in a frame opening "(prep) which/what <noun>'s <noun> ...", or None."""
    k = 1 if frame and frame[0].low in PREPOSITIONS else 0
    if len(frame) < k + 4 or frame[k].low not in WHICH_WHAT:
        return None
    j = k + 1
    while j < len(frame) and _is_content(frame[j]):
        j += 1
    if j == k + 1 or j >= len(frame) - 1 or frame[j].low not in ("'s", "’s"):
        return None
    return j + 1 if any(_is_content(t) for t in frame[j + 1:]) else None


def _ends_possessed(right: list[_Tok], j: int) -> bool:
    """Does the noun phrase after a possessive stop before right[j]?"""
    tok = right[j]
    if tok.low == "'s" or not tok.text[0].isalnum():
        return True
    if tok.low in AUXILIARIES or tok.low in QUESTION_WORDS or tok.low in RELATIVE_PRONOUNS or tok.low in DETERMINERS:
        return True
    if tok.low in PREPOSITIONS:
        # "country of citizenship": "of" and a bare noun continue the phrase; any other
        # preposition, or "of the ...", starts the clause or frame around it
        nxt = right[j + 1] if j + 1 < len(right) else None
        return not (tok.low == "of" and nxt is not None and nxt.low not in FUNCTION_WORDS)
    return False


def _left_chunks(left: list[_Tok]) -> list[_Chunk]:
    """Split the words left of the topic into layers, innermost (nearest the topic) first.

    A layer ends at "of" (a noun and its argument) and a new one starts at an
    article (a noun phrase inside a clause: "the person who leads | the
    government of ...").
    """
    chunks: list[_Chunk] = []
    current: list[_Tok] = []
    of_next = False  # the layer being read is joined to the inner one by "of"
    for tok in reversed(left):
        if tok.low == "of":
            if current:
                chunks.append(_Chunk(current, of_next))
            current, of_next = [], True
            continue
        current.insert(0, tok)
        if tok.low in DETERMINERS or tok.low in _FREE_RELATIVES:
            chunks.append(_Chunk(current, of_next))
            current, of_next = [], False
    if current:
        chunks.append(_Chunk(current, of_next))
    chunks = [c for c in chunks if c.toks]
    # "the country of citizenship of the zorb of T": a bare noun between two noun phrases with
    # articles completes the noun before it rather than naming a layer (next to the topic it is
    # left apart: "the flimp of zorb of T" has no articles to tell, and the planner may still
    # read two neighbouring phrases as one relation)
    out: list[_Chunk] = []
    k = 0
    while k < len(chunks):
        chunk = chunks[k]
        bare = chunk.joined_by_of and chunk.toks[0].low not in DETERMINERS and all(_is_content(t) for t in chunk.toks)
        # next to the topic the articles further out tell: a question that says "the" on two
        # layers outside this one ("the nation of the city of birth of T") writes its layers
        # with articles, so a bare noun here is a complement ("the flimp of zorb of T" is not)
        articled = (out and out[-1].toks[0].low in DETERMINERS) or (
            not out and any(c.toks[0].low in DETERMINERS for c in chunks[k + 2:]))
        if (bare and articled and k + 1 < len(chunks)
                and chunks[k + 1].joined_by_of and chunks[k + 1].toks[0].low in DETERMINERS):
            outer = chunks[k + 1]
            of = _Tok("of", outer.toks[-1].end + 1, outer.toks[-1].end + 3)
            out.append(_Chunk(outer.toks + [of] + chunk.toks, True))
            k += 2
            continue
        out.append(chunk)
        k += 1
    return _light_clauses(out)


def _light_clauses(chunks: list[_Chunk]) -> list[_Chunk]:
    """"the person who leads | the government of T": a clause with a generic head says its
    relation with its verb and the noun of its object together, so the two are one layer.
    Not when the object is a person ("the one who married | the creator of T"): a person is
    someone the clause reaches through a relation of its own, not the domain of its verb."""
    out: list[_Chunk] = []
    for chunk in chunks:  # innermost first
        if (out and _light_head(chunk.toks) and not chunk.joined_by_of and _plain_noun(out[-1])
                and not _names_person(out[-1].toks[-1].low)):
            inner = out.pop()
            out.append(_Chunk(chunk.toks + inner.toks, inner.joined_by_of))
        else:
            out.append(chunk)
    return out


def _names_person(noun: str) -> bool:
    """Does WordNet file the noun under people (kgtool.reason.lexicon)? False without the lexicon:
    the clause and its object are then read as one layer, as they always were."""
    from kgtool.reason.lexicon import Lexicon  # the reading stays usable without the lexicon package

    lexicon = Lexicon.load()
    return lexicon is not None and lexicon.names_person(noun)


def _light_head(toks: list[_Tok]) -> bool:
    """A complete clause on a generic head: "the person who founded", "whoever started"."""
    words = [t.low for t in toks if t.low not in DETERMINERS]
    if len(words) < 2 or words[-1] in RELATIVE_PRONOUNS or words[-1] in PREPOSITIONS:
        return False
    head = words[0]
    return (head in _FREE_RELATIVES) or (head in GENERIC_NOUNS and words[1] in RELATIVE_PRONOUNS)


def _plain_noun(chunk: _Chunk) -> bool:
    """An article and nouns, followed by "of": the object noun of a clause before it."""
    return (chunk.joined_by_of and chunk.toks[0].low in DETERMINERS
            and all(_is_content(t) for t in chunk.toks[1:]) and len(chunk.toks) > 1)


def _is_frame(toks: list[_Tok]) -> bool:
    """The question's opening: a question word, a preposition + question word, or an imperative."""
    first = toks[0].low
    if first in QUESTION_WORDS or first in AUXILIARIES:
        return True
    if first in PREPOSITIONS and len(toks) > 1 and toks[1].low in QUESTION_WORDS:
        return True
    return first in IMPERATIVES and (len(toks) == 1 or toks[1].low in DETERMINERS | PRONOUNS)


def _opens_with_wh_phrase(toks: list[_Tok]) -> bool:
    """"in which wint", "which wint": a question phrase with no verb of its own."""
    words = [t.low for t in toks]
    if words and words[0] in PREPOSITIONS:
        words = words[1:]
    return bool(words) and words[0] in QUESTION_WORDS and not any(w in AUXILIARIES for w in words)


def _clause_owner(chunks: list[_Chunk], first: int = 0) -> int | None:
    """Which layer a verb said after the topic completes: the innermost relative clause
    that has no verb yet ("the company T works for", "the city where T was born"), looking
    outwards past complete clauses ("the firm employing T") and nouns with their "of"
    argument ("the city where the sport of T was invented")."""
    for k, chunk in enumerate(chunks):
        if k >= first and not chunk.joined_by_of and _awaits_verb(chunk.toks):
            return k
    return None


def _awaits_verb(toks: list[_Tok]) -> bool:
    last = toks[-1].low
    if last in RELATIVE_PRONOUNS:
        return True
    if any(t.low in RELATIVE_PRONOUNS for t in toks[1:]):
        return False  # "the person who founded": the clause has its verb
    if last in PREPOSITIONS or _looks_participle(last):
        return False  # "the person married to", "the firm employing", "the sport played by"
    return True  # "the company": a bare noun right before the topic takes the clause after it


def _is_participle(word: str) -> bool:
    return word.endswith("ed") or word in IRREGULAR_PARTICIPLES


def _looks_participle(word: str) -> bool:
    return len(word) > 4 and (word.endswith("ing") or word.endswith("ed"))


def _is_content(tok: _Tok) -> bool:
    return tok.text[0].isalnum() and tok.low not in FUNCTION_WORDS and tok.low not in IMPERATIVES


def _answer_type(frame: list[_Tok]) -> str | None:
    """"which country" -> "country"; "where" -> "place"; "who" -> "person"."""
    for k, tok in enumerate(frame):
        if tok.low in WHICH_WHAT:
            noun = []
            for nxt in frame[k + 1 :]:
                if not _is_content(nxt):
                    break
                noun.append(nxt.low)
            # an opening with nothing after its words ("what killed T's kid", "which firm built T's car"), or
            # only a preposition ("which river runs through T"): the last is the frame's verb, and a word
            # before it the answer's type
            if noun and k == 0 and (k + 1 + len(noun) == len(frame) or _verb_before(noun, frame[k + 1 + len(noun)])):
                return " ".join(noun[:-1]) or None
            if noun:
                return " ".join(noun)
        if tok.low in _PLACE_WORDS:
            return _PLACE_WORDS[tok.low]
    return None


def _verb_before(noun: list[str], nxt: _Tok) -> bool:
    """Is the last word of the words after "which" the frame's verb, a preposition after it ("which river
    runs through T", "which firm moved to T"): a finite verb form, the words before it a noun, and the last
    two no noun WordNet lists ("football teams in T" stays a noun)?"""
    if len(noun) < 2 or nxt.low not in PREPOSITIONS:
        return False
    lex = Lexicon.load()
    return lex is not None and lex.finite_base(noun[-1]) is not None and not lex.sense_count(" ".join(noun[-2:]), "n")


def _segment(toks: list[_Tok], *, optional: bool = False, soft: bool = False, bare: bool = False,
             owned: bool = False) -> Segment:
    kept = [t for t in toks if t.low not in DETERMINERS and t.text[0].isalnum()]
    return Segment(tuple(t.text for t in kept), tuple((t.start, t.end) for t in kept), optional, soft, bare, owned)
