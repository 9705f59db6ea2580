"""A relation's definition as one more reading of a question phrase (issue 24).

`PhraseScorer` (kgtool.reason.segmatch) scores a phrase against a relation's words, their
embeddings and WordNet synonyms. A phrase may instead say what the relation *is*: "who gave birth
to T" says the definition of "mother" ("a woman who has given birth to a child"), "the seat of
government of T" that of "capital". `GlossScorer` adds that reading: when every content word of a
phrase of two or more (verbs taken to their base form, "gave" and "given" both "give") appears in
one of the WordNet definitions of the relation's label, the phrase fits the relation at
`DEFINED_FIT`. One word is too little to tell a definition from a chance word ("city" is in the
definition of "mayor"); the label and its definitions come from the graph and WordNet, never from
a list written for a dataset.
"""
from __future__ import annotations

from kgtool.core.text import content_stems, light_stem, stems_match, tokenize
from kgtool.reason.lexicon import Lexicon
from kgtool.reason.relmatch import RelationMatcher, RelationProfile
from kgtool.reason.segmatch import PhraseScorer

DEFINED_FIT = 0.8  # a phrase saying a relation's definition: above a paraphrase the embeddings find loosely
DEFINITION_SENSES = 3  # the label's most frequent noun senses read ("capital": the third is a seat of government)
# heads of relative clauses that name no relation ("the one who ...", "the person that ...")
_GENERIC = frozenset("person one people someone somebody thing entity".split())


class GlossScorer(PhraseScorer):
    """PhraseScorer, plus: a phrase that says a relation's definition fits it (`DEFINED_FIT`)."""

    def __init__(self, matcher: RelationMatcher, lexicon: Lexicon | None = None):
        super().__init__(matcher, lexicon)
        self._definitions: dict[str, list[list[str]]] = {}
        self._defined: dict[tuple[str, str], bool] = {}

    def score(self, phrase: str, prof: RelationProfile, *, parts: bool = True) -> float:
        base = super().score(phrase, prof, parts=parts)
        if base >= DEFINED_FIT or self.lexicon is None:
            return base
        return DEFINED_FIT if self.defines(phrase, prof) else base

    def defines(self, phrase: str, prof: RelationProfile) -> bool:
        """Does every content word of the (two or more word) phrase appear in one definition of
        the relation's label?"""
        key = (phrase, prof.label or prof.key)
        found = self._defined.get(key)
        if found is None:
            words = self._stems(phrase)
            found = len(words) >= 2 and any(
                all(any(stems_match(w, d) for d in definition) for w in words)
                for definition in self._definitions_of(prof))
            if len(self._defined) > 100_000:
                self._defined.clear()
            self._defined[key] = found
        return found

    def _stems(self, text: str) -> list[str]:
        out = []
        for tok in tokenize(text):
            if not tok.content or tok.text.lower() in _GENERIC:
                continue
            out.append(light_stem(self.lexicon.verb_base(tok.text)) if self.lexicon else tok.stem)
        return out

    def _definitions_of(self, prof: RelationProfile) -> list[list[str]]:
        label = prof.label or ""
        found = self._definitions.get(label)
        if found is None:
            found = []
            if self.lexicon is not None and label and len(label.split()) <= 3:
                for gloss in self.lexicon.glosses(label, senses=DEFINITION_SENSES):
                    stems = self._stems(gloss) + content_stems(gloss)
                    found.append(list(dict.fromkeys(stems)))
            self._definitions[label] = found
        return found
