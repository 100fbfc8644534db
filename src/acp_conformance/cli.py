"""`acp-conformance --agent "CMD ARGS"`: run the scenarios against an agent and report.

Progress goes to stderr, one line a scenario (`--quiet`: none), the report to stdout.
Exit status: 0 when no MUST check failed, 1 when one did, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from acp_conformance import probe, report
from acp_conformance.process import CannotStart
from acp_conformance.results import ScenarioResult
from acp_conformance.run import Settings, run
from acp_conformance.scenario import SUITES, Scenario, load_all

EPILOG = """placeholders, filled in per scenario in --agent and in --env values:
  {tmp}        a fresh directory for the scenario (gone after it)
  {cwd}        the scenario's workspace, {tmp}/ws: the session's cwd
  {model_url}  the scripted model's base URL (OpenAI-compatible, ends in /v1); scenarios
               that need the model are SKIP unless it appears somewhere

example:
  acp-conformance --agent "my-agent --acp --data-dir {tmp}/data" \\
      --env OPENAI_BASE_URL={model_url} --env OPENAI_API_KEY=x --wire-dir wire/

--wire-dir keeps, per scenario, <id>.ndjson (every line both ways and the agent's stderr,
each with its time "t") and <id>.model.ndjson (each request to the scripted model: the tools
offered, the messages, the reply given).
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="acp-conformance",
        description="Run the ACP conformance scenarios against an agent launched over stdio.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--agent",
        help='the agent\'s command line, e.g. "my-agent --stdio"; '
        "{tmp} and {cwd} are filled in per scenario",
    )
    p.add_argument(
        "--suite",
        default="core,client,robustness,reasonix",
        help="comma-separated suites (default: all)",
    )
    p.add_argument("--only", nargs="+", default=[], metavar="ID", help="run only these scenarios")
    p.add_argument("--skip", nargs="+", default=[], metavar="ID", help="leave these out")
    p.add_argument("--list", action="store_true", help="list the scenarios and their checks")
    p.add_argument("--json", type=Path, metavar="FILE", help="write the results as JSON")
    p.add_argument("--junit", type=Path, metavar="FILE", help="write the results as JUnit XML")
    p.add_argument("--wire-dir", type=Path, metavar="DIR", help="write each scenario's wire log")
    p.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds to wait for each response (default 10)",
    )
    p.add_argument(
        "--unanswered-timeout",
        type=float,
        default=3.0,
        metavar="S",
        help="seconds to wait for an answer that may never come, to a frame no ACP client "
        "sends (the robustness suite's bad frames; default 3)",
    )
    p.add_argument(
        "--start-timeout",
        type=float,
        default=30.0,
        metavar="S",
        help="seconds to wait for the first answer of each agent process, which may be slow "
        "to start (default 30)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="K=V",
        help="an environment variable for the agent (repeatable)",
    )
    return p


def chosen(args: argparse.Namespace, scenarios: list[Scenario]) -> list[Scenario]:
    suites = {s.strip() for s in args.suite.split(",") if s.strip()}
    unknown = suites - set(SUITES)
    if unknown:
        raise SystemExit(f"acp-conformance: unknown suite {sorted(unknown)[0]!r}")
    picked = [s for s in scenarios if s.suite in suites and s.id not in args.skip]
    if args.only:
        missing = set(args.only) - {s.id for s in scenarios}
        if missing:
            raise SystemExit(f"acp-conformance: no scenario {sorted(missing)[0]!r}")
        picked = [s for s in picked if s.id in args.only]
    return picked


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    picked = chosen(args, load_all())
    if args.list:
        for s in picked:
            sys.stdout.write(f"{s.id}  [{s.suite}]  {s.title}\n")
            for c in s.checks:
                sys.stdout.write(f"    {c.level:6} {c.id}  ({c.cite})\n")
        return 0
    if not args.agent:
        sys.stderr.write("acp-conformance: --agent is required (or --list)\n")
        return 2
    env = dict(item.split("=", 1) for item in args.env if "=" in item)
    settings = Settings(
        args.agent, env, args.timeout, args.wire_dir, args.unanswered_timeout, args.start_timeout
    )
    try:
        results = run_all(picked, settings, args)
    except CannotStart as exc:
        sys.stderr.write(f"acp-conformance: cannot start the agent: {exc}\n")
        return 2
    sys.stdout.write(report.table(results))
    if args.json is not None:
        args.json.write_text(report.as_json(args.agent, results), encoding="utf-8")
    if args.junit is not None:
        report.junit(results, args.junit)
    failed = any(c.status == "fail" for r in results for c in r.checks)
    return 1 if failed else 0


def run_all(
    picked: list[Scenario], settings: Settings, args: argparse.Namespace
) -> list[ScenarioResult]:
    """Each scenario in turn, progress on stderr; the `reasonix` suite only after one probe
    found its surface advertised."""
    results: list[ScenarioResult] = []
    surface: bool | None = None
    began = time.monotonic()
    for number, scenario in enumerate(picked, 1):
        started = time.monotonic()
        if scenario.suite == "reasonix" and surface is None:
            surface = probe.advertises_reasonix(settings)
        model: list[dict[str, Any]] = []
        if scenario.suite == "reasonix" and not surface:
            result, wire = probe.skipped_suite(scenario), ""
        else:
            result, wire, model = run(scenario, settings)
        results.append(result)
        if args.wire_dir is not None:
            keep(args.wire_dir, scenario.id, wire, model)
        if not args.quiet:
            took = time.monotonic() - started
            sys.stderr.write(
                f"[{number}/{len(picked)}] {result.status:7} {scenario.id} ({took:.1f} s)\n"
            )
    if not args.quiet:
        counts = report.totals(results)["scenarios"]
        said = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
        took = time.monotonic() - began
        sys.stderr.write(f"{len(results)} scenarios in {took:.1f} s: {said}\n")
    return results


def keep(folder: Path, sid: str, wire: str, model: list[dict[str, Any]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{sid}.ndjson").write_text(wire, encoding="utf-8")
    if model:
        lines = "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in model)
        (folder / f"{sid}.model.ndjson").write_text(lines, encoding="utf-8")
