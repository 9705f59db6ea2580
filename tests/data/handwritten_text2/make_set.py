"""Write the team's second hand-written text set: invented prose paragraphs and composed questions.

Run from the repository root: `python tests/data/handwritten_text2/make_set.py`. It writes, next to
itself, `corpus.json` (MuSiQue's corpus shape, a list of {title, text} paragraphs) and
`questions.json` (MuSiQue's question shape: id, question, answer, answer_aliases, answerable,
question_decomposition with each hop's answer and supporting paragraph, and the paragraphs with
is_supporting).

Why: the first hand-written text set is HotpotQA-shaped (a sentence list a page, short declarative
sentences). This one was written on 2026-11-27 before that session's changes, and is only measured:
several-sentence paragraphs that refer back with pronouns and descriptions ("the firm", "he"),
relations said by verbs, participles and nouns ("designed", "chief engineer", "runs"), and questions
of two and three hops asked with words the paragraphs do not use ("home ground", "spanned",
"set up"). Every name, place and sentence is invented; none of it may appear in product code, and
nobody tuning retrieval or the reader should read its per-question failures.

  kgtool ingest docs tests/data/handwritten_text2/corpus.json --format musique
  kgtool eval qa tests/data/handwritten_text2/questions.json --format musique --agents offline --method c2rag,reagent,bm25-reader
  kgtool eval retrieval tests/data/handwritten_text2/questions.json --format musique -k 2,5
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent

PARAGRAPHS = [
    ("Halvard Brinkmoor",
     "Halvard Brinkmoor (1879-1951) was a civil engineer from Westhal. Born in the fishing village of "
     "Lindqvarn, he studied at the Marrowgate Institute of Technology. He designed the Osterfell Bridge, "
     "and later served as chief engineer of the Emmerholt Line."),
    ("Osterfell Bridge",
     "The Osterfell Bridge is a suspension bridge over the Taviel River, joining the towns of Osterfell "
     "and Rundby. It opened in 1931. The bridge was built by Carrow & Pike, and its main span is 480 metres long."),
    ("Taviel River",
     "The Taviel River rises in the Skarn Mountains and empties into the Gulf of Emmerholt. "
     "At 410 kilometres it is the longest river of the province."),
    ("Carrow & Pike",
     "Carrow & Pike is a construction firm founded in 1884 in Rundby by Ansel Carrow and Jude Pike. "
     "After the Second World War the firm moved its headquarters to Vessmark."),
    ("Lindqvarn",
     "Lindqvarn is a fishing village on the island of Orsa. About 1,200 people live there, most of them "
     "working in the herring trade."),
    ("Orsa",
     "Orsa is an island in the Gulf of Emmerholt. It belongs to the province of Westhal and is reached "
     "by ferry from Rundby."),
    ("Marrowgate Institute of Technology",
     "The Marrowgate Institute of Technology was founded in 1862 in the city of Marrowgate. "
     "Its first rector was the chemist Ottilie Fensham."),
    ("Ottilie Fensham",
     "Ottilie Fensham (1831-1907) was a chemist. She was born in Vessmark and is remembered for "
     "describing the mineral fenshamite. In 1858 she married the painter Corin Dale."),
    ("Corin Dale",
     "Corin Dale (1829-1910) was a landscape painter. His best-known work, The Salt Road, painted in 1874, "
     "hangs in the Vessmark Gallery of Art."),
    ("Vessmark",
     "Vessmark is a port city at the mouth of the Taviel River and the capital of the province of Westhal. "
     "It is home to the Vessmark Gallery of Art and to the offices of several shipping lines."),
    ("Vessmark Gallery of Art",
     "The Vessmark Gallery of Art opened in 1890 in the city's former customs house. "
     "Pell Averin has been its director since 2016."),
    ("Rundby FC",
     "Rundby FC is a football club founded in 1903. The club plays its home matches at Carrow Park and has "
     "won the Westhal Cup four times. Idris Holm has managed the team since 2019."),
    ("Idris Holm",
     "Idris Holm is a former goalkeeper who was born in Osterfell. He spent most of his playing career at "
     "Skarn Athletic before moving into management."),
    ("Skarn Athletic",
     "Skarn Athletic is a football club from the town of Brekkan. Its ground, The Quarry, stands beside the "
     "old mine workings."),
    ("Brekkan",
     "Brekkan is a mining town in the Skarn Mountains. Copper has been mined there since the sixteenth century. "
     "The film director Tobiah Kress was born in the town."),
    ("Mirela Sand",
     "Mirela Sand is a novelist who lives in Osterfell. Her novel Winter at Orsa won the Gulf Prize in 2012."),
    ("Winter at Orsa",
     "Winter at Orsa is a 2011 novel by Mirela Sand about a lighthouse keeper's family. "
     "A film adaptation directed by Tobiah Kress was released in 2015."),
    ("Tobiah Kress",
     "Tobiah Kress is a film director. After studying at the Marrowgate Institute of Technology he worked in "
     "television before making his first feature in 2009."),
    ("Emmerholt Line",
     "The Emmerholt Line is a railway opened in 1899 between Vessmark and Brekkan. "
     "It is run by Westhal Railways."),
    ("Westhal Railways",
     "Westhal Railways is the state railway company of the province. Rosalind Tey has chaired its board since 2020."),
    ("Gulf Prize",
     "The Gulf Prize is a literary award established in 1976 by the publisher Amos Wyke. "
     "The prize is presented each autumn at a ceremony in Rundby."),
    ("Amos Wyke",
     "Amos Wyke (1921-1998) was a publisher. In 1950 he set up the publishing house Wyke & Daughters in Marrowgate."),
    ("The Quarry",
     "The Quarry is a football stadium that opened in 1957. It holds 8,400 spectators."),
    ("Carrow Park",
     "Carrow Park is a stadium in Rundby with room for 12,000 people. It is named after Ansel Carrow."),
]

# (id, question, answer, aliases, hops: [(sub-question, its answer, supporting paragraph title)])
QUESTIONS = [
    ("h01", "Which river does the bridge designed by Halvard Brinkmoor cross?", "Taviel River", ["Taviel"],
     [("Halvard Brinkmoor >> designed", "Osterfell Bridge", "Halvard Brinkmoor"),
      ("river crossed by #1", "Taviel River", "Osterfell Bridge")]),
    ("h02", "Into what body of water does the river spanned by the Osterfell Bridge flow?", "Gulf of Emmerholt", [],
     [("Osterfell Bridge >> crosses", "Taviel River", "Osterfell Bridge"),
      ("#1 empties into", "Gulf of Emmerholt", "Taviel River")]),
    ("h03", "In which city is the company that built the Osterfell Bridge now headquartered?", "Vessmark", [],
     [("Osterfell Bridge >> builder", "Carrow & Pike", "Osterfell Bridge"),
      ("headquarters of #1", "Vessmark", "Carrow & Pike")]),
    ("h04", "On which island was the designer of the Osterfell Bridge born?", "Orsa", [],
     [("Osterfell Bridge >> designer", "Halvard Brinkmoor", "Halvard Brinkmoor"),
      ("birthplace of #1", "Lindqvarn", "Halvard Brinkmoor"),
      ("island of #2", "Orsa", "Lindqvarn")]),
    ("h05", "Which province does Halvard Brinkmoor's birthplace belong to?", "Westhal", [],
     [("Halvard Brinkmoor >> place of birth", "Lindqvarn", "Halvard Brinkmoor"),
      ("island of #1", "Orsa", "Lindqvarn"),
      ("province of #2", "Westhal", "Orsa")]),
    ("h06", "Who was the first rector of the school where Halvard Brinkmoor studied?", "Ottilie Fensham", [],
     [("Halvard Brinkmoor >> educated at", "Marrowgate Institute of Technology", "Halvard Brinkmoor"),
      ("first rector of #1", "Ottilie Fensham", "Marrowgate Institute of Technology")]),
    ("h07", "Whom did the first rector of the Marrowgate Institute of Technology marry?", "Corin Dale", [],
     [("Marrowgate Institute of Technology >> first rector", "Ottilie Fensham", "Marrowgate Institute of Technology"),
      ("spouse of #1", "Corin Dale", "Ottilie Fensham")]),
    ("h08", "Where is the best-known painting by Ottilie Fensham's husband kept?", "Vessmark Gallery of Art", [],
     [("Ottilie Fensham >> spouse", "Corin Dale", "Ottilie Fensham"),
      ("best-known work of #1", "The Salt Road", "Corin Dale"),
      ("location of #2", "Vessmark Gallery of Art", "Corin Dale")]),
    ("h09", "Who directs the gallery that holds The Salt Road?", "Pell Averin", [],
     [("The Salt Road >> location", "Vessmark Gallery of Art", "Corin Dale"),
      ("director of #1", "Pell Averin", "Vessmark Gallery of Art")]),
    ("h10", "What is the name of the stadium where the club managed by Idris Holm plays?", "Carrow Park", [],
     [("Idris Holm >> manager of", "Rundby FC", "Rundby FC"),
      ("home ground of #1", "Carrow Park", "Rundby FC")]),
    ("h11", "How many people can the home ground of Rundby FC hold?", "12,000", ["12000"],
     [("Rundby FC >> home venue", "Carrow Park", "Rundby FC"),
      ("capacity of #1", "12,000", "Carrow Park")]),
    ("h12", "In which town is the former club of Rundby FC's manager based?", "Brekkan", [],
     [("Rundby FC >> manager", "Idris Holm", "Rundby FC"),
      ("former club of #1", "Skarn Athletic", "Idris Holm"),
      ("town of #2", "Brekkan", "Skarn Athletic")]),
    ("h13", "What metal is mined in the hometown of Tobiah Kress?", "copper", [],
     [("Tobiah Kress >> place of birth", "Brekkan", "Brekkan"),
      ("metal mined in #1", "copper", "Brekkan")]),
    ("h14", "Who directed the film version of the novel that won the Gulf Prize in 2012?", "Tobiah Kress", [],
     [("Gulf Prize 2012 >> winner", "Winter at Orsa", "Mirela Sand"),
      ("director of the film of #1", "Tobiah Kress", "Winter at Orsa")]),
    ("h15", "Who established the award won by Winter at Orsa?", "Amos Wyke", [],
     [("Winter at Orsa >> award received", "Gulf Prize", "Mirela Sand"),
      ("founder of #1", "Amos Wyke", "Gulf Prize")]),
    ("h16", "In which city did the founder of the Gulf Prize set up his publishing house?", "Marrowgate", [],
     [("Gulf Prize >> founded by", "Amos Wyke", "Gulf Prize"),
      ("city of the publishing house of #1", "Marrowgate", "Amos Wyke")]),
    ("h17", "Which company runs the railway whose chief engineer was Halvard Brinkmoor?", "Westhal Railways", [],
     [("Halvard Brinkmoor >> chief engineer of", "Emmerholt Line", "Halvard Brinkmoor"),
      ("operator of #1", "Westhal Railways", "Emmerholt Line")]),
    ("h18", "Who chairs the board of the company that operates the Emmerholt Line?", "Rosalind Tey", [],
     [("Emmerholt Line >> operator", "Westhal Railways", "Emmerholt Line"),
      ("chairperson of #1", "Rosalind Tey", "Westhal Railways")]),
    ("h19", "What is the home ground of the football club from the town where Tobiah Kress was born?", "The Quarry", ["Quarry"],
     [("Tobiah Kress >> place of birth", "Brekkan", "Brekkan"),
      ("football club of #1", "Skarn Athletic", "Skarn Athletic"),
      ("ground of #2", "The Quarry", "Skarn Athletic")]),
    ("h20", "When did the ground of Skarn Athletic open?", "1957", [],
     [("Skarn Athletic >> home venue", "The Quarry", "Skarn Athletic"),
      ("opening year of #1", "1957", "The Quarry")]),
    ("h21", "In what year did the bridge built by Carrow & Pike open?", "1931", [],
     [("Carrow & Pike >> built", "Osterfell Bridge", "Osterfell Bridge"),
      ("opening year of #1", "1931", "Osterfell Bridge")]),
    ("h22", "Where was the wife of Corin Dale born?", "Vessmark", [],
     [("Corin Dale >> spouse", "Ottilie Fensham", "Ottilie Fensham"),
      ("birthplace of #1", "Vessmark", "Ottilie Fensham")]),
    ("h23", "Which city is the capital of the province that the island of Orsa belongs to?", "Vessmark", [],
     [("Orsa >> province", "Westhal", "Orsa"),
      ("capital of #1", "Vessmark", "Vessmark")]),
    ("h24", "In which mountains does the river under the Osterfell Bridge rise?", "Skarn Mountains", ["Skarn"],
     [("Osterfell Bridge >> crosses", "Taviel River", "Osterfell Bridge"),
      ("source of #1", "Skarn Mountains", "Taviel River")]),
    ("h25", "Where was the manager of the club that plays at Carrow Park born?", "Osterfell", [],
     [("Carrow Park >> home club", "Rundby FC", "Rundby FC"),
      ("manager of #1", "Idris Holm", "Rundby FC"),
      ("birthplace of #2", "Osterfell", "Idris Holm")]),
    ("h26", "In which town does the author of Winter at Orsa live?", "Osterfell", [],
     [("Winter at Orsa >> author", "Mirela Sand", "Winter at Orsa"),
      ("residence of #1", "Osterfell", "Mirela Sand")]),
    ("h27", "How long is the river crossed by Halvard Brinkmoor's bridge?", "410 kilometres", ["410 km", "410"],
     [("Halvard Brinkmoor >> designed", "Osterfell Bridge", "Halvard Brinkmoor"),
      ("river crossed by #1", "Taviel River", "Osterfell Bridge"),
      ("length of #2", "410 kilometres", "Taviel River")]),
    ("h28", "In what year was the school attended by the director of the Winter at Orsa film founded?", "1862", [],
     [("Winter at Orsa film >> director", "Tobiah Kress", "Winter at Orsa"),
      ("educated at of #1", "Marrowgate Institute of Technology", "Tobiah Kress"),
      ("founding year of #2", "1862", "Marrowgate Institute of Technology")]),
    ("h29", "Who founded the prize whose ceremony is held in Rundby?", "Amos Wyke", [],
     [("award ceremony in Rundby", "Gulf Prize", "Gulf Prize"),
      ("founder of #1", "Amos Wyke", "Gulf Prize")]),
    ("h30", "Who is the stadium of Rundby FC named after?", "Ansel Carrow", [],
     [("Rundby FC >> home venue", "Carrow Park", "Rundby FC"),
      ("named after of #1", "Ansel Carrow", "Carrow Park")]),
    ("h31", "Which mineral did the wife of the painter of The Salt Road describe?", "fenshamite", [],
     [("The Salt Road >> painter", "Corin Dale", "Corin Dale"),
      ("spouse of #1", "Ottilie Fensham", "Ottilie Fensham"),
      ("mineral described by #2", "fenshamite", "Ottilie Fensham")]),
    ("h32", "In which city is the museum that has The Salt Road?", "Vessmark", [],
     [("The Salt Road >> location", "Vessmark Gallery of Art", "Corin Dale"),
      ("city of #1", "Vessmark", "Vessmark Gallery of Art")]),
]

DISTRACTORS_PER_QUESTION = 3


def _paragraphs_for(index: int, support_titles: list[str]) -> list[dict]:
    """The supporting paragraphs and a few others, as MuSiQue attaches them to a question."""
    titles = [t for t, _ in PARAGRAPHS]
    others = [t for t in titles if t not in support_titles]
    picked = sorted(set(support_titles) | {others[(index * 7 + k * 5) % len(others)]
                                           for k in range(DISTRACTORS_PER_QUESTION)}, key=titles.index)
    text = dict(PARAGRAPHS)
    return [{"idx": i, "title": t, "paragraph_text": text[t], "is_supporting": t in support_titles}
            for i, t in enumerate(picked)]


def main() -> None:
    titles = [t for t, _ in PARAGRAPHS]
    assert len(set(titles)) == len(titles), "paragraph titles must be unique"
    corpus = [{"title": t, "text": text} for t, text in PARAGRAPHS]
    records = []
    for index, (qid, question, answer, aliases, hops) in enumerate(QUESTIONS):
        support = [title for _, _, title in hops]
        missing = [t for t in support if t not in titles]
        assert not missing, f"{qid}: no paragraph {missing}"
        paragraphs = _paragraphs_for(index, support)
        where = {p["title"]: p["idx"] for p in paragraphs}
        records.append({
            "id": f"{len(hops)}hop__{qid}", "question": question, "answer": answer, "answer_aliases": aliases,
            "answerable": True,
            "question_decomposition": [{"id": n, "question": q, "answer": a, "paragraph_support_idx": where[t]}
                                       for n, (q, a, t) in enumerate(hops)],
            "paragraphs": paragraphs,
        })
    (HERE / "corpus.json").write_text(json.dumps(corpus, indent=1) + "\n", encoding="utf-8")
    (HERE / "questions.json").write_text(json.dumps(records, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
