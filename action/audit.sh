#!/usr/bin/env bash
# Step "audit" of action.yml: runs `payconform audit MODE` with the inputs, each passed as one argument (never through
# a shell's parsing), writes the Markdown report to $GITHUB_STEP_SUMMARY and verdict, exit-code and report to
# $GITHUB_OUTPUT, and fails when no check ran (a green step must mean checks passed). Exit: payconform's own code; 2 for
# a bad input; 1 when payconform exited 0 but its report shows no check ran or is missing.
set -uo pipefail

report_dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
json="$report_dir/payconform-report-$$.json"
markdown="$report_dir/payconform-summary-$$.md"

finish() {
  local verdict=$1 code=$2
  {
    echo "verdict=$verdict"
    echo "exit-code=$code"
    echo "report=$json"
  } >>"$GITHUB_OUTPUT"
  exit "$code"
}

usage_error() {
  echo "payconform action: $*" >&2
  echo "**payconform**: not run: $*" >>"$GITHUB_STEP_SUMMARY"
  finish error 2
}

# A single-value input holding a newline or other control character is refused: no URL, path or number has one.
single() {
  if [[ "$2" =~ [[:cntrl:]] ]]; then usage_error "input $1 must not hold a newline or other control character"; fi
}

exe=${PAYCONFORM_EXECUTABLE:-}
[[ -n "$exe" ]] || usage_error "no payconform executable (the install step did not run)"
mode=${PAYCONFORM_INPUT_MODE:-server}
case "$mode" in
server | client | webhooks) ;;
*) usage_error "input mode must be server, client or webhooks" ;;
esac
args=(audit "$mode")

target=${PAYCONFORM_INPUT_TARGET:-}
single target "$target"
if [[ -n "$target" ]]; then
  if [[ "$mode" == client ]]; then args+=(--exec "$target"); else args+=(--target "$target"); fi
fi
config=${PAYCONFORM_INPUT_CONFIG:-}
single config "$config"
if [[ -n "$config" ]]; then args+=(--config "$config"); fi
baseline=${PAYCONFORM_INPUT_BASELINE:-}
single baseline "$baseline"
if [[ -n "$baseline" ]]; then args+=(--baseline "$baseline"); fi
seconds=${PAYCONFORM_INPUT_EXPLORE_SECONDS:-}
if [[ -n "$seconds" ]]; then
  [[ "$mode" == server ]] || usage_error "input explore-seconds is for mode server only"
  [[ "$seconds" =~ ^[0-9]{1,5}$ ]] || usage_error "input explore-seconds must be a whole number of seconds"
  if ((10#$seconds == 0)); then args+=(--no-explore); else args+=(--explore-seconds "$((10#$seconds))"); fi
fi
# Multi-line inputs: one report, or one argument, a line; blank lines are skipped.
while IFS= read -r line; do
  if [[ -n "$line" ]]; then args+=(--report "$line"); fi
done <<<"${PAYCONFORM_INPUT_REPORTS:-}"
while IFS= read -r line; do
  if [[ -n "$line" ]]; then args+=("$line"); fi
done <<<"${PAYCONFORM_INPUT_ARGS:-}"
args+=(--report "json:$json" --report "markdown:$markdown")

"$exe" "${args[@]}"
code=$?

if [[ -s "$markdown" ]]; then
  cat "$markdown" >>"$GITHUB_STEP_SUMMARY"
else
  echo "**payconform audit $mode**: no report was written (exit $code); see the step's log." >>"$GITHUB_STEP_SUMMARY"
fi

# The report's counts: checks that ran are those passed, failed, warned or in error (skipped and n/a did not run).
flat=''
if [[ -f "$json" ]]; then flat=$(tr -d ' \n' <"$json"); fi
counts='"counts":\{"pass":([0-9]+),"fail":([0-9]+),"warn":([0-9]+),"skip":([0-9]+),"n/a":([0-9]+),"error":([0-9]+)\}'
if [[ "$flat" =~ $counts ]]; then
  ran=$((BASH_REMATCH[1] + BASH_REMATCH[2] + BASH_REMATCH[3] + BASH_REMATCH[6]))
else
  ran=0
fi
verdict=error
if [[ "$flat" =~ ^\{\"reportVersion\":\"[^\"]*\",\"tool\":\{[^}]*\},\"verdict\":\"([a-z]+)\" ]]; then
  verdict=${BASH_REMATCH[1]}
fi
if ((ran == 0)); then
  echo "payconform action: no check ran, so this step fails (exit $code from payconform)" >&2
  echo "" >>"$GITHUB_STEP_SUMMARY"
  echo "**payconform**: no check ran; the step fails." >>"$GITHUB_STEP_SUMMARY"
  if ((code == 0)); then code=1; fi
fi
finish "$verdict" "$code"
