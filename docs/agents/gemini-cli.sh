#!/bin/sh
# acp-conformance --agent "sh docs/agents/gemini-cli.sh {tmp}" --env GEMINI_API_KEY=unused --suite core,client,robustness
# (Gemini API only: the scenarios that need a model are SKIP)
T="$1"; shift
mkdir -p "$T/home/.gemini"
printf '%s' '{"privacy":{"usageStatisticsEnabled":false},"security":{"auth":{"selectedType":"gemini-api-key"}}}' > "$T/home/.gemini/settings.json"
HOME="$T/home" exec gemini --acp "$@"
