"""Reading a question, once per run (issue 44).

`read(question, graph_view) -> QuestionAnalysis` (reading/analysis.py) holds everything the status rule,
the methods and the offline agents need to know about the question's words; closed-class English lives in
reading/words.py. Nothing outside this package reads a question's raw string for its grammar.
"""
