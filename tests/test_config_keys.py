"""config.toml as a new user writes it, mistakes included, against real `acp` processes: a key
the agent does not read is named (where, which, the nearest key it reads) once on stderr at
start and by `acp doctor`; a file that does not parse is said to be what it is, once."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.client import Client
from tests.sse_server import Server
from tests.test_setup_keys import fresh
from tests.transcript import Scenario, acp_command

# A provider that works (the OpenAI-compatible stand-in at URL), and two typos.
TYPOS = """default_model = "local/m"
max_step = 5
[providers.local]
kind = "openai"
base_url = "URL"
models = ["m"]
apikey = "oops"
"""

# Every key the documentation names, in every table: none of them is unknown.
EVERY_KEY = """default_model = "offline/default"
max_steps = 30
shell = "bash"
frame_budget_bytes = 65536
output_cap_bytes = 40000
pass_env = ["MY_TOKEN"]

[readiness]
require_checks = false

[budgets]
task_seconds = 600
task_tokens = 100000
task_cost = 1.5

[goal]
max_turns = 20
max_tokens = 2000000
max_seconds = 3600
no_progress_turns = 3

[subagents]
at_once = 2
max_steps = 10

[permissions]
deny_commands = ["rm"]
deny_paths = ["/etc/**"]

[sandbox]
mode = "off"
network = false
write_roots = ["/tmp/cache"]

[web]
allow = ["docs.python.org"]
deny = ["*.internal.example"]
search_url = "http://127.0.0.1:9/search"
fetch_seconds = 30

[context]
compact_at = 0.8
keep_turns = 2
default_window = 65536
result_cap_bytes = 32768

[context.windows]
"local/m" = 32768

[mcp_servers.docs]
command = "/nonexistent/docs-mcp"
args = ["-y"]
env = { DOCS_TOKEN = "x" }
cwd = "/tmp"

[mcp_servers.tracker]
type = "http"
url = "http://127.0.0.1:9/mcp"
headers = { Authorization = "Bearer x" }

[plugins]
paths = ["/nonexistent/plugins"]

[pricing]
currency = "USD"
include_defaults = true
off_peak_dates = ["2026-10-01"]

[pricing.models."local/m"]
input = 1.0
output = 2.0
cache_hit = 0.1

[providers.local]
kind = "openai"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "LOCAL_KEY"
models = ["m"]
context_window = 32768
vision = false
prices = { input = 1.0, output = 2.0 }

[providers.deepseek]
api_key = "sk-every-key-0000"
"""


def scenario(tmp: Path, text: str) -> Scenario:
    s = Scenario(tmp)
    s.env["HOME"] = str(tmp / "home")
    (tmp / "config").mkdir()
    (tmp / "config" / "config.toml").write_text(text, encoding="utf-8")
    return s


def started(tmp: Path, text: str) -> str:
    """What `acp --model offline` says on stderr through initialize and session/new."""
    c = Client(tmp, "--model", "offline", scenario=scenario(tmp, text))
    c.result("initialize", {"protocolVersion": 1})
    c.call("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})
    assert c.close() == 0
    return c.agent.stderr.decode()


def doctor(tmp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*acp_command(), "doctor"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env=fresh(tmp, REASONIX_ACP_SANDBOX="off"),
        cwd=tmp,
    )


def test_unknown_keys_are_named_once_at_start_with_the_nearest_known_key(
    tmp_path: Path,
) -> None:
    said = started(tmp_path, TYPOS.replace("URL", "http://127.0.0.1:9/v1"))
    lines = [line for line in said.splitlines() if "apikey" in line or "max_step" in line]
    assert len(lines) == 1, said
    (line,) = lines
    assert str(tmp_path / "config" / "config.toml") in line, line
    assert "max_step (did you mean max_steps?)" in line, line
    assert "[providers.local] apikey (did you mean api_key?)" in line, line


def test_doctor_names_unknown_keys_and_does_not_say_everything_works(tmp_path: Path) -> None:
    with Server() as server:
        server.models = ["m"]
        scenario(tmp_path, TYPOS.replace("URL", server.url))
        done = doctor(tmp_path)
    out = done.stdout
    assert done.returncode == 1, out
    assert "everything works" not in out
    assert "! config: max_step is not a key acp reads (did you mean max_steps?)" in out, out
    assert (
        "! config: [providers.local] apikey is not a key acp reads (did you mean api_key?)" in out
    ), out
    assert "apikey" not in done.stderr, done.stderr  # said once, in the report


def test_every_documented_key_is_known(tmp_path: Path) -> None:
    said = started(tmp_path, EVERY_KEY)
    assert "not a key" not in said and "does not read" not in said, said


BROKEN = 'default_model = "deepseek/deepseek-flash"\n[providers.deepseek\napi_key = "sk-x"\n'
WHERE = "(at line 2, column 20)"  # what the parser says of BROKEN


def test_a_file_that_does_not_parse_is_said_once_as_what_it_is_at_start(tmp_path: Path) -> None:
    c = Client(tmp_path, scenario=scenario(tmp_path, BROKEN))
    c.result("initialize", {"protocolVersion": 1})
    refused = c.call("session/new", {"cwd": c.scenario.vars["CWD"], "mcpServers": []})["error"]
    assert refused["code"] == -32000 and WHERE in refused["message"], refused
    assert c.close() == 0
    said = c.agent.stderr.decode()
    assert said.count(WHERE) == 1, said
    (line,) = [line for line in said.splitlines() if WHERE in line]
    assert "ignor" not in line and "no session starts until it is fixed" in line, line


def test_doctor_says_a_file_that_does_not_parse_once(tmp_path: Path) -> None:
    scenario(tmp_path, BROKEN)
    done = doctor(tmp_path)
    assert done.returncode == 1
    said = done.stdout + done.stderr
    assert said.count(WHERE) == 1, said
    assert "ignor" not in said, said


# A typo in each table whose parser checks its keys itself: named with the nearest key, as the
# keys of the other tables are, at start and by doctor.
TABLE_TYPOS = """[web]
alow = ["docs.python.org"]
[sandbox]
mod = "off"
[mcp_servers.docs]
comand = "/nonexistent/docs-mcp"
[mcp_servers.tracker]
type = "http"
url = "http://127.0.0.1:9/mcp"
heders = { Authorization = "Bearer x" }
"""
NEAREST = (
    "[web] alow (did you mean allow?)",
    "[sandbox] mod (did you mean mode?)",
    "[mcp_servers.docs] comand (did you mean command?)",
    "[mcp_servers.tracker] heders (did you mean headers?)",
)


def test_a_typo_in_a_table_checked_whole_is_named_with_the_nearest_key(tmp_path: Path) -> None:
    said = started(tmp_path / "start", TABLE_TYPOS)
    for typo in NEAREST:
        assert said.count(typo) == 1, (typo, said)
    (tmp_path / "doctor").mkdir()
    scenario(tmp_path / "doctor", TABLE_TYPOS)
    done = doctor(tmp_path / "doctor")
    assert done.returncode == 1, done.stdout
    for typo in NEAREST:
        sentence = typo.replace(" (did", " is not a key acp reads (did")
        assert done.stdout.count(sentence) == 1, (sentence, done.stdout)
    # The rest of each table applies; a server that cannot start without the key is the one
    # left out, the other still tried.
    (left_out,) = [line for line in done.stdout.splitlines() if "ignoring" in line]
    assert "[mcp_servers.docs]" in left_out and "command is required" in left_out, left_out
    assert "MCP server tracker (http" in done.stdout, done.stdout
