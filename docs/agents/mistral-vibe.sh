#!/bin/sh
# acp-conformance --agent "sh docs/agents/mistral-vibe.sh {tmp} {model_url}" --suite core,client,robustness
T="$1"; URL="$2"
export HOME="$T/home" VIBE_HOME="$T/vibe" SCRIPTED_API_KEY=unused
mkdir -p "$HOME" "$VIBE_HOME"
cat > "$VIBE_HOME/config.toml" <<TOML
active_model = "conf"
enable_telemetry = false
enable_update_checks = false
enable_notifications = false
show_greeting = false

[[providers]]
name = "scripted"
api_base = "$URL"
api_key_env_var = "SCRIPTED_API_KEY"
backend = "generic"

[[models]]
name = "conformance-model"
provider = "scripted"
alias = "conf"

[utility_models]
title = "active"
smart_approve = "active"
TOML
exec vibe-acp
