"""Closed-class English the question front end reads by: articles and determiners, wh-words and relative
words, auxiliaries, prepositions, pronouns, conjunctions, number words (issue 44).

Only grammar lives here, never a content word of any question set: nouns, verbs and participles come
from the parse and the lexicon (kgtool.reason.lexicon). The sets were moved verbatim from the modules
that use them; two that differ (a module's own selection of a class) keep their own name, named for
their use, rather than being merged into one that would change what a module reads.
"""
from __future__ import annotations

# -- articles and determiners --
ARTICLES = frozenset("a an the".split())
DETERMINERS = frozenset("the a an this these those".split())

# -- wh-words and relative words --
QUESTION_WORDS = frozenset("what which who whom whose where when how".split())
WHICH_WHAT = frozenset("which what".split())  # the wh-words that take a noun ("which city")
PERSON_WH = frozenset("who whom whose".split())  # the wh-words that ask for a person
RELATIVE_PRONOUNS = frozenset("who whom whose which that where".split())
FREE_RELATIVES = frozenset("whoever whomever whatever whichever".split())  # a noun phrase of their own
SUBJECT_MARKERS = frozenset("who that which whoever whichever whatever".split())
PERSON_MARKERS = frozenset("who whom whoever".split())
# heads that name no kind of their own beyond "someone" or "something" ("the person who ...", "the one that ...")
INDEFINITE_HEADS = frozenset("person one people someone somebody thing entity".split())
GENERIC_NOUNS = INDEFINITE_HEADS | frozenset("man woman individual".split())
# of those, the ones that make the answer a person ("which man ...", "someone who ...")
GENERIC_PERSONS = GENERIC_NOUNS - frozenset("one thing entity".split())
ADVERBIAL_RELATIVES = frozenset("where when whence wherever".split())  # relative words that are not an argument
CLAUSE_CLOSERS = frozenset("which what whom".split())  # a relative clause's words end before these
OBJECT_WH = frozenset("what whom".split())  # wh-words that stand for an object after a preposition
NOUN_WH = frozenset("which what whichever whatever".split())  # wh-words that may head a noun phrase
# the words that open a question asking for something (the answer form's reading; "name" as in "name the ...")
ASKING_WORDS = frozenset({"who", "whom", "whose", "what", "which", "where", "when", "why", "how", "name"})
NOUN_ASKING = frozenset({"what", "which", "how"})  # the wh-words a noun or an adjective after them narrows
TRAILING_WH = frozenset({"when", "where", "who"})  # wh-words that may close a statement-shaped question

# -- auxiliaries --
AUXILIARIES = frozenset(
    "is are was were be been being am do does did has have had will would can could shall should may might "
    "'s".split()
)
# the auxiliaries that open a yes/no question (the answer form's reading)
QUESTION_AUXILIARIES = frozenset({"is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can",
                                  "could", "will", "would", "should", "shall", "may", "might"})
DO_FORMS = frozenset("do does did".split())
BE_FINITE = frozenset("is are was were".split())
BE_FORMS = frozenset("is are was were be been being am".split())
SINGULAR_BE = frozenset({"is", "was"})

# -- prepositions --
PREPOSITIONS = frozenset(
    "of in for to at by from with on into as about under over within behind among through".split()
)
# the prepositions the answer form reads before a wh-word ("in which year") or a noun
QUESTION_PREPOSITIONS = frozenset({"in", "on", "at", "to", "from", "for", "by", "of", "with", "under", "during",
                                   "since", "into", "after", "before", "about"})
# prepositions whose object is a place or a time, never the doer of anything
PLACE_PREPOSITIONS = frozenset("in at on within inside near".split())
# words that open an adverbial phrase or a clause before a name in a sentence ("In 1990, ...", "When X ...")
CLAUSE_OPENERS = frozenset({"on", "in", "at", "after", "before", "during", "from", "for", "by", "with", "when",
                            "while", "as", "since", "although", "but", "and", "if", "then", "until", "upon"})
# the words a name's trailing run may end in without being part of it ("Bank of", "the")
NAME_LINKERS = frozenset("of the de".split())

# -- pronouns and conjunctions --
PRONOUNS = frozenset("me us you it its their his her they".split())
ARTICLES_AND_OR = frozenset("the a an and or".split())
# words that make a question ask about two things at once ("both", "the same", "either ... or")
PAIRING_WORDS = frozenset("both same and either neither or".split())

FUNCTION_WORDS = DETERMINERS | QUESTION_WORDS | AUXILIARIES | PREPOSITIONS | PRONOUNS | frozenset(
    "and or not also exactly currently that".split()
)

# -- irregular past participles --
# the past participles that do not end in -ed (the irregular verbs are a closed class of English)
IRREGULAR_PARTICIPLES = frozenset(
    "born borne made built written known held led run won given taken seen sung drawn grown shown sold bought "
    "taught brought kept left lost begun chosen spoken worn set put found wed".split())

# -- answer words --
YES_NO = frozenset({"yes", "no"})
TRUE_WORDS = frozenset({"true", "yes"})
FALSE_WORDS = frozenset({"false", "no"})

# -- number words --
NUMBER_WORDS = frozenset({"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                          "twelve", "once", "twice", "thrice", "dozen", "hundred", "thousand", "million", "billion"})
