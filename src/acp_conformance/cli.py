"""`acp-conformance --agent "CMD ARGS"`: run the scenarios against an agent and report.

Exit status: 0 when no MUST check failed, 1 when one did, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from acp_conformance import report
from acp_conformance.process import CannotStart
from acp_conformance.run import Settings, run
from acp_conformance.scenario import SUITES, Scenario, load_all


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="acp-conformance",
        description="Run the ACP conformance scenarios against an agent launched over stdio.",
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
    settings = Settings(args.agent, env, args.timeout, args.wire_dir)
    results = []
    for scenario in picked:
        try:
            result, wire = run(scenario, settings)
        except CannotStart as exc:
            sys.stderr.write(f"acp-conformance: cannot start the agent: {exc}\n")
            return 2
        results.append(result)
        if args.wire_dir is not None:
            args.wire_dir.mkdir(parents=True, exist_ok=True)
            (args.wire_dir / f"{scenario.id}.ndjson").write_text(wire, encoding="utf-8")
    sys.stdout.write(report.table(results))
    if args.json is not None:
        args.json.write_text(report.as_json(args.agent, results), encoding="utf-8")
    if args.junit is not None:
        report.junit(results, args.junit)
    failed = any(c.status == "fail" for r in results for c in r.checks)
    return 1 if failed else 0
