"""Offline triple extraction from document passages: entity mentions and the phrase between them.

No model hub is needed. A passage's mentions come from, in order of trust:

1. the gazetteer: names and aliases of entities already in the graph and the
   titles of the documents being ingested (spaCy PhraseMatcher over a blank
   English tokenizer, kgtool.ingest.linking);
2. the passage's own title under shorter forms ("Hello Love" for "Hello Love
   (song)", "Snow" inside the passage about Hank Snow), since encyclopedic text
   names its topic once and then shortens it;
3. quoted titles ("Marriage Vow"), runs of capitalised words with their
   connectors ("University of Copenhagen", "Johann Strauss II"), and numbers
   ("1949", "35"). A run is cut at a known name of several words that opens it
   before a connector or closes it ("<known full name> of <band>" is two names),
   and a lone word that ends one full name of the passage is that name's entity
   (a surname after the full name).

Each sentence then gives triples (subject, connecting phrase, object): the
subject is the sentence's first named mention, or the passage's topic when the
sentence opens with a pronoun or names nothing early; each later mention is an
object, related by the words between it and the mention before it. Items of a
list ("Kentucky and Virginia") share the phrase of the first item. Relation
text is therefore the passage's own wording ("moved to", "is a 1974 single
by"), which relation matching compares with questions by embedding.

Against `ClauseExtractor` below (the same mentions, a triple only where a
verb-like word joins them), on a store holding the HotpotQA corpus alone:
mentions 12,744 facts, c2rag EM 0.208 / F1 0.267 on the HotpotQA dev sample;
clauses 10,872 facts, c2rag 0.170 / 0.242 (bm25-reader 0.132 / 0.190 on both,
offline agents). `mentions` stays the default.

Measured with `kgtool eval retrieval` (its `linking` section) on the MuSiQue dev
sample: 88 of the 115 question-decomposition answers (76.5%) became an Entity
linked to their hop's passage; yield 10.8 facts per passage on the MuSiQue
corpus, 12.8 on the HotpotQA corpus. With runs cut at known names, surnames and
the accent-folded fallback (session 39, both corpora in one fresh store): 90 of
115 (78.3%), MuSiQue recall@5 of dense+linked+walk 71.5 -> 72.5, HotpotQA unchanged.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from kgtool.core.text import STOPWORDS, normalize, strip_disambiguation  # noqa: F401  (docs.py imports it here)
from kgtool.ingest.extract import split_sentences
from kgtool.ingest.linking import Gazetteer, canonical_id
from kgtool.ingest.records import Candidate

# Lower-case words that may join capitalised words inside one name.
_CONNECTORS = frozenset("of the de du da di von van der den del la le y et al am upon".split())
# Capitalised only because they open a sentence: never a name on their own.
_OPENERS = frozenset("""however although after before during today later meanwhile since following despite
    according while when where other many most several born once until upon unlike like following further
    furthermore moreover nevertheless instead although though because there""".split())
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|December|"
           "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
_DATE = re.compile(rf"\b(?:\d{{1,2}}\s+(?:{_MONTHS})\.?,?\s+\d{{3,4}}|(?:{_MONTHS})\.?\s+\d{{1,2}},?\s+\d{{3,4}}"
                   rf"|(?:{_MONTHS})\.?\s+\d{{3,4}})\b")
# Sentences that open with these talk about the passage's topic.
_PRONOUNS = frozenset("he she it they his her its their this these".split())
_TOKEN = re.compile(r"[A-Z]\.(?=\s)|[\w][\w'’.\-]*[\w]|[\w]|&")
_QUOTED = re.compile(r"\"([^\"]{2,80})\"|``\s*([^`']{2,80}?)\s*''|“([^”]{2,80})”")
_PARENS = re.compile(r"\s*\([^()]*\)")
_LIST_GLUE = re.compile(r"^[\s,;]*(?:(?:and|or|as well as|&)[\s,]*)?$", re.IGNORECASE)
_TOPIC_WINDOW = 4  # a sentence whose first name comes later than this many words is about the topic
_CONNECTOR_GAP = re.compile(r"\s+(?:" + "|".join(sorted(_CONNECTORS)) + r")\s+")
_FULL_NAME_WORDS = 3  # a name whose last word stands for it: given name(s) and surname


@dataclass(frozen=True, slots=True)
class Mention:
    start: int
    end: int
    entity_id: str
    name: str  # the entity's display name (its gazetteer primary name, or the surface)
    kind: str  # gazetteer | title | quoted | name | number | ner (a parser's named entity)


@dataclass(frozen=True, slots=True)
class DocTriple:
    """A triple read from one sentence of a passage, with its endpoints already linked."""

    head_id: str
    head: str
    relation: str
    tail_id: str
    tail: str
    evidence: str


@dataclass
class PassageExtraction:
    """What extraction found in one passage: triples and every linked entity (id -> name), and
    for mentions no known name matched, the kind the parser read them as (id -> quoted | name |
    number): the entity text creates is typed, and entity resolution keeps kinds apart."""

    triples: list[DocTriple] = field(default_factory=list)
    entities: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)


def _possessive(word: str) -> bool:
    return word.endswith(("'s", "’s"))


def sentence_spans(text: str, starts: Sequence[int] | None = None) -> list[tuple[int, int]]:
    """(start, end) of each sentence; `starts` are stored sentence start offsets when known."""
    if starts:
        bounds = [s for s in starts if 0 <= s < len(text)] + [len(text)]
        return [(a, b) for a, b in zip(bounds, bounds[1:]) if text[a:b].strip()]
    spans, pos = [], 0
    for sentence in split_sentences(text):
        start = text.find(sentence, pos)
        if start < 0:  # split_sentences strips; find() only fails on odd whitespace
            continue
        spans.append((start, start + len(sentence)))
        pos = start + len(sentence)
    return spans


class MentionExtractor:
    """Entity mentions (gazetteer, title forms, names, numbers) and the phrases joining them."""

    name = "mentions"

    def __init__(self, *, max_relation_words: int = 8, numbers: bool = True, gazetteer: Gazetteer | None = None):
        self.max_relation_words = max(1, int(max_relation_words))
        self.numbers = numbers
        self.gazetteer = gazetteer

    def use_gazetteer(self, gazetteer: Gazetteer) -> None:
        """The names to link against (the ingestion pipeline passes the graph's and the titles')."""
        self.gazetteer = gazetteer

    # ------------------------------------------------------------------ mentions

    def mentions(self, title: str, text: str) -> list[Mention]:
        """Non-overlapping mentions in `text`, by position; earlier sources win overlaps."""
        found: list[Mention] = []
        taken: list[tuple[int, int]] = []

        def add(start: int, end: int, entity_id: str, name: str, kind: str) -> None:
            if end <= start or any(s < end and start < e for s, e in taken):
                return
            taken.append((start, end))
            found.append(Mention(start, end, entity_id, name, kind))

        for hit in _DATE.finditer(text):
            add(hit.start(), hit.end(), canonical_id(hit.group(0)), hit.group(0), "date")
        runs = list(self._capitalised_runs(text))
        gazetteer = self.gazetteer
        if gazetteer is not None:
            known = gazetteer.find_mentions(text)
            runs = self._split_runs(text, runs, known)
            for m in known:
                surface = m.surface
                # a one-word name written in lower case is an ordinary word here ("love", "water")
                if " " not in surface.strip() and surface[:1].islower():
                    continue
                # a known name inside a longer name is not that name ("Houston" in "Houston Astros")
                if any(s <= m.start_char and m.end_char <= e and (e - s) > (m.end_char - m.start_char)
                       for s, e in runs):
                    continue
                names = gazetteer.names(m.entity_id)
                add(m.start_char, m.end_char, m.entity_id, names[0] if names else surface, "gazetteer")
        if title:
            topic_id = self._topic_id(title)
            forms = self._title_forms(title)
            for n, form in enumerate(forms):
                for hit in re.finditer(r"(?<![\w])" + re.escape(form) + r"(?![\w])", text):
                    # the topic's last name alone, not inside someone else's full name
                    if n == len(forms) - 1 and " " not in form and self._inside_name(text, hit.start(), hit.end()):
                        continue
                    add(hit.start(), hit.end(), topic_id, title, "title")
        for hit in _QUOTED.finditer(text):
            group = next(i for i in (1, 2, 3) if hit.group(i))
            surface = hit.group(group).strip(" ,.")
            if surface and len(surface.split()) <= 8 and surface[:1].isupper():
                start = hit.start(group) + hit.group(group).index(surface)
                add(start, start + len(surface), self._link(surface), self._name(surface), "quoted")
        for start, end in runs:
            surface = text[start:end]
            add(start, end, self._link(surface), self._name(surface), "name")
        if self.numbers:
            for hit in re.finditer(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?(?![\w])", text):
                surface = hit.group(0).rstrip(",")
                add(hit.start(), hit.start() + len(surface), canonical_id(surface), surface, "number")
        found.sort(key=lambda m: m.start)
        return self._surnames(text, found)

    @staticmethod
    def _split_runs(text: str, runs: list[tuple[int, int]], known: Sequence[Any]) -> list[tuple[int, int]]:
        """Runs that hold a known name of several words next to other capitalised words are two names,
        not one, where the known name opens the run before a connector ("<full name> of <band>") or
        closes it after capitalised words that are no connector ("<title words> <full name>"): the
        known name keeps its entity and the rest is a run of its own. A known name of one word
        ("Houston Astros", "University of X") or after a connector ("University of New South Wales")
        stays inside its run."""
        several = [m for m in known if " " in m.surface.strip()]
        heads = {m.start_char: m.end_char for m in several}
        tails = {m.end_char: m.start_char for m in several}
        out = []
        for start, end in runs:
            head_end, tail_start = heads.get(start), tails.get(end)
            glue = _CONNECTOR_GAP.match(text, head_end, end) if head_end is not None and head_end < end else None
            if glue is not None and glue.end() < end:
                out.extend(((start, head_end), (glue.end(), end)))
            elif tail_start is not None and start < tail_start and text[tail_start - 1].isspace() \
                    and text[start:tail_start].split()[-1] not in _CONNECTORS:
                out.extend(((start, start + len(text[start:tail_start].rstrip())), (tail_start, end)))
            else:
                out.append((start, end))
        return out

    @staticmethod
    def _surnames(text: str, found: list[Mention]) -> list[Mention]:
        """A one-word name no known name matched that is the last word of a full name the same passage
        mentions ("Reznor" after "Trent Reznor") is that entity, when one full name ends so."""
        full: dict[str, set[tuple[str, str, str]]] = {}
        for m in found:
            words = text[m.start:m.end].split()
            if m.kind not in ("number", "quoted", "date") and 2 <= len(words) <= _FULL_NAME_WORDS and all(w[:1].isupper() for w in words):
                full.setdefault(words[-1], set()).add((m.entity_id, m.name, m.kind))
        if not full:
            return found
        out = []
        for m in found:
            surface = text[m.start:m.end]
            owners = full.get(surface) if m.kind == "name" and " " not in surface else None
            if owners and len(owners) == 1 and len(surface) >= 3 and surface.lower() not in STOPWORDS:
                entity_id, name, kind = next(iter(owners))
                m = Mention(m.start, m.end, entity_id, name, kind)
            out.append(m)
        return out

    def _topic_id(self, title: str) -> str:
        return (self.gazetteer.link(title) if self.gazetteer is not None else None) or canonical_id(title)

    @staticmethod
    def _title_forms(title: str) -> list[str]:
        short = strip_disambiguation(title)
        forms = [title, short]
        words = short.split()
        # the last word of a multi-word name stands for it inside its own passage ("Snow", "Viorst")
        if len(words) >= 2 and words[-1][:1].isupper() and len(words[-1]) >= 3 \
                and words[-1].lower() not in STOPWORDS and not words[-1].isupper():
            forms.append(words[-1])
        return list(dict.fromkeys(f for f in forms if f))

    def _link(self, surface: str) -> str:
        linked = self.gazetteer.link(surface) if self.gazetteer is not None else None
        return linked or canonical_id(surface)

    def _name(self, surface: str) -> str:
        if self.gazetteer is not None:
            entity_id = self.gazetteer.link(surface)
            if entity_id:
                names = self.gazetteer.names(entity_id)
                if names:
                    return names[0]
        return surface

    @staticmethod
    def _inside_name(text: str, start: int, end: int) -> bool:
        before = re.search(r"([\w.]+)\s$", text[max(0, start - 40):start])
        after = re.match(r"\s([\w]+)", text[end:end + 40])
        return bool((before and before.group(1)[:1].isupper()) or (after and after.group(1)[:1].isupper()))

    @staticmethod
    def _capitalised_runs(text: str) -> Iterable[tuple[int, int]]:
        """Spans of capitalised words, joined by name connectors ("University of Copenhagen")."""
        tokens = [(m.start(), m.end(), m.group(0)) for m in _TOKEN.finditer(text)]
        skip = STOPWORDS | _CONNECTORS | _OPENERS
        i = 0
        while i < len(tokens):
            if not tokens[i][2][:1].isupper():
                i += 1
                continue
            j = last = i
            while j + 1 < len(tokens) and not _possessive(tokens[j][2]):
                gap = text[tokens[j][1]:tokens[j + 1][0]]
                nxt = tokens[j + 1][2]
                if gap.strip():
                    break
                if nxt[:1].isupper():
                    j = last = j + 1
                elif nxt.lower() in _CONNECTORS and j + 2 < len(tokens) and tokens[j + 2][2][:1].isupper() \
                        and not text[tokens[j + 1][1]:tokens[j + 2][0]].strip():
                    j += 1
                else:
                    break
            k = i  # leading function words and sentence openers ("The", "In", "However") are not the name,
            # nor a leading modifier whose last part is lower case ("French-held", "Soviet-era")
            while k <= last and (tokens[k][2].lower() in skip or (k < last and "-" in tokens[k][2]
                                                                  and tokens[k][2].rsplit("-", 1)[1].islower())):
                k += 1
            if k <= last:
                end = tokens[last][1]
                if _possessive(tokens[last][2]):
                    end -= 2
                yield tokens[k][0], end
            i = last + 1

    # ------------------------------------------------------------------ triples

    def extract_passage(self, title: str, text: str, sentence_starts: Sequence[int] | None = None) -> PassageExtraction:
        mentions = self.mentions(title, text)

        def sentence_triples(s_start: int, s_end: int, topic):
            inside = [m for m in mentions if s_start <= m.start and m.end <= s_end]
            return self._sentence_triples(text, s_start, inside, topic)

        return self._extraction(title, text, sentence_starts, mentions, sentence_triples)

    def _extraction(self, title: str, text: str, sentence_starts, mentions: list[Mention],
                    sentence_triples) -> PassageExtraction:
        """The passage's entities (its topic and every mention) and the triples `sentence_triples(start,
        end, topic)` reads from each sentence, each (head, relation, tail) once."""
        out = PassageExtraction()
        topic = (self._topic_id(title), title) if title else None
        if topic:
            out.entities[topic[0]] = topic[1]
        for m in mentions:
            out.entities.setdefault(m.entity_id, m.name)
            if m.kind in ("quoted", "name", "number", "ner"):
                out.kinds.setdefault(m.entity_id, "name" if m.kind == "ner" else m.kind)
        seen: set[tuple[str, str, str]] = set()
        for s_start, s_end in sentence_spans(text, sentence_starts):
            sentence = text[s_start:s_end].strip()
            for head, relation, tail in sentence_triples(s_start, s_end, topic):
                key = (head[0], normalize(relation), tail[0])
                if head[0] == tail[0] or key in seen:
                    continue
                seen.add(key)
                out.triples.append(DocTriple(head[0], head[1], relation, tail[0], tail[1], sentence))
        return out

    def _sentence_triples(self, text: str, s_start: int, mentions: list[Mention], topic):
        named = [m for m in mentions if m.kind != "number"]
        opening = text[s_start:named[0].start] if named else text[s_start:]
        first_word = (_TOKEN.findall(text[s_start:s_start + 40]) or [""])[0].lower()
        words_before = len(_TOKEN.findall(opening))
        if named and words_before <= _TOPIC_WINDOW and first_word not in _PRONOUNS:
            subject = named[0]
            head = (subject.entity_id, subject.name)
            anchor = subject.end
            objects = [m for m in mentions if m.start >= subject.end]
        elif topic is not None:
            head, anchor = topic, s_start
            if first_word in _PRONOUNS:
                anchor = s_start + text[s_start:].lower().index(first_word) + len(first_word)
            objects = [m for m in mentions if m.start >= anchor]
        else:
            return
        relation = None
        for m in objects:
            gap = text[anchor:m.start]
            if relation is not None and _LIST_GLUE.match(gap):
                pass  # another item of the same list keeps the phrase
            else:
                phrase = self._clean(gap)
                if phrase:
                    relation = phrase
            if relation:
                yield head, relation, (m.entity_id, m.name)
            anchor = m.end

    def _clean(self, gap: str) -> str:
        gap = _PARENS.sub(" ", gap)
        words = [w for w in re.findall(r"[\w][\w'’\-]*", gap)]
        words = words[-self.max_relation_words:]
        phrase = " ".join(words).strip().lower()
        return phrase if any(c.isalpha() for c in phrase) else ""

    # ------------------------------------------------------------------ interfaces

    def extract_passages(self, passages: Sequence[Any]) -> list[PassageExtraction]:
        """One PassageExtraction per passage (objects with title, text and optional sentences)."""
        return [self.extract_passage(getattr(p, "title", "") or "", p.text, getattr(p, "sentences", None))
                for p in passages]

    def extract_batch(self, records: Sequence[Any]) -> list[list[Candidate]]:
        """The Extractor interface (records with a description): the triples as raw candidates."""
        out = []
        for record in records:
            found = self.extract_passage(getattr(record, "title", "") or "", record.description)
            out.append([Candidate(t.head, t.relation, t.tail, t.evidence, self.name) for t in found.triples])
        return out


def extract_passages(extractor: Any, passages: Sequence[Any], gazetteer: Gazetteer) -> list[PassageExtraction]:
    """Run any registered extractor over passages and link what it found.

    Extractors made for documents (with `extract_passages`) link their own
    mentions; the others (rebel, llm: candidates of names) are linked here
    through the gazetteer, and every passage also links its title entity.
    """
    if hasattr(extractor, "use_gazetteer"):
        extractor.use_gazetteer(gazetteer)
    if hasattr(extractor, "extract_passages"):
        return extractor.extract_passages(passages)
    results = []
    for passage, candidates in zip(passages, extractor.extract_batch(passages)):
        out = PassageExtraction()
        if passage.title:
            out.entities[gazetteer.resolve(passage.title)] = passage.title
        for c in candidates:
            head_id, tail_id = gazetteer.resolve(c.head), gazetteer.resolve(c.tail)
            if head_id == tail_id:
                continue
            out.entities.setdefault(head_id, c.head)
            out.entities.setdefault(tail_id, c.tail)
            out.triples.append(DocTriple(head_id, c.head, c.relation, tail_id, c.tail, c.evidence))
        results.append(out)
    return results


# Words that make a gap a predicate without a part-of-speech tagger: copulas and auxiliaries, and common
# irregular past forms (regular ones end in -ed). Plain English, not any corpus's wording.
_VERBS = frozenset("""is was are were be been being has have had became become becomes born won wrote written
    made led took taken gave given sang sung began begun grew grown held left built sold known drew drawn ran
    bought brought taught met found lost became struck spent stood told thought went gone came married starred
    stars plays includes contains features serves runs""".split())


def _verb_like(word: str) -> bool:
    w = word.lower()
    return w in _VERBS or (len(w) > 4 and w.endswith("ed"))


class ClauseExtractor(MentionExtractor):
    """The same mentions, but a triple only where a predicate joins them (subject, verb phrase, object).

    The alternative to `mentions` for issue 9's comparison: the relation is the gap from its first
    verb-like word on ("was born in", "directed by"), and a gap with no verb ("a friend of") gives no
    triple, trading recall for relations that read as predicates.
    """

    name = "clauses"

    def _clean(self, gap: str) -> str:
        gap = _PARENS.sub(" ", gap)
        words = re.findall(r"[\w][\w'’\-]*", gap)
        start = next((i for i, w in enumerate(words) if _verb_like(w)), None)
        if start is None:
            return ""
        phrase = " ".join(words[start:][: self.max_relation_words]).strip().lower()
        return phrase if any(c.isalpha() for c in phrase) else ""
