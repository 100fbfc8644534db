#!/bin/sh
# acp-conformance --agent "sh docs/agents/kimi-cli.sh {tmp} {model_url}" --suite core,client,robustness
T="$1"; URL="$2"
export HOME="$T/home" KIMI_SHARE_DIR="$T/kimi"
mkdir -p "$HOME" "$KIMI_SHARE_DIR/credentials"
cat > "$KIMI_SHARE_DIR/config.toml" <<TOML
default_model = "conf"
telemetry = false

[providers.scripted]
type = "openai_legacy"
base_url = "$URL"
api_key = "unused"

[models.conf]
provider = "scripted"
model = "conformance-model"
max_context_size = 128000
TOML
printf '{"access_token":"placeholder","refresh_token":"placeholder","expires_at":4102444800,"scope":"","token_type":"Bearer"}' > "$KIMI_SHARE_DIR/credentials/kimi-code.json"
exec kimi acp
