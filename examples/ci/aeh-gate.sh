#!/bin/sh
# CI gate in plain shell: evaluate a scenario, write JUnit (for the CI dashboard), a Markdown summary (for a
# pull-request comment) and the HTML report (for a reviewer), compare with the last run of the same scenario and
# agent, save the evidence, verify the certificate offline, and exit with the evaluation's verdict. The same
# steps as github-actions.yml, for any CI system.
#
#   sh examples/ci/aeh-gate.sh <scenario.json | catalog-id> [reports-dir]
#
# Environment:
#   AEH_AGENT          the agent under test, over the scenario's own: a registered agent's name, a JSON spec or
#                      a spec file (aeh evaluate --agent); needed for a scenario that names no agent
#   AEH_URL            evaluate on a running service (with AEH_API_KEY); unset: in-process, embedded store
#   AEH_API_KEY        the service's key (or a bearer token) when AEH_URL is set
#   AEH_JWKS           the key set to trust (file or URL); default: $AEH_URL/.well-known/jwks.json, else the one saved
#   AEH_BASELINE       what a regression is measured against: latest (default: the newest succeeded run of this
#                      scenario and agent; on an empty store, the first run has none and passes on its verdict),
#                      pinned (aeh baseline pin), a run id, or none to skip the comparison
#   AEH_MAX_REGRESSION the largest drop of the index or a dimension that is not a regression (default 0.05)
#   AEH_ALLOW_WARNING  1: a warning passes the gate
#   AEH_POLICY_AT_LEAST the weakest verdict policy the certificate may be signed under: default (the default: the
#                      service's defaults), a JSON policy file (each field a floor), or none to accept any
#   AEH_CLI            how to run the CLI (default: npx --no-install aeh). Not AEH: the README exports that
#                      as the service's address
#
# Exit: 0 pass, 1 fail (or a certificate that does not verify), 2 warning, 3 error, 4 regression.
set -u
scenario=${1:?usage: aeh-gate.sh <scenario.json|catalog-id> [reports-dir]}
reports=${2:-aeh-reports}
aeh=${AEH_CLI:-npx --no-install aeh}

set -- evaluate "$scenario" --format junit --output "$reports/junit.xml" --summary "$reports/summary.md" --artifacts "$reports/evidence" \
  --report "$reports/report.html"
baseline=${AEH_BASELINE:-latest}
if [ "$baseline" != none ]; then set -- "$@" --baseline "$baseline" --max-regression "${AEH_MAX_REGRESSION:-0.05}"; fi
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
  floor=${AEH_POLICY_AT_LEAST:-default}
  set -- verify "$reports/evidence/certificate.json" --trace "$reports/evidence/$trace" --sidecars "$reports/evidence" \
    --jwks "$jwks" --require-role Evaluator
  # A pass under a loosened policy (must_pass [], fail_on_severity critical…) is no pass for this gate.
  if [ "$floor" != none ]; then set -- "$@" --policy-at-least "$floor"; fi
  if ! $aeh "$@"; then
    echo "aeh-gate: the certificate did not verify" >&2
    [ "$verdict" -eq 0 ] && verdict=1
  fi
elif [ "$verdict" -ne 3 ]; then
  echo "aeh-gate: no certificate was saved" >&2
  verdict=3
fi
exit "$verdict"
