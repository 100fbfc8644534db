"""`acp-conformance --agent "CMD ARGS"`: run the scenarios against an agent and report.

Progress goes to stderr, one line a scenario as it ends (`--quiet`: none), the report to stdout.
`--jobs N` runs N scenarios at once, on threads: each scenario has its own agent process,
directory, client and scripted model (run.py), so they share nothing but what is only read (the
scenarios, the schemas), the probe of the `reasonix` suite (made once, before any of its
scenarios runs) and stderr (whole lines, under a lock). The report keeps the scenarios' order
whatever order they end in.
Exit status: 0 when no MUST check failed, 1 when one did, 2 for a usage error. A stdout or
stderr whose reader is gone (`| head`) is let go without a word: `--list` still exits 0, and a
run goes on to write its --json/--junit reports and exits with its verdict.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
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

Each agent gets a home of its own, {tmp}/home, as HOME, with XDG_CONFIG_HOME, XDG_DATA_HOME,
XDG_STATE_HOME and XDG_CACHE_HOME under it, and of your environment only PATH, the locale,
TERM, TZ, the temp directory, the user and shell names, the proxy and CA bundle variables: your
own config of the agent (a default model of yours, a provider out of reach, a variable that
names either) is not what is tested. --keep-home gives it your home and your environment;
--env wins over both.

example:
  acp-conformance --agent "my-agent --acp --data-dir {tmp}/data" \\
      --env OPENAI_BASE_URL={model_url} --env OPENAI_API_KEY=x --wire-dir wire/

--auth-method ID names one of the agent's authMethods: core.auth.authenticate authenticates
with it (credentials the agent refuses make it SKIP, not FAIL) and then opens a session, which
must not be refused with auth_required (-32000). core.auth.logout logs out where the agent
advertises agentCapabilities.auth.logout: in the agent's own home, never in yours (SKIP with
--keep-home, or with HOME or XDG_* in --env). core.providers.set and core.providers.disable
change the agent's provider configuration where it advertises agentCapabilities.providers:
in its own home too, and SKIP in yours.

--jobs N runs N scenarios at once (0: one per CPU), each with its own agent process; the
report lists them in the same order as a run one after the other, and progress numbers them
as they end. An agent slow under that load may need a longer --timeout.

--wire-dir keeps, per scenario, <id>.ndjson (every line both ways and the agent's stderr,
each with its time "t") and <id>.model.ndjson (each request to the scripted model: the tools
offered, the messages, the reply given).
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="acp-conformance",
        description="Run the ACP conformance scenarios against an agent launched over stdio, "
        "or one served over the network (--url).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--agent",
        help='the agent\'s command line, e.g. "my-agent --stdio"; '
        "{tmp} and {cwd} are filled in per scenario",
    )
    p.add_argument(
        "--url",
        help="an agent served over the network instead of --agent: its ACP endpoint, e.g. "
        "http://127.0.0.1:8421/acp (docs/conformance.md: what is SKIP there)",
    )
    p.add_argument(
        "--transport",
        choices=("http", "ws"),
        default="http",
        help="with --url: Streamable HTTP (default) or WebSocket",
    )
    p.add_argument(
        "--token-env",
        default="REASONIX_ACP_TOKEN",
        metavar="VAR",
        help="with --url: the variable holding the bearer token (default REASONIX_ACP_TOKEN)",
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
    p.add_argument(
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N",
        help="scenarios run at once, each with its own agent process (default 1: one after "
        "another; 0: one per CPU); the report keeps the scenarios' order",
    )
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument(
        "--keep-home",
        action="store_true",
        help="give the agent your HOME, XDG_* directories and whole environment (default: each "
        "agent gets a home of its own under {tmp}/home and of your environment only what finds "
        "programs, the locale, the network and temp files, so your config of it is not what is "
        "tested)",
    )
    p.add_argument(
        "--auth-method",
        metavar="ID",
        help="an id of the agent's authMethods: core.auth.authenticate sends authenticate with "
        "it, then opens a session (SKIP without it, or when the agent does not advertise it)",
    )
    p.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="K=V",
        help="an environment variable for the agent (repeatable)",
    )
    return p


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        jobs = -1
    if jobs < 0:
        raise argparse.ArgumentTypeError(f"a number of scenarios at once, 0 or more: {text!r}")
    return jobs or os.cpu_count() or 1


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
        lines = []
        for s in picked:
            lines.append(f"{s.id}  [{s.suite}]  {s.title}\n")
            lines.extend(f"    {c.level:6} {c.id}  ({c.cite})\n" for c in s.checks)
        say("stdout", "".join(lines))
        return 0
    if not args.agent and not args.url:
        sys.stderr.write("acp-conformance: --agent or --url is required (or --list)\n")
        return 2
    if args.agent and args.url:
        sys.stderr.write("acp-conformance: --agent and --url name two agents: give one\n")
        return 2
    try:
        results = run_all(picked, settings_of(args), args)
    except CannotStart as exc:
        sys.stderr.write(f"acp-conformance: cannot start the agent: {exc}\n")
        return 2
    say("stdout", report.table(results))
    if args.json is not None:
        args.json.write_text(report.as_json(args.agent or args.url, results), encoding="utf-8")
    if args.junit is not None:
        report.junit(results, args.junit)
    return verdict(results)


def results_of(argv: list[str], scenarios: list[Scenario] | None = None) -> list[ScenarioResult]:
    """What `acp-conformance ARGV` runs (`--agent` given), run in this process as it runs them
    (`main`), the scenarios' results in their order, with no report written: for a program
    that judges the results itself and runs many such at once, each on threads of its own
    (the runner's calibration). `scenarios`: those to pick from, as loaded once (default:
    `load_all()`). Raises CannotStart where the command exits 2."""
    args = _parser().parse_args(argv)
    if not args.agent and not args.url:
        raise SystemExit("acp-conformance: --agent or --url is required")
    picked = chosen(args, load_all() if scenarios is None else scenarios)
    return run_all(picked, settings_of(args), args)


def settings_of(args: argparse.Namespace) -> Settings:
    env = dict(item.split("=", 1) for item in args.env if "=" in item)
    return Settings(
        args.agent or "",
        env,
        args.timeout,
        args.wire_dir,
        args.unanswered_timeout,
        args.start_timeout,
        args.keep_home,
        args.auth_method or "",
        url=args.url or "",
        token=os.environ.get(args.token_env, "") if args.url else "",
        transport=args.transport,
    )


def verdict(results: list[ScenarioResult]) -> int:
    """The exit status of a run: 1 when a MUST check failed, else 0."""
    failed = any(c.status == "fail" for r in results for c in r.checks)
    return 1 if failed else 0


def run_all(
    picked: list[Scenario], settings: Settings, args: argparse.Namespace
) -> list[ScenarioResult]:
    """Each scenario, `args.jobs` at a time, progress on stderr; the `reasonix` suite only
    after one probe found its surface advertised. The results are in the scenarios' order."""
    began = time.monotonic()
    progress = Progress(len(picked), args.quiet)
    surface = Surface(settings)

    def one(scenario: Scenario) -> ScenarioResult:
        started = time.monotonic()
        model: list[dict[str, Any]] = []
        if scenario.suite == "reasonix" and not surface.advertised():
            result, wire = probe.skipped_suite(scenario), ""
        else:
            result, wire, model = run(scenario, settings)
        if args.wire_dir is not None:
            keep(args.wire_dir, scenario.id, wire, model)
        progress.ended(result, time.monotonic() - started)
        return result

    jobs = min(args.jobs, len(picked))
    results = at_once(one, picked, jobs) if jobs > 1 else [one(s) for s in picked]
    progress.totals(results, time.monotonic() - began)
    return results


def at_once(
    one: Callable[[Scenario], ScenarioResult], picked: list[Scenario], jobs: int
) -> list[ScenarioResult]:
    """`one` of every scenario on `jobs` threads, the results in the scenarios' order. The
    first error (an agent that cannot start) stops the scenarios not started yet, waits for
    those running (each stops its agent) and is raised."""
    pool = ThreadPoolExecutor(jobs, thread_name_prefix="scenario")
    try:
        futures = [pool.submit(one, scenario) for scenario in picked]
        for future in as_completed(futures):
            future.result()
        return [future.result() for future in futures]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class Surface:
    """Whether the agent advertises the `reasonix` suite's surface: probed once, by the first
    scenario of the suite to start; the others wait for its answer."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.found: bool | None = None
        self._lock = threading.Lock()

    def advertised(self) -> bool:
        with self._lock:
            if self.found is None:
                self.found = probe.advertises_reasonix(self.settings)
            return self.found


class Progress:
    """Progress on stderr: a whole line a scenario as it ends, numbered in the order they
    end, then the totals (`quiet`: nothing)."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.total, self.quiet, self.done = total, quiet, 0
        self._lock = threading.Lock()

    def ended(self, result: ScenarioResult, took: float) -> None:
        if self.quiet:
            return
        with self._lock:
            self.done += 1
            line = f"[{self.done}/{self.total}] {result.status:7} {result.id} ({took:.1f} s)\n"
            say("stderr", line)

    def totals(self, results: list[ScenarioResult], took: float) -> None:
        if self.quiet:
            return
        counts = report.totals(results)["scenarios"]
        said = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
        say("stderr", f"{len(results)} scenarios in {took:.1f} s: {said}\n")


def say(stream: str, text: str) -> None:
    """`text` on sys.stdout or sys.stderr, flushed. When its reader is gone the stream goes to
    /dev/null from then on (so nothing more, not even the flush at exit, raises)."""
    target = getattr(sys, stream)
    try:
        target.write(text)
        target.flush()
    except BrokenPipeError:
        gone = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(gone, target.fileno())
        finally:
            os.close(gone)


def keep(folder: Path, sid: str, wire: str, model: list[dict[str, Any]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{sid}.ndjson").write_text(wire, encoding="utf-8")
    if model:
        lines = "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in model)
        (folder / f"{sid}.model.ndjson").write_text(lines, encoding="utf-8")
