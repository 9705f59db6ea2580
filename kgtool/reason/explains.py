"""Does the chain explain the question? The reading check of the status rule (kgtool.reason.status).

A method's chain may reach an answer the question did not ask for: a hop the graph
lacks is replaced by a neighbour ("X's father" answered through X's mother), a
phrase is credited to a relation that only resembles it, a link the question never
names is crossed on the way. The planner's own `unexplained` list sees only the
plan it made, and only against the reading it chose; a method may follow another
chain. This check reads the question the way the planner does
(`kgtool.reason.question.read_question`, around the chain's topic mention) and
scores every relation phrase against the relations the chain actually took, with
the planner's own phrase matcher (`PhraseScorer`: the graph's phrasings, the
embeddings, WordNet). Before scoring, a phrase loses its fit to a hop whose relation gives
the answer another role than the phrase does (kgtool.reason.roles: "Who gave birth to X?"
is near "born in" in meaning, but "X born in Y" makes Y a place; "Which company was
founded by X?" asks for what X founded); a hop the grammar confirms as read backwards
keeps its full fit. It reports these gaps:

- a required phrase no hop explains at `explains` or better (and a verb said with its
  object, "the person who wed the author of X", when its WordNet verb senses name a
  relation of the graph: it needs a hop of its own);
- a phrase whose hop explains it clearly worse than another relation of the graph
  does (by more than `margin`): the question names that relation, which this
  entity lacks ("father" read as "mother", a relation read against its direction);
- a phrase that explained a hop only the wrong way round, with no other phrase
  explaining that hop;
- a hop whose relation shares nothing with any phrase of the question (below
  `names_nothing`): a link the question never names ("Who employs X?" answered
  with X's mother's employer), and a hop past the furthest hop the phrases reach
  (a chain that goes on after the question's answer), and a skipped hop named faintly only by
  phrases spent on hops other than the one it leads to (a phrase is explained once);

Phrases of the question's frame that may only be a verb for the phrase before them
(`Segment.soft`) and answer-type hints (`Segment.optional`) are not required, but
count as naming a hop. The bar is the offline agents' own (`offline_fit`, 0.5: the
score at which the selector and critic take a relation to explain a text), not one
fitted to a data set; README ("Honest statuses") gives the measured trade-off.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from kgtool.core.text import light_stem, normalise_label
from kgtool.core.types import CandidateFact
from kgtool.ingest.literals import LITERAL_PREFIX
from kgtool.reason.abstain import KIND_ASKED, best_relation, relation_words
from kgtool.reason.answer_kind import TIME_KINDS, asks_place, kind_gap
from kgtool.reason.kinds import puts_in_place
from kgtool.reason.question import QuestionReading, Segment
from kgtool.reason.reading.analysis import QuestionAnalysis
from kgtool.reason.reading.form import says_number
from kgtool.reason.reading.words import ARTICLES
from kgtool.reason.relation_vocabulary import RelationVocabulary, vocabulary_of
from kgtool.reason.relmatch import RelationProfile
from kgtool.reason.roles import (PhraseRole, clause_verb, conflict, doer_side, evidence_phrasing, reciprocal,
                                 relation_role, says_part_of, segment_role, shares_verb_sense)
from kgtool.reason.segmatch import MAX_SYNONYMS, SYNONYM_WEIGHT, PhraseScorer, merged_text
from kgtool.reason.offline_config import OFFLINE

# a hop fitting a phrase below this leaves it unexplained: the offline agents' shared bar for "a relation
# explains a text" (Thresholds.fit, the `offline_fit` setting), which chain_gaps reads from the settings
EXPLAINS = OFFLINE.fit
MARGIN = OFFLINE.explains_margin  # another relation of the graph explaining the phrase better than this names it instead
RIVAL_MARGIN = OFFLINE.rival_margin  # another relation fitting the phrase within this of the hop: a second reading
NAMES_NOTHING = OFFLINE.names_nothing  # a hop fitting every phrase below this is a link the question does not name
SAME_RELATION = OFFLINE.same_relation  # two relations this alike are one (CARE's delta_rel)
REVERSE_FACTOR = OFFLINE.reverse_factor  # a relation read against its direction (Thresholds.reverse_factor)
PASSAGE_HOP = "passage-step:"  # the fact id of a hop a passage answered (it has no fact)
# WordNet hypernym levels between a phrase's noun and a relation's noun that still name one relation: at one
# level "consort" is a spouse and a founder an originator; at nouns_related's default three, a person is a mayor
KIN_DEPTH = 1
EXACT = OFFLINE.exact_fit  # the fit of a phrase to the relation it names outright (its label, a phrasing of it)


@dataclass
class ReadingGaps:
    unexplained: list[str] = field(default_factory=list)  # phrases no hop explains
    near: dict[str, float] = field(default_factory=dict)  # per unexplained phrase: the best fit of a hop to it
    of_topic: list[str] = field(default_factory=list)  # the unexplained phrases said of the topic ("the R of T")
    named_elsewhere: list[tuple[str, str]] = field(default_factory=list)  # (phrase, the relation it names)
    named_of: list[str] = field(default_factory=list)  # per named_elsewhere entry: the entity of its hop
    # per named_elsewhere entry: True when its hop took that same relation backwards (the phrase names it read
    # forwards from the entity: "X's father" against "the one whose father X is"), else None (either side)
    named_forward: list[bool | None] = field(default_factory=list)
    unnamed_hops: list[int] = field(default_factory=list)  # 1-based hops no phrase names
    repeated: list[tuple[int, str]] = field(default_factory=list)  # (1-based hop, relation) taken once too often
    reversed: list[tuple[str, str]] = field(default_factory=list)  # (phrase, relation) it fits only the other way
    # (phrase, relation, entity, as_subject) of a phrase reading the relation a hop took from the entity the
    # other way round ("the son of T" at T's own `father`; "who gave birth to T" at T's child's `mother`): it asks
    # for a fact with the entity as its subject (as_subject) or its object
    converse: list[tuple[str, str, str, bool]] = field(default_factory=list)
    # (phrase, the hop's relation, another relation fitting the phrase nearly as well, the hop's entity): two
    # readings of one phrase; abstain.reading_lacks doubts the answer when that entity has both relations
    rivals: list[tuple[str, str, str, str]] = field(default_factory=list)
    weak_answer: str | None = None  # the relation of the last hop, when no phrase explains it
    explained: list[str] = field(default_factory=list)  # phrases some hop explains at the bar

    def reasons(self) -> list[str]:
        out = []
        if self.unexplained:
            out.append("the chain does not explain " + ", ".join(repr(p) for p in self.unexplained))
        for phrase, relation in self.reversed:
            out.append(f"{phrase!r} gives the answer another role than {relation!r} does (who does what to whom)")
        for phrase, relation in self.named_elsewhere:
            out.append(f"{phrase!r} names the relation {relation!r} better than the chain's hop does")
        if self.unnamed_hops:
            hops = ", ".join(map(str, self.unnamed_hops))
            out.append(f"hop {hops} {'follows a relation' if len(self.unnamed_hops) == 1 else 'follow relations'}"
                       " the question does not name")
        for hop, relation in self.repeated:
            out.append(f"hop {hop} takes {relation!r} again, more often than the question names it")
        if self.weak_answer is not None:
            out.append(f"no phrase of the question asks for the last hop's {self.weak_answer!r}")
        return out


class Gaps(list):
    """The reasons a chain does not explain its question (a list of strings, as the status rule takes
    them), and the phrases it does explain: the planner's own list of phrases it left (status.settle)
    gives way to this check, which reads the chain actually taken with every reading it has. `found` (the
    check's ReadingGaps), `best_relation(phrase) -> (label, fit)` and `has_relation(label) -> bool` (does
    an entity of the chain take part in a fact of that relation?) and `detour(hop) -> Detour | None` (is the
    unnamed hop `hop` a way round a fact its entity lacks?) feed kgtool.reason.abstain."""

    def __init__(self, reasons=(), explained=(), found: "ReadingGaps | None" = None, best_relation=None,
                 has_relation=None, detour=None):
        super().__init__(reasons)
        self.kind_met = False  # the question asks for a time and the answer is one (set by chain_gaps)
        self.explained = frozenset(explained)
        self.found = found
        self.best_relation = best_relation
        self.has_relation = has_relation
        self.detour = detour


@dataclass(frozen=True)
class Detour:
    """An unnamed hop followed by the hop the question asks: the entity it left (`entity`) lacks the asked
    `relation`, which `holding` of `peers` entities like it (on its side of the unnamed hop's relation
    `via`) hold."""

    entity: str
    via: str
    relation: str
    peers: int
    holding: int
    last: bool  # the asked hop is the chain's last
    value: bool = False  # the asked hop ends at a literal value (a number, a date) stated of the entity it left


class ReadingCheck:
    """Scores a question's relation phrases against the relations of a chain (see the module docstring)."""

    def __init__(self, scorer: PhraseScorer, profile_of: Callable[[str, str], RelationProfile],
                 vocabulary: RelationVocabulary | None = None, *, explains: float = EXPLAINS,
                 margin: float = MARGIN, rival_margin: float = RIVAL_MARGIN, names_nothing: float = NAMES_NOTHING,
                 reverse_factor: float = REVERSE_FACTOR,
                 kin: Callable[[CandidateFact, str], bool] | None = None):
        self.scorer = scorer
        # whether a relation key is of the part of the graph a hop stands in (None: the whole graph is);
        # see relation_of_hops_part
        self.kin = kin
        self.profile_of = profile_of  # (relation key, label) -> profile
        self.vocabulary = vocabulary
        self.explains = explains
        self.margin = margin
        self.rival_margin = rival_margin
        self.names_nothing = names_nothing
        self.reverse_factor = reverse_factor

    def check(self, reading: QuestionReading, facts: Sequence[CandidateFact]) -> ReadingGaps:
        gaps = ReadingGaps()
        # a type hint said before a relation phrase ("the country whose capital is T": what the owner is)
        # names no hop: only the answer's own type, said last, may (a type hop)
        segments = [s for i, s in enumerate(reading.segments) if s.content and not (
            s.optional and any(t.content and not t.optional for t in reading.segments[i + 1:]))]
        if not facts or not segments:
            return gaps
        texts = {s: merged_text([s]) for s in segments}
        self.scorer.prepare([(t, True) for t in dict.fromkeys(texts.values())])
        # a relation whose sides do the same to each other ("married") is read from either end alike
        hops = [(self.profile_of(_key(f), f.relation or ""),
                 self.reverse_factor if f.direction == "in" and not reciprocal(f.relation or "") else 1.0)
                for f in facts]
        fits = {s: [factor * self.scorer.score(texts[s], prof) for prof, factor in hops] for s in segments}
        self._without_modifying_kind(reading, segments, facts, hops, fits)
        self._kin_nouns(segments, facts, hops, fits)
        turned = self._against_roles(reading, segments, facts, hops, fits, gaps)
        turned.update(self._converses(segments, facts, hops, fits, gaps))
        last = len(facts) - 1
        if facts[last].direction == "out" and asks_place(reading.answer_type) and \
                puts_in_place(hops[last][0].label or facts[last].relation or ""):
            # "which country is X in", "in what city is X": the kind is a place no relation is named after,
            # and the last hop puts X in a place (a relation said with "in"); a phrase that says only the
            # kind names that hop (answer_kind checks the place is of the kind)
            for seg in segments:
                if {w.lower() for w in seg.content} <= set(reading.answer_type.split()):
                    fits[seg][last] = max(fits[seg][last], self.explains)
        gaps.explained = self._own_hops(segments, fits)
        for seg in segments:
            if seg.optional or seg.soft:
                continue
            best = max(fits[seg])
            if best < self.explains:
                if seg in turned:
                    gaps.reversed.append((seg.text, turned[seg][0]))
                else:
                    gaps.unexplained.append(seg.text)
                    gaps.near[seg.text] = best
                    if _said_of_topic(seg, reading):
                        gaps.of_topic.append(seg.text)
                continue
            at = fits[seg].index(best)
            if facts[at].fact_id.startswith(PASSAGE_HOP):
                continue  # a passage answered what this phrase asks: no relation of the graph to compare
            taken = facts[at]
            stands_on = _stood_on(taken)[0]
            named = self._named_instead(texts[seg], best, taken)
            if named is not None:
                gaps.named_elsewhere.append((seg.text, named))
                gaps.named_of.append(stands_on)
                # "T's father", "the father of T": the phrase names the relation read forwards from the topic T;
                # the first hop took that very relation backwards (to T's child)
                same = named == _key(taken) or relation_words(named) == relation_words(taken.relation)
                forwards = same and taken.direction == "in" and taken is facts[0] and _said_of_topic(seg, reading)
                gaps.named_forward.append(True if forwards else None)
                continue
            # phrases explained best by one hop name it together ("cause" and "death"): no second reading
            shared = any(o is not seg and not o.optional and max(fits[o]) >= self.explains
                         and fits[o].index(max(fits[o])) == at for o in segments)
            rival = None if shared else self._rival(texts[seg], best, taken, facts)
            if rival is not None:
                gaps.rivals.append((seg.text, taken.relation or _key(taken), rival, stands_on))
        extra = self._clause_verbs(reading, segments, hops, fits, gaps)
        gaps.unnamed_hops = self._unnamed([*segments, *extra], {**fits, **extra}, len(hops))
        for seg, (label, h) in turned.items():
            # the phrase that named this hop best reads it backwards, and no other phrase explains it
            if (seg.text, label) not in gaps.reversed and max(fits[s][h] for s in segments) < self.explains:
                gaps.reversed.append((seg.text, label))
        self._converse_of_topic(reading, segments, facts, turned, gaps)
        gaps.repeated = self._repeated(hops, fits, [s for s in segments if not s.optional])
        gaps.weak_answer = self._weak_answer(reading, segments, texts, facts, hops, fits, list(extra.values()))
        return gaps

    @staticmethod
    def _converse_of_topic(reading, segments, facts, turned, gaps: ReadingGaps) -> None:
        """The question's one relation phrase gives the answer the other role than the hop it named, and that
        hop stands on the topic T or every hop before it is a link no phrase names ("who founded T" answered
        with T's own company, or with the company T's mayor founded). The phrase is said of T, so it asks for
        a fact of that relation with T on the side it reads; listed in `gaps.converse` (the status rule checks
        whether T has one). A phrase asking where or when ("where was T founded") asks for neither side of
        the relation: not listed."""
        required = [s for s in segments if not s.optional]
        if len(required) != 1 or required[0] not in turned or segment_role(required[0], reading.topic).adverbial:
            return
        seg, (label, h) = required[0], turned[required[0]]
        if any(k not in gaps.unnamed_hops for k in range(1, h + 1)):
            return
        # asked of T on the side the hop did not stand on (_stood_on: a hop from the tail asks T as the subject)
        entry = (seg.text, label, _stood_on(facts[0])[0], _stood_on(facts[h])[1])
        if entry not in gaps.converse:
            gaps.converse.append(entry)

    def _own_hops(self, segments, fits) -> list[str]:
        """The phrases some hop explains at the bar that no other phrase explains best: a hop explains one
        phrase ("who conducts the orchestra X played with" answered at the orchestra has one hop for two)."""
        best = {s: max(range(len(fits[s])), key=lambda h: fits[s][h]) for s in segments
                if not s.optional and max(fits[s]) >= self.explains}
        return [s.text for s in segments if any(
            f >= self.explains and not any(o is not s and b == h for o, b in best.items())
            for h, f in enumerate(fits[s]))]

    def _without_modifying_kind(self, reading, segments, facts, hops, fits) -> None:
        """The answer's kind said in a phrase ("which band recorded X") names a relation whose label holds
        it as its head ("band", "member of band", "country of citizenship"), not one it only modifies
        ("band member": a member, of a band) read forwards: against such a hop the phrase is read without
        the kind. Read backwards the answer is the head of the fact, which the modifier names ("which band
        is X a member of": the band whose band member X is)."""
        kind = [light_stem(w) for w in (reading.answer_type or "").lower().split()]
        if not kind:
            return
        for h, (prof, factor) in enumerate(hops):
            if facts[h].direction == "in":
                continue
            words = normalise_label((prof.label or prof.key).replace("_", " ")).split()
            heads = {light_stem(words[-1])}
            if "of" in words[1:]:
                heads.add(light_stem(words[words.index("of") - 1]))
            if not any(light_stem(w) in kind for w in words) or any(k in heads for k in kind):
                continue
            for seg in segments:
                rest = [w for w in seg.content if light_stem(w.lower()) not in kind]
                if rest and len(rest) < len(seg.content):
                    text = " ".join(rest)
                    self.scorer.prepare([(text, True)])
                    fits[seg][h] = min(fits[seg][h], factor * self.scorer.score(text, prof))

    def _weak_answer(self, reading, segments, texts, facts, hops, fits, extra) -> str | None:
        """The last hop gives the answer, so some phrase must explain it at the bar: a hop skipped on the
        way may be named faintly (questions elide links), but the answer's own relation is what the question
        asks for. A frame that is only a verb ("where did ... die", "what does ... do for work") fits a
        neighbour of the asked relation ("cause of death", "religion") below the bar, and the frame is not
        required on its own, so no other check sees that the answer is of another relation. The frame is
        read with the answer's type the question word gives ("where": a place), which it stands for."""
        last = len(hops) - 1
        if facts[last].fact_id.startswith(PASSAGE_HOP):
            return None
        if max([fits[s][last] for s in segments] + [f[last] for f in extra]) >= self.explains:
            return None
        kind = reading.answer_type
        prof, factor = hops[last]
        label = prof.label or facts[last].relation or ""
        if facts[last].direction == "out" and asks_place(kind) and puts_in_place(label):
            # "in what city is X": the kind is a place no relation is named after, and the last hop puts X in
            # a place (a relation said with "in"); the kind names that hop (answer_kind checks the place)
            return None
        # a fit the role check took away (0.0) stays away: the type does not turn a relation round
        framed = [f"{kind} {texts[s]}" for s in segments if (s.soft or s is segments[-1]) and fits[s][last] > 0.0]
        if kind and framed:
            self.scorer.prepare([(t, True) for t in framed])
            if max(factor * self.scorer.score(t, prof) for t in framed) >= self.explains:
                return None
        return prof.label or prof.key

    def _clause_verbs(self, reading, segments, hops, fits, gaps: ReadingGaps) -> dict[str, list[float]]:
        """The verbs said with their object in one phrase that name a relation of the graph on their
        own ("the person who wed the author of X": "wed" names a marriage relation): each needs a
        hop that explains it, as a phrase of its own. A verb that names no relation better than the
        bar ("leads the government") only carries its noun and is left alone. Returns each such verb's
        fits to the hops, for the hop matching, when a hop other than its phrase's explains it."""
        extra: dict[str, list[float]] = {}
        for seg in segments:
            if seg.optional:
                continue
            verb = clause_verb(seg, reading.question)
            if verb is None:
                continue
            variants = self._verb_variants(verb)
            if self._names_a_relation(variants) < self.explains:
                continue
            verb_fits = [factor * self._verb_fit(variants, prof) for prof, factor in hops]
            best = max(verb_fits)
            if best < self.explains:
                gaps.unexplained.append(verb)
                gaps.near[verb] = best
            elif verb_fits.index(best) != fits[seg].index(max(fits[seg])):
                extra[verb] = verb_fits
        return extra

    def _verb_variants(self, verb: str) -> list[tuple[str, float]]:
        """The verb and its WordNet verb synonyms ("wed": "marry", "espouse"), with their weights;
        read as a verb, since the phrase matcher's own synonyms take a word's noun senses first."""
        lexicon = self.scorer.lexicon
        synonyms = lexicon.synonyms(verb, pos="v")[:MAX_SYNONYMS] if lexicon is not None else []
        variants = [(verb.lower(), 1.0), *((s.lower(), SYNONYM_WEIGHT) for s in synonyms)]
        self.scorer.prepare([(v, True) for v, _w in variants])
        return variants

    def _verb_fit(self, variants, prof: RelationProfile) -> float:
        return max(weight * self.scorer.score(v, prof) for v, weight in variants)

    def _names_a_relation(self, variants) -> float:
        """How well the verb names the relation of the graph it names best (0 without a vocabulary)."""
        if self.vocabulary is None:
            return 0.0
        keys: dict[str, None] = {}
        for v, _w in variants:
            keys.update(dict.fromkeys(self.vocabulary.candidates(v, self.scorer.vectors(v))))
        return max((self._verb_fit(variants, self.profile_of(k, (self.vocabulary.phrases.get(k) or [k])[0]))
                    for k in keys), default=0.0)

    def _unnamed(self, segments, fits, n_hops: int) -> list[int]:
        """The 1-based hops no phrase names: those every phrase fits below `names_nothing` (a verb
        said with its object counts as a phrase of its own), and those past the last hop the
        question reaches, the furthest hop some phrase fits best or explains: a chain that goes on
        after it answers another question ("which company did X found" answered with the company's
        headquarters). A hop skipped on the way needs only some phrase that names it at all:
        questions elide links ("the sport played by X" for X's position, then its sport)."""
        # the last of equal fits: a relation taken twice ("X's employer's boss's employer") is reached twice
        reached = [max(range(n_hops), key=lambda h: (fits[s][h], h)) for s in segments
                   if max(fits[s]) >= self.names_nothing]
        # and every hop a phrase explains, even second to another: a reader that runs two phrases together
        # ("the country of origin of X, who played the sport") leaves the last hop second in one of them
        reached += [h for h in range(n_hops) if any(fits[s][h] >= self.explains for s in segments)]
        last = max(reached, default=n_hops - 1)
        # the answer's type ("which city") names the answer, the last hop's end: no hop on the way to it
        naming = [[s for s in segments if h == n_hops - 1 or not getattr(s, "optional", False)] or segments
                  for h in range(n_hops)]
        return [h + 1 for h in range(n_hops)
                if h > last or max(fits[s][h] for s in naming[h]) < self.names_nothing
                or self._spent(h, naming[h], fits)]

    def _spent(self, h: int, segments, fits) -> bool:
        """Hop h is explained by no phrase, and every phrase that names it faintly is spent on a later hop
        other than the next one: a skipped link belongs to the phrase of the hop it leads to ("the sport played
        by X": X's position, then its sport), and a phrase is explained once, so a phrase spent elsewhere
        cannot also name it ("who coaches the team X plays for" answered through X's student, whom
        "coaches", the last hop's phrase, faintly resembles)."""
        namers = [s for s in segments if fits[s][h] >= self.names_nothing]
        if not namers or any(fits[s][h] >= self.explains for s in segments):
            return False
        n_hops = len(fits[namers[0]])
        following = next((k for k in range(h + 1, n_hops) if any(fits[s][k] >= self.explains for s in segments)), None)

        def spent(s) -> bool:
            # a phrase spent on an earlier hop may still run on into this one (the reader joins phrases:
            # "the country that X's position is associated with"); spent on a later hop, it is that hop's
            used = [k for k in range(n_hops) if k != h and fits[s][k] >= self.explains]
            return following not in used and any(k > h for k in used)

        return all(spent(s) for s in namers)

    def _against_roles(self, reading, segments, facts, hops, fits, gaps: ReadingGaps) -> dict[Segment, tuple[str, int]]:
        """Takes away a hop's fit to a phrase that gives the answer another role than the hop does
        (kgtool.reason.roles: "who gave birth to X" read as "X born in <place>", or as X's child through
        `mother`); returns the phrases that lost the fit they explained best with, the relation they fitted
        and its hop. A verb that says what the relation's person does, read the other way round, is listed in
        `gaps.converse`."""
        turned: dict[Segment, tuple[str, int]] = {}
        raw = {seg: list(fits[seg]) for seg in segments}
        carried = self._carried(reading, facts, hops, raw)
        for seg in segments:
            role = segment_role(seg, reading.topic)
            if role == PhraseRole():
                continue
            for h, (fact, (prof, factor)) in enumerate(zip(facts, hops)):
                if fact.fact_id.startswith(PASSAGE_HOP):
                    continue
                # the fact's own sentence first: it may give a verb where the label is a noun
                said = evidence_phrasing(fact.evidence or "", fact.head or "", fact.tail or "")
                roles = relation_role(prof.label, (*said, *prof.templates))
                side = None if seg is carried else doer_side(
                    seg, role, roles, prof.label or fact.relation or "", fact.direction, self.scorer.lexicon)
                if side and fits[seg][h] < self.explains:
                    # "who runs X" against "X has ceo Y": WordNet says what a CEO does; the grammar, who it is
                    fits[seg][h] = self.explains
                if fits[seg][h] <= 0.0:
                    continue
                if side is False:
                    # "who gave birth to X" against "<child> mother X": the hop answers the other end of the
                    # relation the verb says (X's child); the question asks for the fact on X's other side
                    if fits[seg][h] >= max(fits[seg]) or fits[seg][h] >= max(raw[s][h] for s in segments):
                        turned[seg] = (prof.label or prof.key, h)
                        gaps.converse.append((seg.text, prof.label or prof.key, *_stood_on(fact)))
                    fits[seg][h] = 0.0
                    continue
                synonym = role.adverbial and shares_verb_sense(seg.content, roles, self.scorer.lexicon)
                if conflict(role, roles, fact.direction, synonym_verb=synonym):
                    if (fits[seg][h] >= self.explains and fits[seg][h] >= max(fits[seg])) or \
                            fits[seg][h] >= max(raw[s][h] for s in segments):
                        turned[seg] = (prof.label or prof.key, h)  # its best hop, or the hop's best phrase
                    fits[seg][h] = 0.0
                elif fact.direction == "in" and conflict(role, roles, "out"):
                    # the grammar says the relation is read backwards here ("which company was founded
                    # by X": X's "founded by" taken from its tail): no discount for the direction
                    fits[seg][h] /= factor
        return turned

    def _kin_nouns(self, segments, facts, hops, fits) -> None:
        """A phrase that is one noun of a person WordNet puts right beside a hop's one-noun relation of a
        person, a synonym or one hypernym level apart (kgtool.reason.lexicon.Lexicon.nouns_related: "consort"
        is a kind of spouse, a founder a kind of originator), names that relation as its own words would: the
        hop explains it when taken forwards (a hop read backwards keeps its discount). Nouns of places and
        measures are not read so: their senses overlap too widely ("area" is filed with "country", and
        "the area of X" asks for a measure)."""
        lexicon = self.scorer.lexicon
        if lexicon is None:
            return
        nouns = {h: label for h, label in self._noun_labels(facts, hops).items() if lexicon.names_person(label)}
        for seg in segments:
            phrase = " ".join(seg.content).lower()
            if not nouns or not lexicon.names_person(phrase):
                continue
            for h, label in nouns.items():
                if fits[seg][h] < self.explains and phrase != label and \
                        lexicon.nouns_related(phrase, label, depth=KIN_DEPTH):
                    fits[seg][h] = max(fits[seg][h], hops[h][1] * self.explains)

    def _noun_labels(self, facts, hops) -> dict[int, str]:
        """The hops of stated facts whose relation is named by one noun, with that noun."""
        labels = {h: relation_words(hops[h][0].label or fact.relation) for h, fact in enumerate(facts)
                  if not fact.fact_id.startswith(PASSAGE_HOP)}
        return {h: label for h, label in labels.items() if label and " " not in label}

    def _converses(self, segments, facts, hops, fits, gaps: ReadingGaps) -> dict[Segment, tuple[str, int]]:
        """A phrase naming the other end of a hop's relation ("the son of T" against `father`: a son is whom T
        is the father of; kgtool.reason.lexicon.Lexicon.converse_nouns) reads that hop backwards. Taken
        forwards (T's own father) the hop answers the converse and loses its fit to the phrase; taken
        backwards it keeps its whole fit (no discount for the direction). Returns the phrases that lost the
        fit they explained best with, the relation and its hop; lists them in `gaps.converse`."""
        lexicon = self.scorer.lexicon
        turned: dict[Segment, tuple[str, int]] = {}
        if lexicon is None:
            return turned
        # a relation named by one noun, of a stated fact: the only labels a noun can be the converse of
        nouns = self._noun_labels(facts, hops)
        for seg in segments:
            for h, label in nouns.items():
                fact, (prof, factor) = facts[h], hops[h]
                if fits[seg][h] <= 0.0 or not any(lexicon.converse_nouns(w.lower(), label) for w in seg.content):
                    continue
                if fact.direction == "out":
                    if fits[seg][h] >= max(fits[seg]):
                        turned[seg] = (prof.label or prof.key, h)
                        gaps.converse.append((seg.text, prof.label or prof.key, *_stood_on(fact)))
                    fits[seg][h] = 0.0
                else:
                    fits[seg][h] /= factor
        return turned

    def _carried(self, reading, facts, hops, fits) -> Segment | None:
        """The soft frame verb that completes the relation of the phrase before it, which says only part of
        its hop's label ("Who leads | the government of T" at the head of government), if any: it says that
        hop's relation, not what a later hop's person does (no WordNet doer reading for it; the structured
        search's rule too, PhraseRoles.carried)."""
        required = list(reading.required)
        if len(required) < 2 or not required[-1].soft or required[-2] not in fits:
            return None
        prev, seg = required[-2], required[-1]
        h = max(range(len(facts)), key=lambda k: fits[prev][k])
        if fits[prev][h] < self.explains:
            return None
        return seg if says_part_of(prev.content, hops[h][0].label or facts[h].relation or "") else None

    def _repeated(self, hops, fits, segments) -> list[tuple[int, str]]:
        """A relation the chain takes k times needs k phrases it explains ("X's mother's mother");
        taken more often, the chain went round a loop the question does not ask for ("the mayor
        of the birthplace of the mayor of the birthplace of X" for "the mayor of X's birthplace")."""
        seen: dict[str, list[int]] = {}
        for h, (prof, _factor) in enumerate(hops):
            seen.setdefault(prof.key, []).append(h)
        out = []
        for taken in seen.values():
            if len(taken) < 2:
                continue
            named = sum(1 for s in segments if max(fits[s][h] for h in taken) >= self.explains)
            out.extend((h + 1, hops[h][0].label or hops[h][0].key) for h in taken[max(named, 1):])
        return out

    def _named_instead(self, text: str, fit: float, hop: CandidateFact) -> str | None:
        """The label of a relation of the graph the phrase names clearly better than `fit` (the fit of the
        chain's `hop` that explains it best), if any, and of the hop's part of the graph (`kin`)."""
        if self.vocabulary is None or fit >= EXACT:
            return None
        # a near fit (a synonym's, 0.9 and up) still gives way to a relation the phrase names outright:
        # "ethnicity" fits "nationality" closely, but the graph has an "ethnicity" relation
        better = fit + self.margin if fit < 1.0 - self.margin else EXACT
        for key, prof in self._relations_near(text):
            if self.scorer.score(text, prof) >= better and (self.kin is None or self.kin(hop, key)):
                return prof.label or key
        return None

    def _relations_near(self, text: str):
        """(key, profile) of the graph's relations the vocabulary finds near the phrase, nearest first."""
        for key in self.vocabulary.candidates(text, self.scorer.vectors(text)):
            phrases = self.vocabulary.phrases.get(key) or [key]
            yield key, self.profile_of(key, phrases[0])

    def _rival(self, text: str, fit: float, hop: CandidateFact, facts: Sequence[CandidateFact]) -> str | None:
        """The label of another relation of the hop's part of the graph that explains the phrase at the bar and
        within `rival_margin` of `fit` (the chain's best hop for it), if any: "the country of T" read as where
        T lives or as T's nationality. Not a second reading: a relation as alike as CARE's delta_rel counts one,
        a relation the chain takes at another hop (the phrase's words spread over two hops: "the sport coached
        by" at the coach's sport). (A hop several phrases name together is left out by the caller.)"""
        if self.vocabulary is None or fit >= EXACT or self.rival_margin <= 0:
            return None
        chain = {_key(f) for f in facts}
        taken = self.profile_of(_key(hop), hop.relation or "")
        matcher = self.scorer.matcher
        for key, prof in self._relations_near(text):
            if key not in chain and self.scorer.score(text, prof) >= max(self.explains, fit - self.rival_margin) and \
                    matcher.relation_similarity(prof, taken) < SAME_RELATION and \
                    relation_words(prof.label or key) != relation_words(hop.relation) and \
                    (self.kin is None or self.kin(hop, key)):
                return prof.label or key
        return None


def chain_gaps(kg, planner, analysis: QuestionAnalysis, chain, plan) -> Gaps:
    """The reading check of a finished run (the runner's hook into the status rule): the question
    read around the chain's topic, scored against the facts the chain took. The offline planner's
    phrase scorer and relation profiles are reused (their vectors are already computed for this
    question); another planner (the LLM one) gets the same matcher built over the graph's services.
    `analysis` is the run's reading of the question (RunContext.analysis)."""
    question = analysis.text
    facts = [h.fact if h.fact is not None else _asked_of_passage(h) for h in chain
             if h.fact is not None or (h.answer and not h.generated)]
    if not facts:
        return Gaps()
    span = topic_span(question, plan, chain, kg.catalog.link_mentions)
    if span is None:
        return Gaps()
    gaps = fact_gaps(kg, planner, analysis, facts, span)
    if not all(getattr(f, "stated", True) for f in facts):
        # relations read off passages are phrasings, not a vocabulary: a phrase such a relation seems to explain
        # does not overrule the planner's own list (MuSiQue dev: wrong answers were let through)
        gaps = Gaps(gaps, found=gaps.found, best_relation=gaps.best_relation, has_relation=gaps.has_relation,
                    detour=gaps.detour)
    last = chain[-1]
    gaps.kind_met = analysis.answer_type(span) in TIME_KINDS and any(ch.isdigit() for ch in last.answer or "")
    if analysis.kind == "number" and last.answer and not says_number(last.answer):
        # "how many", "how old": an answer with no quantity in it is not of the kind asked
        gaps.append(f"{KIND_ASKED}number; {last.answer!r} is not one")
    if last.fact is not None:
        # a stated fact is typed by stated relations only: a kind word the documents' extraction made a
        # relation of ("place") says nothing about what a user's own graph calls a place
        vocabulary = kg.catalog.stated_vocabulary() if last.fact.stated else kg.catalog.relation_vocabulary()
        wrong_kind = kind_gap(kg.db, vocabulary, analysis.answer_type(span),
                              _key(last.fact), last.answer or "", last.answer_id,
                              read_backwards=last.fact.direction == "in")
        if wrong_kind:
            gaps.append(wrong_kind)
    return gaps


def fact_gaps(kg, planner, analysis: QuestionAnalysis, facts: Sequence[CandidateFact],
              span: tuple[int, int]) -> Gaps:
    """The reading check of the facts a chain took, the question read around the topic at `span`."""
    scorer = getattr(planner, "phrases", None)
    profiles = getattr(planner, "profiles", None)
    if not isinstance(scorer, PhraseScorer) or profiles is None:
        from kgtool.reason.agents.offline.common import _Profiles
        from kgtool.reason.lexicon import Lexicon

        scorer = PhraseScorer(kg.matcher, Lexicon.load())
        profiles = _Profiles(kg.catalog, kg.matcher)
    settings = kg.settings
    stated_only = all(getattr(f, "stated", True) for f in facts)
    check = ReadingCheck(scorer, profiles.of, vocabulary_of(kg.catalog, kg.matcher.encoder, stated_only=stated_only),
                         explains=float(getattr(settings, "offline_fit", EXPLAINS)),
                         reverse_factor=float(getattr(settings, "offline_reverse_factor", REVERSE_FACTOR)),
                         kin=lambda hop, key: relation_of_hops_part(kg.db, hop, key))
    found = check.check(analysis.reading(span), facts)
    ids = sorted({i for f in facts for i in (f.head_id, f.tail_id) if i})

    def has_relation(relation: str, among=None, forward: bool | None = None) -> bool:
        # `among`: the entities a lack is claimed of (the status rule names one); else every entity of the chain.
        # `forward`: only facts with them as the subject (True) or the object (False); a relation whose sides do
        # the same to each other is read from either
        side = None if forward is None or reciprocal(relation) else forward
        rows = kg.db.read("graph/entities_have_relation", ids=sorted(among) if among else ids, relation=relation,
                          as_subject=side)
        return bool(rows and rows[0]["found"])

    def detour(hop: int) -> Detour | None:
        return unnamed_detour(kg.db, facts, hop)

    return Gaps(found.reasons(), found.explained, found, lambda phrase: best_relation(check, phrase), has_relation,
                detour)


PEERS = 500  # entities like a hop's entity looked at for the asked relation (a bound on the read)


def unnamed_detour(db, facts: Sequence[CandidateFact], hop: int) -> Detour | None:
    """The unnamed hop `hop` (1-based) of the chain's `facts` and the hop after it, read as a detour: the entity
    the unnamed hop left, the asked relation it lacks, and how many entities like it hold that relation. None
    when no stated hop follows, or the entity holds the relation itself (the hop is then no way round)."""
    if not 1 <= hop < len(facts):
        return None
    via, asked = facts[hop - 1], facts[hop]
    if via.fact_id.startswith(PASSAGE_HOP) or asked.fact_id.startswith(PASSAGE_HOP):
        return None
    entity_id, entity = (via.head_id, via.head) if via.direction == "out" else (via.tail_id, via.tail)
    if not entity_id:
        return None
    rows = db.read("graph/peers_hold_relation", id=entity_id, via=_key(via), via_subject=via.direction == "out",
                   relation=_key(asked), as_subject=asked.direction == "out", limit=PEERS)
    if not rows or rows[0]["own"]:
        return None
    return Detour(entity, via.relation or _key(via), asked.relation or _key(asked),
                  int(rows[0]["peers"]), int(rows[0]["holding"]), hop + 1 == len(facts),
                  asked.direction == "out" and asked.tail_id.startswith(LITERAL_PREFIX))


SUBJECTS = 1000  # subjects of the hop's relation looked at for the other relation (a bound on the read)


def relation_of_hops_part(db, hop: CandidateFact, key: str) -> bool:
    """Whether the relation `key` is of the hop's vocabulary: a fact file states both, or it is said of the
    hop's subject or of a subject of the hop's relation. A store can hold several sources, each with its own
    vocabulary: a user's graph's `country` (a city's) must not overrule the hop `country of citizenship` an
    edit corpus states of a person; `father` beside `mother` in one file still overrules it."""
    if hop.fact_id.startswith(PASSAGE_HOP):
        return True
    rows = db.read("graph/relations_meet", subject_id=hop.head_id, taken=_key(hop), other=key, limit=SUBJECTS)
    return bool(rows and rows[0]["found"])


def _asked_of_passage(hop) -> CandidateFact:
    """A hop a passage answered (textual recovery) has no relation: it explains what it asked for, so
    its query stands in as the relation, read only from text."""
    asked = " ".join(hop.query.replace("(", " ").replace(")", " ").replace(",", " ").split())
    return CandidateFact(f"{PASSAGE_HOP}{hop.step_id}", hop.entity_id or "", hop.entity, asked, None,
                         hop.answer_id or "", hop.answer or "", "", "out", stated=False)


def _stood_on(fact: CandidateFact) -> tuple[str, bool]:
    """The entity a hop stands on (the side it left from), and whether the fact the question asks of it, the
    other way round, has it as its subject: a hop taken backwards stood on its object."""
    return (fact.tail, True) if fact.direction == "in" else (fact.head, False)


def _said_of_topic(seg: Segment, reading: QuestionReading) -> bool:
    """Is the phrase said of the topic as its owner: "the R of T" or "T's R" (not "the country with the
    capital T", where T is the relation's object)?"""
    if not seg.spans:
        return False
    question, (start, end) = reading.question, reading.topic
    if seg.spans[-1][1] <= start:
        between = question[seg.spans[-1][1]:start].lower().split()
        return between[:1] == ["of"] and all(w in ARTICLES for w in between[1:])
    marker = question[end:seg.spans[0][0]].strip().replace("’", "'").lower()  # "T's R" or "Ts' R"
    return seg.spans[0][0] >= end and marker.rstrip("s") == "'"


def _key(fact: CandidateFact) -> str:
    from kgtool.reason.agents.offline.common import relation_key
    return relation_key(fact)


def topic_span(question: str, plan, chain, mentions: Callable[[str], list]) -> tuple[int, int] | None:
    """Where the chain's topic is mentioned: the plan's own span when the planner kept it, else
    the linked mention of the entity the chain starts from (the first mention otherwise)."""
    span = getattr(plan, "topic_span", None)
    if span:
        return tuple(span)
    found = mentions(question)
    if not found:
        return None
    start = next((h.entity_id for h in chain if h.entity_id), None) or getattr(plan, "topic_id", None)
    for s, e, entity_id, _surface in found:
        if entity_id == start:
            return (s, e)
    return (found[0][0], found[0][1])


__all__ = ["Gaps", "ReadingCheck", "chain_gaps", "ReadingGaps", "Segment", "topic_span"]
