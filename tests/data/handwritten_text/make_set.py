"""Write the team's hand-written text set: an invented encyclopedia and questions over it.

Run from the repository root: `python tests/data/handwritten_text/make_set.py`. It writes, next to
itself, `corpus.json` (HotpotQA's corpus shape, {title: [sentences]}) and `questions.json` (HotpotQA's
question shape: _id, question, answer, supporting_facts [[title, sentence index]], type).

Why: every text figure so far came from the MuSiQue and HotpotQA dev files in ../shared, whose
wording the team has read for weeks. This set was written on 2026-11-27, before that session's text
changes, and is only measured: bridge questions of two and three passages (some need a page found
from the other side: the ensemble's page does not name its bassist, the founder's page does),
comparisons of dates and nationalities, and yes/no questions. Every name, place and sentence is
invented; none of it may appear in product code, and nobody tuning the reader should read its
per-question failures.

  kgtool ingest docs tests/data/handwritten_text/corpus.json --format hotpotqa
  kgtool eval qa tests/data/handwritten_text/questions.json --format hotpotqa --agents offline --method c2rag,reagent,bm25-reader
  kgtool eval retrieval tests/data/handwritten_text/questions.json --format hotpotqa -k 2,5
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent

CORPUS = {
    "Marguerite Olendry": [
        "Marguerite Olendry (born 4 May 1952) is a Caldorian novelist and essayist.",
        "She grew up in Fennick, a mill town on the River Sallow.",
        "Her best-known novel, The Glass Orchard, appeared in 1987.",
        "She taught comparative literature at the University of Tessaly until 2010."],
    "The Glass Orchard": [
        "The Glass Orchard is a 1987 novel by Marguerite Olendry.",
        "Set in a coastal village, it follows three sisters who inherit a failing cider farm.",
        "It won the Harrow Medal in 1988 and was adapted for the stage by Teodor Vance in 1995."],
    "Fennick": [
        "Fennick is a town in the Lower Vale district of Caldoria.",
        "It lies on the River Sallow, about 30 km upstream from Port Aster.",
        "The town grew around its woollen mills in the eighteenth century."],
    "River Sallow": [
        "The River Sallow is a river in southern Caldoria.",
        "It rises in the Greywater Hills and flows into the Brine Sound at Port Aster.",
        "Its total length is 112 kilometres."],
    "Harrow Medal": [
        "The Harrow Medal is a literary award presented every year by the Caldorian Society of Letters.",
        "It was established in 1931 in memory of the poet Edwin Harrow.",
        "The medal is awarded for a novel published in the preceding year."],
    "Edwin Harrow": [
        "Edwin Harrow (1870-1929) was a Caldorian poet.",
        "He was born in Port Aster and spent most of his life in the capital, Velm.",
        "His collection Salt Hours is still taught in schools."],
    "Teodor Vance": [
        "Teodor Vance (born 1949) is a theatre director from Serevan.",
        "He was artistic director of the Dunmore Playhouse from 1988 to 2004.",
        "Vance trained at the Academy of Dramatic Craft in Velm."],
    "Dunmore Playhouse": [
        "The Dunmore Playhouse is a theatre in Dunmore, the largest city of Serevan.",
        "It opened in 1902 and seats 640 people."],
    "University of Tessaly": [
        "The University of Tessaly is a public research university in Tessaly, Caldoria.",
        "It was founded in 1846 as a school of medicine.",
        "Its library holds the papers of several Caldorian writers."],
    "Tessaly": [
        "Tessaly is the second-largest city of Caldoria.",
        "It is the seat of the Upper Vale district.",
        "The city's mayor since 2019 has been Ansel Moravec."],
    "Port Aster": [
        "Port Aster is a harbour city at the mouth of the River Sallow.",
        "Its shipyards built most of Caldoria's merchant fleet in the nineteenth century."],
    "Velm": [
        "Velm is the capital and largest city of Caldoria.",
        "It stands on the north bank of the River Orm."],
    "Caldoria": [
        "Caldoria is a country on the Brine Sound.",
        "Its currency is the Caldorian mark and its official language is Caldorese.",
        "Velm is its capital."],
    "Serevan": [
        "Serevan is a landlocked country bordering Caldoria to the east.",
        "Its capital is Dunmore."],
    "Tamsin Orr": [
        "Tamsin Orr (born 19 August 1978) is a Serevani jazz pianist and composer.",
        "She was born in Dunmore and studied at the Tessaly Conservatory.",
        "In 2003 she founded the Low Tide Quartet with the bassist Jonah Peel."],
    "Low Tide Quartet": [
        "The Low Tide Quartet is a jazz ensemble formed in 2003.",
        "Its debut album, Night Ferries, was released by Marrow Records in 2005."],
    "Night Ferries": [
        "Night Ferries is the debut album of the Low Tide Quartet.",
        "It was recorded in Port Aster over four days in 2004.",
        "The album was produced by Lise Amundsen."],
    "Marrow Records": [
        "Marrow Records is an independent record label founded in 1991 by Caspar Hale.",
        "It is based in Tessaly."],
    "Jonah Peel": [
        "Jonah Peel (born 1975) is a Caldorian double bassist.",
        "Before joining the Low Tide Quartet he played with the Velm Radio Orchestra."],
    "Tessaly Conservatory": [
        "The Tessaly Conservatory is a music school in Tessaly, Caldoria, founded in 1889.",
        "Its first director was the organist Helene Brask."],
    "Lise Amundsen": [
        "Lise Amundsen is a record producer and sound engineer.",
        "She was born in 1966 in Fennick."],
    "Caspar Hale": [
        "Caspar Hale (1958-2017) was a Caldorian music executive.",
        "After leaving Marrow Records in 2009 he managed the singer Rowan Pike."],
    "The Long Harbour": [
        "The Long Harbour is a 2011 Caldorian drama film directed by Nadia Verhoek.",
        "It stars Rowan Pike as a shipyard welder in Port Aster.",
        "The score was composed by Tamsin Orr."],
    "Nadia Verhoek": [
        "Nadia Verhoek (born 1970) is a Caldorian film director and screenwriter.",
        "She was born in Velm.",
        "Her first feature, Paper Kites, premiered in 1999."],
    "Rowan Pike": [
        "Rowan Pike (born 2 February 1981) is a Caldorian singer and actor.",
        "Pike was born in Tessaly.",
        "His 2008 album Wire and Cloud reached number one in Caldoria."],
    "Paper Kites": [
        "Paper Kites is a 1999 film written and directed by Nadia Verhoek.",
        "It was shot in Fennick."],
    "Berthold Amsel": [
        "Berthold Amsel (1881-1954) was a Caldorian chemist.",
        "He discovered the mineral amselite in 1912 in the Greywater Hills.",
        "Amsel was a professor at the University of Tessaly from 1920 until his death."],
    "Amselite": [
        "Amselite is a rare copper mineral.",
        "It was named after Berthold Amsel, the chemist who first described it."],
    "Greywater Hills": [
        "The Greywater Hills are a range of low mountains in southern Caldoria.",
        "Their highest point is Mount Corrie, at 1,204 metres."],
    "Ansel Moravec": [
        "Ansel Moravec (born 1964) is a Caldorian politician.",
        "He has been mayor of Tessaly since 2019.",
        "Moravec was previously a history teacher in Fennick."],
    "Sallow Bridge": [
        "Sallow Bridge is a stone bridge across the River Sallow in Fennick.",
        "It was completed in 1764."],
    "Brine Sound": [
        "The Brine Sound is an inlet of the sea between Caldoria and the island of Kerrow."],
    "Helene Brask": [
        "Helene Brask (1851-1920) was an organist and teacher.",
        "She was the first director of the Tessaly Conservatory."],
    "Mount Corrie": [
        "Mount Corrie is the highest peak of the Greywater Hills.",
        "It was first climbed in 1858."],
    "Velm Radio Orchestra": [
        "The Velm Radio Orchestra is a symphony orchestra founded in 1936.",
        "Its principal conductor since 2015 has been Ilya Strand."],
}

# (question, answer, type, [(title, sentence index), ...])
QUESTIONS = [
    ("On which river does the hometown of the author of The Glass Orchard lie?", "River Sallow", "bridge",
     [("The Glass Orchard", 0), ("Marguerite Olendry", 1)]),
    ("Which theatre did the director of the stage version of The Glass Orchard lead?", "Dunmore Playhouse",
     "bridge", [("The Glass Orchard", 2), ("Teodor Vance", 1)]),
    ("In which city is the theatre Teodor Vance directed?", "Dunmore", "bridge",
     [("Teodor Vance", 1), ("Dunmore Playhouse", 0)]),
    ("Who founded the record label that released Night Ferries?", "Caspar Hale", "bridge",
     [("Low Tide Quartet", 1), ("Marrow Records", 0)]),
    ("Where was the producer of Night Ferries born?", "Fennick", "bridge",
     [("Night Ferries", 2), ("Lise Amundsen", 1)]),
    ("Which school did the composer of The Long Harbour's score attend?", "Tessaly Conservatory", "bridge",
     [("The Long Harbour", 2), ("Tamsin Orr", 1)]),
    ("Who was the first director of the conservatory where Tamsin Orr studied?", "Helene Brask", "bridge",
     [("Tamsin Orr", 1), ("Tessaly Conservatory", 1)]),
    ("In what year was the university where Marguerite Olendry taught founded?", "1846", "bridge",
     [("Marguerite Olendry", 3), ("University of Tessaly", 1)]),
    ("Who is the mayor of the city where Rowan Pike was born?", "Ansel Moravec", "bridge",
     [("Rowan Pike", 1), ("Tessaly", 2)]),
    ("Where was the star of The Long Harbour born?", "Tessaly", "bridge",
     [("The Long Harbour", 1), ("Rowan Pike", 1)]),
    ("Which city was the director of Paper Kites born in?", "Velm", "bridge",
     [("Paper Kites", 0), ("Nadia Verhoek", 1)]),
    ("What is the highest point of the range where amselite was discovered?", "Mount Corrie", "bridge",
     [("Amselite", 1), ("Berthold Amsel", 1), ("Greywater Hills", 1)]),
    ("In which city was the poet commemorated by the Harrow Medal born?", "Port Aster", "bridge",
     [("Harrow Medal", 1), ("Edwin Harrow", 1)]),
    ("Into which body of water does the river that flows through Fennick empty?", "Brine Sound", "bridge",
     [("Fennick", 1), ("River Sallow", 1)]),
    ("Which bassist co-founded the ensemble that recorded Night Ferries?", "Jonah Peel", "bridge",
     [("Night Ferries", 0), ("Tamsin Orr", 2)]),
    ("Which orchestra did the bassist of the Low Tide Quartet play with before joining it?",
     "Velm Radio Orchestra", "bridge", [("Tamsin Orr", 2), ("Jonah Peel", 1)]),
    ("Who conducts the orchestra Jonah Peel played with?", "Ilya Strand", "bridge",
     [("Jonah Peel", 1), ("Velm Radio Orchestra", 1)]),
    ("Which singer did the founder of Marrow Records manage?", "Rowan Pike", "bridge",
     [("Marrow Records", 0), ("Caspar Hale", 1)]),
    ("What is the capital of the country Teodor Vance comes from?", "Dunmore", "bridge",
     [("Teodor Vance", 0), ("Serevan", 1)]),
    ("What currency is used in the country where The Long Harbour was made?", "Caldorian mark", "bridge",
     [("The Long Harbour", 0), ("Caldoria", 1)]),
    ("In which city did the man who staged The Glass Orchard train?", "Velm", "bridge",
     [("The Glass Orchard", 2), ("Teodor Vance", 2)]),
    ("When was the bridge in Lise Amundsen's hometown completed?", "1764", "bridge",
     [("Lise Amundsen", 1), ("Sallow Bridge", 0), ("Sallow Bridge", 1)]),
    ("What was the job of the mayor of Tessaly before politics?", "history teacher", "bridge",
     [("Tessaly", 2), ("Ansel Moravec", 2)]),
    ("Who was born first, Marguerite Olendry or Teodor Vance?", "Teodor Vance", "comparison",
     [("Marguerite Olendry", 0), ("Teodor Vance", 0)]),
    ("Which was founded earlier, the Tessaly Conservatory or the University of Tessaly?",
     "University of Tessaly", "comparison", [("Tessaly Conservatory", 0), ("University of Tessaly", 1)]),
    ("Are Nadia Verhoek and Rowan Pike both Caldorian?", "yes", "comparison",
     [("Nadia Verhoek", 0), ("Rowan Pike", 0)]),
    ("Are Tamsin Orr and Jonah Peel from the same country?", "no", "comparison",
     [("Tamsin Orr", 0), ("Jonah Peel", 0)]),
    ("Which opened first, the Dunmore Playhouse or Marrow Records?", "Dunmore Playhouse", "comparison",
     [("Dunmore Playhouse", 1), ("Marrow Records", 0)]),
    ("Who is older, Lise Amundsen or Caspar Hale?", "Caspar Hale", "comparison",
     [("Lise Amundsen", 1), ("Caspar Hale", 0)]),
    ("Were Edwin Harrow and Berthold Amsel both poets?", "no", "comparison",
     [("Edwin Harrow", 0), ("Berthold Amsel", 0)]),
    ("Which film came out first, Paper Kites or The Long Harbour?", "Paper Kites", "comparison",
     [("Paper Kites", 0), ("The Long Harbour", 0)]),
    ("Is Night Ferries an album or a film?", "album", "comparison", [("Night Ferries", 0)]),
]


def _check(corpus: dict, questions: list) -> None:
    """Every supporting sentence exists and the answer is written in one of them or, for a comparison,
    in the question (yes/no aside)."""
    for question, answer, _, facts in questions:
        for title, index in facts:
            if title not in corpus or index >= len(corpus[title]):
                raise SystemExit(f"{question}: no sentence {index} in {title!r}")
        said = [corpus[t][i] for t, i in facts] + [question]
        if answer not in ("yes", "no") and not any(answer in text for text in said):
            raise SystemExit(f"{question}: answer {answer!r} is in no supporting sentence")


def write_set(here: Path = HERE) -> None:
    _check(CORPUS, QUESTIONS)
    corpus = {title: [s if i == 0 else " " + s for i, s in enumerate(sentences)]
              for title, sentences in CORPUS.items()}
    (here / "corpus.json").write_text(json.dumps(corpus, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    records = [{"_id": f"t{i:02d}", "question": q, "answer": a, "type": kind,
                "supporting_facts": [[t, n] for t, n in facts]}
               for i, (q, a, kind, facts) in enumerate(QUESTIONS, 1)]
    (here / "questions.json").write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_set()
