#!/bin/sh
# CI gate in plain shell: evaluate a scenario, write JUnit (for the CI dashboard) and a Markdown summary (for a
# pull-request comment), save the evidence, verify the certificate offline, and exit with the evaluation's
# verdict. The same steps as github-actions.yml, for any CI system.
#
#   sh examples/ci/aeh-gate.sh <scenario.json | catalog-id> [reports-dir]
#
# Environment:
#   AEH_AGENT          the agent under test, over the scenario's own: a registered agent's name, a JSON spec or
#                      a spec file (aeh evaluate --agent); needed for a scenario that names no agent
#   AEH_URL            evaluate on a running service (with AEH_API_KEY); unset: in-process, embedded store
#   AEH_API_KEY        the service's key (or a bearer token) when AEH_URL is set
#   AEH_JWKS           the key set to trust (file or URL); default: $AEH_URL/.well-known/jwks.json, else the one saved
#   AEH_ALLOW_WARNING  1: a warning passes the gate
#   AEH                how to run the CLI (default: npx --no-install aeh)
#
# Exit: 0 pass, 1 fail (or a certificate that does not verify), 2 warning, 3 error.
set -u
scenario=${1:?usage: aeh-gate.sh <scenario.json|catalog-id> [reports-dir]}
reports=${2:-aeh-reports}
aeh=${AEH:-npx --no-install aeh}

set -- evaluate "$scenario" --format junit --output "$reports/junit.xml" --summary "$reports/summary.md" --artifacts "$reports/evidence"
if [ -n "${AEH_AGENT:-}" ]; then set -- "$@" --agent "$AEH_AGENT"; fi
if [ -n "${AEH_URL:-}" ]; then set -- "$@" --url "$AEH_URL"; fi
if [ "${AEH_ALLOW_WARNING:-0}" = 1 ]; then set -- "$@" --allow-warning; fi
$aeh "$@"
verdict=$?

# The certificate is verified whatever the verdict: a failing run's evidence is worth as much as a passing one's.
if [ -f "$reports/evidence/certificate.json" ]; then
  jwks=${AEH_JWKS:-${AEH_URL:+$AEH_URL/.well-known/jwks.json}}
  jwks=${jwks:-$reports/evidence/jwks.json}
  trace=$(ls "$reports/evidence" | grep '\.jsonl$' | head -n 1)
  if ! $aeh verify "$reports/evidence/certificate.json" --trace "$reports/evidence/$trace" --sidecars "$reports/evidence" \
      --jwks "$jwks" --require-role Evaluator; then
    echo "aeh-gate: the certificate did not verify" >&2
    [ "$verdict" -eq 0 ] && verdict=1
  fi
elif [ "$verdict" -ne 3 ]; then
  echo "aeh-gate: no certificate was saved" >&2
  verdict=3
fi
exit "$verdict"
