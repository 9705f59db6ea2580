"""Write the team's seventh hand-written held-out set: clubs, films and records, with Wikidata-style ids.

Run from the repository root: `python tests/data/handwritten7/make_set.py`. It writes, next to itself,
`kg.jsonl`, `questions.jsonl` and `unanswerable.jsonl` (questions in the format of tests/data/handwritten/).

Why: a user's graph exported from a Wikidata-like store carries ids beside its names: every line of this
one has `head_id`, `relation_id` and (unless the tail is a literal) `tail_id`, with Wikidata's property
labels as relations ("member of sports team", "located in the administrative territorial entity",
"position played on team / speciality", "conferred by"). Facts are stated one way only where Wikidata
states them one way (a father, not the child; a venue, not who plays at it), so questions walk some
relations backwards. Questions use other words ("play for", "coaches", "signed to", "dad", "adapted
from", "nationality", "in charge of"). Written on 2026-11-27 before that session's changes and only
measured. Every name, id and phrasing is invented; none of it may appear in product code, and nobody tuning
the front end should read its per-question failures.
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

HERE = Path(__file__).parent

# Wikidata's ids of the properties used (the labels are Wikidata's; the ids let a loader match relations)
PROPERTY_IDS = {
    "member of sports team": "P54", "head coach": "P286", "home venue": "P115", "league": "P118",
    "owned by": "P127", "inception": "P571", "located in the administrative territorial entity": "P131",
    "country": "P17", "capital": "P36", "founded by": "P112", "headquarters location": "P159",
    "position played on team / speciality": "P413", "place of birth": "P19", "spouse": "P26",
    "occupation": "P106", "record label": "P264", "sibling": "P3373", "country of citizenship": "P27",
    "father": "P22", "child": "P40", "director": "P57", "screenwriter": "P58", "cast member": "P161",
    "composer": "P86", "based on": "P144", "author": "P50", "award received": "P166",
    "publication date": "P577", "narrative location": "P840", "educated at": "P69", "conferred by": "P1027",
    "performer": "P175",
}

FACTS = """
Harwick Rovers|league|Corran Premier Division
Harwick Rovers|home venue|Millfield Park
Harwick Rovers|head coach|Ossian Brede
Harwick Rovers|owned by|Tallis Group
Harwick Rovers|inception|1897
Millfield Park|located in the administrative territorial entity|Harwick
Harwick|country|Corrany
Corrany|capital|Velmstad
Dunmore Athletic|league|Corran Premier Division
Dunmore Athletic|home venue|Stanmere Ground
Dunmore Athletic|head coach|Piet Alsing
Stanmere Ground|located in the administrative territorial entity|Dunmore
Dunmore|country|Corrany
Tallis Group|founded by|Edda Tallis
Tallis Group|headquarters location|Velmstad
Edda Tallis|child|Rune Tallis
Jonas Fairley|member of sports team|Harwick Rovers
Jonas Fairley|position played on team / speciality|goalkeeper
Jonas Fairley|place of birth|Dunmore
Jonas Fairley|spouse|Mira Castell
Mira Castell|spouse|Jonas Fairley
Mira Castell|occupation|singer
Mira Castell|record label|Brightwater Records
Brightwater Records|founded by|Lukas Brede
Lukas Brede|sibling|Ossian Brede
Ossian Brede|sibling|Lukas Brede
Lukas Brede|place of birth|Kerrow
Ossian Brede|place of birth|Kerrow
Kerrow|country|Lisvania
Lisvania|capital|Ardmoor
Teodor Maas|member of sports team|Dunmore Athletic
Teodor Maas|country of citizenship|Lisvania
Teodor Maas|father|Anders Maas
The Quiet Harbour|director|Selma Rook
The Quiet Harbour|screenwriter|Aurel Dance
The Quiet Harbour|cast member|Mira Castell
The Quiet Harbour|composer|Lukas Brede
The Quiet Harbour|based on|Salt and Ember
The Quiet Harbour|publication date|2011
The Quiet Harbour|narrative location|Harwick
Salt and Ember|author|Hesper Lind
Hesper Lind|place of birth|Velmstad
Hesper Lind|award received|Morrow Prize
Morrow Prize|conferred by|Velmstad Academy
Selma Rook|educated at|Velmstad Film School
Velmstad Film School|located in the administrative territorial entity|Velmstad
Selma Rook|spouse|Aurel Dance
Aurel Dance|spouse|Selma Rook
Aurel Dance|place of birth|Ardmoor
Iron Meadow|director|Selma Rook
Iron Meadow|cast member|Teodor Maas
Glass Rivers|performer|Mira Castell
"""

# (question, topic, chain): a chain step "^rel" follows the relation backwards (tail to head)
QUESTIONS = [
    ("Which club does Jonas Fairley play for?", "Jonas Fairley", ["member of sports team"]),
    ("Who is in charge of Harwick Rovers?", "Harwick Rovers", ["head coach"]),
    ("Where do Dunmore Athletic play their home games?", "Dunmore Athletic", ["home venue"]),
    ("Who owns Harwick Rovers?", "Harwick Rovers", ["owned by"]),
    ("Who directed The Quiet Harbour?", "The Quiet Harbour", ["director"]),
    ("Who wrote the screenplay for The Quiet Harbour?", "The Quiet Harbour", ["screenwriter"]),
    ("Who wrote Salt and Ember?", "Salt and Ember", ["author"]),
    ("Which label is Mira Castell signed to?", "Mira Castell", ["record label"]),
    ("Who is Jonas Fairley's wife?", "Jonas Fairley", ["spouse"]),
    ("Who is Teodor Maas's dad?", "Teodor Maas", ["father"]),
    ("When was Harwick Rovers founded?", "Harwick Rovers", ["inception"]),
    ("What position does Jonas Fairley play?", "Jonas Fairley", ["position played on team / speciality"]),
    ("Who composed the music for The Quiet Harbour?", "The Quiet Harbour", ["composer"]),
    ("Which novel is The Quiet Harbour adapted from?", "The Quiet Harbour", ["based on"]),
    ("Who is the child of Edda Tallis?", "Edda Tallis", ["child"]),
    ("What nationality is Teodor Maas?", "Teodor Maas", ["country of citizenship"]),
    ("Who coaches the club Jonas Fairley plays for?", "Jonas Fairley", ["member of sports team", "head coach"]),
    ("In which town is the home ground of Dunmore Athletic?", "Dunmore Athletic",
     ["home venue", "located in the administrative territorial entity"]),
    ("Who founded the company that owns Harwick Rovers?", "Harwick Rovers", ["owned by", "founded by"]),
    ("Which label is the wife of Jonas Fairley signed to?", "Jonas Fairley", ["spouse", "record label"]),
    ("Who founded Mira Castell's record label?", "Mira Castell", ["record label", "founded by"]),
    ("Who is the brother of the man who founded Brightwater Records?", "Brightwater Records",
     ["founded by", "sibling"]),
    ("Where did the director of The Quiet Harbour study?", "The Quiet Harbour", ["director", "educated at"]),
    ("Which prize did the author of Salt and Ember win?", "Salt and Ember", ["author", "award received"]),
    ("What is the capital of the country Teodor Maas is a citizen of?", "Teodor Maas",
     ["country of citizenship", "capital"]),
    ("Which league does the club that plays at Millfield Park compete in?", "Millfield Park",
     ["^home venue", "league"]),
    ("Who is married to the screenwriter of The Quiet Harbour?", "The Quiet Harbour", ["screenwriter", "spouse"]),
    ("Where was the composer of The Quiet Harbour born?", "The Quiet Harbour", ["composer", "place of birth"]),
    ("Which team does the son of Anders Maas play for?", "Anders Maas", ["^father", "member of sports team"]),
    ("Who owns the club coached by Ossian Brede?", "Ossian Brede", ["^head coach", "owned by"]),
    ("Where is the company that owns Harwick Rovers based?", "Harwick Rovers", ["owned by", "headquarters location"]),
    ("In which country is the city where The Quiet Harbour is set?", "The Quiet Harbour",
     ["narrative location", "country"]),
    ("What country is the actor in Iron Meadow a citizen of?", "Iron Meadow",
     ["cast member", "country of citizenship"]),
    ("Where was the author of the book The Quiet Harbour is based on born?", "The Quiet Harbour",
     ["based on", "author", "place of birth"]),
    ("In which country was the coach of Harwick Rovers born?", "Harwick Rovers",
     ["head coach", "place of birth", "country"]),
    ("What is the capital of the country where Stanmere Ground is?", "Stanmere Ground",
     ["located in the administrative territorial entity", "country", "capital"]),
    ("Who awards the prize won by the writer of the novel behind The Quiet Harbour?", "The Quiet Harbour",
     ["based on", "author", "award received", "conferred by"]),
    ("what club does the husband of the singer who performed Glass Rivers play for", "Glass Rivers",
     ["performer", "spouse", "member of sports team"]),
]

# (question, what the graph lacks)
UNANSWERABLE = [
    ("When was Dunmore Athletic founded?", "inception of that club"),
    ("Who owns Dunmore Athletic?", "owner of that club"),
    ("Who wrote the screenplay for Iron Meadow?", "screenwriter of that film"),
    ("What position does Teodor Maas play?", "position of that player"),
    ("Where was Mira Castell born?", "birthplace of that person"),
    ("Who is Jonas Fairley's father?", "father of that person"),
    ("Which record label released Glass Rivers?", "label of that record"),
    ("Who composed the music for Iron Meadow?", "composer of that film"),
    ("Where did Hesper Lind study?", "school of that person"),
    ("Who coaches the club that Teodor Maas's father played for?", "team of that person"),
]


def _first_set():
    spec = importlib.util.spec_from_file_location("handwritten_make_set", HERE.parent / "handwritten" / "make_set.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _ids(facts) -> dict[str, str]:
    """An invented Q-id for every entity (a tail written with digits is a literal and has none)."""
    names = [n for h, _, t in facts for n in (h, t) if not n.isdigit()]
    return {name: f"Q{7100001 + i}" for i, name in enumerate(dict.fromkeys(names))}


if __name__ == "__main__":
    first = _first_set()
    facts = first._facts(FACTS)
    ids = _ids(facts)
    with open(HERE / "kg.jsonl", "w", encoding="utf-8") as out:
        for h, r, t in facts:
            line = {"head": h, "head_id": ids[h], "relation": r, "relation_id": PROPERTY_IDS[r], "tail": t}
            if t in ids:
                line["tail_id"] = ids[t]
            out.write(json.dumps(line) + "\n")
    first.write_questions(HERE, facts, QUESTIONS, UNANSWERABLE)
