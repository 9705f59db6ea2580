"""Graph-walk retrieval: personalised PageRank (numpy) and the bounded subgraph read from a real Neo4j."""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from helpers import env_for
from kgtool.cli import main

from kgtool.core.scope import Scope
from kgtool.errors import ConfigError
from kgtool.retrieve.passages import make_retriever
from kgtool.ingest.linking import Mention
from kgtool.retrieve.walk import Subgraph, personalized_pagerank, question_entities, read_subgraph, walk_scores


def _closed_form(n, edges, reset, damping):
    """(1 - d) (I - d P^T)^-1 s for a column-stochastic walk with no dangling node."""
    matrix = np.zeros((n, n))
    for a, b, w in edges:
        matrix[b, a] += w
    matrix /= matrix.sum(axis=0, keepdims=True)
    s = np.asarray(reset, dtype=float) / np.sum(reset)
    return (1 - damping) * np.linalg.solve(np.eye(n) - damping * matrix, s)


def test_pagerank_matches_the_closed_form():
    rng = np.random.default_rng(7)
    n = 12
    pairs = {(int(a), int(b)) for a, b in rng.integers(0, n, size=(40, 2)) if a != b}
    pairs |= {(i, (i + 1) % n) for i in range(n)}  # every node has an out edge
    edges = [(a, b, float(rng.uniform(0.5, 2.0))) for a, b in sorted(pairs)]
    reset = np.zeros(n)
    reset[[0, 3]] = [1.0, 0.25]
    for damping in (0.5, 0.85):
        got = personalized_pagerank(n, np.array([e[0] for e in edges]), np.array([e[1] for e in edges]),
                                    np.array([e[2] for e in edges]), reset, damping=damping, tol=1e-14, max_iter=500)
        assert np.allclose(got, _closed_form(n, edges, reset, damping), atol=1e-9)


def test_pagerank_lets_a_hubs_unread_neighbours_leak():
    # 0 - 1 - 2: node 1 is a hub whose other 98 neighbours are outside the subgraph
    src, dst, w = np.array([0, 1, 1, 2]), np.array([1, 0, 2, 1]), np.ones(4)
    reset = np.array([1.0, 0.0, 0.0])
    whole = personalized_pagerank(3, src, dst, w, reset)
    leaky = personalized_pagerank(3, src, dst, w, reset, out_weight=np.array([1.0, 100.0, 1.0]))
    assert leaky[2] < whole[2] / 10  # the hub passes node 2 about 1/100 of its mass, not 1/2
    assert personalized_pagerank(0, src[:0], dst[:0], w[:0], np.zeros(0)).shape == (0,)


def test_walk_scores_follow_the_question_entity():
    graph = Subgraph(passages=["p1", "p2", "p3"], entities=["a", "b"], degree={"a": 2, "b": 2},
                     links={("p1", "a"), ("p2", "a"), ("p3", "b"), ("p2", "b")})
    by_entity = walk_scores(graph, {}, ["b"])
    assert by_entity["p3"] > by_entity["p1"] and by_entity["p2"] > by_entity["p1"]
    by_passage = walk_scores(graph, {"p1": 1.0}, [])
    assert by_passage["p1"] > by_passage["p2"] > by_passage["p3"]


# Two hops: the question names the song; the song's page names the singer, whose page holds the answer
# and shares no content word with the question beyond the year.
CORPUS = {
    "Hello Love (song)": ['"Hello Love" is a 1974 single by Hank Snow.', " It reached number one on the chart."],
    "Hank Snow": ["Clarence Snow was a Canadian-American country music artist.", " He moved to Nashville in 1949."],
    "Love Story": ["Love Story is a 1970 film about love.", " Its song Love Theme was a hit single."],
    "Hello Dolly": ["Hello, Dolly! is a musical whose title song was a number one single in 1964."],
    "Single malt": ["A single malt whisky is made at one distillery."],
    "Stage artists": ["The performer of a single moved the audience; many performers moved to Paris."],
    "Publix": ["Publix is a supermarket chain with 35 stores in Tennessee."],
}
QUESTION = "Where did the performer of the single Hello Love move to?"


@pytest.fixture
def walk_kg(kg, tmp_path):
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(CORPUS), encoding="utf-8")
    kg.ingest_docs(path, format="hotpotqa", embed_relations=False)
    return kg


def test_walk_reaches_the_bridge_passage_and_stays_within_its_bound(walk_kg):
    kg = walk_kg
    hybrid = make_retriever(kg.db, "hybrid", embedder=kg.embedder)
    walk = make_retriever(kg.db, "hybrid+walk", embedder=kg.embedder, pool_size=2)
    with kg.db.session() as session:
        before = [h.title for h in hybrid.retrieve(session, QUESTION, Scope(), 2)]
        hits = walk.retrieve(session, QUESTION, Scope(), 2)
    assert "Hank Snow" not in before
    assert [h.title for h in hits] == ["Hello Love (song)", "Hank Snow"]
    assert hits[0].scores["walk"] > hits[1].scores["walk"] > 0
    assert walk.last_walk["passages"] <= 2 * 2 + 200  # the two pools, plus at most max_new
    # no new passage allowed: the walk can only reorder the pool, which lacks the singer's page
    none_new = make_retriever(kg.db, "hybrid+walk", embedder=kg.embedder, pool_size=2, walk={"max_new": 0})
    with kg.db.session() as session:
        assert "Hank Snow" not in [h.title for h in none_new.retrieve(session, QUESTION, Scope(), 5)]


def test_subgraph_read_caps_passages_per_entity(walk_kg):
    kg = walk_kg
    [song] = [r["passage_id"] for r in kg.db.read("passages/all") if r["title"] == "Hello Love (song)"]
    with kg.db.session() as session:
        graph = read_subgraph(kg.db, session, [song], [], {"cases": None, "batches": None}, per_entity=1, max_new=1)
    assert graph.passages[0] == song and len(graph.passages) == 2
    assert {e for p, e in graph.links if p == song} >= {"name:hank snow"}
    assert all(graph.degree[e] >= 1 for e in graph.entities)


def test_question_seeds_are_names_not_words(walk_kg):
    kg = walk_kg
    mentions = [Mention(0, 10, "name:hello love (song)", "Hello Love"),  # opens the question, but two words
                Mention(11, 17, "name:publix", "publix"),  # written as a word, not a name
                Mention(18, 24, "name:publix", "Publix"),  # a document's topic
                Mention(25, 34, "name:nashville", "Nashville"),  # one word, no document about it
                Mention(35, 39, None, "Snow")]
    assert question_entities(kg.db, None, "unused", mentions) == ["name:hello love (song)", "name:publix"]
    assert question_entities(kg.db, None, "unused", [Mention(0, 6, "name:publix", "Publix")]) == []


def test_rrf_walk_fusion_and_a_bad_fusion(walk_kg):
    kg = walk_kg
    fused = make_retriever(kg.db, "hybrid+walk+rrf", embedder=kg.embedder, pool_size=2)
    with kg.db.session() as session:
        hits = fused.retrieve(session, QUESTION, Scope(), 10)
    # the walk adds the singer's page to a pool that lacked it, ranked by the fused reciprocal ranks
    assert "Hank Snow" in [h.title for h in hits] and all("walk" in h.scores for h in hits)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    with pytest.raises(ConfigError, match="walk fusion"):
        make_retriever(kg.db, "hybrid+walk", embedder=kg.embedder, walk={"fusion": "max"})


def test_eval_retrieval_reports_the_walk_and_the_cost(walk_kg, tmp_path):
    questions = tmp_path / "dev.json"
    questions.write_text(json.dumps([{"_id": "q1", "question": QUESTION, "answer": "Nashville",
                                      "supporting_facts": [["Hello Love (song)", 0], ["Hank Snow", 1]]}]))
    data = walk_kg.evaluate_retrieval(questions, format="hotpotqa", k="2", retrievers="hybrid,hybrid+walk").as_dict()
    walk, hybrid = data["retrievers"]["hybrid+walk"], data["retrievers"]["hybrid"]
    # with the whole 7-passage corpus in the first-stage pool the pool's own seeds outweigh the bridge
    # (see test_walk_reaches_the_bridge_passage_and_stays_within_its_bound for a pool that lacks it)
    assert walk["recall"]["@2"] >= 0.5 and len(walk["per_question"][0]["top"]) == 2
    assert walk["subgraph"]["passages"] >= 2 and walk["subgraph"]["entities"] >= 2 and hybrid["subgraph"] is None
    assert data["cost"]["passages_in_graph"] == len(CORPUS) and data["cost"]["seconds"] > 0
    assert set(data["cost"]["retrieval_seconds"]) == {"bm25 (baseline)", "hybrid", "hybrid+walk"}


def test_cli_ask_shows_a_presets_passages(walk_kg, neo4j_settings):
    runner = CliRunner(env=env_for(neo4j_settings))
    result = runner.invoke(main, ["ask", QUESTION, "--passages", "hybrid+walk", "--top", "2", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["retriever"] == "hybrid+walk" and len(shown["passages"]) == 2
    assert shown["passages"][0]["title"] == "Hello Love (song)" and shown["passages"][0]["scores"]["walk"] > 0
    bad = runner.invoke(main, ["ask", QUESTION, "--passages", "no-such-preset"])
    assert bad.exit_code != 0 and "unknown passage retriever" in bad.output
