#!/bin/sh
# acp-conformance --agent "sh docs/agents/gptme-acp.sh {tmp} {model_url}" --suite core,client,robustness
T="$1"; URL="$2"
export HOME="$T/home" XDG_CONFIG_HOME="$T/home/.config" XDG_DATA_HOME="$T/home/.local/share" XDG_STATE_HOME="$T/home/.local/state"
export OPENAI_BASE_URL="$URL" OPENAI_API_KEY=unused MODEL=local/conformance-model
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME"
exec gptme-acp
