"""Build this folder's kg.tsv, questions.jsonl and unanswerable.jsonl from public country data.

Sources (downloaded from PyPI, not vendored; see README.md here):
- countryinfo 1.0.1 (MIT): one JSON file per country: capital, currencies, languages, borders, region,
  subregion, area, population, demonym, provinces.
- pycountry 26.2.16 (LGPL-2.1; the data are Debian's iso-codes): the names of ISO 4217 currencies and
  ISO 639 languages, which countryinfo gives as codes.

    python tests/data/real_countries/make.py /path/to/countryinfo-unpacked /path/to/pycountry-unpacked

The questions are written by hand below (their wording is ours); their gold answers are read off the
facts by following the question's path, so an answer is never typed by hand.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# provinces are kept for one region only, to keep the graph at a few thousand facts
PROVINCE_REGION = "Europe"


def load(countryinfo: Path, pycountry: Path) -> list[tuple[str, str, str]]:
    currencies = {c["alpha_3"]: c["name"] for c in json.loads(
        (pycountry / "pycountry/databases/iso4217.json").read_text())["4217"]}
    languages = {}
    for lang in json.loads((pycountry / "pycountry/databases/iso639-3.json").read_text())["639-3"]:
        if "alpha_2" in lang:
            languages[lang["alpha_2"]] = lang["name"]
    countries = [json.loads(p.read_text()) for p in sorted((countryinfo / "countryinfo/data").glob("*.json"))]
    by_code = {c["ISO"]["alpha3"]: c["name"] for c in countries if c.get("ISO", {}).get("alpha3")}
    facts: list[tuple[str, str, str]] = []
    for c in countries:
        name = c["name"]
        capitals = c.get("capital") or []
        for capital in capitals if isinstance(capitals, list) else [capitals]:
            facts.append((name, "capital", capital))
        for code in c.get("currencies") or []:
            if code in currencies:
                facts.append((name, "currency", currencies[code]))
        for code in c.get("languages") or []:
            if code in languages:
                facts.append((name, "official language", languages[code]))
        for code in c.get("borders") or []:
            if code in by_code:
                facts.append((name, "shares a border with", by_code[code]))
        if c.get("region"):
            facts.append((name, "region", c["region"]))
        if c.get("subregion"):
            facts.append((name, "subregion", c["subregion"]))
        if c.get("area"):
            facts.append((name, "area in square kilometres", str(c["area"])))
        if c.get("population"):
            facts.append((name, "population", str(c["population"])))
        if c.get("demonym"):
            facts.append((name, "demonym", c["demonym"]))
        if c.get("region") == PROVINCE_REGION:
            for province in c.get("provinces") or []:
                facts.append((name, "has province", province))
    return sorted({(h, r, str(t)) for h, r, t in facts if isinstance(t, (str, int, float)) and str(t).strip()})


# (question, start, path): the path is a list of relations, each followed forwards, or backwards when
# written "<relation"; the gold answers are every entity the path reaches
QUESTIONS = [
    ("What is the capital of Peru?", "Peru", ["capital"]),
    ("Which currency is used in Japan?", "Japan", ["currency"]),
    ("What language is official in Brazil?", "Brazil", ["official language"]),
    ("To which subregion does Kenya belong?", "Kenya", ["subregion"]),
    ("What are people from Chile called?", "Chile", ["demonym"]),
    ("How many people live in Iceland?", "Iceland", ["population"]),
    ("How large is Malta in square kilometres?", "Malta", ["area in square kilometres"]),
    ("Which country has Canberra as its capital?", "Canberra", ["<capital"]),
    ("Which countries does Bolivia border?", "Bolivia", ["shares a border with"]),
    ("In which country is the province of Drenthe?", "Drenthe", ["<has province"]),
    ("What is the capital of Luxembourg?", "Luxembourg", ["capital"]),
    ("Which region is Mongolia part of?", "Mongolia", ["region"]),
    ("What currency does Switzerland use?", "Switzerland", ["currency"]),
    ("Hanoi is the capital of which country?", "Hanoi", ["<capital"]),
    ("What currency is used in the country whose capital is Lima?", "Lima", ["<capital", "currency"]),
    ("What is the capital of a country that borders Luxembourg?", "Luxembourg",
     ["shares a border with", "capital"]),
    ("In which subregion lies the country whose capital is Nairobi?", "Nairobi", ["<capital", "subregion"]),
    ("What language is official in the country whose capital is Montevideo?", "Montevideo",
     ["<capital", "official language"]),
    ("What is the population of the country whose capital is Reykjavik?", "Reykjavik", ["<capital", "population"]),
    ("What is the capital of the country that has the province Drenthe?", "Drenthe", ["<has province", "capital"]),
    ("Which currency is used in the country with the province Steiermark?", "Steiermark",
     ["<has province", "currency"]),
    ("What are the people of the country whose capital is Ottawa called?", "Ottawa", ["<capital", "demonym"]),
    ("In which region is the country with the capital Bamako?", "Bamako", ["<capital", "region"]),
    ("How large in square kilometres is the country whose capital is Valletta?", "Valletta",
     ["<capital", "area in square kilometres"]),
    ("Which languages are official in the country whose capital is Bern?", "Bern", ["<capital", "official language"]),
    ("Which countries border the country whose capital is Tallinn?", "Tallinn", ["<capital", "shares a border with"]),
    ("What currency does the country with Kathmandu as its capital use?", "Kathmandu", ["<capital", "currency"]),
    ("Which subregion is the country with the capital Canberra in?", "Canberra", ["<capital", "subregion"]),
    ("What is the capital of a neighbour of Nepal?", "Nepal", ["shares a border with", "capital"]),
    ("Which currency is used by a country bordering Uruguay?", "Uruguay", ["shares a border with", "currency"]),
    ("What currency is used in a country bordering the country whose capital is Vaduz?", "Vaduz",
     ["<capital", "shares a border with", "currency"]),
    ("What is the capital of a country bordering the country that has the province Drenthe?", "Drenthe",
     ["<has province", "shares a border with", "capital"]),
    ("Which language is official in a country bordering the country whose capital is Andorra la Vella?",
     "Andorra la Vella", ["<capital", "shares a border with", "official language"]),
    ("In which subregion is a country bordering the country whose capital is Kigali?", "Kigali",
     ["<capital", "shares a border with", "subregion"]),
    ("What currency is used in a country that borders a neighbour of Portugal?", "Portugal",
     ["shares a border with", "shares a border with", "currency"]),
    ("What are the people of a country bordering the country whose capital is Tallinn called?", "Tallinn",
     ["<capital", "shares a border with", "demonym"]),
    ("Which region is a country bordering the country with the province Overijssel in?", "Overijssel",
     ["<has province", "shares a border with", "region"]),
    ("What is the capital of the country whose people are called Peruvian?", "Peruvian", ["<demonym", "capital"]),
    ("Which currency does the country whose people are called Icelanders use?", "Icelander",
     ["<demonym", "currency"]),
    ("Which languages are official in the country whose capital is Vaduz?", "Vaduz",
     ["<capital", "official language"]),
    ("What is the capital of the country whose currency is the Nepalese Rupee?", "Nepalese Rupee",
     ["<currency", "capital"]),
]

# the graph cannot answer these: a relation it never uses, a property an entity lacks, an entity it does
# not hold, a hop with no fact, a false premise
UNANSWERABLE = [
    ("Who is the head of state of Peru?", "relation never used"),
    ("What is the highest mountain in Nepal?", "relation never used"),
    ("Which river flows through the capital of Austria?", "relation never used"),
    ("When did Estonia become independent?", "relation never used"),
    ("What is the population of Lima?", "property the entity lacks"),
    ("What currency is used in Drenthe?", "property the entity lacks"),
    ("What is the capital of Atlantis?", "entity absent"),
    ("Which currency does the Republic of Zubrowka use?", "entity absent"),
    ("What is the area of the province Drenthe?", "missing hop fact"),
    ("What is the capital of the province that contains Amsterdam?", "missing hop fact"),
    ("Which countries border Iceland?", "no fact of the relation for this entity"),
    ("What is the capital of the country whose capital is Zurich?", "false premise"),
]


def answers(facts, start: str, path: list[str]) -> list[str]:
    at = {start}
    for step in path:
        backwards = step.startswith("<")
        rel = step.lstrip("<")
        at = {h if backwards else t for h, r, t in facts if r == rel and (t if backwards else h) in at}
    return sorted(at)


def main(countryinfo: str, pycountry: str) -> None:
    facts = load(Path(countryinfo), Path(pycountry))
    with open(HERE / "kg.tsv", "w", encoding="utf-8") as out:
        out.write("head\trelation\ttail\n")
        for h, r, t in facts:
            out.write(f"{h}\t{r}\t{t}\n")
    with open(HERE / "questions.jsonl", "w", encoding="utf-8") as out:
        for i, (question, start, path) in enumerate(QUESTIONS, 1):
            gold = answers(facts, start, path)
            if not gold:
                raise SystemExit(f"question {i} reaches nothing: {question}")
            out.write(json.dumps({"id": f"rc{i}", "question": question, "answers": gold, "hops": len(path)}) + "\n")
    with open(HERE / "unanswerable.jsonl", "w", encoding="utf-8") as out:
        for i, (question, kind) in enumerate(UNANSWERABLE, 1):
            out.write(json.dumps({"id": f"ru{i}", "question": question, "answerable": False, "answers": [],
                                  "kind": kind}) + "\n")
    print(f"{len(facts)} facts, {len(QUESTIONS)} questions, {len(UNANSWERABLE)} unanswerable")


if __name__ == "__main__":
    main(*sys.argv[1:3])
