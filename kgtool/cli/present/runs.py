"""Rendering of answers, stored runs and the method registry."""
from __future__ import annotations

import json

from rich.table import Table

from kgtool.cli.present import console, figure, styled


def print_answer(result) -> None:
    """One answer: the question, the outcome (an answer, an unverified guess, or no answer with what the
    graph lacks), its confidence, cost and run id, the chain, and why when it is not `answered`."""
    console.print(styled(("Q: ", "bold"), result.question))
    confidence = getattr(result, "confidence", None)
    cost = (f"  ({result.status}" + (f", confidence {confidence:.2f}" if confidence is not None else "")
            + f", {result.latency_ms:.0f} ms, {result.tokens} tokens, {result.backtracks} backtrack(s), "
              f"run {result.run_id})", "dim")
    reason = getattr(result, "reason", None)
    guess = getattr(result, "guess", None)
    if result.status == "answered":
        console.print(styled(("A: ", "bold"), result.answer or "", cost))
    elif result.status == "unverified" and result.answer:
        console.print(styled(("A (unverified guess): ", "bold yellow"), result.answer, cost))
    elif result.status == "failed":
        console.print(styled(("Failed: ", "bold red"), str(result.error or reason or "see its run"), cost))
        reason = None
    else:
        console.print(styled(("No answer: ", "bold"), str(reason or "no chain reached an answer"), cost))
        if guess:
            console.print(styled(("   guess kept in the trace: ", "dim"), str(guess)))
        reason = None
    if reason:
        console.print(styled(("   why: ", "yellow"), str(reason)))
    for step in result.chain:
        if step.get("fact_id"):
            console.print(f"  {step['hop']}. {step['head']} --{step['relation']}--> {step['tail']}")
            console.print(styled((f"     {step['evidence']}  (N_eff {step['neff'] or 0:.2f}, {step['state']})",
                                  "dim")))
        else:  # a hop without a stored fact: generated from nothing, or read off evidence (a passage)
            how = "(generated)" if step.get("generated") else "(read from text, no stored fact)"
            console.print(styled(f"  {step['hop']}. {step['question']} -> {step['answer'] or '?'} ", (how, "dim")))


def print_expected(expected: str, ok: bool) -> None:
    console.print(styled(f"   expected {expected}: ", ("correct", "green") if ok else ("wrong", "red")))


def candidate_text(c: dict) -> str:
    if c.get("kind") == "passage":
        return f"[{c.get('relation') or 'passage'}] {(c.get('evidence') or '')[:120]}"
    return f"{c['head']} --{c['relation']}--> {c['tail']}"


def verdict_text(v: dict) -> str:
    """`round 1: valid`, or `round 2: REJECTED (CareError wrong_bridge, hop 1) ...`.

    A passing verdict names no error taxonomy: the taxonomy types rejections only.
    """
    if v["valid"]:
        head = "valid"
    else:
        kind = " ".join(x for x in (v.get("taxonomy"), v.get("error_type")) if x)
        head = f"REJECTED ({kind or 'error'}, hop {v['failed_hop']})"
    return f"verdict round {v['round']}: {head} {v.get('explanation') or ''}".rstrip()


def print_trace(data: dict, methods=None) -> None:
    """A stored run: its steps with candidates, scores, N_eff and verdicts, backtracks, and the sections its
    method declares (found in `methods`, a Registry; None: the built-in one)."""
    from kgtool.reason.subquestions import in_label_words
    from kgtool.reason.trace_html import by_score
    from kgtool.reason.trace_sections import sections_of_run

    run = data["run"]
    console.print(styled((run["id"], "bold"), f" {run.get('method')}/{run.get('agents')} scope={run.get('scope')} "
                         f"status={run.get('status')} {run.get('latency_ms') or 0:.0f} ms tokens={run.get('tokens')}"))
    console.print(f"Q: {run.get('question')}\nA: {run.get('answer')}"
                  + (f"  (guess kept: {run['guess']})" if run.get("guess") else "")
                  + (f"  confidence {run['confidence']:.2f}" if run.get("confidence") is not None else ""))
    if run.get("reason"):
        console.print(styled(("why: ", "yellow"), str(run["reason"])))
    for step in data["steps"]:
        mark = "*" if step.get("in_chain") else " "
        neff = step["neff"] if step["neff"] is None else round(step["neff"], 3)
        console.print(styled(f"{mark} hop {step['hop']} attempt {step['attempt']}: {in_label_words(step['query'])}  ",
                             (f"N_eff={neff} ({step['state']}, gamma {step['gamma']})", "dim")))
        for trim in map(json.loads, step.get("prompt_trims") or []):  # LLM task data shortened to fit
            console.print(styled((f"    {trim['role']} prompt trimmed to fit a {trim['context']}-token context: "
                                  f"~{trim['tokens_before']} -> ~{trim['tokens_after']} tokens", "dim")))
        table = Table(show_edge=False, pad_edge=False)
        for col in ("retrieval rank", "candidate", "score", "p", "scores", "passes", "chosen"):
            table.add_column(col, overflow="fold")
        # best score first: the retrieval rank is shown as stored, but a judge may reorder it
        for c in by_score(step["candidates"]):
            named = " ".join(f"{k}={v:.2f}" for k, v in sorted(c["scores"].items()) if isinstance(v, (int, float)))
            table.add_row(str(c["rank"]), candidate_text(c), figure(c["score"]), figure(c["p"]), named,
                          "yes" if c["passes"] else "no",
                          "discarded" if c["discarded"] else ("<-" if c["fact_id"] == step["chosen"] else ""))
        console.print(table)
        if step.get("generated"):
            console.print(f"    generated answer: {step['answer']}")
        for v in step["verdicts"]:
            console.print("    " + verdict_text(v))
    for b in data["backtracks"]:
        console.print(f"{b.get('kind') or 'backtrack'} {b['from_step']} -> {b['to_step']}: {b['reason']}")
    for section in sections_of_run(run, methods):  # what the run's method declares it shows
        for line in section.text(data.get(section.key) or []):
            console.print(line)


def print_run_list(rows: list[dict]) -> None:
    """Stored runs, newest first: the ids `trace show` takes."""
    table = Table(title=f"runs ({len(rows)}, newest first; kgtool trace show RUN_ID)")
    for col, justify in (("run", "left"), ("started", "left"), ("method", "left"), ("status", "left"),
                         ("ms", "right"), ("question", "left"), ("answer", "left")):
        table.add_column(col, justify=justify, overflow="fold")
    for r in rows:
        table.add_row(r["run_id"], str(r.get("started_at") or "")[:19], f"{r['method']}/{r.get('agents') or '-'}",
                      str(r.get("status")), "-" if r.get("latency_ms") is None else str(r["latency_ms"]),
                      r.get("question") or "", r.get("answer") or "")
    console.print(table)


def print_methods(entries, agent_entries) -> None:
    table = Table(title="methods (kgtool methods NAME for its settings; kgtool ask --method NAME --set KEY=VALUE)")
    for col in ("method", "version", "what it does"):
        table.add_column(col, overflow="fold")
    for entry in entries:
        table.add_row(entry.name, entry.version, entry.description)
    console.print(table)
    console.print("agents: " + ", ".join(f"{e.name} ({e.description})" for e in agent_entries))
    console.print("the offline agents' and the status rule's thresholds and weights: kgtool methods offline")


def print_method(entry, settings) -> None:
    """One method: what it does and each setting with its type, default and meaning."""
    console.print(styled((entry.name, "bold"), f" (version {entry.version}): {entry.description}"))
    if not settings:
        console.print("no settings")
        return
    _print_settings(f"settings (kgtool ask --method {entry.name} --set KEY=VALUE)", "what it does", settings,
                    lambda s: f" (unset: the global setting {s.global_setting})")


def print_offline(settings) -> None:
    """The offline agents' numbers: each with its default, meaning and source; the user settings first."""
    _print_settings("offline agents (user settings: in the config file or the environment; the others: "
                    "KGTOOL_OFFLINE_CONFIG, a JSON object, for experiments)", "meaning and source",
                    sorted(settings, key=lambda s: s.global_setting is None),
                    lambda s: f" (user setting {s.global_setting})")


def _print_settings(title: str, meaning: str, settings, global_note) -> None:
    """A table of settings: name, type, default, and the meaning with `global_note` where a global setting
    stands behind it."""
    table = Table(title=title)
    for col in ("setting", "type", "default", meaning):
        table.add_column(col, overflow="fold")
    for s in settings:
        table.add_row(s.name, s.type_name, repr(s.default), s.doc + (global_note(s) if s.global_setting else ""))
    console.print(table)
