"""Results as people and tools read them: a table on stdout, JSON, JUnit XML.

JSON: `{"agent": CMD, "scenarios": [{"id", "suite", "status", "checks": [{"id", "level", "tier",
"status", "detail"}], "wire", "stderrTail"}], "totals": {...}, "tiers": {...}}`, statuses pass /
fail / warn / skip (and partial for a scenario whose checks partly passed and partly were
skipped). A scenario that failed or warned carries its wire transcript (both directions, long
lines cut) and the last lines of the agent's stderr. Tiers read like acp-tck's: a MUST is
mandatory, or capability where its scenario runs only for an advertised capability; a SHOULD
is advisory, a MAY informational.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from xml.etree import ElementTree as ET

from acp_conformance.results import ScenarioResult

MARK = {"pass": "ok  ", "fail": "FAIL", "warn": "warn", "skip": "skip", "partial": "part"}


def totals(results: list[ScenarioResult]) -> dict[str, dict[str, int]]:
    scenarios = Counter(r.status for r in results)
    checks = Counter(c.status for r in results for c in r.checks)
    keys = ("pass", "fail", "warn", "skip")
    return {
        "scenarios": {k: scenarios.get(k, 0) for k in (*keys, "partial")},
        "checks": {k: checks.get(k, 0) for k in keys},
    }


def table(results: list[ScenarioResult]) -> str:
    lines = []
    for r in results:
        lines.append(
            f"{MARK[r.status]}  {r.id}  {r.title}" + (f"  ({r.reason})" if r.reason else "")
        )
        for c in r.checks:
            if c.status in ("fail", "warn"):
                lines.append(f"        {MARK[c.status]} {c.level} {c.id}: {c.detail}")
                lines.append(f"             {c.cite}")
    t = totals(results)
    for what in ("scenarios", "checks"):
        counts = ", ".join(f"{n} {k}" for k, n in t[what].items())
        lines.append(f"{what}: {counts}")
    return "\n".join(lines) + "\n"


def tiers(results: list[ScenarioResult]) -> dict[str, dict[str, int]]:
    """Check statuses counted per tier (mandatory, capability, advisory, informational)."""
    counted: dict[str, dict[str, int]] = {
        t: {"pass": 0, "fail": 0, "warn": 0, "skip": 0}
        for t in ("mandatory", "capability", "advisory", "informational")
    }
    for r in results:
        for c in r.checks:
            counted[r.tier(c.level)][c.status] += 1
    return counted


def as_json(agent: str, results: list[ScenarioResult]) -> str:
    body = {
        "agent": agent,
        "scenarios": [
            {
                "id": r.id,
                "suite": r.suite,
                "status": r.status,
                **({"reason": r.reason} if r.reason else {}),
                "checks": [
                    {
                        "id": c.id,
                        "level": c.level,
                        "tier": r.tier(c.level),
                        "status": c.status,
                        "detail": c.detail,
                    }
                    for c in r.checks
                ],
                **({"wire": r.wire, "stderrTail": r.stderr_tail} if r.wire else {}),
            }
            for r in results
        ],
        "totals": totals(results),
        "tiers": tiers(results),
    }
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def junit(results: list[ScenarioResult], path: Path) -> None:
    suites = ET.Element("testsuites", name="acp-conformance")
    for suite in sorted({r.suite for r in results}):
        mine = [r for r in results if r.suite == suite]
        cases = [(r, c) for r in mine for c in r.checks]
        node = ET.SubElement(
            suites,
            "testsuite",
            name=suite,
            tests=str(len(cases)),
            failures=str(sum(c.status == "fail" for _, c in cases)),
            skipped=str(sum(c.status == "skip" for _, c in cases)),
        )
        for r, c in cases:
            case = ET.SubElement(node, "testcase", classname=r.id, name=f"{c.level} {c.id}")
            if c.status == "fail":
                ET.SubElement(case, "failure", message=c.detail).text = c.cite
            elif c.status == "skip":
                ET.SubElement(case, "skipped", message=c.detail)
            elif c.status == "warn":
                ET.SubElement(case, "system-out").text = f"warning: {c.detail}"
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)
