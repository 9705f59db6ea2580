"""Write the team's second hand-written held-out set: another invented graph, other words.

Run from the repository root: `python tests/data/handwritten2/make_set.py`. It writes, next to itself,
`kg.jsonl`, `questions.jsonl` and `unanswerable.jsonl` in the format of tests/data/handwritten/.

Why a second one: the first hand-written set became a development set once its failures were read
(2026-11-26). This one was written before any front-end change of that session and is only measured.
Its graph is exported the way a DBpedia-style tool writes it: camelCase relation names, one
`leaderName` for a country's head and a city's mayor alike, a band's members and a student's advisor
stated from one side only, a year as an object. Every name and phrasing is invented; none of it may
appear in product code, and nobody tuning the front end should read its per-question failures.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).parent

FACTS = """
Norvale|capital|Brisk
Norvale|currency|Norvale dollar
Norvale|language|Norvish
Norvale|leaderName|Mira Castell
Estrava|capital|Pell Harbor
Estrava|currency|estra
Estrava|language|Estravan
Estrava|leaderName|Jonas Wilde
Brisk|country|Norvale
Tamsin Falls|country|Norvale
Pell Harbor|country|Estrava
Gorran|country|Estrava
Gorran|leaderName|Ansel Brody
Brisk|leaderName|Petra Lind
Brisk Rovers|ground|Halden Park
Brisk Rovers|manager|Tobias Renn
Brisk Rovers|city|Brisk
Gorran Athletic|ground|Saltmarsh Stadium
Gorran Athletic|manager|Elin Sarto
Gorran Athletic|city|Gorran
Dario Fenz|team|Brisk Rovers
Dario Fenz|birthPlace|Gorran
Dario Fenz|position|striker
Kai Lunde|team|Gorran Athletic
Kai Lunde|birthPlace|Tamsin Falls
Kai Lunde|position|goalkeeper
Kai Lunde|spouse|Rhea Morrow
Tobias Renn|birthPlace|Pell Harbor
Elin Sarto|birthPlace|Brisk
Orla Vance|almaMater|University of Brisk
Orla Vance|doctoralAdvisor|Henrik Solberg
Orla Vance|field|astrophysics
Orla Vance|award|Castell Prize
Orla Vance|birthPlace|Tamsin Falls
Orla Vance|employer|Gorran Observatory
Henrik Solberg|almaMater|Pell Harbor Institute
Henrik Solberg|field|geophysics
Henrik Solberg|birthPlace|Gorran
University of Brisk|city|Brisk
Pell Harbor Institute|city|Pell Harbor
Gorran Observatory|city|Gorran
Castell Prize|presenter|Norvish Academy of Sciences
Norvish Academy of Sciences|headquarter|Brisk
The Lantern Tide|bandMember|Rhea Morrow
The Lantern Tide|bandMember|Sol Ibarra
The Lantern Tide|genre|folk rock
The Lantern Tide|recordLabel|Quayside Records
Quayside Records|headquarter|Gorran
Quayside Records|founder|Jonas Wilde
Salt and Cinder|artist|The Lantern Tide
Salt and Cinder|producer|Teo Marsh
Salt and Cinder|releaseDate|1998
Teo Marsh|birthPlace|Brisk
Teo Marsh|instrument|piano
Sol Ibarra|instrument|cello
Sol Ibarra|birthPlace|Gorran
The Quiet Meridian|director|Nils Aberg
The Quiet Meridian|starring|Rhea Morrow
The Quiet Meridian|musicComposer|Teo Marsh
The Quiet Meridian|country|Estrava
Nils Aberg|birthPlace|Brisk
Nils Aberg|almaMater|University of Brisk
Mira Castell|birthPlace|Tamsin Falls
Mira Castell|party|Green Union
Mira Castell|spouse|Nils Aberg
Green Union|headquarter|Brisk
Green Union|founder|Henrik Solberg
Jonas Wilde|birthPlace|Gorran
Jonas Wilde|party|Harbor Party
Harbor Party|headquarter|Pell Harbor
Marsh Acoustics|founder|Teo Marsh
Marsh Acoustics|headquarter|Tamsin Falls
Marsh Acoustics|keyPerson|Sol Ibarra
"""

# (question, topic, chain): a chain step "^rel" follows the relation backwards (object to subject)
QUESTIONS = [
    ("Where was Dario Fenz born?", "Dario Fenz", ["birthPlace"]),
    ("What position does Dario Fenz play?", "Dario Fenz", ["position"]),
    ("Which club does Kai Lunde play for?", "Kai Lunde", ["team"]),
    ("Who manages Gorran Athletic?", "Gorran Athletic", ["manager"]),
    ("Where do Brisk Rovers play their home games?", "Brisk Rovers", ["ground"]),
    ("Who is the mayor of Gorran?", "Gorran", ["leaderName"]),
    ("Who is the head of state of Estrava?", "Estrava", ["leaderName"]),
    ("What language is spoken in Norvale?", "Norvale", ["language"]),
    ("Where did Orla Vance get her degree?", "Orla Vance", ["almaMater"]),
    ("Who was Orla Vance's doctoral supervisor?", "Orla Vance", ["doctoralAdvisor"]),
    ("Which instrument does Sol Ibarra play?", "Sol Ibarra", ["instrument"]),
    ("Which band is Rhea Morrow a member of?", "Rhea Morrow", ["^bandMember"]),
    ("Who produced Salt and Cinder?", "Salt and Cinder", ["producer"]),
    ("When was Salt and Cinder released?", "Salt and Cinder", ["releaseDate"]),
    ("What kind of music does The Lantern Tide play?", "The Lantern Tide", ["genre"]),
    ("Who wrote the score for The Quiet Meridian?", "The Quiet Meridian", ["musicComposer"]),
    ("Which party does Mira Castell belong to?", "Mira Castell", ["party"]),
    ("Who started Quayside Records?", "Quayside Records", ["founder"]),
    ("Which band recorded Salt and Cinder?", "Salt and Cinder", ["artist"]),
    ("Who is Kai Lunde's wife?", "Kai Lunde", ["spouse"]),
    ("Which country is Dario Fenz's birthplace in?", "Dario Fenz", ["birthPlace", "country"]),
    ("In which stadium does Kai Lunde's team play?", "Kai Lunde", ["team", "ground"]),
    ("Who is the manager of the club Dario Fenz plays for?", "Dario Fenz", ["team", "manager"]),
    ("Where was the manager of Brisk Rovers born?", "Brisk Rovers", ["manager", "birthPlace"]),
    ("Which university did the director of The Quiet Meridian attend?", "The Quiet Meridian",
     ["director", "almaMater"]),
    ("Who is the husband of the leader of Norvale?", "Norvale", ["leaderName", "spouse"]),
    ("Where is the record label of The Lantern Tide based?", "The Lantern Tide", ["recordLabel", "headquarter"]),
    ("Who founded the party Mira Castell belongs to?", "Mira Castell", ["party", "founder"]),
    ("What field did Orla Vance's doctoral advisor work in?", "Orla Vance", ["doctoralAdvisor", "field"]),
    ("In which city is the observatory that employs Orla Vance?", "Orla Vance", ["employer", "city"]),
    ("What instrument does the producer of Salt and Cinder play?", "Salt and Cinder", ["producer", "instrument"]),
    ("Which band does Kai Lunde's wife play in?", "Kai Lunde", ["spouse", "^bandMember"]),
    ("Who leads the country whose capital is Pell Harbor?", "Pell Harbor", ["^capital", "leaderName"]),
    ("Where was the founder of Marsh Acoustics born?", "Marsh Acoustics", ["founder", "birthPlace"]),
    ("Which party does the founder of Quayside Records lead?", "Quayside Records", ["founder", "party"]),
    ("What instrument is played by the composer of The Quiet Meridian's score?", "The Quiet Meridian",
     ["musicComposer", "instrument"]),
    ("Where was Orla Vance's advisor educated?", "Orla Vance", ["doctoralAdvisor", "almaMater"]),
    ("Who manages the club whose home ground is Saltmarsh Stadium?", "Saltmarsh Stadium", ["^ground", "manager"]),
    ("What is the capital of the country whose currency is the estra?", "estra", ["^currency", "capital"]),
    ("Which award did the student of Henrik Solberg win?", "Henrik Solberg", ["^doctoralAdvisor", "award"]),
    ("Who presents the prize that Orla Vance won?", "Orla Vance", ["award", "presenter"]),
    ("In which city is the label of the band that made Salt and Cinder headquartered?", "Salt and Cinder",
     ["artist", "recordLabel", "headquarter"]),
    ("What currency is used in the country where Dario Fenz was born?", "Dario Fenz",
     ["birthPlace", "country", "currency"]),
    ("Who is the mayor of the city where the Gorran Athletic manager was born?", "Gorran Athletic",
     ["manager", "birthPlace", "leaderName"]),
    ("Which university did the husband of Norvale's leader go to?", "Norvale",
     ["leaderName", "spouse", "almaMater"]),
    ("Where was the founder of the label of The Lantern Tide born?", "The Lantern Tide",
     ["recordLabel", "founder", "birthPlace"]),
    ("Where is the party of the head of Estrava based?", "Estrava", ["leaderName", "party", "headquarter"]),
    ("Who manages the team of Rhea Morrow's husband?", "Rhea Morrow", ["^spouse", "team", "manager"]),
    ("What language is spoken in the country where the founder of Quayside Records was born?", "Quayside Records",
     ["founder", "birthPlace", "country", "language"]),
    ("In which country is the institute where Orla Vance's advisor studied?", "Orla Vance",
     ["doctoralAdvisor", "almaMater", "city", "country"]),
]

# (question, what the graph lacks)
UNANSWERABLE = [
    ("Where was Rhea Morrow born?", "birthplace of that person"),
    ("What position does Kai Lunde's wife play?", "position of that person"),
    ("Who is the mayor of Tamsin Falls?", "mayor of that town"),
    ("Which team does Orla Vance play for?", "team of that person"),
    ("Who is the spouse of the producer of Salt and Cinder?", "spouse of that person"),
    ("When was The Quiet Meridian released?", "release date of that film"),
    ("What is the population of Brisk?", "population"),
    ("How tall is Dario Fenz?", "height"),
    ("Which instrument does the manager of Gorran Athletic play?", "instrument of that person"),
    ("Who founded Brisk Rovers?", "founder of that club"),
    # added with the abstention measures: (question, what the graph lacks, kind)
    ("Which team does Tobias Renn play for?", "team of that person", "missing relation"),
    ("Where did Dario Fenz go to university?", "alma mater of that person", "missing relation"),
    ("What instrument does Nils Aberg play?", "instrument of that person", "missing relation"),
    ("Who founded the Harbor Party?", "founder of that party", "missing relation"),
    ("Which political party does Teo Marsh belong to?", "party of that person", "missing relation"),
    ("Who is the leader of Tamsin Falls?", "leader of that town", "missing relation"),
    ("Where was the spouse of Dario Fenz born?", "spouse of that person", "missing hop fact"),
    ("Who manages the team Henrik Solberg plays for?", "team of that person", "missing hop fact"),
    ("Which award did the doctoral advisor of Orla Vance win?", "award of that person", "missing hop fact"),
    ("In which city is the employer of Henrik Solberg?", "employer of that person", "missing hop fact"),
    ("Which party does the director of The Quiet Meridian belong to?", "party of that person",
     "missing hop fact"),
    ("What genre does the band of Teo Marsh play?", "a band of that person", "missing hop fact"),
    ("Who founded the record label of The Quiet Meridian?", "record label of a film", "missing hop fact"),
    ("Where was Ingrid Halvorsen born?", "the person", "entity absent"),
    ("Who manages Tarnby United?", "the club", "entity absent"),
    ("What is the capital of Vesmark?", "the country", "entity absent"),
    ("Which instrument does Lio Barrett play?", "the person", "entity absent"),
    ("How many seats does Saltmarsh Stadium have?", "capacity", "relation never used"),
    ("When is Kai Lunde's birthday?", "birth date", "relation never used"),
    ("Which religion does Mira Castell practise?", "religion", "relation never used"),
    ("What is the salary of Elin Sarto?", "salary", "relation never used"),
    ("How old is Sol Ibarra?", "age", "relation never used"),
    ("Which orchestra does Sol Ibarra conduct?", "an orchestra she conducts", "false premise"),
    ("Which film did Teo Marsh direct?", "a film he directed", "false premise"),
    ("Who is the manager of Quayside Records?", "manager of a record label", "false premise"),
]


def _first_set():
    spec = importlib.util.spec_from_file_location("handwritten_make_set", HERE.parent / "handwritten" / "make_set.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    _first_set().write_set(HERE, FACTS, QUESTIONS, UNANSWERABLE)
