#!/usr/bin/env bash
# Step "install" of action.yml: the payconform executable this run uses, written to $GITHUB_OUTPUT as `executable`.
# Either the path given in the `executable` input, or the release for this machine downloaded from `release-url` and
# checked against its .sha256 (the version asked for; by default the action's own package.json version, so a workflow
# pinning the action at a tag gets payconform of that tag). Inputs arrive as environment variables only.
set -euo pipefail

usage_error() {
  echo "payconform action: $*" >&2
  exit 2
}

# A value written to $GITHUB_OUTPUT must be one line: a control character could add outputs of its own.
one_line() {
  if [[ "$2" =~ [[:cntrl:]] ]]; then usage_error "input $1 must not hold a newline or other control character"; fi
}

executable=${PAYCONFORM_INPUT_EXECUTABLE:-}
if [[ -n "$executable" ]]; then
  one_line executable "$executable"
  [[ -f "$executable" && -x "$executable" ]] || usage_error "input executable: no executable file at \"$executable\""
  echo "executable=$executable" >>"$GITHUB_OUTPUT"
  exit 0
fi

version=${PAYCONFORM_INPUT_VERSION:-}
if [[ -z "$version" ]]; then
  version=$(sed -n 's/^  "version": "\([^"]*\)",$/\1/p' "$GITHUB_ACTION_PATH/package.json" | head -n 1)
fi
version=${version#v}
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]] ||
  usage_error "input version must be a release such as 0.1.0, got \"$version\""
base=${PAYCONFORM_INPUT_RELEASE_URL:-}
[[ "$base" =~ ^https?://[^[:space:][:cntrl:]]+$ ]] || usage_error "input release-url must be an http(s) URL"

case "$(uname -s)" in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) usage_error "no payconform executable is released for $(uname -s)" ;;
esac
case "$(uname -m)" in
x86_64 | amd64) arch=x64 ;;
aarch64 | arm64) arch=arm64 ;;
*) usage_error "no payconform executable is released for $(uname -m)" ;;
esac

name="payconform-$version-$os-$arch"
dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/payconform-$version"
mkdir -p "$dir"
curl -fsSL --retry 3 --max-time 300 -o "$dir/$name" "$base/v$version/$name"
curl -fsSL --retry 3 --max-time 60 -o "$dir/$name.sha256" "$base/v$version/$name.sha256"
(cd "$dir" && sha256sum --check --strict --quiet "$name.sha256") ||
  usage_error "$name does not match its published SHA-256: not running it"
chmod +x "$dir/$name"
[[ "$("$dir/$name" --version)" == "$version" ]] || usage_error "$name does not say it is version $version"
echo "executable=$dir/$name" >>"$GITHUB_OUTPUT"
