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
from kgtool.reason.lexicon import LIGHT_VERB_SENSES, VERB_SENSES, Lexicon
from kgtool.reason.reading.words import GENERIC_NOUNS, QUESTION_WORDS, RELATIVE_PRONOUNS
from kgtool.reason.relmatch import RelationMatcher, RelationProfile
from kgtool.reason.segmatch import PhraseScorer
from kgtool.reason.offline_config import OFFLINE
from kgtool.reason.reading.words import FREE_RELATIVES

DEFINED_FIT = OFFLINE.defined_fit  # a phrase saying a relation's definition: above a paraphrase the embeddings find loosely
VERB_SENSE_FIT = OFFLINE.verb_sense_fit  # one verb whose sense the definition names in other words: a loose reading, below a noun's
DEFINITION_SENSES = 3  # the label's most frequent noun senses read ("capital": the third is a seat of government)
# heads of relative clauses that name no relation ("the one who ...", "the person that ...")
_GENERIC = GENERIC_NOUNS
_CLAUSE_OPENERS = RELATIVE_PRONOUNS | QUESTION_WORDS | FREE_RELATIVES


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
        if self.defines(phrase, prof) or self.defined_by(phrase, prof):
            return DEFINED_FIT
        if base < VERB_SENSE_FIT and self.verb_sense_defines(phrase, prof):
            return VERB_SENSE_FIT
        return base

    def verb_sense_defines(self, phrase: str, prof: RelationProfile) -> bool:
        """A clause saying its relation by one verb ("the man who steers T"): does one of the verb's
        frequent senses name, by another of its one-word lemmas, a word of the relation's
        definition? ("run" shares a sense with "operate"; a chief executive is "responsible for
        the operations of the firm".) The verb's own word is not enough: a definition may use it
        in passing, and `defines` already reads phrases of two words or more."""
        key = (phrase, prof.label or prof.key, "verb")
        found = self._defined.get(key)
        if found is None:
            toks = tokenize(phrase)
            words = [tok.text for tok in toks if tok.content and tok.text.lower() not in _GENERIC]
            # a word alone that names a kind of person ("the widow of T") is that noun, whatever
            # senses it has as a verb; in a clause ("whoever steers"; "person steers", as the planner
            # passes "the person who steers" without its function words) or a frame ("where did T
            # study", passed as "study") it is the verb
            clause = any(tok.text.lower() in _CLAUSE_OPENERS or tok.text.lower() in _GENERIC for tok in toks)
            found = False
            if len(words) == 1 and (clause or not self.lexicon.names_person(words[0])):
                verb = self.lexicon.verb_base(words[0])
                others = {light_stem(w) for w in self.lexicon.synonyms(verb, pos="v", senses=VERB_SENSES)
                          if " " not in w and w != verb and self.lexicon.sense_count(w) <= LIGHT_VERB_SENSES}
                found = bool(others) and any(any(stems_match(o, d) for d in definition for o in others)
                                             for definition in self._definitions_of(prof))
            if len(self._defined) > 100_000:
                self._defined.clear()
            self._defined[key] = found
        return found

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

    def defined_by(self, phrase: str, prof: RelationProfile) -> bool:
        """The other way round from `defines`: a phrase of one verb whose own definition says every content
        word of a relation's label of two words or more ("what killed T": to kill is "to cause to die",
        and "cause of death" is said there, death being the noun of dying; "place of death" is not).
        One label word is too little, as one phrase word is for `defines`."""
        words = self._stems(phrase)
        if len(words) != 1:
            return False
        label = content_stems(prof.label or "")
        if len(set(label)) < 2:
            return False
        said = self.lexicon.verb_definition(next(tok.text for tok in tokenize(phrase)
                                                 if tok.content and tok.text.lower() not in _GENERIC))
        return bool(said) and all(any(stems_match(w, s) for s in said) for w in label)

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
