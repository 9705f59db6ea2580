"""Plain knowledge graphs (TSV, JSONL, N-Triples) into a real Neo4j, and answering over them."""
from __future__ import annotations

import itertools
import json
import random

import pytest
from click.testing import CliRunner

from kgtool.cli import main
from kgtool.errors import IngestInterrupted, InputError
from kgtool.ingest.facts import read_facts

ADJ = ["Crimson", "Silent", "Golden", "Broken", "Hidden", "Frozen", "Burning", "Distant", "Hollow", "Shining",
       "Quiet", "Wild", "Iron", "Velvet", "Scarlet"]
NOUN = ["Harbor", "River", "Mountain", "Garden", "Empire", "Lantern", "Station", "Orchard", "Canyon", "Meadow",
        "Tower", "Voyage", "Island", "Compass", "Mirror", "Valley", "Bridge", "Forest", "Desert", "Palace"]
FIRST = ["Alda", "Bruno", "Celia", "Dario", "Elke", "Fabian", "Greta", "Hugo", "Ines", "Jonas", "Katrin",
         "Lorenz", "Mira", "Nils", "Olga", "Pavel", "Rhea", "Sven", "Tilda", "Uwe"]
LAST = ["Brenner", "Castell", "Dorn", "Eckhart", "Falk", "Gruber", "Hagen", "Imhof", "Jansen", "Kessler"]
CITIES = [("Lyon", "France"), ("Porto", "Portugal"), ("Graz", "Austria"), ("Bergen", "Norway"),
          ("Turku", "Finland"), ("Gdansk", "Poland"), ("Brno", "Czech Republic"), ("Ghent", "Belgium"),
          ("Aarhus", "Denmark"), ("Utrecht", "Netherlands"), ("Basel", "Switzerland"), ("Seville", "Spain")]
LANGS = ["French", "Portuguese", "German", "Norwegian", "Finnish", "Polish", "Czech", "Dutch"]


def film_world(seed: int) -> list[tuple[str, str, str]]:
    """A MetaQA-like movie graph in Freebase-style spelling (underscored names and relations)."""
    rng = random.Random(seed)
    films = ["_".join(p) for p in itertools.product(ADJ, NOUN)]
    people = ["_".join(p) for p in itertools.product(FIRST, LAST)]
    rows = [(person, "place_of_birth", rng.choice(CITIES)[0]) for person in people]
    rows += [(city, "country", country) for city, country in CITIES]
    for film in films:
        rows += [(film, "directed_by", rng.choice(people)), (film, "release_year", str(rng.randint(1950, 2020))),
                 (film, "in_language", rng.choice(LANGS))]
    return rows


def _env(settings):
    return {"KGTOOL_HOME": str(settings.home), "KGTOOL_NEO4J_PORT": str(settings.neo4j_port),
            "KGTOOL_RUNTIME_DIR": str(settings.runtime_dir)}


def _counts(kg):
    st = kg.stats()
    return {k: v for k, v in st["nodes"].items() if v}, {k: v for k, v in st["relationships"].items() if v}


def test_cli_ingests_a_1000_triple_tsv_and_ask_answers_two_hops_over_it(kg, tmp_path, neo4j_settings):
    rows = film_world(seed=11)
    assert len(rows) >= 1000
    path = tmp_path / "films.tsv"
    path.write_text("head\trelation\ttail\n" + "".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    runner, env = CliRunner(), _env(neo4j_settings)

    out = runner.invoke(main, ["ingest", "facts", str(path), "--json", str(tmp_path / "s.json")], env=env,
                        catch_exceptions=False)
    assert out.exit_code == 0, out.output
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["facts_read"] == summary["facts"] == len(rows) and not summary["skipped"]
    nodes, rels = _counts(kg)
    assert nodes["Fact"] == len(rows) and nodes["Source"] == 1 and rels["STATES"] == len(rows)
    # release years are values of their facts (an (:Entity:Literal) each, never shared), the rest names
    years = [r for r in rows if r[1] == "release_year"]
    assert nodes["Literal"] == len(years)
    assert nodes["Entity"] - nodes["Literal"] == len({r[0] for r in rows} | {r[2] for r in rows if r[1] != "release_year"})
    # a second run changes nothing
    assert runner.invoke(main, ["ingest", "facts", str(path)], env=env).exit_code == 0
    assert _counts(kg) == (nodes, rels)

    # readable names, the file's spelling kept as an alias
    film = "Crimson_Harbor"
    entity = kg.query("MATCH (e:Entity {name: $n}) RETURN e.aliases AS aliases", {"n": "Crimson Harbor"})[1]
    assert entity == [{"aliases": [film]}]
    labels = {r["label"] for r in kg.query("MATCH (r:Relation) RETURN r.label AS label")[1]}
    assert {"directed by", "place of birth"} <= labels

    table = {(h, r): t for h, r, t in rows}
    director = table[(film, "directed_by")]
    birthplace = table[(director, "place_of_birth")]
    out = runner.invoke(main, ["ask", "Where was the director of Crimson Harbor born?", "--json"], env=env,
                        catch_exceptions=False)
    assert out.exit_code == 0, out.output
    answer = json.loads(out.output.strip().splitlines()[-1])
    assert answer["answer"] == birthplace
    assert [hop["tail"] for hop in answer["chain"]] == [director.replace("_", " "), birthplace]


def test_jsonl_and_ntriples_readers_make_readable_names(tmp_path):
    jsonl = tmp_path / "kg.jsonl"
    jsonl.write_text("\n".join([
        json.dumps({"head": "Douglas Adams", "relation": "place of birth", "tail": "Cambridge",
                    "head_id": "Q42", "relation_id": "P19", "evidence": "Adams was born in Cambridge.",
                    "tail_aliases": ["Cambridge, England"]}),
        # a JSON number is a typed value (tests/test_literals.py); a list is no tail
        json.dumps({"head": "Cambridge", "relation": "country", "tail": [7]}),
        json.dumps({"head": "Cambridge", "relation": "country", "tail": "UK", "head_aliases": "Camb"}),
        json.dumps({"head": "Cambridge_UK", "relation": "country", "tail": "UK", "qualifiers": {"since": 1}}),
        "[1, 2]",
    ]) + "\n")
    result = read_facts(jsonl)
    assert result.format == "jsonl" and len(result.facts) == 2
    assert (result.facts[1].subject, result.facts[1].subject_aliases) == ("Cambridge UK", ("Cambridge_UK",))
    fact = result.facts[0]
    assert (fact.subject, fact.subject_id, fact.relation_id, fact.evidence) == (
        "Douglas Adams", "Q42", "P19", "Adams was born in Cambridge.")
    assert fact.object_aliases == ("Cambridge, England",)
    assert [b.source for b in result.bad] == [f"{jsonl}:2", f"{jsonl}:3", f"{jsonl}:5"]
    assert "'tail' must be a string" in result.bad[0].reason
    assert "'head_aliases' must be a list" in result.bad[1].reason and "JSON object" in result.bad[2].reason

    nt = tmp_path / "kg.nt"
    nt.write_text("\n".join([
        "# a comment",
        ("<http://www.wikidata.org/entity/Q42> <http://www.wikidata.org/prop/direct/P19> "
         "<http://www.wikidata.org/entity/Q350> ."),
        '<http://www.wikidata.org/entity/Q42> <http://www.w3.org/2000/01/rdf-schema#label> "Douglas Adams"@en .',
        '<http://www.wikidata.org/entity/Q42> <http://www.w3.org/2000/01/rdf-schema#label> "Douglas Adams"@de .',
        '<http://www.wikidata.org/entity/Q350> <http://www.w3.org/2004/02/skos/core#altLabel> "Cambridge, UK" .',
        ("<http://dbpedia.org/resource/Hey_Jude> <http://dbpedia.org/ontology/musicalArtist> "
         "<http://dbpedia.org/resource/The_Beatles> ."),
        ('<http://dbpedia.org/resource/Hey_Jude> <http://dbpedia.org/ontology/releaseDate> "1968-08-26"^^'
         "<http://www.w3.org/2001/XMLSchema#date> ."),
        '<http://example.org/a> <http://example.org/says> "caf\\u00e9 \\"noir\\"" .',
        "this is not a triple",
    ]) + "\n")
    result = read_facts(nt)
    assert result.format == "nt" and [b.source for b in result.bad] == [f"{nt}:9"]
    by_relation = {f.relation: f for f in result.facts}
    assert set(by_relation) == {"P19", "musical artist", "release date", "says"}  # labels are names, not facts
    adams = by_relation["P19"]
    # the label names Q42 although it comes after the triple; Q350 has no label, so its id is its name
    assert (adams.subject, adams.subject_id, adams.relation_id, adams.object_id) == ("Douglas Adams", "Q42", "P19",
                                                                                     "Q350")
    assert "Cambridge, UK" in adams.object_aliases
    song = by_relation["musical artist"]
    assert (song.subject, song.object) == ("Hey Jude", "The Beatles")
    assert "Hey_Jude" in song.subject_aliases and "http://dbpedia.org/resource/Hey_Jude" in song.subject_aliases
    assert by_relation["release date"].object == "1968-08-26"
    assert by_relation["says"].object == 'café "noir"'


def test_bad_lines_are_reported_and_strict_writes_nothing(kg, tmp_path, neo4j_settings):
    path = tmp_path / "kg.tsv"
    path.write_text("Hey Jude\tperformer\tThe Beatles\n"
                    "only\ttwo\n"
                    f"{'x' * 1001}\tperformer\tSomeone\n"
                    "The Beatles\tcountry of origin\tUnited Kingdom\tThe Beatles are an English band.\n")
    with pytest.raises(InputError) as err:
        kg.ingest_facts(path, strict=True, embed_relations=False)
    assert f"{path}:2" in str(err.value) and f"{path}:3" in str(err.value) and "nothing was written" in str(err.value)
    assert _counts(kg) == ({}, {})

    out = CliRunner().invoke(main, ["ingest", "facts", str(path)], env=_env(neo4j_settings), catch_exceptions=False)
    assert out.exit_code == 1
    assert f"{path}:2" in out.output and "3 or 4 tab-separated columns" in out.output
    assert f"{path}:3" in out.output and "characters long" in out.output
    rows = kg.query("MATCH (h:Entity)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t:Entity) "
                    "RETURN h.name AS h, f.evidence AS evidence, f.source AS source, f.status AS status ORDER BY h")[1]
    assert rows == [
        {"h": "Hey Jude", "evidence": "Hey Jude performer The Beatles.", "source": "base", "status": "active"},
        {"h": "The Beatles", "evidence": "The Beatles are an English band.", "source": "base", "status": "active"},
    ]


def test_a_connection_lost_mid_ingest_says_what_is_in_and_a_rerun_completes(kg, neo4j_settings, tmp_path):
    from kgtool.api import KnowledgeGraph

    path = tmp_path / "films.tsv"
    path.write_text("".join("\t".join(r) + "\n" for r in film_world(seed=3)[:30]), encoding="utf-8")
    doomed = KnowledgeGraph.connect(neo4j_settings)
    with pytest.raises(IngestInterrupted) as err:
        # the connection goes away once the first batch is committed
        doomed.ingest_facts(path, batch_size=10, embed_relations=False, progress=lambda done, total: doomed.close())
    assert "1 of 3 batch(es) (10 of 30 facts) were committed" in str(err.value)
    assert err.value.records_committed == 10 and _counts(kg)[0]["Fact"] == 10
    kg.ingest_facts(path, batch_size=10, embed_relations=False)
    assert _counts(kg)[0]["Fact"] == 30


def test_facts_share_entities_with_edits_and_an_edit_supersedes_a_fact_of_the_file(kg, tmp_path):
    facts = tmp_path / "kg.nt"
    facts.write_text(
        "<http://www.wikidata.org/entity/Q1> <http://www.wikidata.org/prop/direct/P175> "
        "<http://www.wikidata.org/entity/Q2> .\n"
        '<http://www.wikidata.org/entity/Q1> <http://www.w3.org/2000/01/rdf-schema#label> "Hey Jude" .\n'
        '<http://www.wikidata.org/entity/Q2> <http://www.w3.org/2000/01/rdf-schema#label> "The Beatles" .\n')
    kg.ingest_facts(facts, embed_relations=False)
    edits = tmp_path / "edits.jsonl"
    edits.write_text(json.dumps({"id": "e1", "subject": "Hey Jude", "subject_id": "Q1", "relation": "performer",
                                 "relation_id": "P175", "object": "Madonna", "old_object": "The Beatles",
                                 "old_object_id": "Q2", "description": "Hey Jude was performed by Madonna."}) + "\n")
    kg.ingest_edits(edits, embed_relations=False)
    rows = kg.query("MATCH (:Entity {id: 'Q1'})-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t:Entity) "
                    "RETURN t.name AS tail, f.status AS status ORDER BY tail")[1]
    assert rows == [{"tail": "Madonna", "status": "active"}, {"tail": "The Beatles", "status": "superseded"}]
    assert _counts(kg)[0]["Entity"] == 3
