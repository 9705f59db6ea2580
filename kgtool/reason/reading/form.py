"""What a question asks for, read off its wording: the answer's type and, for a choice, its options.

Readers without an LLM cannot tell from a passage alone whether "1986" or
"Jim Kouf" answers "Who directed ...?"; the question's form can:

- yesno: it opens with an auxiliary verb ("Are both ...", "Did ...") and offers
  no "A or B" choice; the answer is "yes" or "no", never a span;
- choice: it names two options joined by "or" ("Which is older, A or B?"); the
  answer is one of them as the question writes it;
- date (or year, when only the year is asked) and number: when / what year /
  which century, how many / how much;
- person and place: who, where, or which/what followed by a noun for a person
  or a place;
- entity: anything else a name can answer.

`span_shape` says what a candidate span looks like (a date, a number, a name
or plain words) so readers can keep the spans of the asked type only.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from kgtool.core.text import strip_disambiguation
from kgtool.reason.offline_config import OFFLINE
from kgtool.reason.reading.words import (
    ARTICLES as _DETERMINERS, ARTICLES as _LEAD, ASKING_WORDS as _WH, NUMBER_WORDS as _NUMBER_WORDS, PERSON_WH,
    NOUN_ASKING, QUESTION_AUXILIARIES as _AUX, QUESTION_PREPOSITIONS as _PREPS, SINGULAR_BE, TRAILING_WH, WHICH_WHAT,
    YES_NO,
)

# nouns that make "which/what <noun>" ask for a person or a place (ordinary English, not any data set's)
_PERSON_NOUNS = {"person", "man", "woman", "actor", "actress", "singer", "author", "writer", "director", "player",
                 "politician", "president", "king", "queen", "artist", "musician", "rapper", "composer",
                 "producer", "poet", "novelist", "painter", "member", "founder", "leader", "coach", "athlete",
                 "footballer", "scientist", "philosopher", "wife", "husband", "son", "daughter", "mother", "father",
                 "brother", "sister", "child", "emperor", "ruler", "minister", "governor", "officer"}
_PLACE_NOUNS = {"city", "town", "village", "country", "state", "province", "county", "region", "place", "location",
                "island", "continent", "capital", "district", "nation", "area", "municipality", "territory"}
# nouns that name the kind of answer asked for, not a relation of it ("the city that is ...")
TYPE_NOUNS = _PERSON_NOUNS | _PLACE_NOUNS
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
           "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
_DATE = re.compile(rf"\b(?:{_MONTHS})\b|\b1\d{{3}}\b|\b20\d{{2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)\s+century\b", re.IGNORECASE)
_NUMBER = re.compile(r"^[\d][\d,.]*(?:\s+(?:million|billion|thousand|hundred))?$", re.IGNORECASE)
_TOKEN = re.compile(r"[\w'’\-.]+")
_CAPS_RUN = re.compile(r"(?:[A-Z0-9][\w'’\-.]*|\"[^\"]+\")(?:\s+(?:of|the|de|von|van|la|le|and|&|[A-Z0-9][\w'’\-.]*))*")


@dataclass(frozen=True)  # one reading of a question is shared by its consumers (reading.analysis)
class AnswerForm:
    kind: str  # yesno | choice | date | year | number | person | place | entity
    options: list[str] = field(default_factory=list)  # for a choice: the two named options
    focus: str = ""  # the question's words after its wh-word/auxiliary, without the options
    noun: str = ""  # the noun the question types its answer by ("what county" -> "county"), or ""

    @property
    def wants_name(self) -> bool:
        return self.kind in ("person", "place", "entity", "choice")

    @property
    def compares(self) -> bool:
        """A yes/no question or a choice between the options it names: decided from what the evidence says of
        the things it names, not found as a name of its own."""
        return self.kind in ("yesno", "choice")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text or "")


def _option_before(text: str) -> str | None:
    """The name that ends right before " or ": the last capitalised run of `text`."""
    runs = [m for m in _CAPS_RUN.finditer(text)]
    if not runs or runs[-1].end() < len(text.rstrip(" ,")):
        return None
    return _trim(runs[-1].group())


def _option_after(text: str) -> str | None:
    """The first capitalised run after " or " (skipping "the birth of ..." style lead-ins)."""
    m = _CAPS_RUN.search(text)
    return _trim(m.group()) if m else None


def _trim(name: str) -> str | None:
    toks = name.strip(" ,?.!\"").split()
    while toks and toks[-1].lower() in {"of", "the", "de", "von", "van", "la", "le", "and", "&"}:
        toks.pop()
    while toks and toks[0].lower() in {"of", "and", "&"}:
        toks.pop(0)
    return " ".join(toks) or None


def choice_options(question: str) -> list[str]:
    """The two options of "..., A or B?" (as the question writes them), or []."""
    q = question.strip().rstrip("?").strip()
    idx = q.rfind(" or ")
    if idx < 0:
        return []
    left, right = q[:idx], q[idx + 4:]
    # "which is older, A or B": the options are after the comma when there is one before "or"
    a = _option_before(left)
    b = _option_after(right)
    if not a or not b or a.lower() == b.lower():
        return []
    # a leading question word is not part of an option ("Which band was formed first The Exies")
    a_toks = a.split()
    while a_toks and (a_toks[0].lower() in _WH or a_toks[0].lower() in _AUX):
        a_toks.pop(0)
    a = " ".join(a_toks)
    return [a, b] if a else []


# "how <word>" asking for a quantity: a count or a measure (length, height, distance, age, size)
_QUANTITY_ADVERBS = {"many", "much", "long", "tall", "high", "far", "old", "big", "large", "wide", "deep", "heavy"}


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def _main_wh(toks: list[str]) -> int | None:
    """Where the question word that sets the answer's type is.

    A question that opens with it ("Who ...", "In what year ...", "Name the ...") is typed by that one:
    later wh-words open relative clauses ("... the band which was formed when ..."). A statement-form
    question ("... is headquartered in what city?") is typed by its last what/which/how, the words that
    ask rather than relate ("the actress who starred in what ..."), else by its last wh-word.
    """
    if not toks:
        return None
    if toks[0] in _WH:
        return 0
    if len(toks) > 1 and toks[0] in _PREPS and toks[1] in _WH:
        return 1
    asking = [i for i, t in enumerate(toks) if t in NOUN_ASKING]
    found = asking or [i for i, t in enumerate(toks) if t in _WH and t != "name"]
    return found[-1] if found else None


def answer_form(question: str) -> AnswerForm:
    """The kind of answer `question` asks for (see the module docstring)."""
    q = " ".join((question or "").split())
    toks = [t.lower() for t in _tokens(q)]
    low = " " + " ".join(toks) + " "
    options = choice_options(q)
    first = toks[0] if toks else ""
    if first in _AUX and not options:
        return AnswerForm("yesno", focus=" ".join(toks[1:]))
    if options and (first in _WH or first in _AUX or " which " in low or " who " in low):
        return AnswerForm("choice", options)
    i = _main_wh(toks)
    if i is None:
        return AnswerForm("entity")
    if toks[-1] in TRAILING_WH and i != len(toks) - 1 and toks[0] not in _WH:
        # a statement ending in its question word asks that ("... a N that X <verb>ed when?"): the
        # earlier which/what opened a relative clause ("in which X's country competed")
        i = len(toks) - 1
    wh, after = toks[i], [_singular(t) for t in toks[i + 1:i + 4]]
    if wh == "how":
        # "how many / much" counts; "how long / tall / far / old ..." asks for a measure, a number too
        return AnswerForm("number" if after[:1] and after[0] in _QUANTITY_ADVERBS else "entity")
    if wh == "when":
        return AnswerForm("date")
    if wh == "where":
        return AnswerForm("place")
    if wh in PERSON_WH:
        return AnswerForm("person")
    noun = asked_noun(toks[i + 1:]) if wh in WHICH_WHAT else ""
    for w in after:
        if w in _PREPS and w != "of":  # "in what for seven years": a noun after a preposition is not asked
            break
        if w == "year":
            return AnswerForm("year")
        if w in ("date", "century", "decade", "day"):
            return AnswerForm("date")
        if w in ("population", "number", "amount", "percentage", "percent", "proportion"):
            return AnswerForm("number")
        if w in _PERSON_NOUNS:
            return AnswerForm("person", noun=noun)
        if w in _PLACE_NOUNS:
            return AnswerForm("place", noun=noun)
    if not noun and wh in WHICH_WHAT and toks[i + 2:i + 3] == ["the"] and toks[i + 1] in SINGULAR_BE:
        # "What is the name of the airport ...": the noun names what is asked, but the frame is a copula,
        # so it only ranks spans (noun_fit), it does not type the answer as a person or a place
        return AnswerForm("entity", noun=asked_noun(toks[i + 2:]))
    if noun and _names_person(noun):  # "which explorer": WordNet files the noun under persons
        return AnswerForm("person", noun=noun)
    return AnswerForm("entity", noun=noun)


def asking_word(question: str, form: AnswerForm) -> str:
    """The word `answer_form` read the question's form from: the auxiliary a yes/no question opens with,
    else the question word that asks ("who", "which", "how"), or "" when the question has none."""
    toks = [t.lower() for t in _tokens(" ".join((question or "").split()))]
    if form.kind == "yesno":
        return toks[0]
    i = _main_wh(toks)
    if i is None:
        return ""
    if toks[-1] in TRAILING_WH and i != len(toks) - 1 and toks[0] not in _WH:
        i = len(toks) - 1  # as answer_form: a statement ending in its question word asks that
    return toks[i]


# "what kind of university", "the name of the city": the noun after these says what is asked
_OF_NOUNS = {"kind", "type", "sort", "name", "form"}


def asked_noun(after: list[str]) -> str:
    """The noun right after "what"/"which" that types the answer, singular: the longest WordNet noun
    compound it opens ("mountain range", "body of water"), else the word itself; "" when the next word
    is no noun WordNet knows (a verb or an auxiliary: "what is", "which was"). Without WordNet, the
    word when it is one of the person or place nouns."""
    toks = [t for t in after[:8]]
    while toks and toks[0] in _DETERMINERS:
        toks.pop(0)
    if len(toks) > 2 and toks[0] in _OF_NOUNS and toks[1] == "of":
        toks = [t for t in toks[2:] if t not in _DETERMINERS][:3] if toks[2] in _DETERMINERS else toks[2:]
    if not toks or toks[0] in _AUX or toks[0] in _WH or toks[0] in _PREPS:
        return ""
    lexicon = _lexicon()
    if lexicon is None:
        word = _singular(toks[0])
        return word if word in TYPE_NOUNS else ""
    for _ in range(3):
        for n in (3, 2):
            phrase = "_".join(toks[:n])
            if len(toks) >= n and lexicon.sense_count(phrase, "n"):
                return phrase.replace("_", " ")
        # an auxiliary after the word is no noun it qualifies ("which continent does", "which city is")
        if len(toks) > 1 and toks[1] not in _AUX and lexicon.glosses(toks[0], pos="a") \
                and lexicon.sense_count(_singular(toks[1]), "n"):
            toks = toks[1:]  # "what Australian city", "which Danish heavy metal band": adjectives before the noun
        else:
            break
    word = _singular(toks[0])
    return word if lexicon.sense_count(word, "n") else ""


# place nouns that name one kind of place ("region", "area", "location" name any), and words a WordNet
# definition uses for such a place ("the capital and largest city of Utah", "a republic in southern Europe")
_SPECIFIC_PLACES = {"city", "town", "village", "country", "state", "province", "county", "continent", "island"}
_PLACE_WORDS = {**{w: w for w in _SPECIFIC_PLACES}, "capital": "city", "nation": "country",
                "republic": "country", "kingdom": "country"}
# a fixed lift for a span named as the noun asks ("X County" for "what county") and cut for a span that
# is another kind of place ("X City" for "what state"): not fitted to any question set
NOUN_BONUS = OFFLINE.noun_bonus
NOUN_MISMATCH = 0.5
_WORD = re.compile(r"[a-z]+(?:-[a-z]+)?")


def noun_fit(surface: str, before: str, form: AnswerForm) -> float:
    """How a candidate name fits the noun the question asks by (form.noun): NOUN_BONUS when its last word
    is that noun or the text before it names it ("the state of ___"); NOUN_MISMATCH when the noun is a
    specific kind of place and the name, its last word, the text before it or WordNet's definition of it
    says another kind ("Iowa": "a state in midwestern United States", for "what county"); else 1."""
    toks = surface.lower().split()
    if form.kind == "place" and len(toks) == 1 and _names_a_people(surface):
        return NOUN_MISMATCH  # "Mexican" of "a Mexican politician" is no place; "Mexico" would be
    if not form.noun or not toks or form.kind == "choice":
        return 1.0
    head = form.noun.split()[-1]
    last = _singular(toks[-1])
    # "the state of ___" names the state; "a city of ___" names what holds the city, so only "the" counts
    lead = re.search(r"\bthe (?:[a-z.]+ )?([a-z]+) of $", before.lower())
    lead_word = _singular(lead.group(1)) if lead else ""
    if head in (last, lead_word) and not {"and", "&"} & set(toks):  # "A and B County" joins two names
        return NOUN_BONUS
    asked = _PLACE_WORDS.get(head)
    if asked is None:
        return 1.0
    said = {_PLACE_WORDS[w] for w in (last, lead_word) if w in _PLACE_WORDS}
    if not said:
        said = _defined_places(surface)
    return NOUN_MISMATCH if said and asked not in said else 1.0


# WordNet defines an adjective of a place's people the same way each time ("Dutch": "of or relating to the
# Netherlands or its people or culture")
_OF_A_PLACE = re.compile(r"^of or (?:relating|pertaining) to ")


def _names_a_people(word: str) -> bool:
    """Is the word an adjective of a place or its people ("Mexican", "English"), by WordNet's definition?"""
    lexicon = _lexicon()
    return lexicon is not None and any(_OF_A_PLACE.match(g) for g in lexicon.glosses(word, senses=1, pos="a"))


def phrase_form(phrase: str) -> AnswerForm | None:
    """The form of what a relation phrase read from the question names, when it opens with a person or
    place noun ("city where died", "the state where ... is located", "What county shares"): the unknown
    is that kind of thing; None for any other phrase."""
    toks = [t.lower() for t in _tokens(phrase)]
    while toks and (toks[0] in _WH or toks[0] in _DETERMINERS):
        toks.pop(0)
    word = _singular(toks[0]) if toks else ""
    if word in _PERSON_NOUNS:
        return AnswerForm("person", noun=word)
    if word in _PLACE_NOUNS:
        return AnswerForm("place", noun=word)
    return None


def _defined_places(name: str) -> set[str]:
    """The kinds of place WordNet's definitions of the name say it is: the first place word of each of
    its two most frequent senses' definitions; empty when WordNet does not know the name."""
    lexicon = _lexicon()
    if lexicon is None:
        return set()
    out = set()
    for gloss in lexicon.glosses(name, senses=2):
        word = next((_PLACE_WORDS[w] for w in _WORD.findall(gloss.lower()) if w in _PLACE_WORDS), None)
        if word:
            out.add(word)
    return out


def _lexicon():
    from kgtool.reason.lexicon import Lexicon
    return Lexicon.load()


def _names_person(noun: str) -> bool:
    lexicon = _lexicon()
    return lexicon is not None and " " not in noun and lexicon.names_person(noun, senses=1)


def span_shape(text: str) -> str:
    """'date', 'number', 'name' or 'words': what a candidate answer span looks like."""
    s = (text or "").strip()
    if not s:
        return "words"
    if _NUMBER.match(s) and not (re.fullmatch(r"1\d{3}|20\d{2}", s)):
        return "number"
    if s.lower() in _NUMBER_WORDS:
        return "number"
    if _DATE.search(s) and sum(ch.isalpha() for ch in s) <= len(s) * OFFLINE.date_letters:
        return "date"
    if re.fullmatch(r"1\d{3}|20\d{2}", s):
        return "date"
    toks = s.split()
    if any(t[:1].isupper() or t[:1].isdigit() for t in toks):
        return "name"
    return "words"


def says_number(text: str | None) -> bool:
    """Does the text give a quantity anywhere in it: a digit or a number word ("42", "about 3,000",
    "four years")? A name without either ("Ada Lovelace") answers no "how many" or "how old"."""
    return any(ch.isdigit() for ch in text or "") or any(w in _NUMBER_WORDS for w in _tokens((text or "").lower()))


def fits(text: str | None, form: AnswerForm) -> bool:
    """Whether `text` has the shape of an answer to a question of this form."""
    if not text:
        return False
    shape = span_shape(text)
    if form.kind == "yesno":
        return text.strip().lower() in YES_NO
    if form.kind in ("date", "year"):
        return shape == "date"
    if form.kind == "number":
        return shape == "number"
    if form.kind == "choice":
        return any(_same(text, o) for o in form.options)
    return shape == "name"


def _same(a: str, b: str) -> bool:
    def norm(x: str) -> str:
        toks = [t.lower() for t in _tokens(x)]
        while toks and toks[0] in _LEAD:
            toks.pop(0)
        return " ".join(toks)
    return norm(a) == norm(b) or (bool(norm(a)) and (norm(a) in norm(b) or norm(b) in norm(a)))


_YEAR_ONLY = re.compile(r"\b(1\d{3}|20\d{2})\b")


def shape_answer(text: str | None, form: AnswerForm) -> str | None:
    """The span as the form asks for it: just the year of a date when the question asks "what year"; a
    name without the disambiguation its page title carries ("Eddie the Eagle (film)" -> "Eddie the Eagle")."""
    if not text:
        return text
    if form.kind == "year":
        m = _YEAR_ONLY.search(text)
        return m.group(1) if m else text
    return strip_disambiguation(text) or text


def year_of_date_value(answer: str | None, answer_id: str | None, form: AnswerForm | None) -> str | None:
    """A date value (a fact file's typed literal, kgtool.ingest.literals) asked for its year ("In what
    year ...") answers the year, not the date as the file wrote it ("12 March 1648" -> "1648"). Meant
    for the whole question's form: the offline plans rephrase it ("What is the founded of X?") and lose it."""
    from kgtool.ingest.literals import LITERAL_PREFIX

    if not answer or not answer_id or not answer_id.startswith(LITERAL_PREFIX) or form is None:
        return answer
    return shape_answer(answer, form) if form.kind == "year" else answer

