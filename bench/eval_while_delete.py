"""Stress: an MQuAKE evaluation while another process deletes edits, repeated (issue 29).

Each repetition loads the first --cases cases of --file into an emptied graph,
starts `kgtool delete --edit ...` of the first --delete edits in another
process shortly after the evaluation starts, and checks that:

- the evaluation finishes with a report (failed questions, if any, are in it,
  never an exception that ends the run);
- no Run is left 'running';
- the graph afterwards holds what the delete alone leaves (edits, and facts in
  force by status; facts a run used are kept as 'retracted' by design, so
  retracted facts are left out of the comparison).

    python bench/eval_while_delete.py --reps 20 --cases 12 --delete 6
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, SHARED_DATA, bench_graph, log, table  # noqa: E402

COUNTS = ("MATCH (f:Fact) WHERE coalesce(f.status, '') <> 'retracted' "
          "RETURN 'facts ' + coalesce(f.status, '-') AS what, count(*) AS n "
          "UNION ALL MATCH (e:Edit) RETURN 'edits' AS what, count(*) AS n")


def counts(kg) -> dict[str, int]:
    return {r["what"]: r["n"] for r in kg.query(COUNTS)[1]}


def load(kg, path: Path) -> list[str]:
    kg.clear()
    kg.ingest_edits(path, embed_relations=False)
    return [r["id"] for r in kg.query("MATCH (e:Edit) RETURN e.id AS id ORDER BY e.id")[1]]


def delete_command(settings, edit_ids: list[str]) -> subprocess.Popen:
    env = {**os.environ, "KGTOOL_HOME": str(settings.home), "KGTOOL_NEO4J_PORT": str(settings.neo4j_port),
           "KGTOOL_RUNTIME_DIR": str(settings.runtime_dir), "PYTHONPATH": str(REPO)}
    args = [sys.executable, "-m", "kgtool.cli", "delete"]
    for edit_id in edit_ids:
        args += ["--edit", edit_id]
    return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--file", type=Path, default=SHARED_DATA / "mquake-hard-dev.json")
    parser.add_argument("--cases", type=int, default=12)
    parser.add_argument("--delete", type=int, default=6, help="edits deleted by the other process")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--delay", type=float, default=0.5, help="seconds between the eval's start and the delete")
    args = parser.parse_args()

    cases = json.loads(args.file.read_text(encoding="utf-8"))[: args.cases]
    subset = Path(tempfile.mkdtemp(prefix="kgtool-ewd-")) / "cases.json"
    subset.write_text(json.dumps(cases), encoding="utf-8")
    rows, ok_all = [], True
    with bench_graph("1g", "256m", label="ewd") as kg:
        doomed = load(kg, subset)[: args.delete]
        kg.delete(edit=doomed)
        expected = counts(kg)
        log(f"the delete alone leaves {expected}")
        for rep in range(1, args.reps + 1):
            load(kg, subset)
            t0 = time.perf_counter()
            holder: dict = {}

            import threading

            def evaluate():
                try:
                    holder["report"] = kg.evaluate_mquake(subset, methods="care", agents="offline",
                                                          workers=args.workers).as_dict()
                except BaseException as exc:  # noqa: BLE001 - the figure is whether this ever happens
                    holder["error"] = f"{type(exc).__name__}: {exc}"

            thread = threading.Thread(target=evaluate)
            thread.start()
            time.sleep(args.delay)
            deleter = delete_command(kg.settings, doomed)
            _, delete_err = deleter.communicate(timeout=600)
            thread.join()
            seconds = time.perf_counter() - t0
            report = holder.get("report")
            running = kg.query("MATCH (r:Run {status: 'running'}) RETURN count(r) AS n")[1][0]["n"]
            after = counts(kg)
            same = after == expected
            ok = report is not None and deleter.returncode == 0 and running == 0 and same
            ok_all &= ok
            status = report["status"] if report else {}
            rows.append((rep, "yes" if report else f"NO ({holder.get('error', '')[:80]})", report["questions"] if report
                         else "-", status.get("failed", 0), deleter.returncode, running, "yes" if same else
                         f"NO {after}", f"{seconds:.1f}"))
            log(f"rep {rep}: report {'yes' if report else 'no'}, failed {status.get('failed', 0)}, delete exit "
                f"{deleter.returncode}{' ' + delete_err.strip()[-200:] if deleter.returncode else ''}, "
                f"running {running}, counts equal {same}")
    print(table(["rep", "report", "questions", "failed", "delete exit", "runs running", "counts = delete alone",
                 "seconds"], rows))
    print(f"all {args.reps} repetitions finished with a report and the delete's counts: {ok_all}")
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
