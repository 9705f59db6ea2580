"""Write the team's own PathQuestion-shaped set: an invented KG and 2- and 3-hop questions in PQ's text form.

Run from the repository root: `python tests/data/pathq_own/make_set.py`. It writes, next to itself,
`kb.txt` (head<TAB>relation<TAB>tail, lowercase names joined by underscores, as such KBs ship),
`PQ-2H.txt` and `PQ-3H.txt` (question<TAB>answer(alternatives/)<TAB>path, read by
`kgtool eval qa --format pathquestion`).

Why a third set: the paraphrase sets are written in full sentences with capitalised names. A
PathQuestion-style file is lowercase and tokenised ("x 's wife 's faith ?"), names carry "of",
hyphens and digits inside one underscored token, many questions have no question word, relations
are many-valued (two parents, several children) and the gendered word need not fit the entity
("dad" for a mother). This set checks the front end on that shape. Every name and phrasing here is
invented for this file; none of it may appear in product code, and nobody should tune to its
per-question failures (run it to measure).
"""
from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).parent
rng = random.Random(4242)

GIVEN_M = ["aldous", "bertram", "cosimo", "dietrich", "evander", "florian", "gideon", "hadrian", "ignatius",
           "jasper", "konrad", "leopold", "mattias", "niklas", "oswin", "percival", "quentin", "rupert"]
GIVEN_F = ["adela", "beatrix", "clementine", "dorothea", "eleonora", "felicity", "griselda", "honoria", "isolde",
           "juliana", "katarina", "ludmila", "marguerite", "nadia", "ottilie", "philippa", "rosalind", "sabine"]
HOUSES = ["of_vastmoor", "of_kell-aubrey", "von_harrowitz", "de_montclaire", "of_east_brindle", "ostrova"]
STYLES = ["", "", "", "_ii", "_iii", "_the_younger", "_1888", "_count_of_lisk"]
COUNTRIES = ["kingdom_of_valmere", "ostrelia", "republic_of_dunhaven", "carathia", "free_state_of_orle"]
CITIES = ["port_sallow", "new_brecken", "aldermoor", "st_ives_of_the_marsh", "velstadt", "cray-on-wick",
          "lindenhall", "marrowgate"]
RELIGIONS = ["quietism", "old_covenant_church", "lantern_faith", "sunward_rite"]
PROFESSIONS = ["cartographer", "shipwright", "diplomat", "glassblower", "astronomer", "magistrate",
               "composer", "apothecary"]
CAUSES = ["consumption", "shipwreck", "duel", "heart_failure", "fever", "old_age"]
SCHOOLS = ["velstadt_academy", "royal_college_of_aldermoor", "marrowgate_seminary", "lindenhall_university"]
ETHNIC = ["valmerese_people", "orlish", "carathian_highlanders"]

# relation names as such a KB states them (snake case)
SPOUSE, CHILDREN, PARENTS = "spouse", "children", "parents"
NATIONALITY, GENDER, RELIGION, PROFESSION = "nationality", "gender", "religion", "profession"
BIRTH, DEATH, CAUSE, SCHOOL, HOME, ETHNICITY = ("place_of_birth", "place_of_death", "cause_of_death",
                                                "institution", "location", "ethnicity")

# the words a question may use for each relation: a noun (for "the X of ..." and "'s X")
NOUNS = {
    SPOUSE: ["spouse", "husband", "wife", "partner", "consort", "mate", "better half"],
    CHILDREN: ["child", "son", "daughter", "kid", "offspring", "progeny"],
    PARENTS: ["parent", "father", "mother", "dad", "mum", "mom"],
    NATIONALITY: ["nationality", "nation", "country", "citizenship"],
    GENDER: ["gender", "sex"],
    RELIGION: ["religion", "faith", "creed"],
    PROFESSION: ["profession", "occupation", "job", "trade", "line of work"],
    BIRTH: ["place of birth", "birthplace", "city of birth"],
    DEATH: ["place of death", "deathplace"],
    CAUSE: ["cause of death"],
    SCHOOL: ["institution", "alma mater", "school", "college"],
    HOME: ["location", "residence", "home", "address"],
    ETHNICITY: ["ethnicity", "ethnic group", "ancestry"],
}
# whole-question frames naming the last relation by a verb or a question form ({p} = the topic phrase)
FRAMES = {
    NATIONALITY: ["which country is {p} a citizen of ?", "what country does {p} come from ?"],
    GENDER: ["is {p} a man or a woman ?", "what sex is {p} ?"],
    RELIGION: ["what faith does {p} follow ?", "which religion does {p} practise ?"],
    PROFESSION: ["what does {p} do for a living ?", "what is {p} 's line of work ?"],
    BIRTH: ["where was {p} born ?", "in which city was {p} born ?"],
    DEATH: ["where did {p} die ?"],
    CAUSE: ["what killed {p} ?", "how did {p} die ?"],
    SCHOOL: ["where did {p} study ?", "which school did {p} attend ?"],
    HOME: ["where does {p} live ?", "where is {p} 's home ?"],
    SPOUSE: ["who is {p} married to ?", "who did {p} marry ?"],
    CHILDREN: ["who is the child of {p} ?"],
    PARENTS: ["who is the parent of {p} ?"],
}
PERSON_VALUED = {SPOUSE, CHILDREN, PARENTS}
ATTRIBUTES = [NATIONALITY, GENDER, RELIGION, PROFESSION, BIRTH, DEATH, CAUSE, SCHOOL, HOME, ETHNICITY]


def build_graph():
    facts: set[tuple[str, str, str]] = set()
    used: set[str] = set()

    def person(female: bool) -> str:
        while True:
            name = rng.choice(GIVEN_F if female else GIVEN_M) + "_" + rng.choice(HOUSES) + rng.choice(STYLES)
            if name not in used:
                used.add(name)
                return name

    females: set[str] = set()
    generations = [[]]
    for _ in range(6):  # founding couples
        m, f = person(False), person(True)
        females.add(f)
        facts |= {(m, SPOUSE, f), (f, SPOUSE, m)}
        generations[0].append((m, f))
    for depth in range(2):  # two generations of children, each marrying someone from outside
        nxt = []
        for m, f in generations[depth]:
            for _ in range(rng.randint(1, 3)):
                female = rng.random() < 0.5
                child = person(female)
                if female:
                    females.add(child)
                for parent in (m, f):
                    facts |= {(parent, CHILDREN, child), (child, PARENTS, parent)}
                if depth == 0 or rng.random() < 0.6:
                    other = person(not female)
                    if not female:
                        females.add(other)
                    facts |= {(child, SPOUSE, other), (other, SPOUSE, child)}
                    nxt.append((child, other) if not female else (other, child))
        generations.append(nxt)
    people = sorted(used)
    for p in people:
        facts.add((p, GENDER, "female" if p in females else "male"))
        for relation, values in ((NATIONALITY, COUNTRIES), (RELIGION, RELIGIONS), (PROFESSION, PROFESSIONS),
                                 (BIRTH, CITIES), (HOME, CITIES), (SCHOOL, SCHOOLS), (ETHNICITY, ETHNIC)):
            if rng.random() < 0.85:
                facts.add((p, relation, rng.choice(values)))
        if rng.random() < 0.5:
            facts |= {(p, DEATH, rng.choice(CITIES)), (p, CAUSE, rng.choice(CAUSES))}
    return sorted(facts), people


def index(facts):
    out = defaultdict(lambda: defaultdict(list))
    for h, r, t in facts:
        out[h][r].append(t)
    return out


def spoken(name: str) -> str:
    return name  # PQ questions keep the KB's underscored token


def phrase_chain(topic: str, nouns: list[str]) -> list[str]:
    """Ways to name topic's n1's n2 ... (the last noun outermost)."""
    t = spoken(topic)
    poss = t + "".join(f" 's {n}" for n in nouns)
    of = " of ".join(["the " + nouns[-1]] + [f"the {n}" for n in reversed(nouns[:-1])] + [t])
    bare_of = " of ".join([nouns[-1]] + list(reversed(nouns[:-1])) + [t])
    mixed = f"the {nouns[-1]} of {t}" + "".join(f" 's {n}" for n in nouns[:-1]) if len(nouns) > 1 else poss
    return [poss, of, bare_of, mixed]


def questions(facts, hops: int, count: int):
    kb = index(facts)
    people = sorted({h for h, r, _ in facts if r == GENDER})
    lines, seen = [], set()
    tries = 0
    while len(lines) < count and tries < 50_000:
        tries += 1
        topic = rng.choice(people)
        chain = [rng.choice([SPOUSE, CHILDREN, PARENTS]) for _ in range(hops - 1)]
        chain.append(rng.choice(ATTRIBUTES + [SPOUSE, CHILDREN, PARENTS]))
        paths = [[topic]]
        for relation in chain:
            paths = [p + [relation, t] for p in paths for t in kb[p[-1]].get(relation, [])]
        if not paths:
            continue
        answers = sorted({p[-1] for p in paths})
        if len(answers) > 3 or (topic, tuple(chain)) in seen:
            continue
        seen.add((topic, tuple(chain)))
        nouns = [rng.choice(NOUNS[r]) for r in chain]
        last = chain[-1]
        forms = phrase_chain(topic, nouns)
        pick = rng.random()
        if last in FRAMES and pick < 0.35:
            inner = phrase_chain(topic, nouns[:-1])
            frame = rng.choice(FRAMES[last])
            # "{p} 's X" takes only a possessive topic phrase: "the mate of the mum of t 's job" reads two ways
            text = frame.format(p=inner[0] if "{p} 's" in frame else rng.choice([inner[0], inner[1], inner[3]]))
        else:
            form = rng.choice(forms)
            start = rng.choice(["what is the ", "what is ", "", "who is the " if last in PERSON_VALUED else
                                "what is the "])
            if form.startswith("the ") and start.endswith("the "):
                form = form[4:]
            text = f"{start}{form} ?"
        path = paths[0]
        alts = "/".join(answers) + "/"
        lines.append(f"{text}\t{path[-1]}({alts})\t{'#'.join(path)}#<end>#{path[-1]}")
    return lines


def main() -> None:
    facts, _ = build_graph()
    (HERE / "kb.txt").write_text("".join(f"{h}\t{r}\t{t}\n" for h, r, t in facts), encoding="utf-8")
    for hops in (2, 3):
        (HERE / f"PQ-{hops}H.txt").write_text("\n".join(questions(facts, hops, 150)) + "\n", encoding="utf-8")
    print(f"{len(facts)} facts; PQ-2H.txt and PQ-3H.txt, 150 questions each")


if __name__ == "__main__":
    main()
