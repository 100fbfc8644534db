#!/bin/sh
# acp-conformance --agent "sh docs/agents/qwen-code.sh {tmp}" --env OPENAI_BASE_URL={model_url} \
#     --env OPENAI_API_KEY=unused --env OPENAI_MODEL=conformance-model --suite core,client,robustness
T="$1"; shift
mkdir -p "$T/home/.qwen"
printf "%s" '{"privacy":{"usageStatisticsEnabled":false}}' > "$T/home/.qwen/settings.json"
HOME="$T/home" exec qwen --acp --auth-type openai "$@"
