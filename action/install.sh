#!/usr/bin/env bash
# Step "install" of action.yml: the payconform executable this run uses, written to $GITHUB_OUTPUT as `executable`.
# Either the path given in the `executable` input, or the release for this machine downloaded from `release-url` (the
# version asked for; by default the action's own package.json version, so a workflow pinning the action at a tag gets
# payconform of that tag). A download is checked against the SHA-256 pinned in this action (action/checksums.txt,
# written at the release by `npm run release:pin`), or against the `checksum` input when one is given, never against
# a file fetched beside it; it is not run, not even for --version, before its digest matches. It lands in a fresh
# private folder (mktemp -d, mode 700), never in a predictable path a planted link could redirect. Downloads are
# https:// only: plain http:// is for this repository's tests, and only to 127.0.0.1, localhost or [::1] when
# PAYCONFORM_ACTION_TEST_HTTP_LOOPBACK=1 is set. Inputs arrive as environment variables only.
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
protocol='=https'
if [[ "$base" =~ ^https://[^[:space:][:cntrl:]]+$ ]]; then
  :
elif [[ "${PAYCONFORM_ACTION_TEST_HTTP_LOOPBACK:-}" == 1 &&
  "$base" =~ ^http://(127\.0\.0\.1|localhost|\[::1\])(:[0-9]+)?(/[^[:space:][:cntrl:]]*)?$ ]]; then
  protocol='=http' # this repository's tests: a loopback mirror
else
  usage_error "input release-url must be an https:// URL"
fi

expected=${PAYCONFORM_INPUT_CHECKSUM:-}
if [[ -n "$expected" ]]; then
  [[ "$expected" =~ ^[0-9A-Fa-f]{64}$ ]] || usage_error "input checksum must be a SHA-256: 64 hexadecimal digits"
  expected=$(printf '%s' "$expected" | tr 'A-F' 'a-f')
fi

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

# The pin for this file name in action/checksums.txt (the same shape scripts/pin-action.ts writes and checks): notes
# start with #, every other line is one "<sha256>  <name>", each name once. A file that breaks this is refused.
pins="$GITHUB_ACTION_PATH/action/checksums.txt"
pinned=""
line_number=0
while IFS= read -r line || [[ -n "$line" ]]; do
  line_number=$((line_number + 1))
  [[ -z "$line" || "$line" == "#"* ]] && continue
  [[ "$line" =~ ^([0-9a-f]{64})\ \ (payconform-[0-9A-Za-z.-]+)$ ]] ||
    usage_error "action/checksums.txt line $line_number is not \"<sha256>  <file name>\": refusing to install"
  if [[ "${BASH_REMATCH[2]}" == "$name" ]]; then
    [[ -z "$pinned" ]] || usage_error "action/checksums.txt pins $name twice: refusing to install"
    pinned=${BASH_REMATCH[1]}
  fi
done <"$pins"
if [[ -z "$expected" ]]; then
  [[ -n "$pinned" ]] ||
    usage_error "this action pins no SHA-256 for $name (action/checksums.txt): use the action at the tag of" \
      "payconform $version, or give its SHA-256 in the checksum input"
  expected=$pinned
fi

# A fresh folder only this user can enter, under a random name: nothing planted beforehand can be in the way.
dir=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/payconform-$version.XXXXXXXXXX")
chmod 700 "$dir"
file="$dir/$name"
curl -fsSL --proto "$protocol" --proto-redir '=https' --max-redirs 5 --retry 3 --max-time 300 \
  --max-filesize 1000000000 -o "$file" "$base/v$version/$name"
actual=$(sha256sum -- "$file")
actual=${actual%% *}
if [[ "$actual" != "$expected" ]]; then
  rm -f -- "$file"
  usage_error "$name from $base has SHA-256 $actual, not the expected $expected: not running it"
fi
chmod 700 "$file"
[[ "$("$file" --version)" == "$version" ]] || usage_error "$name does not say it is version $version"
echo "executable=$file" >>"$GITHUB_OUTPUT"
