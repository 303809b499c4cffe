#!/usr/bin/env python3
"""Checks and runs an unpacked payconform vector release with no Node at all (Python 3.8+, standard library only).

    python3 run-vectors.py --exec "CMD" [--allow-skips] [--fail-on-skip] [--ignore-codes] [--timeout S]
    python3 run-vectors.py --check-only

First every checksum is verified: SHA256SUMS (every file of the release) and the "sha256" map of index.json (every
file of the vector set); one mismatch ends the run (exit 2). Then CMD is started once and spoken to with the harness
protocol of `payconform vectors run` (vectors/README.md, "The harness"): a "hello" handshake, then one NDJSON line
per case on its stdin, one answer line per case on its stdout. Grading follows the harness: valid/invalid verdicts
and the error codes (unless --ignore-codes), exact signature bases, exact signed headers.

Exit codes (as `payconform vectors run`): 0 every case passed (or skips accepted with --allow-skips), 1 a case failed
or the run stopped early, 2 usage or checksum error, 3 the adapter did not start or answer the handshake,
4 INCOMPLETE (nothing failed but cases were skipped).
"""

import argparse
import collections
import hashlib
import json
import os
import queue
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROTOCOLS = (1, 2)
MAX_SILENT = 3


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(65536), b""):
            digest.update(block)
    return digest.hexdigest()


def check_sums(root):
    """Problems found in SHA256SUMS and in index.json's sha256 map (empty when everything matches)."""
    problems = []
    sums = os.path.join(root, "SHA256SUMS")
    if os.path.exists(sums):
        with open(sums, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line:
                    continue
                expected, _, name = line.partition("  ")
                path = os.path.join(root, name)
                if not os.path.isfile(path):
                    problems.append("%s: missing" % name)
                elif sha256_file(path) != expected:
                    problems.append("%s: checksum mismatch (SHA256SUMS)" % name)
    else:
        problems.append("SHA256SUMS: missing (is this an unpacked release?)")
    with open(os.path.join(root, "index.json"), encoding="utf-8") as f:
        index = json.load(f)
    for name, expected in sorted(index.get("sha256", {}).items()):
        path = os.path.join(root, name)
        if not os.path.isfile(path):
            problems.append("%s: missing" % name)
        elif sha256_file(path) != expected:
            problems.append("%s: checksum mismatch (index.json)" % name)
    return problems


# ---------------------------------------------------------------------------------------------------------------
# The cases as the harness sends them: key references resolved from keys.json
# ---------------------------------------------------------------------------------------------------------------


def resolve_key(keys, ref):
    entry = keys["keys"][ref["key"]]
    forms = dict(entry.get("public", {}))
    forms.update(entry.get("private", {}) or {})
    return {"format": ref["format"], "value": forms[ref["format"]]}


def message_input(keys, case):
    op, given = case["op"], dict(case["input"])
    if op == "sign":
        credentials = dict(given["credentials"])
        credentials["privateKey"] = resolve_key(keys, credentials["privateKey"])
        given["credentials"] = credentials
    elif op == "verify":
        apps = keys["verifiers"][given["verifier"]]
        given["verifier"] = {
            "applications": [
                {
                    "applicationId": a["applicationId"],
                    "applicationSecret": a["applicationSecret"],
                    "keys": [{"keyId": k["keyId"], "publicKey": resolve_key(keys, k["publicKey"])} for k in a["keys"]],
                }
                for a in apps
            ]
        }
    elif op == "webhook-verify":
        given["publicKey"] = resolve_key(keys, given["publicKey"])
    elif op in ("rfc9421-signature-base", "rfc9421-verify") and given.get("publicKey"):
        given["publicKey"] = resolve_key(keys, given["publicKey"])
    return given


# ---------------------------------------------------------------------------------------------------------------
# Grading (vectors/harness/compare.ts): ("pass"|"fail"|"skip"|"inexpressible", message)
# ---------------------------------------------------------------------------------------------------------------


def first_difference(a, b):
    la, lb = a.split("\n"), b.split("\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<no line>"
        y = lb[i] if i < len(lb) else "<no line>"
        if x != y:
            return "line %d: expected %s, received %s" % (i + 1, json.dumps(x), json.dumps(y))
    return "texts are equal"


def grade_verdict(case, result, key, ok, code, ignore_codes):
    verdict = result.get(key)
    if not isinstance(verdict, bool):
        return "fail", 'answer has no boolean "%s"' % key
    if case["result"] == "acceptable":
        return "pass", None
    if verdict != ok:
        return "fail", "rejected a valid case" if ok else "accepted an invalid case (expected %s)" % (code or "a rejection")
    if not ok and not ignore_codes and code is not None and result.get("code") != code:
        return "fail", "rejected with the wrong code: expected %s, received %s" % (code, json.dumps(result.get("code")))
    return "pass", None


def grade_base(expected, result, ignore_codes):
    if "error" in expected:
        if isinstance(result.get("signatureBase"), str):
            return "fail", "built a signature base where %s was expected" % expected["error"]
        if not ignore_codes and result.get("error") != expected["error"]:
            return "fail", "wrong error: expected %s, received %s" % (expected["error"], json.dumps(result.get("error")))
        return "pass", None
    base = result.get("signatureBase")
    if not isinstance(base, str):
        return "fail", 'answer has no string "signatureBase"'
    if base != expected["signatureBase"]:
        return "fail", "signature base differs at " + first_difference(expected["signatureBase"], base)
    return "pass", None


def grade_sign(expected, result):
    status = grade_base({"signatureBase": expected["signatureBase"]}, result, False)
    if status[0] != "pass":
        return status
    headers = result.get("headers")
    if not isinstance(headers, list) or not all(
        isinstance(h, list) and len(h) == 2 and all(isinstance(x, str) for x in h) for h in headers
    ):
        return "fail", '"headers" must be an array of [name, value] string pairs'
    got = collections.defaultdict(list)
    for name, value in headers:
        got[name.lower()].append(value)
    for name, value in expected["headers"]:
        if got.pop(name.lower(), []) != [value]:
            return "fail", "header %s: expected %s" % (name, json.dumps(value))
    if got:
        return "fail", "unexpected header(s) added: " + ", ".join(sorted(got))
    return "pass", None


def grade(case, answer, ignore_codes):
    if answer.get("unsupported") is True:
        return "skip", 'implementation does not support op "%s"' % case["op"]
    if answer.get("cannotExpress") not in (None, False):
        return "inexpressible", "implementation cannot express this case"
    error = answer.get("error")
    if isinstance(error, str) or (isinstance(error, dict) and isinstance(error.get("message"), str)):
        return "fail", "implementation reported an error: %s" % (error if isinstance(error, str) else error["message"])
    result = answer.get("result")
    if not isinstance(result, dict):
        return "fail", 'answer has neither "result" (an object), "error" nor "unsupported"'
    op, e = case["op"], case["expected"]
    if op == "digest":
        if "contentDigest" in e:
            return ("pass", None) if result.get("contentDigest") == e["contentDigest"] else ("fail", "wrong Content-Digest value")
        return grade_verdict(case, result, "valid", e["valid"], e.get("code"), ignore_codes)
    if op in ("signature-base", "rfc9421-signature-base"):
        return grade_base(e, result, ignore_codes)
    if op == "sign":
        return grade_sign(e, result)
    if op in ("verify", "webhook-verify", "parse-key"):
        status = grade_verdict(case, result, "ok", e["ok"], e.get("code"), ignore_codes)
        if op == "parse-key" and status[0] == "pass" and e["ok"] and case["result"] != "acceptable":
            if result.get("publicKey") != e.get("publicKey"):
                return "fail", "parsed to a different public key"
        return status
    if op == "rfc9421-verify":
        return grade_verdict(case, result, "ok", e["ok"], None, ignore_codes)
    return "fail", "unknown op %s" % op


# ---------------------------------------------------------------------------------------------------------------
# The adapter process
# ---------------------------------------------------------------------------------------------------------------


class Adapter:
    def __init__(self, command):
        self.proc = subprocess.Popen(
            command, shell=True, cwd=HERE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            universal_newlines=True, bufsize=1, start_new_session=True,
        )
        self.lines = queue.Queue()
        self.stderr = collections.deque(maxlen=8)
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines.put, True), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr.append, False), daemon=True).start()

    @staticmethod
    def _pump(stream, sink, mark_end):
        for line in stream:
            sink(line.rstrip("\r\n"))
        if mark_end:
            sink(None)  # end of stdout: the adapter exited

    def send(self, message):
        try:
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def next_answer(self, timeout):
        """("answer", dict) | ("garbage", line) | ("timeout", None) | ("exited", code)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return "timeout", None
            if line is None:
                return "exited", self.proc.wait()
            if line.strip() == "":
                continue
            try:
                value = json.loads(line)
            except ValueError:
                return "garbage", line[:200]
            return ("answer", value) if isinstance(value, dict) else ("garbage", line[:200])

    def stop(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=1)
        except Exception:
            self.proc.kill()


def handshake(adapter, timeout, case_timeout_ms):
    """The protocol agreed, or ("aborted", reason)."""
    hello = {"id": "#hello", "op": "hello",
             "input": {"protocolVersions": list(PROTOCOLS), "harness": "payconform run-vectors.py",
                       "caseTimeoutMs": case_timeout_ms}}
    if not adapter.send(hello):
        return "aborted", "the implementation is not running"
    while True:
        kind, value = adapter.next_answer(timeout)
        if kind == "timeout":
            return "aborted", 'the implementation did not answer the "hello" handshake within %s s' % timeout
        if kind == "exited":
            return "aborted", 'the implementation exited with code %s before answering the "hello" handshake' % value
        if kind == "garbage":
            return "ok", 1
        if value.get("id") not in (None, "#hello"):
            continue
        result = value.get("result")
        if not isinstance(result, dict):
            return "ok", 1
        if result.get("protocol") not in PROTOCOLS:
            return "aborted", "the implementation chose protocol %s" % json.dumps(result.get("protocol"))
        return "ok", result["protocol"]


def load_cases(root):
    with open(os.path.join(root, "index.json"), encoding="utf-8") as f:
        index = json.load(f)
    with open(os.path.join(root, index["keys"]), encoding="utf-8") as f:
        keys = json.load(f)
    cases = []
    for entry in index["files"]:
        with open(os.path.join(root, entry["path"]), encoding="utf-8") as f:
            cases.extend((entry["path"], c) for c in json.load(f)["cases"])
    return index, keys, cases


def run_cases(adapter, keys, cases, args):
    counts = collections.Counter()
    silent = 0
    for position, (path, case) in enumerate(cases):
        if not adapter.send({"id": case["id"], "op": case["op"], "input": message_input(keys, case)}):
            return counts, "the implementation is not running", len(cases) - position
        while True:
            kind, value = adapter.next_answer(args.timeout)
            if kind == "answer" and value.get("id") not in (None, case["id"]):
                continue  # a late answer to an earlier case
            break
        if kind == "answer":
            silent = 0
            status, message = grade(case, value, args.ignore_codes) if "id" in value else ("fail", 'answer has no "id"')
        elif kind == "garbage":
            status, message = "fail", "implementation printed a line that is not a JSON object: " + json.dumps(value)
        elif kind == "timeout":
            silent += 1
            status, message = "fail", "no answer within %s s" % args.timeout
        else:
            status, message = "fail", "the implementation exited with code %s before answering" % value
        counts[status] += 1
        if status != "pass" or args.verbose:
            print("%s %s (%s, %s)%s" % (status.upper(), case["id"], path, case["op"], ": " + message if message else ""))
        if kind == "exited":
            return counts, "the implementation exited", len(cases) - position - 1
        if silent >= MAX_SILENT:
            return counts, "the implementation gave no answer to %d cases in a row" % MAX_SILENT, len(cases) - position - 1
    return counts, None, 0


def main():
    parser = argparse.ArgumentParser(description="Check and run the payconform vectors without Node.")
    parser.add_argument("--exec", dest="command", help="the adapter command (run through the shell, in this folder)")
    parser.add_argument("--check-only", action="store_true", help="verify the checksums and exit")
    parser.add_argument("--allow-skips", action="store_true", help="skipped cases do not make the run INCOMPLETE")
    parser.add_argument("--fail-on-skip", action="store_true", help="skipped cases fail the run")
    parser.add_argument("--ignore-codes", action="store_true", help="compare verdicts only, not error codes")
    parser.add_argument("--timeout", type=float, default=5.0, help="per-case timeout in seconds (default 5)")
    parser.add_argument("--startup-timeout", type=float, default=30.0, help="handshake timeout (default 30)")
    parser.add_argument("--verbose", action="store_true", help="list passing cases too")
    args = parser.parse_args()
    problems = check_sums(HERE)
    if problems:
        print("checksums: %d problem(s):\n  %s" % (len(problems), "\n  ".join(problems)), file=sys.stderr)
        return 2
    index, keys, cases = load_cases(HERE)
    print("payconform vectors %s: checksums verified (%d files)" % (index["version"], len(index["sha256"])))
    if args.check_only:
        return 0
    if not args.command:
        parser.error("--exec CMD is required (or --check-only)")
    adapter = Adapter(args.command)
    try:
        state, value = handshake(adapter, args.startup_timeout, int(args.timeout * 1000))
        if state == "aborted":
            time.sleep(0.1)
            print("ERROR the implementation did not start: %s" % value)
            for line in adapter.stderr:
                if line:
                    print("  stderr: " + line)
            print("no case run (%d in the set)\nverdict: NOT STARTED" % len(cases))
            return 3
        counts, aborted, not_run = run_cases(adapter, keys, cases, args)
    finally:
        adapter.stop()
    total = sum(counts.values())
    skipped = counts["skip"] + counts["inexpressible"]
    print("%s%d cases: %d passed, %d failed, %d skipped%s%s" % (
        "run stopped early: %s\n" % aborted if aborted else "", total, counts["pass"], counts["fail"], counts["skip"],
        ", %d cannot be expressed" % counts["inexpressible"] if counts["inexpressible"] else "",
        ", %d not run" % not_run if not_run else ""))
    if counts["fail"] or not_run or (skipped and args.fail_on_skip):
        print("verdict: FAIL")
        return 1
    if skipped and not args.allow_skips:
        print("verdict: INCOMPLETE (--allow-skips accepts skipped cases)")
        return 4
    print("verdict: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
