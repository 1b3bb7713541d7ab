#!/usr/bin/env python
"""Mutation testing of the core modules: plant one-line bugs, one at a time, and
report which ones the tests that cover each module fail to notice.

Mutants are made and run by cosmic-ray (``pip install -e '.[mutation]'``), one
module at a time, against that module's fast test files (``MODULE_TESTS``), in
a scratch copy of the checkout (the working tree is never touched, so other
work in it goes on). Sessions are kept in ``--workdir``: an interrupted run
resumes where it stopped; a module whose source and tests did not change is
not run again, and one whose tests changed runs its survivors only (a test
made weaker needs ``--fresh``).

Printed per module: mutants run, killed (a test failed or timed out), the kill
rate, and every surviving mutant (file, line, operator, old and new line). A
survivor listed in ``scripts/mutation_equivalents.json`` (keyed by module and
the mutant's stable description, with the reason it cannot change behaviour)
is shown as known equivalent; the others are new, and the exit status is 1
while there are any. Not part of CI: the whole run takes hours on two cores.

Usage::

    nice -n 15 .venv/bin/python scripts/mutation_test.py            # every module
    nice -n 15 .venv/bin/python scripts/mutation_test.py elo units  # some (names as --list shows)
    .venv/bin/python scripts/mutation_test.py --report              # results so far, runs nothing
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EQUIVALENTS = REPO / "scripts" / "mutation_equivalents.json"

#: module -> the fast tests that cover it (pytest arguments: files, node ids, ``-k`` expressions),
#: the smallest set that kills its mutants
MODULE_TESTS: dict[str, list[str]] = {
    "arts_metric/ratings/elo.py": ["tests/test_elo.py"],
    "arts_metric/ratings/bradley_terry.py": ["tests/test_elo.py"],
    "arts_metric/ratings/agreement.py": ["tests/test_agreement.py"],
    "arts_metric/scoring/units.py": ["tests/test_units.py"],
    # without the two tests that start fresh interpreters (20 s of the file's 28)
    "arts_metric/text/formulas.py": [
        "tests/test_readability.py",
        "-k",
        "not fresh_interpreter and not sockets_blocked",
    ],
    "arts_metric/ratings/stats.py": ["tests/test_stats.py"],
    "arts_metric/cscore.py": ["tests/test_cscore.py"],
    "arts_metric/llm/parsing.py": ["tests/test_llm_prompts.py"],
    "arts_metric/llm/cache.py": ["tests/test_llm_cache.py"],
    # without the five tests that run whole builds through the HTTP server (45 s)
    "arts_metric/builder/pipeline.py": [
        "tests/test_builder_pipeline.py",
        "tests/test_build_reliability.py",
        "tests/test_build.py",
        "-k",
        "not two_builds_on_one_folder and not timeouts_leave_matches and not cli_refuses "
        "and not killed_build_resumes_without_losing and not personas_and_runs_reach",
    ],
    # compute()'s assembly: the fast files that call score_texts (test_metric.py takes 75 s a run)
    "arts_metric/scoring/api.py": [
        "tests/test_scoring.py",
        "tests/test_scoring_helpers.py",
        "tests/test_metric_inputs.py",
        "tests/test_degenerate_outputs.py",
        "tests/test_config.py",
    ],
    "arts_metric/placement/interval.py": ["tests/test_placement_interval.py", "tests/test_placement.py"],
    "arts_metric/placement/result.py": ["tests/test_placement_result.py", "tests/test_placement.py"],
    "arts_metric/placement/api.py": ["tests/test_placement.py"],
    "arts_metric/placement/opponents.py": ["tests/test_placement_opponents.py", "tests/test_placement.py"],
    "arts_metric/placement/streams.py": ["tests/test_placement_opponents.py", "tests/test_placement.py"],
    "arts_metric/placement/asker.py": ["tests/test_placement_asker.py", "tests/test_placement.py"],
    "arts_metric/placement/exhaustive.py": ["tests/test_placement_exhaustive.py", "tests/test_placement.py"],
    "arts_metric/placement/elo_method.py": ["tests/test_placement_elo_method.py", "tests/test_placement.py"],
    "arts_metric/placement/mle.py": ["tests/test_placement_mle.py", "tests/test_placement.py"],
    "arts_metric/placement/rank_posterior.py": [
        "tests/test_placement_adaptive_model.py",
        "tests/test_placement_adaptive_search.py",
    ],
    "arts_metric/placement/adaptive.py": [
        "tests/test_placement_adaptive_model.py",
        "tests/test_placement_adaptive_search.py",
        "tests/test_placement_adaptive.py",
        "tests/test_placement.py",
    ],
}

#: cosmic-ray operators used: realistic one-line bugs (a sign, a boundary, a
#: flipped condition, an off-by-one constant, a skipped loop). The other
#: operators (e.g. ``+`` -> ``<<``) mostly make mutants any test kills at once.
OPERATORS = (
    "core/ReplaceBinaryOperator_Add_Sub",
    "core/ReplaceBinaryOperator_Sub_Add",
    "core/ReplaceBinaryOperator_Mul_Div",
    "core/ReplaceBinaryOperator_Div_Mul",
    "core/ReplaceBinaryOperator_FloorDiv_Div",
    "core/ReplaceBinaryOperator_Mod_FloorDiv",
    "core/ReplaceBinaryOperator_Pow_Mul",
    "core/ReplaceBinaryOperator_BitAnd_BitOr",
    "core/ReplaceBinaryOperator_BitOr_BitAnd",
    "core/ReplaceComparisonOperator_Eq_NotEq",
    "core/ReplaceComparisonOperator_NotEq_Eq",
    "core/ReplaceComparisonOperator_Lt_LtE",
    "core/ReplaceComparisonOperator_LtE_Lt",
    "core/ReplaceComparisonOperator_Gt_GtE",
    "core/ReplaceComparisonOperator_GtE_Gt",
    "core/ReplaceComparisonOperator_Lt_Gt",
    "core/ReplaceComparisonOperator_Gt_Lt",
    "core/ReplaceComparisonOperator_Is_IsNot",
    "core/ReplaceComparisonOperator_IsNot_Is",
    "core/ReplaceUnaryOperator_USub_UAdd",
    "core/ReplaceUnaryOperator_Delete_Not",
    "core/ReplaceUnaryOperator_Delete_Invert",
    "core/ReplaceTrueWithFalse",
    "core/ReplaceFalseWithTrue",
    "core/ReplaceAndWithOr",
    "core/ReplaceOrWithAnd",
    "core/ReplaceBreakWithContinue",
    "core/ReplaceContinueWithBreak",
    "core/NumberReplacer",
    "core/ZeroIterationForLoop",
    "core/AddNot",
)


#: bump when the mutant filters change (sessions are then made again)
FILTERS_VERSION = 2


def short_name(module: str) -> str:
    """``arts_metric/placement/mle.py`` -> ``placement/mle`` (the name on the command line)."""
    return module.removeprefix("arts_metric/").removesuffix(".py")


def _tool(name: str) -> str:
    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    if not found:
        sys.exit(f"{name} not found: install the mutation extra (pip install -e '.[mutation]')")
    return found


def _data_dir() -> str:
    sys.path.insert(0, str(REPO))
    from arts_metric.data import find_data_dir

    return str(find_data_dir())


def _checkout_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout.decode()
    return [f for f in out.split("\0") if f and (REPO / f).is_file()]


def _fingerprints(module: str, tests: list[str]) -> tuple[str, str]:
    """(mutants, tests): the first changes with the module's source, the operators or
    the filters (the session is then made again); the second with the test
    arguments, their files or conftest.py (the survivors are then run again).
    Other modules the tests import are not included: ``--fresh`` redoes a module."""
    mutants = hashlib.sha256("\n".join([*OPERATORS, f"filters v{FILTERS_VERSION}"]).encode())
    mutants.update((REPO / module).read_bytes())
    checks = hashlib.sha256()
    for rel in [*tests, "tests/conftest.py"]:
        path = rel.split("::")[0]
        checks.update(rel.encode() + b"\0" + ((REPO / path).read_bytes() if path.endswith(".py") else b""))
    return mutants.hexdigest()[:16], checks.hexdigest()[:16]


def _rerun_survivors(session: Path) -> int:
    """Forget the survivors' outcomes (the tests changed: they may be killed now); how many."""
    import sqlite3

    with sqlite3.connect(session) as conn:
        return conn.execute("DELETE FROM work_results WHERE test_outcome = 'SURVIVED'").rowcount


def _copy_checkout(dest: Path) -> None:
    """A fresh copy of the checkout's tracked and not-ignored files."""
    if dest.exists():
        shutil.rmtree(dest)
    for rel in _checkout_files():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, target)


def _test_command(tests: list[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-W", "ignore", *tests]


def _write_config(path: Path, module: str, tests: list[str]) -> None:
    exclude = "^(?!(?:" + "|".join(op.replace("/", "/") for op in OPERATORS) + ")$)"
    path.write_text(
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(module)}\n"
        "timeout = 600.0\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(shlex.join(_test_command(tests)))}\n\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n\n'
        "[cosmic-ray.filters.operators-filter]\n"
        f"exclude-operators = [{json.dumps(exclude)}]\n",
        encoding="utf-8",
    )


def _dump(session: Path) -> list[tuple[dict, dict | None]]:
    out = subprocess.run([_tool("cosmic-ray"), "dump", str(session)], capture_output=True, text=True, check=True)
    return [tuple(json.loads(line)) for line in out.stdout.splitlines() if line.strip()]


def run_module(module: str, workdir: Path, data_dir: str, fresh: bool) -> None:
    """Run (or resume) the session of one module in a scratch copy of the checkout:
    cosmic-ray makes the mutants, :func:`worker` runs them."""
    tests = MODULE_TESTS[module]
    name = short_name(module).replace("/", ".")
    session = workdir / f"{name}.sqlite"
    stamps = workdir / f"{name}.mutants", workdir / f"{name}.tests"
    now = _fingerprints(module, tests)
    before = tuple(p.read_text() if p.exists() else "" for p in stamps)
    remake = fresh or not session.exists() or before[0] != now[0]
    if not remake and before[1] != now[1]:
        print(f"{short_name(module)}: tests changed, {_rerun_survivors(session)} survivors to run again", flush=True)
        stamps[1].write_text(now[1])
    if not remake and all(r is not None for _, r in _dump(session)):
        print(f"{short_name(module)}: nothing to run (module and tests unchanged)", flush=True)
        return
    copy = workdir / "checkout"
    _copy_checkout(copy)
    env = dict(
        os.environ,
        ARTS_DATA_DIR=data_dir,
        PYTHONDONTWRITEBYTECODE="1",
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
    )
    config = workdir / f"{name}.toml"
    _write_config(config, module, tests)
    if remake:
        quiet = {"cwd": copy, "env": env, "check": True, "stdout": subprocess.DEVNULL}
        subprocess.run([_tool("cosmic-ray"), "init", str(config), str(session), "--force"], **quiet)
        subprocess.run([_tool("cr-filter-operators"), str(session), str(config)], **quiet)
        subprocess.run([_tool("cr-filter-pragma"), str(session)], **quiet)
        _skip_noise(session, (REPO / module).read_text(encoding="utf-8"))
        for path, value in zip(stamps, now):
            path.write_text(value)
    t0 = time.monotonic()
    subprocess.run([sys.executable, __file__, "--worker", str(session), *tests], cwd=copy, env=env, check=True)
    print(f"{short_name(module)}: done in {time.monotonic() - t0:.0f} s", flush=True)


def _annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) positions of the type annotations of a module that never evaluates
    them (``from __future__ import annotations``); none otherwise."""
    import ast

    tree = ast.parse(source)
    lazy = any(
        isinstance(n, ast.ImportFrom) and n.module == "__future__" and any(a.name == "annotations" for a in n.names)
        for n in tree.body
    )
    if not lazy:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            found += [
                a.annotation
                for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
                if a is not None and a.annotation is not None
            ]
            if node.returns is not None:
                found.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            found.append(node.annotation)
    return [((a.lineno, a.col_offset), (a.end_lineno, a.end_col_offset)) for a in found]


def _skip_noise(session: Path, module_source: str) -> None:
    """Mark as skipped the mutants that cannot tell anything: NumberReplacer's n-1
    twin (it makes n+1 and n-1 of every number; we keep n+1, as mutmut does) and
    changes inside type annotations that are never evaluated."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    spans = _annotation_spans(module_source)
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item in list(db.pending_work_items):
            mutation = item.mutations[0]
            why = None
            if mutation.operator_name == "core/NumberReplacer" and mutation.occurrence % 2 == 1:
                why = "n-1 twin"
            elif any(lo <= tuple(mutation.start_pos) < hi for lo, hi in spans):
                why = "in an unevaluated annotation"
            if why:
                db.set_result(item.job_id, WorkResult(output=why, worker_outcome=WorkerOutcome.SKIPPED))


#: imported once by the worker before it forks a test run per mutant (never arts_metric itself)
WARM_IMPORTS = (
    "numpy",
    "scipy.stats",
    "scipy.special",
    "scipy.optimize",
    "scipy.sparse",
    "pandas",
    "krippendorff",
    "textstat",
    "pyphen",
    "wordfreq",
    "httpx",
    "openai",
    "yaml",
    "tqdm",
    "pytest",
)


def _forked_pytest(tests: list[str], timeout: float) -> str:
    """Run pytest on ``tests`` in a forked child; "survived", "killed" or "timeout"."""
    import signal

    import pytest

    pid = os.fork()
    if pid == 0:  # the child: fresh imports of arts_metric, so it sees the mutated file
        code = 3
        try:
            os.setpgid(0, 0)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            code = int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", "-W", "ignore", *tests]))
        finally:
            os._exit(code)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return "survived" if os.waitstatus_to_exitcode(status) == 0 else "killed"
        if time.monotonic() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return "timeout"
        time.sleep(0.02)


def worker(session: Path, tests: list[str]) -> None:
    """Run every pending mutant of ``session`` (cwd: the scratch copy): write the
    mutated module, run its tests in a forked child, put the file back, record
    the outcome in the session (cosmic-ray's format, so its own tools read it).
    Forking from a process that already imported numpy, scipy and pytest saves
    their import time on every mutant."""
    import difflib
    import importlib

    sys.dont_write_bytecode = True
    sys.path.insert(0, os.getcwd())
    for name in WARM_IMPORTS:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    from cosmic_ray.mutating import mutate_code
    from cosmic_ray.plugins import get_operator
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    t0 = time.monotonic()
    if _forked_pytest(tests, timeout=3600) != "survived":
        sys.exit(f"{session.stem}: its tests fail without any mutation: {' '.join(_test_command(tests))}")
    baseline = time.monotonic() - t0
    timeout = max(60.0, 5.0 * baseline)
    with use_db(str(session), WorkDB.Mode.open) as db:
        items = list(db.pending_work_items)
        print(f"{session.stem}: {len(items)} mutants to run (tests take {baseline:.1f} s unmutated)", flush=True)
        t0 = time.monotonic()
        for i, item in enumerate(items, 1):
            mutation = item.mutations[0]
            path = Path(mutation.module_path)
            original = path.read_text(encoding="utf-8")
            operator = get_operator(mutation.operator_name)(**(mutation.operator_args or {}))
            mutated = mutate_code(original, operator, mutation.occurrence)
            if mutated is None:
                db.set_result(item.job_id, WorkResult(worker_outcome=WorkerOutcome.NO_TEST))
                continue
            path.write_text(mutated, encoding="utf-8")
            try:
                outcome = _forked_pytest(tests, timeout)
            finally:
                path.write_text(original, encoding="utf-8")
            diff = "\n".join(
                difflib.unified_diff(
                    original.split("\n"), mutated.split("\n"), f"a/{path}", f"b/{path}", lineterm="", n=0
                )
            )
            db.set_result(
                item.job_id,
                WorkResult(
                    worker_outcome=WorkerOutcome.NORMAL,
                    diff=diff,
                    output=outcome,
                    test_outcome=TestOutcome.SURVIVED if outcome == "survived" else TestOutcome.KILLED,
                ),
            )
            if i % 25 == 0:
                rate = (time.monotonic() - t0) / i
                print(f"  {i}/{len(items)} ({rate:.1f} s a mutant)", flush=True)


def _changed_lines(diff: str) -> tuple[str, str]:
    old = [ln[1:].strip() for ln in diff.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    new = [ln[1:].strip() for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    return " / ".join(old), " / ".join(new)


def survivors(session: Path, module: str) -> tuple[int, int, list[dict]]:
    """(mutants run, killed, survivors) of one session; a survivor has ``line``,
    ``operator``, ``old``, ``new`` and ``key``, its stable description (no line
    number: operator, old and new line, and ``#2``... when the same change occurs twice)."""
    run = killed = 0
    alive = []
    spans = _annotation_spans((REPO / module).read_text(encoding="utf-8"))
    for item, result in _dump(session):
        if result is None or result.get("worker_outcome") != "normal":
            continue
        if any(lo <= tuple(item["mutations"][0]["start_pos"]) < hi for lo, hi in spans):
            continue  # a session made before this filter existed
        run += 1
        if result.get("test_outcome") != "survived":
            killed += 1
            continue
        mutation = item["mutations"][0]
        old, new = _changed_lines(result.get("diff") or "")
        alive.append(
            {
                "line": mutation["start_pos"][0],
                "operator": mutation["operator_name"].removeprefix("core/"),
                "old": old,
                "new": new,
            }
        )
    alive.sort(key=lambda s: (s["line"], s["operator"], s["new"]))
    seen: Counter = Counter()
    for s in alive:
        base = f"{s['operator']}: {s['old']} => {s['new']}"
        seen[base] += 1
        s["key"] = base if seen[base] == 1 else f"{base} #{seen[base]}"
    return run, killed, alive


def report(modules: list[str], workdir: Path) -> int:
    """Print kill rates and survivors; returns the number of new (unexplained) survivors."""
    known = json.loads(EQUIVALENTS.read_text(encoding="utf-8")) if EQUIVALENTS.exists() else {}
    total_new = total_alive = total_known = 0
    reasons: Counter = Counter()
    rows = []
    for module in modules:
        session = workdir / f"{short_name(module).replace('/', '.')}.sqlite"
        if not session.exists():
            rows.append(f"{short_name(module):22s} not run yet")
            continue
        run, killed, alive = survivors(session, module)
        pending = sum(r is None for _, r in _dump(session))
        equivalent = known.get(module, {})
        rate = f"{100.0 * killed / run:5.1f}%" if run else "   -  "
        new = [s for s in alive if s["key"] not in equivalent]
        rows.append(
            f"{short_name(module):22s} {killed:4d}/{run:<4d} killed {rate}  survivors {len(alive):3d} "
            f"({len(alive) - len(new)} known equivalent, {len(new)} new)"
            + (f"  [{pending} not run]" if pending else "")
        )
        for s in alive:
            why = equivalent.get(s["key"])
            tag = f"equivalent: {why}" if why else "NEW"
            print(f"{module}:{s['line']}  {s['operator']}\n    - {s['old']}\n    + {s['new']}\n    [{tag}]")
            if why:
                reasons[why] += 1
        stale = sorted(set(equivalent) - {s["key"] for s in alive})
        for key in stale:
            print(f"{module}: listed as equivalent but no longer a survivor (remove it): {key}")
        total_alive += len(alive)
        total_known += len(alive) - len(new)
        total_new += len(new)
    print()
    print("\n".join(rows))
    print(f"\n{total_alive} survivors, {total_known} known equivalent, {total_new} new")
    for why, n in reasons.most_common():
        print(f"  {n:3d} x {why}")
    return total_new


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:  # internal: run_module's child process
        worker(Path(argv[1]), argv[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="modules to run (default: all), e.g. elo placement/mle")
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path(os.environ.get("TMPDIR", "/tmp")) / "arts-mutation",
        help="scratch copy of the checkout and the sessions (default: $TMPDIR/arts-mutation)",
    )
    parser.add_argument("--report", action="store_true", help="print the results so far, run nothing")
    parser.add_argument("--fresh", action="store_true", help="redo the modules' sessions from scratch")
    parser.add_argument("--list", action="store_true", help="list the modules and their test files")
    args = parser.parse_args(argv)
    by_name = {short_name(m): m for m in MODULE_TESTS}
    if args.list:
        for name, module in by_name.items():
            print(f"{name:22s} {shlex.join(MODULE_TESTS[module])}")
        return 0
    unknown = [m for m in args.modules if m not in by_name]
    if unknown:
        parser.error(f"unknown module(s) {', '.join(unknown)}; --list shows them")
    modules = [by_name[m] for m in args.modules] or list(MODULE_TESTS)
    args.workdir.mkdir(parents=True, exist_ok=True)
    if not args.report:
        data_dir = _data_dir()
        t0 = time.monotonic()
        for module in modules:
            run_module(module, args.workdir, data_dir, args.fresh)
        print(f"mutation run: {time.monotonic() - t0:.0f} s for {len(modules)} module(s)\n", flush=True)
    return 1 if report(modules, args.workdir) else 0


if __name__ == "__main__":
    sys.exit(main())
