"""Write the team's fifth hand-written held-out set: an RDF export (N-Triples) with its own words.

Run from the repository root: `python tests/data/handwritten5/make_set.py`. It writes, next to itself,
`kg.nt`, `questions.jsonl` and `unanswerable.jsonl` (questions in the format of tests/data/handwritten/).

Why: the earlier hand-written sets are JSONL exports. A user with a linked-data graph hands kgtool
N-Triples: entities as IRIs whose local names are ASCII slugs while their rdfs:label carries the
real name (accents included), relations as camel-case ontology properties (`birthPlace`,
`almaMater`, `leaderName`, `populationTotal`), typed literals as objects (dates, years, counts),
and `rdf:type` triples beside the facts. Written on 2026-11-27 before that session's changes and
only measured. Questions mix phrasings, one spells an accented name without its accents, one is in
lower case without a question mark. Every name and phrasing is invented; none of it may appear in
product code, and nobody tuning the front end should read its per-question failures.
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

HERE = Path(__file__).parent
RESOURCE = "http://data.example.org/resource/"
ONTOLOGY = "http://data.example.org/ontology/"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"

# head|property|tail; a tail written "lit:TYPE:VALUE" is a typed literal
FACTS = """
Ostravia|capital|Lindqvar
Ostravia|currency|Ostravian crown
Ostravia|officialLanguage|Ostravian
Belmorra|capital|Cassel Vey
Belmorra|currency|belmor
Belmorra|officialLanguage|Belmorran
Lindqvar|country|Ostravia
Lindqvar|populationTotal|lit:integer:412000
Lindqvar|leaderName|Jana Roubal
Tessany|country|Ostravia
Tessany|populationTotal|lit:integer:88150
Tessany|leaderName|Petr Havlin
Cassel Vey|country|Belmorra
Cassel Vey|populationTotal|lit:integer:630400
Cassel Vey|leaderName|Amadou Serre
Port Ilsa|country|Belmorra
Port Ilsa|populationTotal|lit:integer:57300
University of Tessany|city|Tessany
Cassel Vey Conservatory|city|Cassel Vey
Halloran & Pike|headquarter|Lindqvar
Halloran & Pike|foundedBy|Edvard Halloran
Halloran & Pike|foundingYear|lit:gYear:1921
Greywater Press|headquarter|Port Ilsa
Greywater Press|parentCompany|Halloran & Pike
Greywater Press|foundingYear|lit:gYear:1968
Lanternfish Pictures|headquarter|Cassel Vey
Lanternfish Pictures|foundedBy|Sabine Moreau
Lanternfish Pictures|foundingYear|lit:gYear:1994
Ondřej Kalina|birthPlace|Tessany
Ondřej Kalina|birthDate|lit:date:1948-03-09
Ondřej Kalina|almaMater|University of Tessany
Ondřej Kalina|spouse|Mirela Voss
Ondřej Kalina|award|Silver Quill Prize
Mirela Voss|birthPlace|Port Ilsa
Mirela Voss|birthDate|lit:date:1951-11-23
Mirela Voss|almaMater|Cassel Vey Conservatory
Mirela Voss|award|Harrow Medal
Théo Lacasse|birthPlace|Cassel Vey
Théo Lacasse|influencedBy|Ondřej Kalina
Théo Lacasse|almaMater|Cassel Vey Conservatory
Sabine Moreau|birthPlace|Lindqvar
Sabine Moreau|birthDate|lit:date:1966-07-02
Sabine Moreau|almaMater|University of Tessany
Edvard Halloran|birthPlace|Port Ilsa
Rasmus Iddo|birthPlace|Tessany
Jana Roubal|birthPlace|Tessany
Amadou Serre|almaMater|Cassel Vey Conservatory
Kaia Brenn|birthPlace|Lindqvar
The Salt Orchard|author|Ondřej Kalina
The Salt Orchard|publisher|Halloran & Pike
The Salt Orchard|publicationDate|lit:gYear:1979
The Salt Orchard|language|Ostravian
Winter Ledger|author|Mirela Voss
Winter Ledger|publisher|Greywater Press
Winter Ledger|publicationDate|lit:gYear:1988
A Map of Small Rivers|author|Théo Lacasse
A Map of Small Rivers|publisher|Greywater Press
A Map of Small Rivers|publicationDate|lit:gYear:2003
A Map of Small Rivers|language|Belmorran
Glass Harbour|author|Ondřej Kalina
Glass Harbour|publisher|Greywater Press
Glass Harbour|publicationDate|lit:gYear:1992
The Orchard Years|basedOn|The Salt Orchard
The Orchard Years|director|Sabine Moreau
The Orchard Years|studio|Lanternfish Pictures
The Orchard Years|starring|Kaia Brenn
The Orchard Years|releaseDate|lit:gYear:1997
Small Rivers|basedOn|A Map of Small Rivers
Small Rivers|director|Rasmus Iddo
Small Rivers|studio|Lanternfish Pictures
Small Rivers|releaseDate|lit:gYear:2008
Ledger|basedOn|Winter Ledger
Ledger|director|Sabine Moreau
Ledger|releaseDate|lit:gYear:1999
"""

TYPES = {
    "Country": ["Ostravia", "Belmorra"],
    "City": ["Lindqvar", "Tessany", "Cassel Vey", "Port Ilsa"],
    "University": ["University of Tessany", "Cassel Vey Conservatory"],
    "Company": ["Halloran & Pike", "Greywater Press", "Lanternfish Pictures"],
    "Writer": ["Ondřej Kalina", "Mirela Voss", "Théo Lacasse"],
    "Person": ["Sabine Moreau", "Edvard Halloran", "Rasmus Iddo", "Jana Roubal", "Petr Havlin", "Amadou Serre",
               "Kaia Brenn"],
    "Book": ["The Salt Orchard", "Winter Ledger", "A Map of Small Rivers", "Glass Harbour"],
    "Film": ["The Orchard Years", "Small Rivers", "Ledger"],
    "Award": ["Silver Quill Prize", "Harrow Medal"],
    "Language": ["Ostravian", "Belmorran"],
    "Currency": ["Ostravian crown", "belmor"],
}

# (question, topic, chain): a chain step "^rel" follows the property backwards (object to subject)
QUESTIONS = [
    ("Who wrote The Salt Orchard?", "The Salt Orchard", ["author"]),
    ("Which company published Winter Ledger?", "Winter Ledger", ["publisher"]),
    ("Where was Mirela Voss born?", "Mirela Voss", ["birthPlace"]),
    ("What is the capital of Belmorra?", "Belmorra", ["capital"]),
    ("Who is the mayor of Cassel Vey?", "Cassel Vey", ["leaderName"]),
    ("When was Ondrej Kalina born?", "Ondřej Kalina", ["birthDate"]),
    ("How many people live in Tessany?", "Tessany", ["populationTotal"]),
    ("Who directed The Orchard Years?", "The Orchard Years", ["director"]),
    ("Which film was adapted from A Map of Small Rivers?", "A Map of Small Rivers", ["^basedOn"]),
    ("Who founded Lanternfish Pictures?", "Lanternfish Pictures", ["foundedBy"]),
    ("What is Greywater Press's parent company?", "Greywater Press", ["parentCompany"]),
    ("Which prize did Mirela Voss receive?", "Mirela Voss", ["award"]),
    ("In what year was Halloran & Pike founded?", "Halloran & Pike", ["foundingYear"]),
    ("Who is Ondřej Kalina's wife?", "Ondřej Kalina", ["spouse"]),
    ("Where was the author of Glass Harbour born?", "Glass Harbour", ["author", "birthPlace"]),
    ("Who directed the film based on Winter Ledger?", "Winter Ledger", ["^basedOn", "director"]),
    ("Who wrote the book that Small Rivers is based on?", "Small Rivers", ["basedOn", "author"]),
    ("What is the official language of the country whose capital is Lindqvar?", "Lindqvar",
     ["^capital", "officialLanguage"]),
    ("Which university did the founder of Lanternfish Pictures attend?", "Lanternfish Pictures",
     ["foundedBy", "almaMater"]),
    ("Who is the mayor of the city where Kaia Brenn was born?", "Kaia Brenn", ["birthPlace", "leaderName"]),
    ("Where is the company that publishes A Map of Small Rivers headquartered?", "A Map of Small Rivers",
     ["publisher", "headquarter"]),
    ("When was the writer who influenced Théo Lacasse born?", "Théo Lacasse", ["influencedBy", "birthDate"]),
    ("Which award did the spouse of Mirela Voss win?", "Mirela Voss", ["^spouse", "award"]),
    ("In which city is the alma mater of Amadou Serre?", "Amadou Serre", ["almaMater", "city"]),
    ("Who founded the parent company of Greywater Press?", "Greywater Press", ["parentCompany", "foundedBy"]),
    ("Which studio made the film starring Kaia Brenn?", "Kaia Brenn", ["^starring", "studio"]),
    ("what year did the film adaptation of The Salt Orchard come out", "The Salt Orchard",
     ["^basedOn", "releaseDate"]),
    ("What is the capital of the country where Port Ilsa lies?", "Port Ilsa", ["country", "capital"]),
    ("Which country is the publisher of The Salt Orchard based in?", "The Salt Orchard",
     ["publisher", "headquarter", "country"]),
    ("Who is the mayor of the birthplace of the director of Small Rivers?", "Small Rivers",
     ["director", "birthPlace", "leaderName"]),
    ("What is the population of the city where the author of Winter Ledger was born?", "Winter Ledger",
     ["author", "birthPlace", "populationTotal"]),
    ("Which language is spoken officially in the country where Sabine Moreau was born?", "Sabine Moreau",
     ["birthPlace", "country", "officialLanguage"]),
    ("Who is married to the author of the novel that The Orchard Years is based on?", "The Orchard Years",
     ["basedOn", "author", "spouse"]),
    ("Which university did the director of the film based on Winter Ledger go to?", "Winter Ledger",
     ["^basedOn", "director", "almaMater"]),
    ("Who founded the parent company of the publisher of Glass Harbour?", "Glass Harbour",
     ["publisher", "parentCompany", "foundedBy"]),
    ("When was the spouse of the author of Glass Harbour born?", "Glass Harbour", ["author", "spouse", "birthDate"]),
    ("What currency is used in the country where Cassel Vey Conservatory is located?", "Cassel Vey Conservatory",
     ["city", "country", "currency"]),
    ("Where was the person who influenced the author of A Map of Small Rivers educated?", "A Map of Small Rivers",
     ["author", "influencedBy", "almaMater"]),
    ("Who leads the city where the studio behind Small Rivers has its headquarters?", "Small Rivers",
     ["studio", "headquarter", "leaderName"]),
    ("What currency is used in the country where the director of The Orchard Years was born?", "The Orchard Years",
     ["director", "birthPlace", "country", "currency"]),
    ("How many people live in the hometown of the founder of the parent company of Greywater Press?",
     "Greywater Press", ["parentCompany", "foundedBy", "birthPlace", "populationTotal"]),
]

# (question, what the graph lacks)
UNANSWERABLE = [
    ("Who directed Glass Harbour?", "no film is based on that book"),
    ("When was Petr Havlin born?", "birth date of that person"),
    ("Where was Petr Havlin born?", "birthplace of that person"),
    ("What is the population of Belmorra?", "population of that country"),
    ("Who is Théo Lacasse married to?", "spouse of that person"),
    ("Which company published Small Rivers?", "publisher of that film"),
    ("Who founded Greywater Press?", "founder of that company"),
    ("Which award did Sabine Moreau win?", "award of that person"),
    ("Who is the mayor of Port Ilsa?", "leader of that city"),
    ("What university did Kaia Brenn attend?", "alma mater of that person"),
]


def _slug(name: str) -> str:
    import unicodedata

    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return RESOURCE + re.sub(r"[^A-Za-z0-9]+", "_", ascii_name).strip("_")


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _object(tail: str) -> str:
    if tail.startswith("lit:"):
        _, kind, value = tail.split(":", 2)
        return f"{_literal(value)}^^<{XSD}{kind}>"
    return f"<{_slug(tail)}>"


def _value(tail: str) -> str:
    return tail.split(":", 2)[2] if tail.startswith("lit:") else tail


def write_nt(path: Path, facts) -> None:
    names = {h for h, _, _ in facts} | {t for _, _, t in facts if not t.startswith("lit:")}
    with open(path, "w", encoding="utf-8") as out:
        for name in sorted(names):  # labels first here; the reader takes them in any order
            out.write(f"<{_slug(name)}> <{RDFS_LABEL}> {_literal(name)}@en .\n")
        for kind, members in TYPES.items():
            for name in members:
                out.write(f"<{_slug(name)}> <{RDF_TYPE}> <{ONTOLOGY}{kind}> .\n")
        for h, r, t in facts:
            out.write(f"<{_slug(h)}> <{ONTOLOGY}{r}> {_object(t)} .\n")


def _first_set():
    spec = importlib.util.spec_from_file_location("handwritten_make_set", HERE.parent / "handwritten" / "make_set.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    first = _first_set()
    facts = first._facts(FACTS)
    write_nt(HERE / "kg.nt", facts)
    plain = [(h, r, _value(t)) for h, r, t in facts]  # answers are the literals' values
    first.write_questions(HERE, plain, QUESTIONS, UNANSWERABLE)
