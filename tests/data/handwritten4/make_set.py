"""Write the team's fourth hand-written set: a development set for relation direction and honest statuses.

Run from the repository root: `python tests/data/handwritten4/make_set.py`. It writes, next to itself,
`kg.jsonl`, `questions.jsonl` and `unanswerable.jsonl` in the format of tests/data/handwritten/.

Why a fourth one: the third set is the team's clean held-out measurement of a Neo4j-style graph and
must not be read to design rules. This one was written (2026-11-27, before the change it serves) to
develop against the same kinds of gaps with its own domain, entities and phrasings: relationship types
that are bare verbs read "(head) VERB (tail)" in several tenses (ABSORBED, OPERATES, SPONSORS, BOUGHT,
WROTE), stative labels whose head is the one located/based/born, a symmetric MARRIED and a noun
`sibling`, Wikidata-style lower-case labels ("founded by", "located in the administrative territorial
entity"), noun relations asked with a verb ("runs", "leads", "manages"), "in what city" where no
relation names cities, and unanswerable questions whose answer the graph has only the other way round
or only one link further on (an entity that lacks the asked relation, next to one that has it). It is a
development set: its failures are read. None of its names or phrasings may appear in product code.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).parent

FACTS = """
Port Elsin|CAPITAL_OF|Marvessa
Port Elsin|LOCATED_IN|Marvessa
Sarn Heights|located in the administrative territorial entity|Marvessa
Brennock|CAPITAL_OF|Tolvaria
Brennock|LOCATED_IN|Tolvaria
Quillhaven|LOCATED_IN|Tolvaria
Marvessa|currency|Elsin crown
Tolvaria|currency|tolvar
Port Elsin|HAS_MAYOR|Corin Ashby
Quillhaven|HAS_MAYOR|Nadia Perrault
Harrow Lines|BASED_IN|Port Elsin
Harrow Lines|chief_executive|Dana Quill
Harrow Lines|ABSORBED|Cobalt Freight
Harrow Lines|founded by|Ilse Marrow
Cobalt Freight|founded by|Orrin Bask
Orrin Bask|BORN_IN|Quillhaven
Ilse Marrow|BORN_IN|Brennock
Ilse Marrow|MARRIED|Teodor Vance
Teodor Vance|BORN_IN|Sarn Heights
Dana Quill|BORN_IN|Brennock
Tarn Holdings|OWNS|Harrow Lines
Tarn Holdings|BASED_IN|Quillhaven
Tarn Holdings|BOUGHT|Lindqvist Yard
Lindqvist Yard|LOCATED_IN|Brennock
Veyla Observatory|OPERATES|Kessing Telescope
Veyla Observatory|LOCATED_IN|Sarn Heights
Veyla Observatory|director|Pell Osgood
Pell Osgood|EDUCATED_AT|University of Quillhaven
University of Quillhaven|LOCATED_IN|Quillhaven
Maren Lisk|DESIGNED|Kessing Telescope
Calder Philharmonic|BASED_IN|Brennock
Calder Philharmonic|HAS_CONDUCTOR|Bex Hallam
Calder Philharmonic|COMMISSIONED|Tidewater Suite
Dorrin Trust|SPONSORS|Calder Philharmonic
Dorrin Trust|BASED_IN|Port Elsin
Ostrava Press|PUBLISHED|The Salt Ledger
Ostrava Press|BASED_IN|Quillhaven
Teodor Vance|WROTE|The Salt Ledger
Bex Hallam|sibling|Pell Osgood
"""

# (question, topic entity, relation path; "^" reads a relation from its tail)
QUESTIONS = [
    ("Which company absorbed Cobalt Freight?", "Cobalt Freight", ["^ABSORBED"]),
    ("What did Harrow Lines absorb?", "Harrow Lines", ["ABSORBED"]),
    ("Which company was absorbed by Harrow Lines?", "Harrow Lines", ["ABSORBED"]),
    ("Who operates the Kessing Telescope?", "Kessing Telescope", ["^OPERATES"]),
    ("Which telescope is operated by Veyla Observatory?", "Veyla Observatory", ["OPERATES"]),
    ("Which orchestra does the Dorrin Trust sponsor?", "Dorrin Trust", ["SPONSORS"]),
    ("Who sponsors the Calder Philharmonic?", "Calder Philharmonic", ["^SPONSORS"]),
    ("Which firm bought Lindqvist Yard?", "Lindqvist Yard", ["^BOUGHT"]),
    ("Who owns Harrow Lines?", "Harrow Lines", ["^OWNS"]),
    ("Who published The Salt Ledger?", "The Salt Ledger", ["^PUBLISHED"]),
    ("Who wrote The Salt Ledger?", "The Salt Ledger", ["^WROTE"]),
    ("Who designed the Kessing Telescope?", "Kessing Telescope", ["^DESIGNED"]),
    ("What did Maren Lisk design?", "Maren Lisk", ["DESIGNED"]),
    ("Which orchestra commissioned the Tidewater Suite?", "Tidewater Suite", ["^COMMISSIONED"]),
    ("Who married Ilse Marrow?", "Ilse Marrow", ["MARRIED"]),
    ("Whom did Teodor Vance marry?", "Teodor Vance", ["^MARRIED"]),
    ("Who is Bex Hallam's sibling?", "Bex Hallam", ["sibling"]),
    ("Where is Harrow Lines based?", "Harrow Lines", ["BASED_IN"]),
    ("Where was Orrin Bask born?", "Orrin Bask", ["BORN_IN"]),
    ("Who founded Cobalt Freight?", "Cobalt Freight", ["founded by"]),
    ("Which company was founded by Ilse Marrow?", "Ilse Marrow", ["^founded by"]),
    ("Who runs Harrow Lines?", "Harrow Lines", ["chief_executive"]),
    ("Who leads the Veyla Observatory?", "Veyla Observatory", ["director"]),
    ("Tell me who manages Harrow Lines.", "Harrow Lines", ["chief_executive"]),
    ("Which country is Sarn Heights in?", "Sarn Heights", ["located in the administrative territorial entity"]),
    ("What is the capital of Tolvaria?", "Tolvaria", ["^CAPITAL_OF"]),
    ("In what city is the observatory that operates the Kessing Telescope?", "Kessing Telescope",
     ["^OPERATES", "LOCATED_IN"]),
    ("In which city is the company that bought Lindqvist Yard based?", "Lindqvist Yard", ["^BOUGHT", "BASED_IN"]),
    ("Who runs the company that absorbed Cobalt Freight?", "Cobalt Freight", ["^ABSORBED", "chief_executive"]),
    ("Where was the founder of Cobalt Freight born?", "Cobalt Freight", ["founded by", "BORN_IN"]),
    ("What is the currency of the country where Harrow Lines is based?", "Harrow Lines",
     ["BASED_IN", "LOCATED_IN", "currency"]),
    ("Who conducts the orchestra that the Dorrin Trust sponsors?", "Dorrin Trust", ["SPONSORS", "HAS_CONDUCTOR"]),
    ("Who is the mayor of the city where the publisher of The Salt Ledger is based?", "The Salt Ledger",
     ["^PUBLISHED", "BASED_IN", "HAS_MAYOR"]),
    ("Where was the spouse of Teodor Vance born?", "Teodor Vance", ["^MARRIED", "BORN_IN"]),
    ("In what city did the director of Veyla Observatory study?", "Veyla Observatory",
     ["director", "EDUCATED_AT", "LOCATED_IN"]),
    ("which company owns the firm run by Dana Quill", "Dana Quill", ["^chief_executive", "^OWNS"]),
]

# (question, what the graph lacks)
UNANSWERABLE = [
    ("Which company absorbed Harrow Lines?", "an absorber of that company (it absorbed another)"),
    ("Which company was absorbed by Cobalt Freight?", "a company that one absorbed (it was absorbed)"),
    ("Who operates the Veyla Observatory?", "an operator of the observatory (it operates a telescope)"),
    ("Who sponsors the Dorrin Trust?", "a sponsor of the trust (it sponsors an orchestra)"),
    ("Who bought Tarn Holdings?", "a buyer of that firm (it bought a yard)"),
    ("Which firm owns Tarn Holdings?", "an owner of that firm (it owns another)"),
    ("Where is Cobalt Freight based?", "where that company is based (only its founder)"),
    ("Who is the conductor of the Dorrin Trust?", "a conductor of the trust (its orchestra has one)"),
    ("Who is the chief executive of Tarn Holdings?", "a chief executive of that firm (the firm it owns has one)"),
    ("Who designed the Veyla Observatory?", "a designer of the observatory (its telescope has one)"),
]


def _first_set():
    spec = importlib.util.spec_from_file_location("handwritten_make_set", HERE.parent / "handwritten" / "make_set.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    _first_set().write_set(HERE, FACTS, QUESTIONS, UNANSWERABLE)
