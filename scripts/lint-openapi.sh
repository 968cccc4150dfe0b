#!/usr/bin/env bash
# Lints the document the routes build: Spectral `spectral:oas` and Redocly `recommended`, where any
# warning fails too (Redocly exits 0 on warnings, so its summary is checked). Allowed exceptions
# live in .redocly.lint-ignore.yaml, each with its reason.
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsx scripts/write-openapi.ts clients/typescript/openapi.json
npx spectral lint --fail-severity=warn clients/typescript/openapi.json
out=$(npx redocly lint clients/typescript/openapi.json 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -v '║\|╔\|╚'
if echo "$out" | grep -q 'You have [0-9]* warning'; then echo "redocly: warnings are not allowed (or allow-list them with a reason)"; exit 1; fi
