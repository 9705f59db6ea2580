"""When is an answer reached through text verified? The status rule's check of chains read from passages.

A stated fact is a claim someone made about two entities in a graph they keep; a hop read from a passage
is the reader's guess at such a claim: which words join two names, which name answers a phrase. Such a
chain can explain the question's relation phrases in the reading check's sense (the joining words are
close in meaning to them) and still end at the wrong thing, because nothing about the thing it ends at
was checked: passage entities carry no kind, so a kind check that looks for contradicting facts finds
none and stays silent. Not contradicted is not confirmed. So an answer reached through a hop read from
text (a passage chosen by textual recovery, or a fact only a passage supports) is verified only when the
text says what it is asked to say:

- the kind the question asks for ("which airport", "what state", "who": a person, "where": a place) is
  the kind the text gives the answer. The text is the answer's own page (the document about it, or a
  passage titled with its name) and the passage the last hop read; what gives a kind is a description
  of the answer there: a copula or an apposition ("X is an American singer", "X, a town in Y,"; on its
  own page also the opening sentence's copula whatever name it opens with), the answer's own name when
  its head word is a common noun ("... International Airport"), and WordNet's entry for the name itself
  (a proper noun WordNet files as an instance: a state, a singer). A describing noun is of the kind when
  the kind's noun is one of its WordNet hypernyms (a singer is a person; a town is not a state).
- a time or a count ("when", "what year", "how many") is a literal: the answer must be written as one.
- a comparison (a yes/no question, or "A or B") is verified when each thing compared had evidence of its
  own read: a hop of the chain stands on it with a fact, or with a passage that names it. The verdict
  compares two readings; with one side unread it is a guess at the other.
- a chain that comes back to a thing it passed through (its topic, a thing bound on the way) and answers
  with it went round a loop of fragments read off passages: the way back explains nothing, so the answer
  is not verified whatever its kind.
- every hop read from a passage must read one that speaks of the entity it stood on (names it; for a hop
  that asked the whole question of the chain's end, is its page): otherwise the passage links the answer
  to something else, and the chain says nothing of how it relates to the question's topic.
- a question that asks for no kind (its question word has no noun, "what did X use") has nothing to
  confirm of the answer; the chain's own checks (the reading check) decide. "The N of what" asks for an N.

These rules hold for the chain first: a loop or an unanchored hop makes even a literal of the right
shape a guess.

A chain of stated facts is not read here at all: its status is the stated-fact rule's (the runner asks
this check only of chains that read text).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from kgtool.core.text import normalize
from kgtool.reason.reading.analysis import analysed
from kgtool.reason.reading.form import fits
from kgtool.reason.context import HopState
from kgtool.reason.lexicon import Lexicon, noun_hypernyms
from kgtool.retrieve.passages import lucene_query
from kgtool.reason.reading.words import ARTICLES, ARTICLES_AND_OR, BE_FINITE, PAIRING_WORDS, WHICH_WHAT

# the question word's own kinds, read as the WordNet nouns whose hyponyms are of the kind: "who" asks for a
# person or a group acting as one (a band, a team); "where" for a location or a thing built or set up there
WHO = ("person", "organization")
WHERE = ("location", "structure", "facility", "establishment", "body of water", "geological formation")
# nouns a question uses to ask for a name without saying what is named ("what is the name of the airport")
_NAMING = {"name", "title", "term", "word", "one", "kind", "type", "sort", "part", "thing"}
_STOP = {"of", "in", "on", "at", "from", "for", "by", "with", "that", "which", "who", "whom", "whose", "where",
         "when", "to", "near", "since", "between", "located", "based", "founded", "known", "born", "named",
         "during", "after", "before", "than", "as", "its", "his", "her", "their", "is", "was", "are", "were",
         "has", "had", "have", "did", "does", "do", "it", "they", "he", "she"}
_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-]*|[,;:?!.()\"]")
# a description after a name: its parenthesis ("(born 1958)") and a short aside in commas skipped, then a
# copula with an article, or an apposition with one
_COPULA = re.compile(r"^(?:\s*\([^()]*\))*\s*(?:,[^,.;]{0,60},\s*)?(?:is|was|are|were|has been|had been|became)\s+"
                     r"(?:also\s+|now\s+|currently\s+|still\s+|formerly\s+|once\s+)?"
                     r"(?:a|an|the|one of the|one of)\s+", re.IGNORECASE)
_APPOSITION = re.compile(r"^(?:\s*\([^()]*\))*\s*,\s+(?:a|an|the)\s+", re.IGNORECASE)
_OPENING = re.compile(r"\b(?:is|was|are|were)\s+(?:also\s+|now\s+|currently\s+|formerly\s+)?"
                      r"(?:a|an|the|one of the|one of)\s+", re.IGNORECASE)
_PRONOUN_OPENING = re.compile(r"(?:^|(?<=[.!?]\s))(?:He|She|It|They)\s+(?:is|was|are|were)\s+"
                              r"(?:also\s+)?(?:a|an|the|one of the)\s+")
_LEADING = re.compile(r"^\s*(?:(?:and|but|while|the|a|an|its|his|her|their|this|that)\s+)+", re.IGNORECASE)
_WHO_CLAUSE = re.compile(r"^(?:\s*\([^()]*\))*\s*,\s+who\b")
_PREDICATE = re.compile(r"^(.*?)\b(?:is|was|are|were|became)\s+$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)\s*$")
HYPERNYM_DEPTH = 12  # WordNet's noun hierarchy is at most ~18 deep; a kind is rarely further than this above
SENSES = 2  # a describing noun's most frequent senses read ("station": a facility; then a social position)
PAGES = 20  # passages the answer's name finds, of which its own pages (titled with its name) are kept


def asked_kind(question: str) -> tuple[str, str | None]:
    """(the answer form's kind, the noun the question asks for: "airport", "person", "location"...).
    The noun is None when the question asks for a literal, a comparison, or names no kind."""
    form = analysed(question).form
    if form.kind in ("yesno", "choice", "date", "year", "number"):
        return form.kind, None
    noun = _question_noun(question)
    if noun is None and form.kind == "person":
        noun = "person"
    elif noun is None and form.kind == "place":
        noun = "location"
    return form.kind, noun


def _question_noun(question: str) -> str | None:
    """The noun the question word asks for: "which Canadian actress" -> actress, "in what city" -> city,
    "what is the name of the airport" -> airport; None when it asks with no noun ("what did X use")."""
    toks = _TOKEN.findall(question or "")
    low = [t.lower() for t in toks]
    for i, t in enumerate(low):
        if t not in WHICH_WHAT:
            continue
        run = _noun_run(toks, i + 1)
        if not run and i + 2 < len(low) and low[i + 1] in BE_FINITE and \
                low[i + 2] in ARTICLES:
            run = _noun_run(toks, i + 3)  # "what is the acronym for ..."
        while run and run[-1].lower() in _NAMING and _next_is_of(low, i, run):
            # "the name of the airport": the named thing's noun
            at = low.index("of", i) + 1
            run = _noun_run(toks, at + (1 if at < len(low) and low[at] in ARTICLES else 0))
        if len(run) > 1 and Lexicon.load() is not None and \
                Lexicon.load()._offsets(f"{run[-2]}_{run[-1]}".lower(), "n"):
            return f"{run[-2]} {run[-1]}".lower()  # "mountain range": a compound WordNet lists as one noun
        if run:
            head = run[-1].lower()
            return None if head in _NAMING else _compound(toks, low, i, head)
        if i >= 2 and low[i - 1] == "of" and _WORD.fullmatch(toks[i - 2]) and low[i - 2] not in _NAMING | _STOP:
            return _singular(low[i - 2])  # "an annual output of what": the value of an output is an output
    return None


def _compound(toks: list[str], low: list[str], start: int, head: str) -> str:
    """The head with the "of" phrase WordNet lists it with ("body of water"), else the head, singular."""
    lex = Lexicon.load()
    try:
        at = low.index(head, start)
    except ValueError:
        return _singular(head)
    if lex is not None and at + 2 < len(low) and low[at + 1] == "of":
        whole = f"{head} of {low[at + 2]}"
        if lex._offsets(whole.replace(" ", "_"), "n"):
            return whole
    return _singular(head)


def _next_is_of(low: list[str], start: int, run: list[str]) -> bool:
    try:
        at = low.index(run[-1].lower(), start)
    except ValueError:
        return False
    return at + 1 < len(low) and low[at + 1] == "of"


def _noun_run(toks: list[str], at: int) -> list[str]:
    """The words after a question word up to the first that ends a noun phrase (a function word, a verb
    form, punctuation): "which Canadian actress , known" -> [Canadian, actress]."""
    out = []
    for t in toks[at:]:
        if not _WORD.fullmatch(t) or t.lower() in _STOP or t.lower() in ARTICLES_AND_OR:
            break
        out.append(t)
    lex = Lexicon.load()
    while out and lex is not None and (not _noun_senses(lex, out[-1].lower(), common=True) or
                                       (len(out) > 1 and lex.finite_base(out[-1]) is not None)):
        out.pop()  # a verb closing the run ("what team played", "what county shares"): the noun is before it
    return out


def _singular(word: str) -> str:
    lex = Lexicon.load()
    if lex is not None and not lex._offsets(word, "n") and word.endswith("s"):
        for cut in (word[:-1], word[:-2]):
            if lex._offsets(cut, "n"):
                return cut
    return word


# ---------------------------------------------------------------- WordNet: is a noun of a kind
def _noun_senses(lex: Lexicon, word: str, *, common: bool, senses: int = SENSES) -> list[int]:
    """The word's most frequent noun senses; `common`: only senses WordNet writes in lower case (a common
    noun: "town", not "York" the city, which names one place and says nothing of another's kind)."""
    return list(_cached_senses(lex, word.strip(), common, senses))


@lru_cache(maxsize=16384)
def _cached_senses(lex: Lexicon, word: str, common: bool, senses: int) -> tuple[int, ...]:
    lemma = word.lower().replace(" ", "_")
    forms = [lemma] + ([lemma[:-1]] if lemma.endswith("s") and len(lemma) > 3 else [])
    for form in forms:
        offsets = lex._offsets(form, "n")
        if not offsets:
            continue
        out = []
        for o in offsets:
            words = lex._synset_words(o, "n")
            written = next((w for w in words if w.lower() == form.replace("_", " ")), words[0] if words else "")
            if common and written[:1].isupper():
                continue
            out.append(o)
        return tuple(out[:senses])
    return ()


def _above(lex: Lexicon, offset: int) -> frozenset[int]:
    """The sense itself and its hypernyms (instance hypernyms included), up to HYPERNYM_DEPTH levels."""
    return noun_hypernyms(lex, (offset,), HYPERNYM_DEPTH)


def kind_senses(lex: Lexicon, noun: str) -> frozenset[int]:
    """The WordNet senses a describing noun must reach to be of the asked kind."""
    nouns = WHO if noun == "person" else WHERE if noun == "location" else (noun,)
    return frozenset(o for n in nouns for o in _noun_senses(lex, n, common=True, senses=1 if n in WHO + WHERE
                                                                                  else SENSES))


def is_kind(lex: Lexicon, word: str, kinds: frozenset[int], *, common: bool = True, senses: int = SENSES) -> bool:
    return any(_above(lex, o) & kinds for o in _noun_senses(lex, word, common=common, senses=senses))


# ---------------------------------------------------------------- descriptions in text
def description_heads(text: str, name: str, *, own_page: bool) -> list[str]:
    """The nouns the text describes `name` with: the head of each conjunct after a copula or an
    apposition that follows a mention of the name ("X is an American singer, songwriter and actress":
    singer, songwriter, actress). On the name's own page the opening sentence's copula and a sentence
    opening with a pronoun describe it whatever name the page writes it with."""
    heads: list[str] = []
    for sentence in _sentences(text):
        for start, at in _mentions(sentence, name):
            said = _PREDICATE.search(sentence[:start])
            if said:
                # "the capital of X is NAME": the subject before the copula is what the name is said to be
                subject = re.split(r"[,;:]", said.group(1))[-1]
                heads += _heads(_LEADING.sub("", subject), apposition=False)[:1]
            rest = sentence[at:]
            if _WHO_CLAUSE.match(rest):
                heads.append("person")  # "NAME, who ...": English refers with "who" to a person
            m = _COPULA.match(rest)
            if m:
                heads += _heads(rest[m.end():], apposition=False)
                continue
            m = _APPOSITION.match(rest)
            if m:
                heads += _heads(rest[m.end():], apposition=True)
    if own_page:
        first = (_sentences(text) or [""])[0]
        m = _OPENING.search(first)
        if m:
            heads += _heads(first[m.end():], apposition=False)
        for m in _PRONOUN_OPENING.finditer(text):
            heads += _heads(text[m.end():], apposition=False)
    return list(dict.fromkeys(heads))


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text or "") if s.strip()]


def _mentions(sentence: str, name: str) -> list[tuple[int, int]]:
    """Where each mention of the name is in the sentence (the name as written, as a whole phrase)."""
    bare = _DISAMBIGUATION.sub("", name or "").strip()
    if len(bare) < 2:
        return []
    pattern = re.compile(rf"(?<!\w){re.escape(bare)}(?!\w)", re.IGNORECASE)
    return [(m.start(), m.end()) for m in pattern.finditer(sentence)]


def _heads(phrase: str, *, apposition: bool) -> list[str]:
    """The last word of each conjunct of a noun phrase, up to the first word that ends the phrase."""
    words: list[str] = []
    for tok in _TOKEN.findall(phrase[:200]):
        low = tok.lower()
        if tok in (".", ";", ":", "(", ")", "?", "!", "\"") or low in _STOP or (apposition and tok == ","):
            break
        words.append(low)
    conjuncts, current = [], []
    for w in words:
        if w in (",", "and", "or"):
            conjuncts.append(current)
            current = []
        elif _WORD.fullmatch(w):
            current.append(w)
    conjuncts.append(current)
    return [c[-1] for c in conjuncts if c]


# ---------------------------------------------------------------- the check
class TextEvidence:
    """Reads what the text says of a text chain's answer (see the module docstring)."""

    def __init__(self, db, session, scope):
        self.db = db
        self.session = session
        self.scope = scope

    def gaps(self, question: str, chain: Sequence[HopState], answer: str | None,
             answer_id: str | None) -> list[str]:
        """Why the text does not verify the answer (empty when it does)."""
        if not answer:
            return []
        form, noun = asked_kind(question)
        if form in ("yesno", "choice"):
            return self._comparison(question, chain, form)
        # the chain first: a loop or a passage about something else makes any answer a guess, of any kind
        loop = _loop(chain, answer, answer_id)
        if loop:
            return [loop]
        astray = self._unanchored(question, chain)
        if astray:
            return astray
        if form in ("date", "year", "number"):
            shaped = fits(answer, analysed(question).form)
            return [] if shaped else [f"the question asks for {_a(form)}; the text's answer {answer!r} is not one"]
        if noun is None:
            return []
        lex = Lexicon.load()
        if lex is None:
            return [f"the question asks for {_a(noun)}; without WordNet nothing can confirm {answer!r} is one"]
        kinds = kind_senses(lex, noun)
        if not kinds:
            return [f"the question asks for {_a(noun)}, a kind WordNet does not know; nothing confirms {answer!r}"]
        said = self._descriptions(chain, answer, answer_id)
        if any(is_kind(lex, w, kinds) for w in said):
            return []
        if _name_is_kind(lex, answer, kinds):
            return []
        what = ", ".join(said[:4]) if said else "nothing"
        return [f"the question asks for {_a(noun)}; the text read from passages does not say {answer!r} is one "
                f"(it says: {what})"]

    def _descriptions(self, chain: Sequence[HopState], answer: str, answer_id: str | None) -> list[str]:
        heads: list[str] = []
        for text in self._own_pages(answer, answer_id):
            heads += description_heads(text, answer, own_page=True)
        for text in self._last_read(chain):
            heads += description_heads(text, answer, own_page=False)
        last = chain[-1] if chain else None
        if last is not None and last.fact is not None and last.fact.direction == "out" and last.answer == answer:
            # the relation the last hop read forwards says what its end is ("capital": the end is a capital)
            heads += _heads(_LEADING.sub("", last.fact.relation or ""), apposition=False)[:1]
        return list(dict.fromkeys(heads))

    def _own_pages(self, answer: str, answer_id: str | None) -> list[str]:
        """The passages of the document about the answer, and those titled with its name."""
        texts: list[str] = []
        if answer_id:
            texts += [r["text"] or "" for r in self.db.run_in(self.session, "status/entity_pages",
                                                                entity_id=answer_id, limit=3)]
        query = lucene_query(_DISAMBIGUATION.sub("", answer))
        if query:
            params = self.scope.params()
            key = _title_key(answer)
            texts += [r["text"] or "" for r in self.db.run_in(self.session, "passages/search", query=query,
                                                                limit=PAGES, cases=params["cases"],
                                                                batches=params["batches"])
                      if _title_key(r["title"] or "") == key]
        return list(dict.fromkeys(texts))

    def _last_read(self, chain: Sequence[HopState]) -> list[str]:
        """What the chain's last hop read: its passage, or its fact's sentence and source passages."""
        last = next((h for h in reversed(chain) if h.answer and not h.generated), None)
        if last is None:
            return []
        rows = self.db.run_in(self.session, "trace/chain", step_ids=[last.step_id])
        texts = [r["evidence"] or "" for r in rows]
        if last.fact is not None:
            texts.append(last.fact.evidence or "")
            texts += [r["text"] or "" for r in self.db.run_in(self.session, "c2rag/fact_passages",
                                                                fact_ids=[last.fact.fact_id])]
        return [t for t in dict.fromkeys(texts) if t]

    def _unanchored(self, question: str, chain: Sequence[HopState]) -> list[str]:
        """The hops that read a passage not speaking of the entity they stood on (see `anchored`)."""
        hops = [h for h in chain if h.answer and not h.generated and h.fact is None and (h.entity_id or h.entity)]
        if not hops:
            return []
        read = {r["step_id"]: r["passage_id"] for r in self.db.run_in(self.session, "trace/chain",
                                                                       step_ids=[h.step_id for h in hops])
                if r["passage_id"]}
        pairs = [{"passage_id": read[h.step_id], "entity_id": h.entity_id, "answer_id": h.answer_id}
                 for h in hops if h.step_id in read]
        rows = {(r["passage_id"], r["entity_id"]): r for r in self.db.run_in(self.session, "status/passage_links",
                                                                             pairs=pairs)} if pairs else {}
        out = []
        for h in hops:
            row = rows.get((read.get(h.step_id), h.entity_id))
            whole = question in (h.query or "")
            asked = _asked_of(h.query or "", question) if whole else None
            of = asked or h.entity
            if asked and _title_key(asked) != _title_key(h.entity or ""):
                row = row and {**row, "about": False, "mentions": False}  # asked of another thing than the step's
            if row is not None and not anchored(row, of, whole=whole):
                out.append(f"hop {h.hop} asked of {of!r} read the page of {row['title']!r}, which "
                           f"{'is not about' if whole else 'does not name'} it")
        return out

    def _comparison(self, question: str, chain: Sequence[HopState], form: str) -> list[str]:
        """Each compared thing needs a hop of its own, standing on it with a fact or a passage that names it."""
        astray = self._unanchored(question, chain)
        if astray:
            return astray
        read = [h for h in chain if h.answer and not h.generated and (h.entity_id or h.entity)]
        if form == "choice":
            stood = [normalize(_DISAMBIGUATION.sub("", h.entity or "")) for h in read]
            unread = [o for o in analysed(question).form.options if not any(_same_name(o, s) for s in stood)]
            if unread:
                return ["the chain read no evidence of " + ", ".join(repr(o) for o in unread) +
                        ", which the question compares"]
            return []
        wanted, got = _compared_count(question), len({h.entity_id or h.entity for h in read})
        if got < wanted:
            return [f"the question compares {wanted} things; the chain read evidence of {got}"]
        return []


def _asked_of(query: str, question: str) -> str | None:
    """The thing a hop asked the whole question of, from its written form "(<thing>, <question>, ?x)"."""
    at = query.find(f", {question}")
    return query[1:at].strip() or None if query.startswith("(") and at > 1 else None


def anchored(row: dict, entity: str, *, whole: bool) -> bool:
    """Does a passage a hop read speak of the entity the hop stood on? A hop that asked one phrase of the
    entity links it to its answer only through a passage that names it (its document is about it, ingestion
    linked a mention, or it writes the name). A hop that asked the whole question of it (the answer read off
    the chain's end) needs the entity's own page: the question's words find the topic's pages, and an
    answer read there skips the chain it was asked at the end of."""
    about = bool(row.get("about")) or _title_key(row.get("title") or "") == _title_key(entity)
    if whole:
        return about
    if row.get("stated_link"):
        return True  # a stated fact links the entity to the answer: the passage only chose among its candidates
    written = bool(_mentions(f"{row.get('title') or ''}\n{row.get('text') or ''}", entity))
    return about or bool(row.get("mentions")) or written


def _loop(chain: Sequence[HopState], answer: str, answer_id: str | None) -> str | None:
    """A chain that ends where it already stood (its topic, a thing it bound on the way) went round: the
    relations it took to come back explain nothing the question asks of that thing."""
    passed: set[str] = set()
    for k, h in enumerate(chain):
        passed |= {x for x in (h.entity_id, _title_key(h.entity or "")) if x}
        if k < len(chain) - 1:
            passed |= {x for x in (h.answer_id, _title_key(h.answer or "")) if x}
    if (answer_id and answer_id in passed) or _title_key(answer) in passed:
        return f"the chain comes back to {answer!r}, which it passed through before: its way back explains nothing"
    return None


def _a(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _compared_count(question: str) -> int:
    """How many things a yes/no question compares: two when it says "both", "same", "and" or "either"
    between them, else one ("Is X a film director?")."""
    low = f" {normalize(question)} "
    return 2 if any(f" {w} " in low for w in PAIRING_WORDS) else 1


def _same_name(option: str, stood: str) -> bool:
    a, b = normalize(option), stood
    return bool(a) and bool(b) and (a == b or a in b or b in a)


def _title_key(title: str) -> str:
    return normalize(_DISAMBIGUATION.sub("", title or ""))


def _name_is_kind(lex: Lexicon, answer: str, kinds: frozenset[int]) -> bool:
    """The answer's name says its kind: its head word is a common noun of the kind ("... International
    Airport"), or WordNet knows the name itself as one (an instance: "Pennsylvania", a state)."""
    bare = _DISAMBIGUATION.sub("", answer).strip()
    words = _WORD.findall(bare)
    if len(words) > 1 and is_kind(lex, words[-1], kinds):
        return True
    return is_kind(lex, bare, kinds, common=False, senses=1)


__all__ = ["TextEvidence", "anchored", "asked_kind", "description_heads", "is_kind", "kind_senses"]
