"""Write the paraphrase development set: an invented KG and many phrasings of its relations.

Run from the repository root: `python tests/data/paraphrase/make_set.py`. It writes, next to itself,
`kg.jsonl` (for `kgtool ingest facts`), `questions.jsonl` (for `kgtool eval qa`, with gold hop
entities for Hop-Acc) and `unanswerable.jsonl` (questions with one hop the graph lacks). The output is
deterministic (a fixed seed), so the committed files are what this script writes.

Everything here is invented for the team's development: the entity names, the relation names and the
phrasings. None of it may appear in product code; the same code is judged on graphs and words it has
never seen.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).parent
rng = random.Random(24)

# -- the graph ------------------------------------------------------------------------------------
COUNTRIES = ["Kessaria", "Lunmark", "Dravonia", "Ostelund", "Pellagor"]
CITIES = {  # city -> country
    "Velmora": "Kessaria", "Quenbridge": "Kessaria", "Tarsk": "Lunmark", "Ambrel": "Lunmark",
    "Fennick Falls": "Dravonia", "Sorrowgate": "Dravonia", "Halvik": "Ostelund", "Brimhollow": "Ostelund",
    "Castamere Bay": "Pellagor", "Ytterlin": "Pellagor",
}
CAPITALS = {"Kessaria": "Velmora", "Lunmark": "Tarsk", "Dravonia": "Sorrowgate", "Ostelund": "Halvik",
            "Pellagor": "Ytterlin"}
COMPANIES = ["Brightwell Analytics", "Corvane Shipping", "Marrowfield Foods", "Tessaly Robotics",
             "Odrin Mutual", "Quillon Press", "Stavro Mining", "Neverra Aeronautics"]
FIRST_M = ["Anselm", "Borislav", "Cedric", "Dorian", "Emeric", "Fabian", "Gideon", "Horatio", "Isidor",
           "Jasper", "Konrad", "Leopold", "Maximin", "Nikodem", "Oswin", "Percival", "Quintus", "Rupert"]
FIRST_F = ["Adelina", "Beatrix", "Cosima", "Delphine", "Eulalia", "Florentyna", "Griselda", "Honorata",
           "Ilona", "Jadwiga", "Kunigunde", "Leontyna", "Mirabel", "Noemi", "Ottilie", "Perpetua",
           "Rosalind", "Seraphina"]
SURNAMES = ["Varga", "Brenner", "Kowalczyk", "Ostrander", "Pemberton", "Quarry", "Thistlewood", "Umbridge",
            "Vandermeer", "Wexley", "Yarrow", "Zelinski"]

# relation names as the graph states them (my own, in several styles)
SPOUSE, FATHER, MOTHER, EMPLOYER = "spouse", "father", "mother", "employer"
NATION, BORN = "nationality", "born_in"
FOUNDER, CEO, HQ = "founder", "ceo", "headquarters"
IN_COUNTRY, MAYOR, CAPITAL, HEAD = "located_in_country", "mayor", "capital", "head_of_government"


def build_graph():
    facts: list[tuple[str, str, str]] = []
    gender: dict[str, str] = {}
    people: list[str] = []
    # three generations of families: grandparents -> parents -> children
    names_m = iter(rng.sample(FIRST_M, len(FIRST_M)))
    names_f = iter(rng.sample(FIRST_F, len(FIRST_F)))
    surnames = iter(SURNAMES)

    def person(first, last, g):
        name = f"{first} {last}"
        gender[name] = g
        people.append(name)
        return name

    families = []
    for _ in range(6):
        last = next(surnames)
        gp_m, gp_f = person(next(names_m), last, "m"), person(next(names_f), last, "f")
        par_m = person(next(names_m), last, "m")
        par_f = person(next(names_f), last, "f")
        child = person(next(names_m) if rng.random() < 0.5 else next(names_f), last, "?")
        gender[child] = "m" if child.split()[0] in FIRST_M else "f"
        families.append((gp_m, gp_f, par_m, par_f, child))
        facts += [(gp_m, SPOUSE, gp_f), (gp_f, SPOUSE, gp_m), (par_m, SPOUSE, par_f), (par_f, SPOUSE, par_m),
                  (par_m, FATHER, gp_m), (par_m, MOTHER, gp_f), (child, FATHER, par_m), (child, MOTHER, par_f)]
    cities = list(CITIES)
    for p in people:
        facts.append((p, BORN, rng.choice(cities)))
        facts.append((p, NATION, rng.choice(COUNTRIES)))
        if rng.random() < 0.8:
            facts.append((p, EMPLOYER, rng.choice(COMPANIES)))
    for c in COMPANIES:
        founder, boss = rng.sample(people, 2)
        facts += [(c, FOUNDER, founder), (c, CEO, boss), (c, HQ, rng.choice(cities))]
    for city, country in CITIES.items():
        facts.append((city, IN_COUNTRY, country))
        facts.append((city, MAYOR, rng.choice(people)))
    for country, capital in CAPITALS.items():
        facts.append((country, CAPITAL, capital))
        facts.append((country, HEAD, rng.choice(people)))
    return facts, gender


FACTS, GENDER = build_graph()
OUT: dict[tuple[str, str], str] = {(h, r): t for h, r, t in FACTS}
KIND = {**{p: "person" for p in GENDER}, **{c: "city" for c in CITIES}, **{c: "country" for c in COUNTRIES},
        **{c: "company" for c in COMPANIES}}


# -- phrasings --------------------------------------------------------------------------------------
# noun phrasings of each relation, read from the subject's side ("X's <noun>", "the <noun> of X")
def nouns(rel: str, subject: str) -> list[str]:
    g = GENDER.get(OUT.get((subject, rel), ""), "?")
    return {
        SPOUSE: ["spouse", "partner", "husband" if g == "m" else "wife", "better half", "consort",
                 "significant other", "darling", "mate"],
        FATHER: ["father", "dad", "papa", "old man"],
        MOTHER: ["mother", "mom", "mum", "mama"],
        EMPLOYER: ["employer", "workplace", "company", "firm"],
        NATION: ["nationality", "nation", "country of citizenship", "home country"],
        BORN: ["birthplace", "place of birth", "home town", "city of birth"],
        FOUNDER: ["founder", "creator", "originator"],
        CEO: ["ceo", "chief executive", "boss", "chief executive officer"],
        HQ: ["headquarters", "head office", "home base", "main office"],
        IN_COUNTRY: ["country", "nation", "state"],
        MAYOR: ["mayor", "city leader"],
        CAPITAL: ["capital", "capital city", "seat of government"],
        HEAD: ["head of government", "prime minister", "premier", "leader"],
    }[rel]


# relative clauses: a noun phrase for the relation's object, built around the subject's phrase
RELATIVE = {
    SPOUSE: ["the person married to {}", "the one {} is married to", "the person who wed {}"],
    EMPLOYER: ["the firm employing {}", "the company {} works for", "the organisation that employs {}",
               "the business where {} has a job"],
    NATION: ["the country {} is a citizen of", "the state that {} holds citizenship of"],
    BORN: ["the city where {} was born", "the town {} was born in", "the place {} was born"],
    FOUNDER: ["the person who founded {}", "the one who established {}", "whoever started {}"],
    CEO: ["the person who runs {}", "the executive in charge of {}"],
    HQ: ["the city where {} is headquartered", "the city {} is based in", "the town housing the head office of {}"],
    IN_COUNTRY: ["the country {} is in", "the nation where {} lies", "the country containing {}"],
    MAYOR: ["the person who governs the city of {}"],
    CAPITAL: ["the capital city of {}"],
    HEAD: ["the person who leads the government of {}"],
}

# whole questions whose last hop is said by the verb: (template, the {} slot's phrase)
LAST = {
    SPOUSE: ["Who is {} married to?", "Whom did {} marry?", "Who is the partner of {}?"],
    FATHER: ["Who is the father of {}?", "Who is {}'s dad?"],
    MOTHER: ["Who is the mother of {}?", "Who gave birth to {}?"],
    EMPLOYER: ["Where does {} work?", "Which company does {} work for?", "Who employs {}?",
               "For which firm does {} work?"],
    NATION: ["{} is a citizen of which country?", "Which country is {} a citizen of?",
             "What is the nationality of {}?", "Of which nation is {} a citizen?"],
    BORN: ["Where was {} born?", "In which city was {} born?", "{} was born in which town?"],
    FOUNDER: ["Who founded {}?", "Who established {}?", "By whom was {} founded?"],
    CEO: ["Who runs {}?", "Who is the chief executive of {}?", "Who is in charge of {}?"],
    HQ: ["Where is {} headquartered?", "In which city is {} based?", "Where is the head office of {}?"],
    IN_COUNTRY: ["In which country is {}?", "Which country is {} located in?", "{} lies in which nation?"],
    MAYOR: ["Who is the mayor of {}?", "Who governs the city of {}?"],
    CAPITAL: ["What is the capital of {}?", "Which city is the capital of {}?"],
    HEAD: ["Who is the head of government of {}?", "Who leads the government of {}?"],
}
OPENERS = {"person": ["Who is {}?", "Name {}.", "Who is {}?"], "city": ["What is {}?", "Which city is {}?"],
           "country": ["What is {}?", "Which country is {}?"], "company": ["What is {}?", "Which company is {}?"]}


def possessive(np: str) -> str:
    return np + "'s"


def phrase(chain: list[str], path: list[str], style: str) -> tuple[str, bool, bool]:
    """A noun phrase for the end of `chain` (relations) from path[0]; True if it ends in a possessive
    chain or a name (so another possessive may follow); True if it holds a relative clause."""
    np, plain, clause = path[0], True, False
    for i, rel in enumerate(chain):
        subject = path[i]
        choice = style if style != "mix" else rng.choice(["pos", "of", "rel"])
        noun = rng.choice(nouns(rel, subject))
        if choice == "pos" and plain:
            np = f"{possessive(np)} {noun}"
            plain = True
        elif choice == "rel" and any(plain or t.endswith("{}") for t in RELATIVE.get(rel, ())):
            # a clause whose verb follows the subject ("the town {} was born in") nests only around a
            # name or a possessive chain: centre-embedded clauses are not how people ask
            options = [t for t in RELATIVE[rel] if plain or t.endswith("{}")]
            np = rng.choice(options).format(np)
            plain, clause = False, True
        else:
            np = f"the {noun} of {np}"
            plain = False
    return np, plain, clause


def question(chain: list[str], path: list[str]) -> str:
    style = rng.choice(["pos", "of", "mix", "mix", "rel"])
    last_kind = KIND[path[-1]]
    templates: list[str] = []
    if rng.random() < 0.45:
        inner, plain, clause = phrase(chain[:-1], path[:-1], style)
        # "{}'s" attaches only to a name or an "'s" chain; a clause nests only at the end of a question
        templates = [t for t in LAST[chain[-1]]
                     if (plain or "{}'s" not in t) and (not clause or t.rstrip("?").endswith("{}"))]
    if templates:
        q = rng.choice(templates).format(inner)
    else:
        np, _, _ = phrase(chain, path, style)
        q = rng.choice(OPENERS[last_kind]).format(np)
    q = q[0].upper() + q[1:]
    return q


def walks(hops: int) -> list[tuple[list[str], list[str]]]:
    """Every relation path of `hops` hops from a person, company, or city, without revisiting."""
    by_head: dict[str, list[tuple[str, str]]] = {}
    for h, r, t in FACTS:
        by_head.setdefault(h, []).append((r, t))
    out = []

    def go(path, chain):
        if len(chain) == hops:
            out.append((list(chain), list(path)))
            return
        for r, t in by_head.get(path[-1], []):
            if t in path:
                continue
            # a spouse's spouse, or a parent's spouse, leads back to people already named
            if chain and chain[-1] in (FATHER, MOTHER) and r == SPOUSE:
                continue
            go(path + [t], chain + [r])

    for start in by_head:
        go([start], [])
    return out


def main() -> None:
    with open(HERE / "kg.jsonl", "w") as f:
        for h, r, t in FACTS:
            f.write(json.dumps({"head": h, "relation": r, "tail": t}) + "\n")
    per_hops = {1: 40, 2: 50, 3: 50, 4: 50}
    rows = []
    for hops, count in per_hops.items():
        pool = walks(hops)
        rng.shuffle(pool)
        seen_chains: dict[tuple, int] = {}
        taken = 0
        for chain, path in pool:
            key = tuple(chain)
            if seen_chains.get(key, 0) >= 2:  # spread the questions over many relation chains
                continue
            seen_chains[key] = seen_chains.get(key, 0) + 1
            rows.append({"id": f"p{hops}-{taken + 1:02d}", "question": question(chain, path),
                         "answers": [path[-1]], "hops": hops, "hop_answers": path[1:], "chain": chain})
            taken += 1
            if taken >= count:
                break
    with open(HERE / "questions.jsonl", "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    write_unanswerable()


# written by hand with the abstention measures: (question, what the graph lacks, kind)
HAND_UNANSWERABLE = [
    ("Who is the mother of Rosalind Varga?", "mother of that person", "missing relation"),
    ("Where was the father of Noemi Brenner born?", "father of that person", "missing hop fact"),
    ("Which company employs the wife of Oswin Kowalczyk?", "employer of that person", "missing hop fact"),
    ("Who is the spouse of the mayor of Tarsk?", "spouse of that person", "missing hop fact"),
    ("Who founded the company where Horatio Quarry works?", "employer of that person", "missing hop fact"),
    ("Where was Tobiah Wrenfield born?", "the person", "entity absent"),
    ("Who is the CEO of Harrowgate Textiles?", "the company", "entity absent"),
    ("What is the capital of Zandoria?", "the country", "entity absent"),
    ("How old is Perpetua Varga?", "age", "relation never used"),
    ("What is the share price of Quillon Press?", "share price", "relation never used"),
    ("Which language is spoken in Lunmark?", "language", "relation never used"),
    ("Which company did Maximin Varga found?", "a company he founded", "false premise"),
    ("Who is the son of Dorian Brenner?", "a child of that person", "false premise"),
    ("Who is the mayor of Kessaria?", "mayor of a country", "false premise"),
    ("Which city is the capital of Ambrel?", "capital of a city", "false premise"),
]


def write_unanswerable() -> None:
    """Questions with a hop the graph lacks: a relation it never states, or one the entity lacks."""
    people = sorted(GENDER)
    unemployed = [p for p in people if (p, EMPLOYER) not in OUT]
    no_father = [p for p in people if (p, FATHER) not in OUT]
    rows = []
    missing = [("favourite colour", "What is the favourite colour of {}?"),
               ("dentist", "Who is {}'s dentist?"),
               ("pet", "What is the name of {}'s pet?"),
               ("shoe size", "What shoe size does {} wear?"),
               ("university", "Which university did {} attend?"),
               ("population", "What is the population of {}?"),
               ("religion", "What religion does {} follow?"),
               ("team", "Which football team does {} support?")]
    for i, (rel, template) in enumerate(missing):
        p = people[(7 * i) % len(people)]
        # the known hops first, then the missing one
        inner = rng.choice([f"{possessive(p)} {rng.choice(nouns(BORN, p))}", f"the wife of {p}",
                            f"{possessive(p)} {rng.choice(nouns(EMPLOYER, p))}"]) if i % 2 else p
        if rel == "population":
            inner = f"the city where {p} was born"
        rows.append({"id": f"u{i + 1:02d}", "question": template.format(inner), "answers": ["(no answer)"],
                     "answerable": False, "missing": rel})
    for j, p in enumerate(unemployed[:6]):
        rows.append({"id": f"u-emp{j + 1}", "question": rng.choice(LAST[EMPLOYER]).format(p),
                     "answers": ["(no answer)"], "answerable": False, "missing": "employer of " + p})
    for j, p in enumerate(no_father[:6]):
        rows.append({"id": f"u-fa{j + 1}", "question": f"Where was {possessive(p)} father born?",
                     "answers": ["(no answer)"], "answerable": False, "missing": "father of " + p})
    for j, (question, missing, kind) in enumerate(HAND_UNANSWERABLE, 1):
        rows.append({"id": f"u-h{j:02d}", "question": question, "answers": [], "answerable": False,
                     "missing": missing, "kind": kind})
    with open(HERE / "unanswerable.jsonl", "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
