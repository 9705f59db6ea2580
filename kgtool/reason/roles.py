"""Who does what to whom: the role a relation phrase gives the answer, on both sides of a hop.

A phrase can fit a relation in meaning and still name it backwards. "Who gave birth
to X?" is close to "born in" (both about birth), but its answer is the one who gives
birth, while "X born in Y" makes Y a place; "Which company was founded by X?" asks for
what X founded, not for X's founder. Similarity scores cannot see this: the words are
the same either way. Grammar can, on both sides, with closed-class English only:

- the question's phrase: is the answer the doer of its verb ("who gave birth to",
  "the firm employing", "the person who founded", "... is X employed by"), the one
  done to ("which company was founded by", "who was born in", "whom does X
  employ"), or only an adverbial ("where was X born", "the company X works for")?
  A noun phrase ("X's mother") says nothing here;
- the relation's own phrasings (its label, and the graph's cloze templates, whose
  "{}" slot puts the subject in place): "{} was born in" makes the head the one
  born and the tail the object of "in"; "{} is employed by" makes the tail the doer;
  a noun that shares its stem with the question's verb is that verb's doer
  ("employer" for "employs"), or the one done to for an "-ee" noun ("employee");
- the hop's direction says which of head and tail is the answer.

Two readings conflict when one side makes the answer the doer and the other the one
done to, or when the question asks for a person ("who", "whoever", "the person
who") and the relation makes the answer the object of a place preposition ("in",
"at": "X born in <place>"). Everything else, and every phrase or relation this
grammar cannot read, is no conflict: the check only ever removes credit.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from kgtool.core.text import content_stems, light_stem, stems_match
from kgtool.reason.lexicon import LIGHT_VERB_SENSES, VERB_SENSES, Lexicon
from kgtool.reason.question import AUXILIARIES, FUNCTION_WORDS, PREPOSITIONS, Segment
from kgtool.reason.reading.words import (
    ADVERBIAL_RELATIVES as _ADVERBIAL, ARTICLES as _ARTICLES, BE_FORMS as _BE, CLAUSE_CLOSERS, DETERMINERS,
    DO_FORMS as _DO, GENERIC_PERSONS as _PERSON_NOUNS, NOUN_WH, OBJECT_WH, PERSON_MARKERS as _PERSON_MARKERS,
    IRREGULAR_PARTICIPLES, PLACE_PREPOSITIONS as _PLACE_PREPOSITIONS, SUBJECT_MARKERS as _SUBJECT_MARKERS,
)

AGENT, PATIENT, OBLIQUE = "agent", "patient", "oblique"
# verbs whose two sides do the same to each other ("a married b" is "b married a"): a relationship type
# named by one does not make its head the doer (a closed class of English)
_RECIPROCAL = frozenset(
    "marry wed divorce date meet partner ally twin merge border neighbor neighbour collaborate befriend "
    "rival resemble".split())
# verbs whose bare past participle names a state, not a deed ("a located b" is "a is located in b"):
# read as a finite verb they would make the head the doer
_STATIVE = frozenset("locate base situate headquarter name call title relate associate affiliate connect "
                     "link bear".split())


@dataclass(frozen=True)
class PhraseRole:
    """The role a question's phrase gives its answer, and what it needs to be compared."""

    answer: str | None = None  # AGENT, PATIENT, OBLIQUE, or None (a noun phrase, or not readable)
    verb: tuple[str, ...] = ()  # stems of its verb
    noun: tuple[str, ...] = ()  # stems of its head noun, when it is a noun phrase
    noun_kind: str | None = None  # AGENT for "-er/-or" nouns, PATIENT for "-ee" nouns
    person: bool = False  # the answer is a person ("who ...", "the person who ...")
    # the noun is said of the inner entity, the answer is its complement ("which company is X the
    # founder of": X is the founder, the answer what X founded)
    predicate: bool = False
    # the answer is the clause's "where" or "when" ("where was X founded"): a place or a time, never
    # the doer of its verb
    adverbial: bool = False


@dataclass(frozen=True)
class RelationRole:
    """The roles a relation's phrasing gives its head and tail (None where it does not say)."""

    head: str | None = None
    tail: str | None = None
    tail_place: bool = False  # the tail is the object of a place preposition ("born in")
    verb: tuple[str, ...] = ()
    noun: tuple[str, ...] = ()  # stems of its head noun, for a noun label ("employer")
    noun_kind: str | None = None
    # a noun label said with its preposition ("citizen of", "member of"): the noun names the head, which
    # is the tail's citizen or member, where a bare noun ("founder") names the tail
    names_head: bool = False


def _finite_base(word: str) -> str | None:
    """The base of a verb said finite ("acquired", "operates", "bought" -> "acquire", "operate",
    "buy"): WordNet's verb tables when they are installed, else only a word ending in -ed."""
    lexicon = Lexicon.load()
    if lexicon is not None:
        return lexicon.finite_base(word)
    return word[:-2] if len(word) > 4 and word.endswith("ed") else None


def _present_participle(word: str) -> str | None:
    """The base of a verb's -ing form that is no noun ("starring", "featuring" -> "star", "feature"; not
    "painting" or "building", which WordNet lists as nouns), from the verb tables; None without them."""
    lexicon = Lexicon.load()
    if lexicon is None or not word.endswith("ing") or len(word) < 6:
        return None
    base = lexicon.verb_base(word)
    return base if base != word and lexicon.sense_count(word, "n") == 0 else None


def _bare_verb(words: Sequence[str]) -> bool:
    """Does the clause start with a finite verb said right before its object or preposition (or
    at the phrase's end), as in "which company acquired | X", "which firm works for | X"?"""
    return bool(words) and _finite_base(words[0]) is not None and (
        len(words) == 1 or words[1] in PREPOSITIONS or words[1] in _ARTICLES)


def _participle(word: str) -> bool:
    return (len(word) > 4 and word.endswith("ed")) or word in IRREGULAR_PARTICIPLES


def _content(word: str) -> bool:
    return word[:1].isalnum() and word not in FUNCTION_WORDS


def _noun_kind(word: str) -> str | None:
    if word.endswith("ee") and len(word) > 4:
        return PATIENT
    if len(word) > 4 and word.endswith(("er", "or", "ist", "ant")):
        return AGENT
    return None


def _first_preposition(words: Sequence[str]) -> str | None:
    return next((w for w in words if w in PREPOSITIONS), None)


def _clause(words: list[str], *, subject_is_answer: bool) -> tuple[str | None, tuple[str, ...]]:
    """The answer's role in a clause read from its auxiliaries on ("was founded by", "works for",
    "does ... employ"), and its verb's stems; the clause's subject is the answer or the inner entity."""
    aux = []
    while words and words[0] in AUXILIARIES:
        aux.append(words.pop(0))
    if not words or not _content(words[0]):
        return None, ()
    verb, rest = words[0], words[1:]
    stems = tuple(content_stems(verb))
    passive = _participle(verb) and any(a in _BE for a in aux) and not any(a in _DO for a in aux)
    if any(a in _BE for a in aux) and not passive:
        return None, ()  # "is a citizen of": a noun predicate, read by the noun rules
    by = "by" in rest[:3]
    if subject_is_answer:
        if passive:
            return PATIENT, stems  # "which company was founded by", "who was born in"
        return AGENT, stems  # "who gave birth to", "the firm employing"
    if passive and by:
        return AGENT, stems  # "which company is X employed by"
    if passive:
        return OBLIQUE, stems  # "where was X born"
    prep = _first_preposition(rest)
    return (OBLIQUE if prep else PATIENT), stems  # "the company X works for", "whom does X employ"


def segment_role(seg: Segment, topic: tuple[int, int]) -> PhraseRole:
    """The role `seg` gives its answer (see the module docstring); `topic` is the topic mention's span:
    words right of it follow the inner entity, which is then the subject of their clause."""
    low = [w.lower() for w in seg.words]
    if seg.owned and low and low[-1] in _BE and all(_content(w) for w in low[:-1]):
        # "the country whose capital is T", "Which country's currency is T?": T is the noun's, and the
        # answer what T is that of, as in "which country is T the capital of"
        said = _noun_phrase(low[:-1], False)
        return PhraseRole(noun=said.noun, noun_kind=said.noun_kind, predicate=True)
    left = [w.lower() for w, (s, e) in zip(seg.words, seg.spans) if e <= topic[0]]
    right = [w.lower() for w, (s, e) in zip(seg.words, seg.spans) if s >= topic[1]]
    right = right[:next((k for k, w in enumerate(right) if w in CLAUSE_CLOSERS), len(right))]
    person = bool(set(left) & _PERSON_MARKERS) or any(w in _PERSON_NOUNS for w in left[:2])
    if right and (left or right[0] in AUXILIARIES):
        # "the company X works for", "where was X born", "X is a citizen of which country": the
        # auxiliaries said before the inner entity belong to its clause ("which company is X employed by")
        role, verb = _clause([w for w in left if w in AUXILIARIES] + right, subject_is_answer=False)
        fronted = any(w in PREPOSITIONS and nxt in _SUBJECT_MARKERS | OBJECT_WH
                      for w, nxt in zip(left, left[1:]))
        if role is not None and (set(left) & _ADVERBIAL or fronted or (left and left[0] in PREPOSITIONS)):
            # "the country where X originated", "the country from which X comes", "for which firm does
            # X work": the answer is an adverbial or a preposition's object, not the verb's object
            role = OBLIQUE
        if verb:
            # a reader's clause may take a doer's noun for its verb ("the country where director/manager
            # holds citizenship"): only a verb makes the where/when its adverbial
            said = next((w for w in right if w not in AUXILIARIES), "")
            adverbial = bool(set(left) & _ADVERBIAL) and _noun_kind(said) is None
            return PhraseRole(role, verb, person=person, adverbial=adverbial)
        said = _noun_phrase(right, person)
        # "which company is X the founder of": a copula, then a noun whose "of" is left without its object
        stranded = bool(right) and right[-1] in PREPOSITIONS and any(w in _BE for w in left + right)
        return PhraseRole(noun=said.noun, noun_kind=said.noun_kind, person=person, predicate=stranded)
    at = next((k for k, w in enumerate(left) if w in _SUBJECT_MARKERS | {"what"}), None)
    if at is not None and left[at] != "whose":
        after = left[at + 1:]
        if at == 0 or not any(_content(w) for w in left[:at]):
            if left[at] in NOUN_WH:
                typed = False
                while after and _content(after[0]) and not (typed and _bare_verb(after)):
                    # "which company was ...": the answer's type first; "which company acquired": then a verb
                    person = person or after[0] in _PERSON_NOUNS
                    after, typed = after[1:], True
                if not after or (after[0] not in AUXILIARIES and not (typed and _bare_verb(after))):
                    return PhraseRole(person=person)
        role, verb = _clause(list(after), subject_is_answer=True)
        head = _head(left[:at])  # "the author who is married to": the noun the clause is about
        noun = tuple(content_stems(head)) if head else ()
        kind = _noun_kind(head) if head else None
        if verb:
            return PhraseRole(role, verb, noun=noun, noun_kind=kind, person=person)
        return PhraseRole(person=person)
    words = [w for w in left if _content(w)]
    if len(words) == 2 and not words[0].endswith("ing"):
        # "the firm employing", "the company founded by": a participle right after the answer's noun
        noun = tuple(content_stems(words[0]))
        if words[1].endswith("ing") and len(words[1]) > 5:
            return PhraseRole(AGENT, tuple(content_stems(words[1])), noun, _noun_kind(words[0]), person=person)
        after = left[left.index(words[1]) + 1:]
        if _participle(words[1]) and after and after[0] in PREPOSITIONS:
            # a past participle needs its preposition ("the company founded by", "the person married
            # to"): "the country whose citizen founded X" is a verb in the past, with X its object
            return PhraseRole(PATIENT, tuple(content_stems(words[1])), noun, _noun_kind(words[0]), person=person)
    return _noun_phrase(left or right, person)


def clause_verb(seg: Segment, question: str) -> str | None:
    """The verb of a clause said with its object in one phrase ("the person who wed | the creator
    of ...", "whoever leads | the government of ..."): the word after the relative pronoun, when an
    article follows it inside the phrase. The reader keeps the two as one phrase because the verb
    often only carries the noun ("leads the government"); when the verb names a relation of its own
    ("wed"), the chain needs a hop for it too."""
    low = [w.lower() for w in seg.words]
    at = next((k for k, w in enumerate(low) if w in _SUBJECT_MARKERS), None)
    if at is None or at + 2 >= len(low) or not _content(low[at + 1]):
        return None
    between = question[seg.spans[at + 1][1]:seg.spans[at + 2][0]].lower().split()
    if not any(w in DETERMINERS for w in between):
        return None
    return seg.words[at + 1]


def _noun_phrase(words: Sequence[str], person: bool) -> PhraseRole:
    head = _head(words)
    if head is None:
        return PhraseRole(person=person)
    return PhraseRole(noun=tuple(content_stems(head)), noun_kind=_noun_kind(head), person=person)


def _head(words: Sequence[str]) -> str | None:
    """A noun phrase's head: the word before its first "of" ("head of government"), else its last."""
    content = [w for w in words if _content(w) or w == "of"]
    if "of" in content[1:]:
        return content[content.index("of") - 1] if content.index("of") > 0 else None
    content = [w for w in content if w != "of"]
    return content[-1] if content else None


@lru_cache(maxsize=4096)
def _phrasing_role(phrasing: str, templated: bool) -> RelationRole | None:
    """The roles one phrasing gives head and tail: a cloze template that starts with its slot
    ("{} was born in the city of"), or a label read as "<head> label <tail>" when it starts with a
    verb ("born in", "founded by", "works for"). None for anything else (a noun, a template that
    puts its slot later)."""
    text = phrasing.strip().lower()
    if templated:
        if not text.startswith("{}"):
            return None
        text = text[2:]
    words = text.replace("{}", " ").split()
    if not words:
        return None
    aux = []
    while words and words[0] in AUXILIARIES:
        aux.append(words.pop(0))
    if not words or not _content(words[0]):
        return None
    verb, rest = words[0], words[1:]
    stems = tuple(content_stems(verb))
    if not aux and not rest:
        # a relationship type named by a verb alone, in the property-graph way: "(a)-[:ACQUIRED]->(b)"
        # and "(a)-[:OPERATES]->(b)" read "a acquired b", "a operates b": the head does it to the tail
        # (not a verb whose sides do the same to each other, nor one naming a state: those keep the
        # reading of a noun of their stem, which the question's own verb turns either way round)
        base = _finite_base(verb)
        if base is not None and base not in _RECIPROCAL and base not in _STATIVE:
            return RelationRole(AGENT, PATIENT, verb=stems)
    base = _present_participle(verb)
    if base is not None and not aux and (not rest or rest[0] in PREPOSITIONS) and base not in _RECIPROCAL | _STATIVE:
        # "(film)-[:STARRING]->(actor)", "works for" said as "working for": "<film> starring <actor>" makes
        # the head the doer, as a finite verb does
        prep = _first_preposition(rest)
        return RelationRole(AGENT, OBLIQUE if prep else PATIENT, tail_place=prep in _PLACE_PREPOSITIONS, verb=stems)
    is_be = any(a in _BE for a in aux)
    prep = _first_preposition(rest)
    follows = bool(rest) and (rest[0] in PREPOSITIONS or rest[0] in _ARTICLES)
    if _participle(verb) and (is_be or not aux):
        if not aux and not (rest and rest[0] in PREPOSITIONS):
            return None  # a bare word ending in -ed that heads no clause
        if prep == "by" and rest and rest[0] == "by":
            return RelationRole(PATIENT, AGENT, verb=stems)
        head = PATIENT if is_be else None  # "located in" (passive) or "died in" (active): the head unknown
        return RelationRole(head, OBLIQUE if prep else None, tail_place=prep in _PLACE_PREPOSITIONS, verb=stems)
    if is_be:
        return None  # "{} is a citizen of": a noun predicate
    if not (follows and verb.endswith("s")) or (not templated and rest[0] not in PREPOSITIONS):
        # a label or a sentence whose word after the subject is a noun ("employer", "X mother Y"); a
        # finite verb is read only with a preposition or an object after it ("works for", "plays the")
        return None
    return RelationRole(AGENT, OBLIQUE if prep else PATIENT, tail_place=prep in _PLACE_PREPOSITIONS, verb=stems)


def relation_role(label: str, templates: Sequence[str] = ()) -> RelationRole:
    """The roles of a relation from its phrasings; phrasings that disagree leave a role unsaid."""
    found = [r for r in (_phrasing_role(t, True) for t in templates) if r is not None]
    label_role = _phrasing_role(label, False) if label else None
    if label_role is not None:
        found.append(label_role)
    if not found:
        words = label.lower().split() if label else []
        head = _head(words)
        if head is None:
            return RelationRole()
        return RelationRole(noun=tuple(content_stems(head)), noun_kind=_noun_kind(head),
                            names_head=words[-1] in PREPOSITIONS)
    first = found[0]
    return RelationRole(
        head=first.head if all(r.head == first.head for r in found) else None,
        tail=first.tail if all(r.tail == first.tail for r in found) else None,
        tail_place=all(r.tail_place for r in found),
        verb=tuple(dict.fromkeys(s for r in found for s in r.verb)))


def evidence_phrasing(sentence: str, head: str, tail: str) -> tuple[str, ...]:
    """The fact's own sentence as a cloze template, when it names the head and then the tail with
    words between ("T was born in X." -> "{} was born in"): the graph's text
    says who is the subject, and in which voice, where the relation's label is a noun."""
    low, h, t = sentence.lower(), head.lower().strip(), tail.lower().strip()
    if not (sentence and h and t) or h == t:
        return ()
    at_head, at_tail = low.find(h), low.rfind(t)
    if at_head < 0 or at_tail < at_head + len(h):
        return ()
    between = sentence[at_head + len(h):at_tail].strip()
    if not between or len(between.split()) > 8 or not between[0].isalnum():
        return ()  # "X's father is Y": a possessive names no clause
    return ("{} " + between,)


def shares_verb_sense(words: Sequence[str], relation: RelationRole, lexicon) -> bool:
    """Does a word, read as a verb, share one of its frequent WordNet senses with the relation's verb
    ("based" and "founded": both "establish")? Light verbs ("go", "make") share a sense with nearly
    every verb and count for nothing. The planner and the status rule's reading check
    (kgtool.reason.explains) both ask this one function, so that both read "where" alike."""
    if lexicon is None or not relation.verb:
        return False
    for word in words:
        verb = lexicon.verb_base(word)
        if lexicon.sense_count(verb) > LIGHT_VERB_SENSES:
            continue
        others = [light_stem(w) for w in lexicon.synonyms(verb, pos="v", senses=VERB_SENSES)
                  if " " not in w and lexicon.sense_count(w) <= LIGHT_VERB_SENSES]
        if any(stems_match(o, v) for o in others for v in relation.verb):
            return True
    return False


def says_doer(seg: Segment, phrase: PhraseRole, relation: RelationRole, label: str, direction: str,
              lexicon) -> bool:
    """Does the phrase's verb say what the person a noun relation names does, with the answer on the
    right side of it ("who runs X" against "X has ceo Y", "the firm run by Y" against the same fact from
    Y's end)? See `doer_side`."""
    return doer_side(seg, phrase, relation, label, direction, lexicon) is True


def doer_side(seg: Segment, phrase: PhraseRole, relation: RelationRole, label: str, direction: str,
              lexicon) -> bool | None:
    """When the phrase's verb says what the person a noun relation names does ("runs" and "ceo", "gave birth"
    and "mother"), whether the hop, taken in `direction`, puts the answer on the side the phrase asks for
    (True) or on the other end of the relation (False: "who gave birth to X" answered with X's child); None
    when the verb says nothing of the noun's person, or when the relation's two ends are alike (`reciprocal`:
    "whom did X marry" against `spouse`). The noun and the verb share no word; WordNet relates them
    (Lexicon.says_doer), the verb read with the word after it when the two are one WordNet verb ("give
    birth"). The noun's person is the tail of its fact, or the head for a noun said with its preposition
    ("member of")."""
    if lexicon is None or relation.verb or not relation.noun or phrase.answer not in (AGENT, PATIENT):
        return None
    words = [w for w in label.replace("_", " ").lower().split() if _content(w) or w == "of"]
    noun = " ".join(words[:words.index("of")] if "of" in words else words)
    at = next((k for k, w in enumerate(seg.content) if tuple(content_stems(w.lower())) == phrase.verb), None)
    if not noun or at is None:
        return None
    verb = seg.content[at]
    compound = f"{lexicon.verb_base(verb)} {seg.content[at + 1].lower()}" if at + 1 < len(seg.content) else ""
    if compound and not lexicon.sense_count(compound.replace(" ", "_"), "v"):
        compound = ""
    if not (lexicon.says_doer(verb, noun) or (compound and lexicon.says_doer(compound, noun))):
        return None
    answer_is_person = (direction == "in") if relation.names_head else (direction != "in")
    if phrase.answer == (AGENT if answer_is_person else PATIENT):
        return True
    # a relation whose sides do the same to each other ("spouse": "whom did X marry") has no other end
    return None if reciprocal(label) else False


def says_part_of(words: Sequence[str], label: str) -> bool:
    """Do the phrase's words say only part of the relation's label ("government" of "head of government")?
    A frame verb after such a phrase ("Who leads | the government of T") says the rest of that relation,
    not a relation of its own."""
    said = [s for w in words for s in content_stems(w.lower())]
    named = content_stems(label.replace("_", " ").lower())
    return bool(said) and all(_shares([s], named) for s in said) and not all(_shares([n], said) for n in named)


def reciprocal(label: str) -> bool:
    """Is the relation named by a verb whose two sides do the same to each other ("married", "MARRIED_TO",
    "wed")? Read from either end it says the same, so no direction of it is the wrong one."""
    words = [w for w in label.replace("_", " ").lower().split() if _content(w)]
    if not words:
        return False
    lexicon = Lexicon.load()
    base = _finite_base(words[0]) or (lexicon.verb_base(words[0]) if lexicon is not None else words[0])
    if base in _RECIPROCAL:
        return True
    # a noun for one side of such a relation is the other side's too: WordNet lists "spouse" with
    # "partner", "ally" with "friend" (a noun's first sense; "husband" has no such synonym, nor "mother")
    if len(words) == 1 and lexicon is not None and lexicon.sense_count(words[0], "n"):
        return any(w.lower() in _RECIPROCAL for w in lexicon.synonyms(words[0], senses=1, pos="n"))
    return False


def _shares(a: Sequence[str], b: Sequence[str]) -> bool:
    return any(stems_match(x, y) for x in a for y in b)


def conflict(phrase: PhraseRole, relation: RelationRole, direction: str, *, synonym_verb: bool = False) -> bool:
    """Does the hop (the relation read `direction`: "out" answers with its tail, "in" with its head)
    give the answer a role the phrase rules out? `synonym_verb`: the phrase's verb is a synonym of the
    relation's (the caller reads WordNet), so the phrase speaks of the same act in other words."""
    answer_is_tail = direction != "in"
    if phrase.predicate and answer_is_tail and relation.noun and not relation.verb and \
            not relation.names_head and _shares(phrase.noun, relation.noun):
        return True  # "X is the founder of ...?" asks whose founder X is, not who X's founder is
    if answer_is_tail and not phrase.predicate and not phrase.verb and relation.names_head and phrase.noun and \
            _shares(phrase.noun, relation.noun):
        return True  # "the capital of X" against "<capital> capital of <X>": the noun names the head
    rel = relation.tail if answer_is_tail else relation.head
    if rel is None and relation.noun and phrase.verb and _shares(relation.noun, phrase.verb):
        # a noun of the question's verb: "employer" is who employs, "employee" who is employed
        kind = relation.noun_kind or AGENT
        rel = kind if answer_is_tail else (PATIENT if kind == AGENT else AGENT)
    if phrase.adverbial and rel == AGENT and (_shares(phrase.verb, relation.verb) or not relation.verb or synonym_verb):
        # "where was X founded" asks where it happened; "X (was) founded by Y", or its doer's noun
        # ("founder": a noun gets its role only when it shares the question's verb), makes Y the doer;
        # so does a synonym of the verb ("where was X established" against "founded by")
        return True
    asked = phrase.answer
    if phrase.noun and phrase.noun_kind and relation.verb and _shares(phrase.noun, relation.verb) and \
            not _shares(phrase.verb, relation.verb):
        # "the founder of X" against "founded by": the noun names the relation, and says who its answer
        # is, whatever verb goes with it ("the author associated with X", "the author who is married to")
        asked = phrase.noun_kind
    if {asked, rel} == {AGENT, PATIENT}:
        return True
    # the object of "in"/"at" is a place or a time: not a person, nor what the same verb acts on
    # ("which city was founded in T" asks for what was founded there, not where T was founded); a
    # doer may be one ("the country containing T" is where T is located)
    place = relation.tail_place if answer_is_tail else False
    return place and (phrase.person or (asked == PATIENT and _shares(phrase.verb, relation.verb)))


__all__ = ["AGENT", "OBLIQUE", "PATIENT", "PhraseRole", "RelationRole", "clause_verb", "conflict",
           "evidence_phrasing", "reciprocal", "relation_role", "doer_side", "says_doer", "says_part_of", "segment_role",
           "shares_verb_sense"]
