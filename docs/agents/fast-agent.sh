#!/bin/sh
# acp-conformance --agent "sh docs/agents/fast-agent.sh {tmp} {model_url} -x" --suite core,client,robustness
T="$1"; URL="$2"; shift 2
export HOME="$T/home"
mkdir -p "$HOME" "$T/fa"
cat > "$T/fa/fastagent.config.yaml" <<YAML
default_model: generic.conformance-model
generic:
  api_key: unused
  base_url: "$URL"
logger:
  level: warning
  progress_display: false
  show_chat: false
  show_tools: false
YAML
cd "$T" && exec fast-agent-acp --home "$T/fa" -c "$T/fa/fastagent.config.yaml" --model generic.conformance-model "$@"
