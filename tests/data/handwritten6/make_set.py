"""Write the team's sixth hand-written held-out set: a life-sciences graph in TSV with phrase relations.

Run from the repository root: `python tests/data/handwritten6/make_set.py`. It writes, next to itself,
`kg.tsv`, `questions.jsonl` and `unanswerable.jsonl` (questions in the format of tests/data/handwritten/).

Why: the earlier hand-written sets are about people, places, companies and works. A user's own graph is
as often a domain graph: drugs, genes, diseases, tissues, labs. This one is a TSV file whose relations
are lower-case phrases with spaces, said by verbs ("treats", "targets"), passives ("developed by",
"caused by", "discovered by"), prepositional phrases ("expressed in") and nouns ("side effect",
"parent organization", "chief executive officer"), with common-noun entities (liver, insomnia) beside
invented names. Questions ask with other words ("act on", "makes", "runs", "used against"). Written on
2026-11-27 before that session's changes and only measured. Every name and phrasing is invented; none
of it may appear in product code, and nobody tuning the front end should read its per-question failures.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).parent

FACTS = """
Velaprin|treats|Marrow fever
Velaprin|targets|KRX4
Velaprin|developed by|Halden Biologics
Velaprin|approved in|2014
Toxamide|treats|Osterby syndrome
Toxamide|targets|MOLT2
Toxamide|developed by|Quarrow Pharma
Toxamide|side effect|insomnia
Crenolix|treats|Lanning's disease
Crenolix|targets|FENA1
Crenolix|developed by|Halden Biologics
Solvatrex|developed by|Quarrow Pharma
KRX4|discovered by|Ines Valdren
KRX4|expressed in|liver
MOLT2|discovered by|Marek Tollund
MOLT2|expressed in|retina
FENA1|discovered by|Sofia Brandt
FENA1|expressed in|bone marrow
Marrow fever|caused by|Solm virus
Solm virus|discovered by|Henrik Osterby
Osterby syndrome|named after|Henrik Osterby
Lanning's disease|symptom|joint pain
Henrik Osterby|occupation|physician
Henrik Osterby|born in|Aarn
Halden Biologics|headquarters location|Ketterby
Halden Biologics|founded by|Elias Varga
Halden Biologics|chief executive officer|Nadia Korr
Quarrow Pharma|headquarters location|Aarn
Quarrow Pharma|founded by|Marek Tollund
Quarrow Pharma|parent organization|Halden Biologics
Ines Valdren|works at|Ketterby Institute
Ines Valdren|born in|Solm
Marek Tollund|educated at|University of Solm
Marek Tollund|born in|Aarn
Sofia Brandt|works at|University of Solm
Sofia Brandt|doctoral advisor|Ines Valdren
Elias Varga|born in|Ketterby
Nadia Korr|educated at|Ketterby Institute
Ketterby Institute|located in|Ketterby
University of Solm|located in|Solm
Solm|country|Vardonia
Ketterby|country|Vardonia
Aarn|country|Estrel
Vardonia|capital|Solm
Estrel|capital|Aarn
Solm|population|310000
Ketterby|population|54000
"""

# (question, topic, chain): a chain step "^rel" follows the relation backwards (tail to head)
QUESTIONS = [
    ("What does Velaprin treat?", "Velaprin", ["treats"]),
    ("Which gene does Toxamide act on?", "Toxamide", ["targets"]),
    ("Who developed Crenolix?", "Crenolix", ["developed by"]),
    ("Where is KRX4 expressed?", "KRX4", ["expressed in"]),
    ("Who discovered MOLT2?", "MOLT2", ["discovered by"]),
    ("What causes Marrow fever?", "Marrow fever", ["caused by"]),
    ("Who runs Halden Biologics?", "Halden Biologics", ["chief executive officer"]),
    ("Which company owns Quarrow Pharma?", "Quarrow Pharma", ["parent organization"]),
    ("Who was Sofia Brandt's doctoral supervisor?", "Sofia Brandt", ["doctoral advisor"]),
    ("What side effect does Toxamide have?", "Toxamide", ["side effect"]),
    ("Which drug is used against Osterby syndrome?", "Osterby syndrome", ["^treats"]),
    ("Where does Ines Valdren work?", "Ines Valdren", ["works at"]),
    ("Which company developed the drug that treats Lanning's disease?", "Lanning's disease",
     ["^treats", "developed by"]),
    ("Who discovered the gene targeted by Velaprin?", "Velaprin", ["targets", "discovered by"]),
    ("In which tissue is the target of Crenolix expressed?", "Crenolix", ["targets", "expressed in"]),
    ("Where is the company that makes Toxamide headquartered?", "Toxamide", ["developed by", "headquarters location"]),
    ("Who founded the developer of Velaprin?", "Velaprin", ["developed by", "founded by"]),
    ("Where was the discoverer of MOLT2 born?", "MOLT2", ["discovered by", "born in"]),
    ("Which university did the founder of Quarrow Pharma attend?", "Quarrow Pharma", ["founded by", "educated at"]),
    ("In which city is the institute where Nadia Korr studied?", "Nadia Korr", ["educated at", "located in"]),
    ("Who is the chief executive of the parent company of Quarrow Pharma?", "Quarrow Pharma",
     ["parent organization", "chief executive officer"]),
    ("What disease is treated by the drug that targets FENA1?", "FENA1", ["^targets", "treats"]),
    ("Who discovered the virus that causes Marrow fever?", "Marrow fever", ["caused by", "discovered by"]),
    ("What country was Elias Varga born in?", "Elias Varga", ["born in", "country"]),
    ("Who supervised the doctorate of the person who discovered FENA1?", "FENA1", ["discovered by", "doctoral advisor"]),
    ("What is the capital of the country Elias Varga was born in?", "Elias Varga", ["born in", "country", "capital"]),
    ("In which country is the headquarters of the company that developed Velaprin?", "Velaprin",
     ["developed by", "headquarters location", "country"]),
    ("Where was the founder of the company that makes Toxamide born?", "Toxamide",
     ["developed by", "founded by", "born in"]),
    ("Which organ expresses the gene targeted by the drug for Marrow fever?", "Marrow fever",
     ["^treats", "targets", "expressed in"]),
    ("Where does the discoverer of the target of Velaprin work?", "Velaprin", ["targets", "discovered by", "works at"]),
    ("How many people live in the city where the founder of Halden Biologics was born?", "Halden Biologics",
     ["founded by", "born in", "population"]),
    ("Who was the doctoral advisor of the scientist who discovered the target of Crenolix?", "Crenolix",
     ["targets", "discovered by", "doctoral advisor"]),
    ("In which city is the university that educated the founder of Quarrow Pharma?", "Quarrow Pharma",
     ["founded by", "educated at", "located in"]),
    ("what was the job of the man the disease treated by Toxamide is named after", "Toxamide",
     ["treats", "named after", "occupation"]),
    ("Which country is the company that developed the drug targeting KRX4 based in?", "KRX4",
     ["^targets", "developed by", "headquarters location", "country"]),
]

# (question, what the graph lacks)
UNANSWERABLE = [
    ("What does Solvatrex treat?", "treats of that drug"),
    ("Who discovered Velaprin?", "discoverer of that drug"),
    ("Where does the discoverer of MOLT2 work?", "employer of that person"),
    ("Which gene does Solvatrex target?", "target of that drug"),
    ("Who is the chief executive of Quarrow Pharma?", "chief executive of that company"),
    ("When was Toxamide approved?", "approval year of that drug"),
    ("What is the population of Aarn?", "population of that city"),
    ("Where was Nadia Korr born?", "birthplace of that person"),
    ("What side effect does Velaprin have?", "side effect of that drug"),
    ("Who founded the Ketterby Institute?", "founder of that institute"),
]


def _first_set():
    spec = importlib.util.spec_from_file_location("handwritten_make_set", HERE.parent / "handwritten" / "make_set.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    first = _first_set()
    facts = first._facts(FACTS)
    with open(HERE / "kg.tsv", "w", encoding="utf-8") as out:
        out.write("".join(f"{h}\t{r}\t{t}\n" for h, r, t in facts))
    first.write_questions(HERE, facts, QUESTIONS, UNANSWERABLE)
