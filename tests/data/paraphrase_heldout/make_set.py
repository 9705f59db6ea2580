"""Write the HELD-OUT paraphrase set: a second invented KG, other relation names and other phrasings.

Run from the repository root: `python tests/data/paraphrase_heldout/make_set.py`. It writes, next to
itself, `kg.jsonl`, `questions.jsonl` (gold hop entities for Hop-Acc) and `unanswerable.jsonl`.

Why a second set: the planner is tuned on tests/data/paraphrase; this one (a world of universities,
sports clubs and provinces, relation names in camelCase, its own phrasing templates) is only
measured, as a check that the tuning did not fit the first set's words. Nobody tuning the planner
should read its per-question failures. Everything here is invented; none of it may appear in
product code.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).parent
rng = random.Random(2027)

PROVINCES = ["Varnholt", "Esterquay", "Mirelund", "Cawdor Reach"]
CITIES = {"Tolvanger": "Varnholt", "Brisk Hollow": "Varnholt", "Ondrecht": "Esterquay",
          "Saltmere": "Esterquay", "Kavrin": "Mirelund", "Lisselby": "Mirelund", "Gorran Ford": "Cawdor Reach",
          "Peldwick": "Cawdor Reach"}
UNIVERSITIES = ["Tolvanger Polytechnic", "Saltmere College", "Royal Institute of Kavrin", "Peldwick University",
                "Ondrecht School of Mines"]
CLUBS = ["Brisk Hollow Rovers", "Ondrecht Athletic", "Lisselby Harriers", "Gorran Ford Wanderers",
         "Kavrin Corsairs"]
STADIUMS = ["Ironmoss Park", "The Quarry Field", "Helvard Arena", "Saint Odo Ground", "Marlpit Stadium"]
GIVEN = ["Tamsin", "Ulric", "Wenna", "Yorick", "Zadie", "Alaric", "Brannagh", "Corentin", "Dagny", "Eirik",
         "Fenella", "Gawain", "Hesper", "Ivo", "Jorunn", "Kasimir", "Lusia", "Merrick", "Nerys", "Osric",
         "Petronel", "Ragna", "Sigrun", "Tobiah", "Una", "Valko", "Wystan", "Xanthe"]
FAMILY = ["Halloran", "Ibsworth", "Jessop", "Kilbride", "Lockyer", "Mordaunt", "Nettleford", "Orchard",
          "Prothero", "Ravenhill", "Stainforth", "Tregarthen", "Underhay", "Voysey"]
FEMALE = {"Tamsin", "Wenna", "Zadie", "Brannagh", "Dagny", "Fenella", "Hesper", "Jorunn", "Lusia", "Nerys",
          "Petronel", "Ragna", "Sigrun", "Una", "Xanthe"}

# relation names as this graph states them: camelCase, as an RDF-ish export would
SIBLING, FRIEND, ADVISOR, ALMA = "hasSibling", "bestFriend", "doctoralAdvisor", "almaMater"
TEAM, HOME = "playsFor", "residence"
CAMPUS, RECTOR = "campusCity", "rector"
COACH, GROUND = "headCoach", "homeGround"
STADIUM_CITY, PROVINCE, GOVERNOR = "stadiumLocation", "province", "governor"


def build_graph():
    facts: list[tuple[str, str, str]] = []
    people = [f"{g} {f}" for g, f in zip(rng.sample(GIVEN, len(GIVEN)), (FAMILY * 2)[: len(GIVEN)])]
    cities = list(CITIES)
    # siblings: pairs sharing a family name
    by_family: dict[str, list[str]] = {}
    for p in people:
        by_family.setdefault(p.split()[-1], []).append(p)
    for members in by_family.values():
        if len(members) == 2:
            a, b = members
            facts += [(a, SIBLING, b), (b, SIBLING, a)]
    for p in people:
        facts.append((p, HOME, rng.choice(cities)))
        if rng.random() < 0.7:
            facts.append((p, ALMA, rng.choice(UNIVERSITIES)))
        if rng.random() < 0.5:
            facts.append((p, TEAM, rng.choice(CLUBS)))
        if rng.random() < 0.6:
            facts.append((p, FRIEND, rng.choice([q for q in people if q != p])))
        if rng.random() < 0.4:
            facts.append((p, ADVISOR, rng.choice([q for q in people if q != p])))
    for u in UNIVERSITIES:
        facts += [(u, CAMPUS, rng.choice(cities)), (u, RECTOR, rng.choice(people))]
    for club, ground in zip(CLUBS, STADIUMS):
        facts += [(club, COACH, rng.choice(people)), (club, GROUND, ground)]
    for ground in STADIUMS:
        facts.append((ground, STADIUM_CITY, rng.choice(cities)))
    for city, province in CITIES.items():
        facts.append((city, PROVINCE, province))
    for province in PROVINCES:
        facts.append((province, GOVERNOR, rng.choice(people)))
    return facts


FACTS = build_graph()
OUT: dict[tuple[str, str], str] = {(h, r): t for h, r, t in FACTS}
KIND = {**{c: "city" for c in CITIES}, **{p: "province" for p in PROVINCES},
        **{u: "university" for u in UNIVERSITIES}, **{c: "club" for c in CLUBS},
        **{s: "stadium" for s in STADIUMS}}


def kind(entity: str) -> str:
    return KIND.get(entity, "person")


def female(person: str) -> bool:
    return person.split()[0] in FEMALE


def nouns(rel: str, subject: str) -> list[str]:
    tail = OUT.get((subject, rel), "")
    return {
        SIBLING: ["sibling", "sister" if female(tail) else "brother"],
        FRIEND: ["best friend", "closest friend", "best mate", "dearest friend"],
        ADVISOR: ["doctoral advisor", "PhD supervisor", "thesis adviser", "doctoral supervisor"],
        ALMA: ["alma mater", "university", "college"],
        TEAM: ["team", "club", "football club"],
        HOME: ["residence", "place of residence", "home city", "city of residence"],
        CAMPUS: ["campus city", "location", "campus"],
        RECTOR: ["rector", "vice-chancellor", "principal"],
        COACH: ["head coach", "coach", "manager", "trainer"],
        GROUND: ["home ground", "stadium", "home stadium", "home venue"],
        STADIUM_CITY: ["location", "city", "town"],
        PROVINCE: ["province", "region"],
        GOVERNOR: ["governor", "regional governor"],
    }[rel]


RELATIVE = {
    FRIEND: ["the person {} is closest to"],
    ADVISOR: ["the professor who supervised {}", "the academic who advised {}"],
    ALMA: ["the university {} graduated from", "the college that {} attended", "the school where {} studied"],
    TEAM: ["the team {} plays for", "the club that {} plays for"],
    HOME: ["the city where {} lives", "the town {} resides in", "the place {} calls home"],
    CAMPUS: ["the city hosting {}", "the city where {} has its campus"],
    RECTOR: ["the person who heads {}", "the academic leading {}"],
    COACH: ["the person who coaches {}", "the one who trains {}"],
    GROUND: ["the stadium where {} plays home games", "the venue {} plays at"],
    STADIUM_CITY: ["the city that is home to {}", "the city where {} stands"],
    PROVINCE: ["the province {} belongs to", "the region containing {}"],
    GOVERNOR: ["the person who governs {}", "the official in charge of {}"],
}

LAST = {
    SIBLING: ["Who is the sibling of {}?", "Who is {}'s brother or sister?"],
    FRIEND: ["Who is {}'s best friend?", "Who is the closest friend of {}?"],
    ADVISOR: ["Who was the doctoral advisor of {}?", "Who supervised the doctorate of {}?"],
    ALMA: ["Where did {} study?", "Which university did {} attend?", "From which college did {} graduate?"],
    TEAM: ["Which team does {} play for?", "For which club does {} play?"],
    HOME: ["Where does {} live?", "In which city does {} reside?", "Which town does {} live in?"],
    CAMPUS: ["In which city is {} located?", "Where is the campus of {}?"],
    RECTOR: ["Who heads {}?", "Who is the rector of {}?"],
    COACH: ["Who coaches {}?", "Who is the head coach of {}?", "Who trains {}?"],
    GROUND: ["What is the home ground of {}?", "At which stadium does {} play?"],
    STADIUM_CITY: ["In which city is {}?", "Where is {} situated?"],
    PROVINCE: ["In which province is {}?", "Which region is {} part of?"],
    GOVERNOR: ["Who governs {}?", "Who is the governor of {}?"],
}
OPENERS = {"person": ["Who is {}?", "Can you name {}?", "Tell me who {} is."],
           "city": ["Which city is {}?", "Name {}."], "province": ["Which province is {}?", "What is {}?"],
           "university": ["Which university is {}?", "What is {}?"], "club": ["Which club is {}?", "Name {}."],
           "stadium": ["Which stadium is {}?", "What is {}?"]}


def phrase(chain: list[str], path: list[str], style: str) -> tuple[str, bool, bool]:
    """The noun phrase for the end of `chain` from path[0]; whether it is a name or a possessive chain
    (another possessive may follow); whether it holds a relative clause."""
    np, plain, clause = path[0], True, False
    for i, rel in enumerate(chain):
        choice = style if style != "mix" else rng.choice(["pos", "of", "rel"])
        noun = rng.choice(nouns(rel, path[i]))
        if choice == "pos" and plain:
            np, plain = f"{np}'s {noun}", True
        elif choice == "rel" and any(plain or t.endswith("{}") for t in RELATIVE.get(rel, ())):
            np = rng.choice([t for t in RELATIVE[rel] if plain or t.endswith("{}")]).format(np)
            plain, clause = False, True
        else:
            np, plain = f"the {noun} of {np}", False
    return np, plain, clause


def question(chain: list[str], path: list[str]) -> str:
    style = rng.choice(["pos", "of", "mix", "rel", "mix"])
    templates: list[str] = []
    if rng.random() < 0.5:
        inner, plain, clause = phrase(chain[:-1], path[:-1], style)
        templates = [t for t in LAST[chain[-1]]
                     if (plain or "{}'s" not in t) and (not clause or t.rstrip("?").endswith("{}"))]
    if templates:
        q = rng.choice(templates).format(inner)
    else:
        np, _, _ = phrase(chain, path, style)
        q = rng.choice(OPENERS[kind(path[-1])]).format(np)
    return q[0].upper() + q[1:]


def walks(hops: int) -> list[tuple[list[str], list[str]]]:
    by_head: dict[str, list[tuple[str, str]]] = {}
    for h, r, t in FACTS:
        by_head.setdefault(h, []).append((r, t))
    out = []

    def go(path, chain):
        if len(chain) == hops:
            out.append((list(chain), list(path)))
            return
        for r, t in by_head.get(path[-1], []):
            if t not in path:
                go(path + [t], chain + [r])

    for start in by_head:
        go([start], [])
    return out


def main() -> None:
    with open(HERE / "kg.jsonl", "w") as f:
        for h, r, t in FACTS:
            f.write(json.dumps({"head": h, "relation": r, "tail": t}) + "\n")
    rows = []
    for hops, count in {1: 30, 2: 35, 3: 35, 4: 30}.items():
        pool = walks(hops)
        rng.shuffle(pool)
        per_chain: dict[tuple, int] = {}
        taken = 0
        for chain, path in pool:
            key = tuple(chain)
            if per_chain.get(key, 0) >= 2:
                continue
            per_chain[key] = per_chain.get(key, 0) + 1
            taken += 1
            rows.append({"id": f"h{hops}-{taken:02d}", "question": question(chain, path), "answers": [path[-1]],
                         "hops": hops, "hop_answers": path[1:], "chain": chain})
            if taken >= count:
                break
    with open(HERE / "questions.jsonl", "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    write_unanswerable()


def write_unanswerable() -> None:
    """Questions with a hop the graph lacks: a relation it never states, or one the entity lacks."""
    people = sorted({h for h, _r, _t in FACTS if kind(h) == "person"})
    rows = []
    missing = [("blood type", "What is the blood type of {}?"), ("car", "Which car does {} drive?"),
               ("zodiac sign", "What is {}'s zodiac sign?"), ("area", "What is the area of {}?"),
               ("tailor", "Who is the tailor of {}?"), ("mascot", "What is the mascot of {}?")]
    for i, (rel, template) in enumerate(missing):
        p = people[(5 * i) % len(people)]
        inner = p if i % 2 == 0 else rng.choice([f"{p}'s home city", f"the university {p} graduated from"])
        rows.append({"id": f"hu{i + 1:02d}", "question": template.format(inner), "answers": ["(no answer)"],
                     "answerable": False, "missing": rel})
    no_team = [p for p in people if (p, TEAM) not in OUT][:4]
    for j, p in enumerate(no_team):
        rows.append({"id": f"hu-team{j + 1}", "question": f"Who coaches the club {p} plays for?",
                     "answers": ["(no answer)"], "answerable": False, "missing": "team of " + p})
    with open(HERE / "unanswerable.jsonl", "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
