"""Write the team's third hand-written held-out set: a property-graph export with its own words.

Run from the repository root: `python tests/data/handwritten3/make_set.py`. It writes, next to itself,
`kg.jsonl`, `questions.jsonl` and `unanswerable.jsonl` in the format of tests/data/handwritten/.

Why a third one: the first set is a development set (its failures were read) and the second has been
measured for a session. This one was written on 2026-11-27 before that session's front-end changes and
is only measured. Its graph is exported the way a Neo4j user names relationship types: UPPER_SNAKE verbs
and nouns, several stated from the "wrong" side for a question (a person FOUNDED a company, a city is
CAPITAL_OF a country, a company ACQUIRED another), one LOCATED_IN for a university's city and a city's
country, a nationality that differs from the birthplace's country, years as objects. Questions mix
phrasings: a verb for a noun relation ("Who runs X?" over HAS_CEO), "Name the ...", "Tell me ...", one
in lower case without a question mark. Every name and phrasing is invented; none of it may appear in
product code, and nobody tuning the front end should read its per-question failures.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).parent

FACTS = """
Kestrel Bay|CAPITAL_OF|Caldoria
Kestrel Bay|LOCATED_IN|Caldoria
Ambermoor|LOCATED_IN|Caldoria
Dunlow|CAPITAL_OF|Serevan
Dunlow|LOCATED_IN|Serevan
Vestrand|LOCATED_IN|Serevan
Caldoria|CURRENCY|Caldorian mark
Serevan|CURRENCY|seva
Caldoria|OFFICIAL_LANGUAGE|Caldorese
Serevan|OFFICIAL_LANGUAGE|Serevani
Kestrel Bay|MAYOR|Hollis Grange
Dunlow|MAYOR|Adaeze Okafor
Ambermoor|MAYOR|Lucian Prewitt
University of Ambermoor|LOCATED_IN|Ambermoor
Kestrel Bay Polytechnic|LOCATED_IN|Kestrel Bay
Dunlow Institute of Technology|LOCATED_IN|Dunlow
Quillon Systems|HEADQUARTERED_IN|Kestrel Bay
Quillon Systems|HAS_CEO|Maren Holt
Quillon Systems|FOUNDED_YEAR|2009
Idris Calloway|FOUNDED|Quillon Systems
Brightmoor Labs|HEADQUARTERED_IN|Ambermoor
Brightmoor Labs|HAS_CEO|Saskia Brandt
Tove Ekdahl|FOUNDED|Brightmoor Labs
Quillon Systems|ACQUIRED|Brightmoor Labs
Halvard Dynamics|HEADQUARTERED_IN|Dunlow
Halvard Dynamics|HAS_CEO|Ewan Fairley
Noor Haddad|FOUNDED|Halvard Dynamics
Peregrine Cloud|HEADQUARTERED_IN|Vestrand
Peregrine Cloud|HAS_CEO|Priya Sandoval
Halvard Dynamics|ACQUIRED|Peregrine Cloud
Larkspur Ventures|INVESTED_IN|Halvard Dynamics
Larkspur Ventures|MANAGED_BY|Idris Calloway
Copperline Capital|INVESTED_IN|Quillon Systems
Copperline Capital|MANAGED_BY|Femi Adeyinka
Idris Calloway|BORN_IN|Dunlow
Idris Calloway|STUDIED_AT|Kestrel Bay Polytechnic
Idris Calloway|MARRIED_TO|Tove Ekdahl
Maren Holt|BORN_IN|Vestrand
Maren Holt|STUDIED_AT|University of Ambermoor
Saskia Brandt|BORN_IN|Kestrel Bay
Saskia Brandt|REPORTS_TO|Maren Holt
Saskia Brandt|NATIONALITY|Serevan
Tove Ekdahl|BORN_IN|Ambermoor
Tove Ekdahl|STUDIED_AT|University of Ambermoor
Ewan Fairley|BORN_IN|Kestrel Bay
Ewan Fairley|STUDIED_AT|Kestrel Bay Polytechnic
Noor Haddad|BORN_IN|Vestrand
Noor Haddad|NATIONALITY|Serevan
Noor Haddad|MARRIED_TO|Hollis Grange
Priya Sandoval|BORN_IN|Ambermoor
Priya Sandoval|REPORTS_TO|Ewan Fairley
Priya Sandoval|STUDIED_AT|Dunlow Institute of Technology
Femi Adeyinka|BORN_IN|Dunlow
Hollis Grange|BORN_IN|Vestrand
Hollis Grange|STUDIED_AT|University of Ambermoor
Lucian Prewitt|BORN_IN|Ambermoor
Rafe Dorsey|WORKS_AT|Quillon Systems
Rafe Dorsey|REPORTS_TO|Maren Holt
Rafe Dorsey|DESIGNED|Corvid
Rafe Dorsey|STUDIED_AT|Dunlow Institute of Technology
Ilse Varga|DESIGNED|Thimble
Ilse Varga|WORKS_AT|Halvard Dynamics
Ilse Varga|STUDIED_AT|University of Ambermoor
Ilse Varga|BORN_IN|Kestrel Bay
Corvid|FIRST_RELEASED|2014
Thimble|FIRST_RELEASED|2011
Ferrite|WRITTEN_IN|Corvid
Ferrite|LICENSE|Harbor Public License
Quillon Systems|MAINTAINS|Ferrite
Lumen|WRITTEN_IN|Thimble
Lumen|DEPENDS_ON|Ferrite
Lumen|LICENSE|Open Quay License
Halvard Dynamics|MAINTAINS|Lumen
Tidewater|DEPENDS_ON|Lumen
Tidewater|WRITTEN_IN|Corvid
Tidewater|LICENSE|Open Quay License
Brightmoor Labs|MAINTAINS|Tidewater
"""

# (question, topic, chain): a chain step "^REL" follows the relation backwards (object to subject)
QUESTIONS = [
    ("Who runs Quillon Systems?", "Quillon Systems", ["HAS_CEO"]),
    ("Where is Halvard Dynamics headquartered?", "Halvard Dynamics", ["HEADQUARTERED_IN"]),
    ("Who founded Brightmoor Labs?", "Brightmoor Labs", ["^FOUNDED"]),
    ("Which company acquired Brightmoor Labs?", "Brightmoor Labs", ["^ACQUIRED"]),
    ("What language is Ferrite written in?", "Ferrite", ["WRITTEN_IN"]),
    ("Who designed the Corvid language?", "Corvid", ["^DESIGNED"]),
    ("Who is Saskia Brandt's boss?", "Saskia Brandt", ["REPORTS_TO"]),
    ("Where did Maren Holt study?", "Maren Holt", ["STUDIED_AT"]),
    ("Which city was Ewan Fairley born in?", "Ewan Fairley", ["BORN_IN"]),
    ("What is the capital of Serevan?", "Serevan", ["^CAPITAL_OF"]),
    ("Which country is Ambermoor in?", "Ambermoor", ["LOCATED_IN"]),
    ("Who is Noor Haddad married to?", "Noor Haddad", ["MARRIED_TO"]),
    ("Which fund backs Halvard Dynamics?", "Halvard Dynamics", ["^INVESTED_IN"]),
    ("Who manages Copperline Capital?", "Copperline Capital", ["MANAGED_BY"]),
    ("Under what license is Tidewater released?", "Tidewater", ["LICENSE"]),
    ("What does Lumen depend on?", "Lumen", ["DEPENDS_ON"]),
    ("Which company maintains Lumen?", "Lumen", ["^MAINTAINS"]),
    ("What currency does Caldoria use?", "Caldoria", ["CURRENCY"]),
    ("when was quillon systems founded", "Quillon Systems", ["FOUNDED_YEAR"]),
    ("What is Saskia Brandt's nationality?", "Saskia Brandt", ["NATIONALITY"]),
    ("Who is the mayor of Dunlow?", "Dunlow", ["MAYOR"]),
    ("Where was the CEO of Peregrine Cloud born?", "Peregrine Cloud", ["HAS_CEO", "BORN_IN"]),
    ("Which city is the company that acquired Peregrine Cloud based in?", "Peregrine Cloud",
     ["^ACQUIRED", "HEADQUARTERED_IN"]),
    ("Who leads the company Idris Calloway founded?", "Idris Calloway", ["FOUNDED", "HAS_CEO"]),
    ("What language is the library Lumen depends on written in?", "Lumen", ["DEPENDS_ON", "WRITTEN_IN"]),
    ("Who designed the language Tidewater is written in?", "Tidewater", ["WRITTEN_IN", "^DESIGNED"]),
    ("In which city was the founder of Halvard Dynamics born?", "Halvard Dynamics", ["^FOUNDED", "BORN_IN"]),
    ("Who is the spouse of the manager of Larkspur Ventures?", "Larkspur Ventures", ["MANAGED_BY", "MARRIED_TO"]),
    ("What currency is used in the country whose capital is Kestrel Bay?", "Kestrel Bay", ["CAPITAL_OF", "CURRENCY"]),
    ("Which university did Priya Sandoval's boss attend?", "Priya Sandoval", ["REPORTS_TO", "STUDIED_AT"]),
    ("Where is the university Tove Ekdahl attended?", "Tove Ekdahl", ["STUDIED_AT", "LOCATED_IN"]),
    ("Which company maintains the software Tidewater depends on?", "Tidewater", ["DEPENDS_ON", "^MAINTAINS"]),
    ("Who is the mayor of the city where Halvard Dynamics has its headquarters?", "Halvard Dynamics",
     ["HEADQUARTERED_IN", "MAYOR"]),
    ("Which company does the designer of Thimble work for?", "Thimble", ["^DESIGNED", "WORKS_AT"]),
    ("What is the official language of Noor Haddad's country?", "Noor Haddad", ["NATIONALITY", "OFFICIAL_LANGUAGE"]),
    ("Who runs the company that maintains Ferrite?", "Ferrite", ["^MAINTAINS", "HAS_CEO"]),
    ("Name the fund that invested in the company Noor Haddad founded.", "Noor Haddad", ["FOUNDED", "^INVESTED_IN"]),
    ("In what year was the language Ferrite is written in first released?", "Ferrite",
     ["WRITTEN_IN", "FIRST_RELEASED"]),
    ("What license does the software that Lumen depends on use?", "Lumen", ["DEPENDS_ON", "LICENSE"]),
    ("In which country was the CEO of Quillon Systems born?", "Quillon Systems", ["HAS_CEO", "BORN_IN", "LOCATED_IN"]),
    ("Who is the mayor of the city where the founder of Quillon Systems was born?", "Quillon Systems",
     ["^FOUNDED", "BORN_IN", "MAYOR"]),
    ("Who founded the company that bought the company Tove Ekdahl started?", "Tove Ekdahl",
     ["FOUNDED", "^ACQUIRED", "^FOUNDED"]),
    ("Where is the company that maintains Tidewater's dependency headquartered?", "Tidewater",
     ["DEPENDS_ON", "^MAINTAINS", "HEADQUARTERED_IN"]),
    ("Which university did the person who designed the language of Ferrite attend?", "Ferrite",
     ["WRITTEN_IN", "^DESIGNED", "STUDIED_AT"]),
    ("Who manages the fund that invested in the company Maren Holt runs?", "Maren Holt",
     ["^HAS_CEO", "^INVESTED_IN", "MANAGED_BY"]),
    ("In which country does the company that acquired Peregrine Cloud have its headquarters?", "Peregrine Cloud",
     ["^ACQUIRED", "HEADQUARTERED_IN", "LOCATED_IN"]),
    ("Who is married to the person who founded the company that acquired Brightmoor Labs?", "Brightmoor Labs",
     ["^ACQUIRED", "^FOUNDED", "MARRIED_TO"]),
    ("What currency is used where Saskia Brandt's boss was born?", "Saskia Brandt",
     ["REPORTS_TO", "BORN_IN", "LOCATED_IN", "CURRENCY"]),
    ("In which country is the university that Corvid's designer attended?", "Corvid",
     ["^DESIGNED", "STUDIED_AT", "LOCATED_IN", "LOCATED_IN"]),
    ("Tell me the mayor of the city where the CEO of the company that acquired Peregrine Cloud was born.",
     "Peregrine Cloud", ["^ACQUIRED", "HAS_CEO", "BORN_IN", "MAYOR"]),
]

# (question, what the graph lacks)
UNANSWERABLE = [
    ("Where was Rafe Dorsey born?", "birthplace of that person"),
    ("Who is the CEO of Larkspur Ventures?", "chief executive of that fund"),
    ("Which company acquired Halvard Dynamics?", "an acquirer of that company"),
    ("What is the population of Vestrand?", "population"),
    ("Who is Maren Holt married to?", "spouse of that person"),
    ("Which company does the mayor of Ambermoor work for?", "employer of that person"),
    ("When was Tidewater first released?", "release year of that software"),
    ("Who founded Peregrine Cloud?", "founder of that company"),
    ("Where was the founder of Peregrine Cloud educated?", "founder of that company"),
    ("What license does Corvid use?", "licence of that language"),
]


def _first_set():
    spec = importlib.util.spec_from_file_location("handwritten_make_set", HERE.parent / "handwritten" / "make_set.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    _first_set().write_set(HERE, FACTS, QUESTIONS, UNANSWERABLE)
