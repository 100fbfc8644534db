"""What `--help` and `-h` print, for `acp` and each of its commands: read without importing
what the commands need, and before any of them runs (a help does nothing else)."""

from __future__ import annotations

USAGE = """usage: acp [options]           serve the Agent Client Protocol on stdin/stdout
       acp setup [--provider P [--model M] [--base-url URL] [--api-key-env VAR] [--no-check]]
                               configure a model provider (asks in this terminal without flags)
       acp demo                a whole session with the offline model, printed
       acp doctor              versions, config, providers, store, MCP servers: for bug reports
       acp sessions list [--all] | show ID | export ID [--format ndjson|markdown] | delete ID
       acp serve [--listen HOST:PORT] [--tls-cert FILE --tls-key FILE] [options]
                               serve ACP on a TCP port (Streamable HTTP and WebSocket)
       acp connect URL [--token-env VAR] [--ca-file PATH]
                               bridge stdin/stdout to a remote ACP agent over a WebSocket
       acp help | --help | --version
       acp COMMAND --help      a command's own usage

options:
  --model ID          start-up model, as provider/model (offline selects the built-in model)
  --script FILE       with the offline model: replay this scripted conversation
  --data-dir DIR      where the session store lives (environment: REASONIX_ACP_DATA_DIR)
  --log-level LEVEL   stderr logging: debug, info, warning (default), error
                      (environment: REASONIX_ACP_LOG_LEVEL)
  --line-limit BYTES  longest accepted input line (default: 33554432)
  -h, --help          this text
"""

SETUP = """usage: acp setup [--provider P [--model M] [--base-url URL] [--api-key-env VAR] [--no-check]]

Configure a model provider: config.toml is edited in place (other tables and comments kept,
the previous file kept as config.toml.bak, the new one written with mode 0600). Without
--provider it asks for everything, in this terminal.

options:
  --provider P        deepseek, openai, ollama, lmstudio, vllm, llamacpp or openrouter
  --model M           the default model (else the preset's, or the endpoint's only one)
  --base-url URL      the endpoint, http:// or https:// (else the preset's)
  --api-key-env VAR   store the name of the variable that holds the key, not the key
  --no-check          write without checking the endpoint (GET /models) with the key
  -h, --help          this text

A provider that needs a key gets one: in a terminal it is asked without echo (the key, stored
in config.toml, or the name of the variable holding it); without a terminal, the key
config.toml has or the usual variable (DEEPSEEK_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY).
Exit status: 0 written; 1 the key was refused or the endpoint did not answer (nothing
written); 2 a usage or input problem (nothing written).
"""

DEMO = """usage: acp demo

Start `acp` with the offline model (no network, no key) and drive a whole session from a
client, printed: initialize, a new session, a prompt whose turn updates the plan through a
tool, a prompt cancelled midway, and a reload of the stored session.
"""

DOCTOR = """usage: acp doctor [--data-dir DIR]

What a bug report needs, secrets left out: versions; config.toml, whether it reads and what
of it is ignored; each provider, whether a key is set, whether it answers and what it serves;
the default model; the command sandbox; the project's instructions, commands and skills; the
session store; the MCP servers of config.toml. Exit status 0 when everything works, 1 when
something does not (the lines marked !).
"""

SESSIONS = """usage: acp sessions list [--all] | show ID | export ID [--format ndjson|markdown] | delete ID
                    [--data-dir DIR]

The session store, read as the agent writes it (--data-dir or REASONIX_ACP_DATA_DIR). ID is a
session id or a unique prefix of one, as `list` prints them. `acp sessions COMMAND --help`
says more of each command.
"""

SERVE = """usage: acp serve [--listen HOST:PORT] [--tls-cert FILE --tls-key FILE] [--allow-plaintext]
                 [--allow-origin ORIGIN] [--max-connections N] [--sessions-per-connection N]
                 [--idle-timeout S] [--orphan-timeout S] [--max-unread BYTES] [--model ID]
                 [--script FILE]
                 [--data-dir DIR] [--line-limit BYTES] [--log-level LEVEL]

Serve ACP on a TCP port, for an editor on another machine: one URL, http(s)://HOST:PORT/acp,
speaks the Streamable HTTP transport and takes WebSocket upgrades, as the official ACP SDK's
clients speak them; `acp connect URL` on the editor's side carries any editor there. Sessions
are shared: one opened on a connection can be loaded on another. The URL is printed on stderr;
SIGTERM or Ctrl-C stops it, sessions stored.

Every request needs `Authorization: Bearer TOKEN`: the token is REASONIX_ACP_TOKEN, else the
file serve-token in the config directory (made on first run, mode 0600; its path is printed).

options:
  --listen HOST:PORT      where to listen (default 127.0.0.1:8421; port 0 picks a free one)
  --tls-cert FILE, --tls-key FILE
                          serve https/wss with this certificate and key (PEM)
  --allow-plaintext       listen on a non-loopback address without TLS (a VPN, a tailnet);
                          refused otherwise, as the token would cross the network in clear
  --allow-origin ORIGIN   admit requests from this browser origin (repeatable); any other
                          request with an Origin header is refused
  --max-connections N     ACP connections at once (default 32)
  --sessions-per-connection N
                          sessions one connection may hold open (default 16)
  --idle-timeout S        end a connection whose client sent nothing for S seconds with no
                          request in flight (default 3600)
  --orphan-timeout S      end an HTTP connection none of whose streams was read for S seconds
                          (its client vanished; default 60)
  --max-unread BYTES      output that may wait for a client that does not read, per stream
                          (default 16777216); beyond it that client's connection ends
  --model, --script, --data-dir, --line-limit, --log-level
                          as for `acp` on stdin/stdout
  -h, --help              this text
"""

CONNECT = """usage: acp connect URL [--token-env VAR] [--ca-file PATH] [--line-limit BYTES]
                   [--log-level LEVEL]

Carry an editor's ACP connection (stdin/stdout) to a remote agent over a WebSocket: give an
editor `acp connect https://host/acp` as its agent command. http:// becomes ws://, https://
wss://. The token is read from REASONIX_ACP_TOKEN and sent as `Authorization: Bearer`, only in
the upgrade request; credentials in the URL are refused. A dropped connection is made again
(for up to a minute) and the editor's sessions reopened; requests it had in flight are
answered with an error.

options:
  --token-env VAR     read the token from VAR instead of REASONIX_ACP_TOKEN
  --ca-file PATH      trust the CAs in this PEM file instead of the system's (https, wss)
  --line-limit BYTES  longest accepted input line (default: 33554432)
  --log-level LEVEL   stderr logging: debug, info, warning (default), error
  -h, --help          this text

Exit status: 0 at end of input or after SIGTERM, 130 after SIGINT, 1 when the agent cannot be
reached or refuses (one line on stderr says why), 2 for a usage error.
"""

SESSION_COMMANDS = {
    "list": """usage: acp sessions list [--all] [--data-dir DIR]

The sessions that were prompted and are not archived, one a line: id, last update, turns,
folder, title. --all lists the sessions never prompted and the archived ones too (marked
[archived]).
""",
    "show": """usage: acp sessions show ID [--data-dir DIR]

One session's stored fields, and its checkpoints: what `/rewind N` would go back over.
""",
    "export": """usage: acp sessions export ID [--format ndjson|markdown] [--data-dir DIR]

One session's transcript: ndjson (the default) is one `session/update` payload a line, as a
`session/load` would replay it; markdown is for people.
""",
    "delete": """usage: acp sessions delete ID [--data-dir DIR]

Delete a session, its transcript and its checkpoints; refused while an agent has it open.
""",
}

HELP = {
    "setup": SETUP,
    "demo": DEMO,
    "doctor": DOCTOR,
    "serve": SERVE,
    "connect": CONNECT,
    "help": USAGE,
}


def help_for(args: list[str]) -> str | None:
    """The usage of the command `args` name when they ask for help (`-h`, `--help`, `acp
    help`), else None."""
    if not any(a in ("-h", "--help") for a in args) and args[:1] != ["help"]:
        return None
    if args[:1] == ["sessions"]:
        named = [a for a in args[1:] if a in SESSION_COMMANDS]
        return SESSION_COMMANDS[named[0]] if named else SESSIONS
    return HELP.get(args[0], USAGE) if args else USAGE
