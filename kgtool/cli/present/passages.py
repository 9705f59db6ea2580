"""Ranked passages (`kgtool ask --passages PRESET`): rank, score, title and the start of the text."""
from __future__ import annotations

import json

import click
from rich.table import Table

from kgtool.cli.present import console


def print_passages(question: str, preset: str, hits, *, as_json: bool = False) -> None:
    if as_json:
        click.echo(json.dumps({"question": question, "retriever": preset, "passages": [
            {"rank": h.rank, "id": h.passage_id, "title": h.title, "score": round(h.score, 6),
             "scores": {k: round(v, 6) for k, v in h.scores.items()}, "text": h.text} for h in hits]},
            ensure_ascii=False))
        return
    table = Table(title=f"{preset}: {question}")
    for column, justify in (("#", "right"), ("score", "right"), ("title", "left"), ("text", "left")):
        table.add_column(column, justify=justify)
    for h in hits:
        text = h.text if len(h.text) <= 160 else h.text[:157] + "..."
        table.add_row(str(h.rank), f"{h.score:.4g}", h.title, text)
    console.print(table)
    if not hits:
        console.print("no passage matched")
