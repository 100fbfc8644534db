"""The session axes a client can change: mode, model, effort, tool approval.

`modes` and `configOptions` are built here from a session's current values; sessions.py decides
when a change applies (at once, after a rebuild, or after the running turn).
"""

from __future__ import annotations

from typing import Any

from reasonix_acp.config import Config

MODES = [
    ("normal", "Normal", "Work on the request directly; stop to ask when input is needed"),
    ("plan", "Plan", "Investigate and propose a plan before changing anything"),
    ("goal", "Goal", "Treat the next prompt as a goal and keep going until it is done or blocked"),
]
MODE_IDS = [m[0] for m in MODES]
# Accepted for older hosts, never advertised: each means `normal` plus a tool approval preset.
LEGACY_MODES = {"default": "read-only", "auto": "workspace-write"}

APPROVALS = [
    ("read-only", "Read only", "Read inside the workspace; ask before any write or command"),
    (
        "workspace-write",
        "Workspace access",
        "Write inside the workspace and the session's temp directory; ask for the rest",
    ),
    ("danger-full-access", "Full access", "No ordinary prompts; explicit deny rules still apply"),
]
DEFAULT_APPROVAL = "workspace-write"

CONFIG_ALIASES = {
    "models": "model",
    "reasoning_effort": "effort",
    "thought_level": "effort",
    "profile": "work_mode",
    "runtime_profile": "work_mode",
    "token_mode": "work_mode",
    "approval": "tool_approval",
    "approval_mode": "tool_approval",
    "tool_approval_mode": "tool_approval",
}
RETIRED = ("work_mode", "agent_preset", "quality_floor")
RETIRED_VALUES = frozenset(
    [
        "light",
        "economy",
        "eco",
        "lite",
        "save",
        "saving",
        "low",
        "minimal",
        "standard",
        "normal",
        "balanced",
        "full",
        "delivery",
        "deliver",
        "quality",
    ]
) | {""}
DEPRECATED_NOTICE = "Execution modes are retired: this setting is accepted for compatibility and standard execution is used."


def normalise_config_id(config_id: str) -> str:
    key = config_id.strip()
    return CONFIG_ALIASES.get(key, key)


def retired_value_ok(value: str) -> bool:
    return value.strip().lower() in RETIRED_VALUES


def modes_state(current: str) -> dict[str, Any]:
    return {
        "currentModeId": current,
        "availableModes": [{"id": i, "name": n, "description": d} for i, n, d in MODES],
    }


def models_state(config: Config, current: str) -> dict[str, Any]:
    """The legacy `models` block (vendor schema legacy.json): the `model` option's values, for
    hosts that read `availableModels` instead of the config option."""
    return {
        "currentModelId": current,
        "availableModels": [
            {"modelId": m, "name": m, "description": m.partition("/")[0]}
            for m in model_options(config, current)
        ],
    }


def model_options(config: Config, current: str) -> list[str]:
    ids = config.model_ids()
    if current not in ids:
        ids.append(current)
    return ids


def _select(
    option_id: str, name: str, category: str, current: str, options: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "id": option_id,
        "name": name,
        "category": category,
        "type": "select",
        "currentValue": current,
        "options": options,
    }


def config_options(
    config: Config, model: str, effort: str, approval: str, mode: str = "normal"
) -> list[dict[str, Any]]:
    """The session's config options. The first is the mode, the same axis as `modes` (a client
    that reads config options may ignore `modes`): both change together."""
    options = [
        _select(
            "mode",
            "Mode",
            "mode",
            mode,
            [{"value": i, "name": n, "description": d} for i, n, d in MODES],
        ),
        _select(
            "model",
            "Model",
            "model",
            model,
            [
                {"value": m, "name": m, "description": m.partition("/")[0]}
                for m in model_options(config, model)
            ],
        ),
    ]
    efforts = config.efforts_for(model)
    if efforts:
        options.append(
            _select(
                "effort",
                "Effort",
                "thought_level",
                effort if effort in efforts else config.default_effort(model),
                [{"value": e, "name": e[:1].upper() + e[1:]} for e in efforts],
            )
        )
    options.append(
        _select(
            "tool_approval",
            "Permissions",
            "_tool_approval",  # no spec category fits; names without `_` are the spec's
            approval,
            [{"value": v, "name": n, "description": d} for v, n, d in APPROVALS],
        )
    )
    return options


def advertised_values(options: list[dict[str, Any]], option_id: str) -> list[str] | None:
    for option in options:
        if option["id"] == option_id:
            return [o["value"] for o in option["options"]]
    return None
