"""Write the team's hand-written held-out set: a small invented graph and questions written one by one.

Run from the repository root: `python tests/data/handwritten/make_set.py`. It writes, next to itself,
`kg.jsonl`, `questions.jsonl` (gold entity of every hop, for Hop-Acc) and `unanswerable.jsonl`.

Why a fourth set: the other sets' questions come from templates, so a front end tuned on one template
family can look general on another. Here every question was written by hand in the words a user
would type (relative clauses, "of" chains, possessives, questions that start with the object,
imperative "Name ..."), over a graph exported the way a user's own tool might write it: snake_case
relation names, each marriage stated once in one direction only, one relation read backwards ("the
company Livia Brant runs" over `chief_executive` from company to person). The unanswerable questions
ask for a relation the graph lacks, or for a relation it has but not for that entity.

It is a measurement set: nobody tuning the front end should read its per-question failures. Every
name and phrasing here is invented; none of it may appear in product code.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent

FACTS = """
Arvenia|capital|Quellport
Arvenia|currency|arven crown
Arvenia|official_language|Arvenian
Arvenia|continent|Ostrion
Thessmark|capital|Dornick
Thessmark|currency|thessic mark
Thessmark|official_language|Thessic
Thessmark|continent|Ostrion
Coralind|capital|Saltreach
Coralind|currency|coral pound
Coralind|official_language|Coralese
Coralind|continent|Meridia
Quellport|country|Arvenia
Harnbury|country|Arvenia
Velmstad|country|Thessmark
Dornick|country|Thessmark
Saltreach|country|Coralind
Kelvane|country|Coralind
Harnbury|mayor|Rufus Delmere
Velmstad|mayor|Sabine Orrel
Kelvane|mayor|Piet Varnok
Harnbury|on_river|Vell
Dornick|on_river|Orm
Kelvane|on_river|Orm
Ilse Varnok|born_in|Harnbury
Ilse Varnok|citizen_of|Arvenia
Ilse Varnok|spouse|Teodor Quill
Ilse Varnok|educated_at|Quellport Polytechnic
Ilse Varnok|employer|Velm Motors
Ilse Varnok|father|Piet Varnok
Ilse Varnok|mother|Maren Solvik
Ilse Varnok|occupation|engineer
Teodor Quill|born_in|Velmstad
Teodor Quill|educated_at|Harnbury Conservatory
Teodor Quill|occupation|composer
Piet Varnok|born_in|Kelvane
Piet Varnok|occupation|shipwright
Piet Varnok|employer|Brant Shipping
Maren Solvik|born_in|Saltreach
Maren Solvik|occupation|novelist
Maren Solvik|educated_at|Kelvane University
Caspar Ondry|born_in|Dornick
Caspar Ondry|spouse|Livia Brant
Livia Brant|born_in|Kelvane
Livia Brant|citizen_of|Coralind
Oskar Fenwyle|born_in|Quellport
Oskar Fenwyle|educated_at|Kelvane University
Nadia Krell|spouse|Oskar Fenwyle
Nadia Krell|occupation|physician
Nadia Krell|born_in|Velmstad
Nadia Krell|employer|Dornick General Hospital
Hanne Loyd|born_in|Harnbury
Hanne Loyd|educated_at|Quellport Polytechnic
Hanne Loyd|doctoral_advisor|Edmund Kray
Rufus Delmere|spouse|Hanne Loyd
Rufus Delmere|born_in|Quellport
Edmund Kray|employer|Kelvane University
Edmund Kray|born_in|Dornick
Edmund Kray|citizen_of|Thessmark
Yara Tesch|born_in|Saltreach
Yara Tesch|signed_to|Ondry Records
Luca Pendry|born_in|Velmstad
Greta Hollis|spouse|Luca Pendry
Greta Hollis|born_in|Quellport
Greta Hollis|occupation|actress
Anton Vey|born_in|Dornick
Anton Vey|citizen_of|Thessmark
Anton Vey|spouse|Sabine Orrel
Sabine Orrel|born_in|Kelvane
Velm Motors|headquartered_in|Velmstad
Velm Motors|founded_by|Anton Vey
Velm Motors|chief_executive|Oskar Fenwyle
Brant Shipping|headquartered_in|Kelvane
Brant Shipping|founded_by|Rufus Delmere
Brant Shipping|chief_executive|Livia Brant
Ondry Records|headquartered_in|Dornick
Ondry Records|founded_by|Caspar Ondry
Saltreach Press|headquartered_in|Saltreach
Saltreach Press|founded_by|Maren Solvik
Kelvane Herald|headquartered_in|Kelvane
Kelvane Herald|owned_by|Brant Shipping
Quellport Polytechnic|located_in|Quellport
Harnbury Conservatory|located_in|Harnbury
Kelvane University|located_in|Kelvane
Dornick General Hospital|located_in|Dornick
The Tin Lantern|author|Hanne Loyd
The Tin Lantern|publisher|Saltreach Press
Glass Harbour|performer|Yara Tesch
Glass Harbour|record_label|Ondry Records
Glass Harbour|produced_by|Teodor Quill
Northern Static|director|Luca Pendry
Northern Static|cast_member|Greta Hollis
Northern Static|filming_location|Harnbury
"""

# (question, topic, chain): a chain step "^rel" follows the relation backwards (object to subject)
QUESTIONS = [
    ("Where was Ilse Varnok born?", "Ilse Varnok", ["born_in"]),
    ("Who is Teodor Quill married to?", "Teodor Quill", ["^spouse"]),
    ("Which company does Livia Brant run?", "Livia Brant", ["^chief_executive"]),
    ("What does Nadia Krell do for a living?", "Nadia Krell", ["occupation"]),
    ("Who wrote The Tin Lantern?", "The Tin Lantern", ["author"]),
    ("Which label released Glass Harbour?", "Glass Harbour", ["record_label"]),
    ("Where is Velm Motors based?", "Velm Motors", ["headquartered_in"]),
    ("What money is used in Coralind?", "Coralind", ["currency"]),
    ("Who supervised Hanne Loyd's doctorate?", "Hanne Loyd", ["doctoral_advisor"]),
    ("Name the founder of Ondry Records.", "Ondry Records", ["founded_by"]),
    ("Who directed Northern Static?", "Northern Static", ["director"]),
    ("Which river runs through Harnbury?", "Harnbury", ["on_river"]),
    ("Which country's currency is the coral pound?", "coral pound", ["^currency"]),
    ("In which country was Ilse Varnok born?", "Ilse Varnok", ["born_in", "country"]),
    ("Where did the husband of Ilse Varnok study?", "Ilse Varnok", ["spouse", "educated_at"]),
    ("Who leads the company that owns the Kelvane Herald?", "Kelvane Herald", ["owned_by", "chief_executive"]),
    ("Which city is the record label of Glass Harbour based in?", "Glass Harbour",
     ["record_label", "headquartered_in"]),
    ("Who is the spouse of the founder of Velm Motors?", "Velm Motors", ["founded_by", "spouse"]),
    ("Ilse Varnok's mother went to which university?", "Ilse Varnok", ["mother", "educated_at"]),
    ("What is the occupation of Ilse Varnok's father?", "Ilse Varnok", ["father", "occupation"]),
    ("Where was the author of The Tin Lantern born?", "The Tin Lantern", ["author", "born_in"]),
    ("Who is the mayor of the city where Teodor Quill was born?", "Teodor Quill", ["born_in", "mayor"]),
    ("The director of Northern Static is married to whom?", "Northern Static", ["director", "^spouse"]),
    ("What is the capital of the country Livia Brant is a citizen of?", "Livia Brant", ["citizen_of", "capital"]),
    ("Which company is run by Nadia Krell's husband?", "Nadia Krell", ["spouse", "^chief_executive"]),
    ("Who produced the album that Yara Tesch performed?", "Yara Tesch", ["^performer", "produced_by"]),
    ("Where is the publisher of The Tin Lantern headquartered?", "The Tin Lantern",
     ["publisher", "headquartered_in"]),
    ("Who founded the company where Ilse Varnok works?", "Ilse Varnok", ["employer", "founded_by"]),
    ("Which university did the CEO of Velm Motors attend?", "Velm Motors", ["chief_executive", "educated_at"]),
    ("Where did the person who supervised Hanne Loyd's doctorate work?", "Hanne Loyd",
     ["doctoral_advisor", "employer"]),
    ("Who is the mother of the wife of Teodor Quill?", "Teodor Quill", ["^spouse", "mother"]),
    ("In which country is the employer of Edmund Kray located?", "Edmund Kray",
     ["employer", "located_in", "country"]),
    ("Which river flows through the birthplace of the author of The Tin Lantern?", "The Tin Lantern",
     ["author", "born_in", "on_river"]),
    ("Where was the wife of Ondry Records' founder born?", "Ondry Records", ["founded_by", "spouse", "born_in"]),
    ("What is the official language of the country of citizenship of Hanne Loyd's doctoral advisor?",
     "Hanne Loyd", ["doctoral_advisor", "citizen_of", "official_language"]),
    ("The founder of the publisher of The Tin Lantern was born in which city?", "The Tin Lantern",
     ["publisher", "founded_by", "born_in"]),
    ("What does the spouse of the man who runs Velm Motors do?", "Velm Motors",
     ["chief_executive", "^spouse", "occupation"]),
    ("In what city is the hospital where Oskar Fenwyle's wife works?", "Oskar Fenwyle",
     ["^spouse", "employer", "located_in"]),
    ("In which country was the film that Greta Hollis starred in shot?", "Greta Hollis",
     ["^cast_member", "filming_location", "country"]),
    ("Who is the mayor of the town where the director of Northern Static was born?", "Northern Static",
     ["director", "born_in", "mayor"]),
    ("Which continent is the home country of the CEO of Brant Shipping on?", "Brant Shipping",
     ["chief_executive", "citizen_of", "continent"]),
    ("Who is married to the founder of the company that owns the Kelvane Herald?", "Kelvane Herald",
     ["owned_by", "founded_by", "spouse"]),
    ("What currency is used where Ilse Varnok's husband was born?", "Ilse Varnok",
     ["spouse", "born_in", "country", "currency"]),
    ("On which continent is the country where Yara Tesch's label is based?", "Yara Tesch",
     ["signed_to", "headquartered_in", "country", "continent"]),
    ("What is the capital of the country in which Ilse Varnok's father was born?", "Ilse Varnok",
     ["father", "born_in", "country", "capital"]),
    ("Which country was the founder of Ilse Varnok's employer born in?", "Ilse Varnok",
     ["employer", "founded_by", "born_in", "country"]),
    ("Which language do they speak in the country where the company run by Oskar Fenwyle has its headquarters?",
     "Oskar Fenwyle", ["^chief_executive", "headquartered_in", "country", "official_language"]),
    ("Who is the mayor of the hometown of the wife of Velm Motors' founder?", "Velm Motors",
     ["founded_by", "spouse", "born_in", "mayor"]),
]

# (question, what the graph lacks)
UNANSWERABLE = [
    ("What instrument does Teodor Quill play?", "instrument"),
    ("Who is the mayor of the city where Oskar Fenwyle was born?", "mayor of that city"),
    ("What is the population of the capital of Arvenia?", "population"),
    ("Which football club does Ilse Varnok's husband support?", "supported club"),
    ("Who is the father of the CEO of Velm Motors?", "father of that person"),
    ("What currency is used in the country where the mother of Greta Hollis's husband was born?",
     "mother of that person"),
    ("Which award did the author of The Tin Lantern win?", "award"),
    ("What is the religion of Nadia Krell?", "religion"),
    ("Who was the doctoral advisor of the founder of Ondry Records?", "doctoral advisor of that person"),
    ("In what year was Brant Shipping founded?", "founding year"),
    # added with the abstention measures: (question, what the graph lacks, kind)
    ("Who is the mother of Teodor Quill?", "mother of that person", "missing relation"),
    ("Where did Livia Brant study?", "education of that person", "missing relation"),
    ("What does Caspar Ondry do for a living?", "occupation of that person", "missing relation"),
    ("Which company employs Greta Hollis?", "employer of that person", "missing relation"),
    ("Who is the mayor of Quellport?", "mayor of that city", "missing relation"),
    ("In which city was the spouse of Yara Tesch born?", "spouse of that person", "missing hop fact"),
    ("What is the occupation of the CEO of Ondry Records?", "chief executive of that company",
     "missing hop fact"),
    ("Which river flows through the city where Ilse Varnok's mother was born?", "river of that city",
     "missing hop fact"),
    ("Who is the mayor of the capital of Coralind?", "mayor of that city", "missing hop fact"),
    ("Where was the doctoral advisor of Teodor Quill born?", "doctoral advisor of that person",
     "missing hop fact"),
    ("Which river runs through the city where Velm Motors is based?", "river of that city", "missing hop fact"),
    ("Who founded the company that owns Velm Motors?", "owner of that company", "missing hop fact"),
    ("Where was Bertil Amsvoe born?", "the person", "entity absent"),
    ("Who founded Grellwick Foods?", "the company", "entity absent"),
    ("What is the capital of Pardonia?", "the country", "entity absent"),
    ("Who is married to Ottoline Vasch?", "the person", "entity absent"),
    ("How tall is Ilse Varnok?", "height", "relation never used"),
    ("When is Teodor Quill's birthday?", "birth date", "relation never used"),
    ("Which political party does Anton Vey belong to?", "party", "relation never used"),
    ("How many employees does Brant Shipping have?", "staff count", "relation never used"),
    ("What is the area of Coralind?", "area", "relation never used"),
    ("Which company did Teodor Quill found?", "a company he founded", "false premise"),
    ("Which film did Yara Tesch direct?", "a film she directed", "false premise"),
    ("Who is the author of Northern Static?", "author of a film", "false premise"),
    ("Who is the CEO of Harnbury?", "chief executive of a city", "false premise"),
    ("Which company does Piet Varnok's wife run?", "wife of that person", "false premise"),
]


def _facts(text: str) -> list[tuple[str, str, str]]:
    return [tuple(line.split("|")) for line in text.strip().splitlines()]


def _follow(facts, entity: str, step: str) -> list[str]:
    if step.startswith("^"):
        return [h for h, r, t in facts if r == step[1:] and t == entity]
    return [t for h, r, t in facts if r == step and h == entity]


def _hops(facts, topic: str, chain: list[str]) -> list[str]:
    hops, entity = [], topic
    for step in chain:
        found = _follow(facts, entity, step)
        if len(found) != 1:  # every hop of a written question has exactly one answer
            raise SystemExit(f"{topic} {chain}: step {step} from {entity} gives {found}")
        entity = found[0]
        hops.append(entity)
    return hops


def write_set(here: Path, facts_text: str, questions, unanswerable) -> None:
    """kg.jsonl, questions.jsonl and unanswerable.jsonl of one hand-written set, into `here`."""
    facts = _facts(facts_text)
    with open(here / "kg.jsonl", "w", encoding="utf-8") as out:
        for h, r, t in facts:
            out.write(json.dumps({"head": h, "relation": r, "tail": t}) + "\n")
    write_questions(here, facts, questions, unanswerable)


def write_questions(here: Path, facts, questions, unanswerable) -> None:
    """questions.jsonl (gold hops followed through `facts`) and unanswerable.jsonl, into `here`."""
    with open(here / "questions.jsonl", "w", encoding="utf-8") as out:
        for i, (question, topic, chain) in enumerate(questions, 1):
            hops = _hops(facts, topic, chain)
            out.write(json.dumps({"id": f"w{len(chain)}-{i:02d}", "question": question, "answers": [hops[-1]],
                                  "hops": len(chain), "hop_answers": hops,
                                  "chain": [s.lstrip("^") for s in chain]}) + "\n")
    with open(here / "unanswerable.jsonl", "w", encoding="utf-8") as out:
        for i, (question, missing, *kind) in enumerate(unanswerable, 1):
            out.write(json.dumps({"id": f"u{i:02d}", "question": question, "answers": [],
                                  "answerable": False, "missing": missing,
                                  **({"kind": kind[0]} if kind else {})}) + "\n")


if __name__ == "__main__":
    write_set(HERE, FACTS, QUESTIONS, UNANSWERABLE)
