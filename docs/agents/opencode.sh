#!/bin/sh
# acp-conformance --agent "sh docs/agents/opencode.sh {tmp} {model_url}" --suite core,client,robustness
T="$1"; URL="$2"; shift 2
mkdir -p "$T/home" "$T/xdg/data" "$T/xdg/config" "$T/xdg/cache" "$T/xdg/state"
cat > "$T/opencode.json" <<JSON
{
  "\$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "conformance": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Conformance",
      "options": { "baseURL": "$URL", "apiKey": "unused" },
      "models": { "conformance-model": { "name": "conformance-model", "tool_call": true } }
    }
  },
  "model": "conformance/conformance-model",
  "small_model": "conformance/conformance-model"
}
JSON
export HOME="$T/home" XDG_DATA_HOME="$T/xdg/data" XDG_CONFIG_HOME="$T/xdg/config" \
  XDG_CACHE_HOME="$T/xdg/cache" XDG_STATE_HOME="$T/xdg/state" OPENCODE_CONFIG="$T/opencode.json" \
  OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_SHARE=1 \
  OPENCODE_DISABLE_LSP_DOWNLOAD=1
exec opencode acp "$@"
