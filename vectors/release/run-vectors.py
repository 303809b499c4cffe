#!/usr/bin/env python3
"""Checks and runs an unpacked payconform vector release with no Node at all (Python 3.8+, standard library only).

    python3 run-vectors.py --exec "CMD" [--only FILE|OP|ID,...] [--report junit|json:PATH] [--allow-skips]
                           [--fail-on-skip] [--ignore-codes] [--timeout S] [--verbose]
    python3 run-vectors.py --check-only

First every checksum is verified: SHA256SUMS (every file of the release) and the "sha256" map of index.json (every
file of the vector set); one mismatch ends the run (exit 2). Then CMD is started once and spoken to with the harness
protocol of `payconform vectors run` (vectors/README.md, "The harness"): a "hello" handshake, then one NDJSON line
per case on its stdin, one answer line per case on its stdout. Grading follows the harness: valid/invalid verdicts
and the error codes (unless --ignore-codes), exact signature bases, exact signed headers. Every failing case is
printed with the expected and the received value; the run ends with a summary per file and per op. --only keeps the
cases of a vector file (as index.json lists it), of an op, or with a case id (several: commas or repeated).
--report junit:PATH writes one testcase per case (unsupported ones skipped, with the reason), --report json:PATH every
case with both values, as `payconform vectors run` writes them (PATH - is standard output).

Exit codes (as `payconform vectors run`): 0 every case passed (or skips accepted with --allow-skips), 1 a case failed
or the run stopped early, 2 usage or checksum error, 3 the adapter did not start or answer the handshake,
4 INCOMPLETE (nothing failed but cases were skipped).
"""

import argparse
import collections
import datetime
import hashlib
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET

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
# Grading (vectors/harness/compare.ts): (status, message, expected, received), status "pass"|"fail"|"skip"|
# "inexpressible"; expected and received are set for a failure, MISSING where nothing was received
# ---------------------------------------------------------------------------------------------------------------

MISSING = object()


def first_difference(a, b):
    la, lb = a.split("\n"), b.split("\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<no line>"
        y = lb[i] if i < len(lb) else "<no line>"
        if x != y:
            return "line %d: expected %s, received %s" % (i + 1, json.dumps(x), json.dumps(y))
    return "texts are equal"


def passed(message=None):
    return "pass", message, MISSING, MISSING


def grade_verdict(case, result, key, ok, code, ignore_codes):
    verdict = result.get(key)
    expected = {key: ok, "code": code} if not ok and code is not None else {key: ok}
    if not isinstance(verdict, bool):
        return "fail", 'answer has no boolean "%s"' % key, expected, result
    if case["result"] == "acceptable":
        code = " (%s)" % result["code"] if isinstance(result.get("code"), str) else ""
        return passed("acceptable case: implementation answered %s=%s%s" % (key, json.dumps(verdict), code))
    if verdict != ok:
        message = ("rejected a valid case" + (" with %s" % result["code"] if isinstance(result.get("code"), str) else "")
                   if ok else "accepted an invalid case (expected %s)" % (code or "a rejection"))
        return "fail", message, expected, result
    if not ok and not ignore_codes and code is not None and result.get("code") != code:
        message = "rejected with the wrong code: expected %s, received %s" % (code, json.dumps(result.get("code")))
        return "fail", message, expected, result
    return passed()


def grade_base(expected, result, ignore_codes):
    if "error" in expected:
        if isinstance(result.get("signatureBase"), str):
            return "fail", "built a signature base where %s was expected" % expected["error"], expected, result
        if not ignore_codes and result.get("error") != expected["error"]:
            message = "wrong error: expected %s, received %s" % (expected["error"], json.dumps(result.get("error")))
            return "fail", message, expected, result
        return passed()
    base = result.get("signatureBase")
    if not isinstance(base, str):
        return "fail", 'answer has no string "signatureBase"', expected["signatureBase"], result
    if base != expected["signatureBase"]:
        message = "signature base differs at " + first_difference(expected["signatureBase"], base)
        return "fail", message, expected["signatureBase"], base
    return passed()


def grade_sign(expected, result):
    status = grade_base({"signatureBase": expected["signatureBase"]}, result, False)
    if status[0] != "pass":
        return status
    headers = result.get("headers")
    if not isinstance(headers, list) or not all(
        isinstance(h, list) and len(h) == 2 and all(isinstance(x, str) for x in h) for h in headers
    ):
        return "fail", '"headers" must be an array of [name, value] string pairs', expected["headers"], headers
    got = collections.defaultdict(list)
    for name, value in headers:
        got[name.lower()].append(value)
    for name, value in expected["headers"]:
        values = got.pop(name.lower(), [])
        if values != [value]:
            received = values[0] if len(values) == 1 else values
            message = "header %s: expected %s, received %s" % (name, json.dumps(value), json.dumps(received))
            return "fail", message, value, received
    if got:
        return "fail", "unexpected header(s) added: " + ", ".join(sorted(got)), expected["headers"], headers
    return passed()


def grade(case, answer, ignore_codes):
    if answer.get("unsupported") is True:
        reason = answer.get("reason")
        return "skip", 'implementation does not support op "%s"%s' % (
            case["op"], ": " + reason if isinstance(reason, str) else ""), MISSING, MISSING
    if answer.get("cannotExpress") not in (None, False):
        return "inexpressible", "implementation cannot express this case", MISSING, MISSING
    error = answer.get("error")
    if isinstance(error, str) or (isinstance(error, dict) and isinstance(error.get("message"), str)):
        message = "implementation reported an error: %s" % (error if isinstance(error, str) else error["message"])
        return "fail", message, case["expected"], error
    result = answer.get("result")
    if not isinstance(result, dict):
        return "fail", 'answer has neither "result" (an object), "error" nor "unsupported"', case["expected"], answer
    op, e = case["op"], case["expected"]
    if op == "digest":
        if "contentDigest" in e:
            got = result.get("contentDigest", MISSING)
            return passed() if got == e["contentDigest"] else (
                "fail", "wrong Content-Digest value", e["contentDigest"], got)
        return grade_verdict(case, result, "valid", e["valid"], e.get("code"), ignore_codes)
    if op in ("signature-base", "rfc9421-signature-base"):
        return grade_base(e, result, ignore_codes)
    if op == "sign":
        return grade_sign(e, result)
    if op in ("verify", "webhook-verify", "parse-key"):
        status = grade_verdict(case, result, "ok", e["ok"], e.get("code"), ignore_codes)
        if op == "parse-key" and status[0] == "pass" and e["ok"] and case["result"] != "acceptable":
            if result.get("publicKey") != e.get("publicKey"):
                return "fail", "parsed to a different public key", e.get("publicKey"), result.get("publicKey", MISSING)
        return status
    if op == "rfc9421-verify":
        return grade_verdict(case, result, "ok", e["ok"], None, ignore_codes)
    return "fail", "unknown op %s" % op, e, result


# ---------------------------------------------------------------------------------------------------------------
# What a failure shows, the summaries, the reports (vectors/harness/report.ts writes the same)
# ---------------------------------------------------------------------------------------------------------------

PRINTABLE = re.compile(r"^[\x20-\x7e]*$")


def show(value, indent="    "):
    """A value as a failure prints it (report.ts showValue): a one-line text as a JSON string (escapes make invisible
    characters and non-ASCII visible), a multi-line text (a signature base) one row per line, anything else as compact
    JSON."""
    if value is MISSING:
        return "(nothing)"
    if isinstance(value, str) and "\n" in value:
        rows = [line if PRINTABLE.match(line) else json.dumps(line) for line in value.split("\n")]
        return "(%d lines)" % len(rows) + "".join("\n%s| %s" % (indent, row) for row in rows)
    return json.dumps(value, separators=(",", ":"))


def count_line(counts):
    total = sum(counts.values())
    cannot = ", %d cannot be expressed" % counts["inexpressible"] if counts["inexpressible"] else ""
    return "%d cases: %d passed, %d failed, %d skipped%s" % (
        total, counts["pass"], counts["fail"], counts["skip"], cannot)


def summaries(records):
    """{"byFile": {path: counts}, "byOp": {op: counts}}, in the order the cases ran."""
    out = {"byFile": {}, "byOp": {}}
    for r in records:
        for key, name in (("byFile", r["file"]), ("byOp", r["op"])):
            out[key].setdefault(name, collections.Counter())[r["status"]] += 1
    return out


def summary_lines(records):
    groups = summaries(records)
    width = max([len(n) for g in groups.values() for n in g] or [0])
    lines = []
    for title, key in (("by file", "byFile"), ("by op", "byOp")):
        lines.append(title + ":")
        lines.extend("  %s  %s" % (name.ljust(width), count_line(c)) for name, c in groups[key].items())
    return lines


def counts_json(counts):
    return {"total": sum(counts.values()), "passed": counts["pass"], "failed": counts["fail"],
            "skipped": counts["skip"], "inexpressible": counts["inexpressible"]}


def case_json(record):
    return {k: v for k, v in record.items() if v is not MISSING}


def json_report(run):
    groups = summaries(run["cases"])
    report = {k: v for k, v in run.items() if k != "cases"}
    report["cases"] = [case_json(r) for r in run["cases"]]
    report["byFile"] = {n: counts_json(c) for n, c in groups["byFile"].items()}
    report["byOp"] = {n: counts_json(c) for n, c in groups["byOp"].items()}
    return json.dumps(report, indent=2) + "\n"


NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text):
    return NOT_XML.sub("\ufffd", text)  # characters XML 1.0 cannot carry (ElementTree escapes the rest)


def junit_report(run):
    """One testsuite per vector file, one testcase per case (classname = file, name = case id), as report.ts."""
    seconds = lambda ms: "%.3f" % (ms / 1000.0)
    by_file = collections.OrderedDict()
    for r in run["cases"]:
        by_file.setdefault(r["file"], []).append(r)
    s = run["summary"]
    root = ET.Element("testsuites", {"name": "payconform vectors", "tests": str(s["total"]),
                                     "failures": str(s["failed"]), "skipped": str(s["skipped"] + s["inexpressible"]),
                                     "time": seconds(run["durationMs"])})
    for path, records in by_file.items():
        statuses = collections.Counter(r["status"] for r in records)
        suite = ET.SubElement(root, "testsuite", {
            "name": xml_text(path), "tests": str(len(records)), "failures": str(statuses["fail"]),
            "skipped": str(statuses["skip"] + statuses["inexpressible"]),
            "time": seconds(sum(r["durationMs"] for r in records))})
        for r in records:
            case = ET.SubElement(suite, "testcase", {"classname": xml_text(path), "name": xml_text(r["id"]),
                                                     "time": seconds(r["durationMs"])})
            if r["status"] in ("skip", "inexpressible"):
                ET.SubElement(case, "skipped", {"message": xml_text(r.get("message") or "")})
            elif r["status"] == "fail":
                failure = ET.SubElement(case, "failure", {"message": xml_text(r.get("message") or "failed")})
                failure.text = xml_text(json.dumps(
                    {k: r[k] for k in ("expected", "received") if r.get(k, MISSING) is not MISSING}, indent=2))
    if hasattr(ET, "indent"):  # Python 3.9+; 3.8 writes the same XML on one line
        ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


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
    """("ok", (protocol agreed, implementation or None)) or ("aborted", reason)."""
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
            return "ok", (1, None)
        if value.get("id") not in (None, "#hello"):
            continue
        result = value.get("result")
        if not isinstance(result, dict):
            return "ok", (1, None)
        if result.get("protocol") not in PROTOCOLS:
            return "aborted", "the implementation chose protocol %s" % json.dumps(result.get("protocol"))
        given = result.get("implementation")
        implementation = None
        if isinstance(given, dict) and isinstance(given.get("name"), str):
            implementation = {k: v for k, v in given.items()
                              if k in ("name", "version", "configuration") and isinstance(v, str)}
        return "ok", (result["protocol"], implementation)


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


def select(cases, only):
    """The cases --only keeps: a token names a vector file (as index.json lists it), an op or a case id."""
    if not only:
        return cases, []
    known = set()
    for path, case in cases:
        known.update((path, case["op"], case["id"]))
    unknown = [t for t in only if t not in known]
    wanted = set(only)
    return [(p, c) for p, c in cases if p in wanted or c["op"] in wanted or c["id"] in wanted], unknown


def run_cases(adapter, keys, cases, args, records, out):
    silent = 0
    for position, (path, case) in enumerate(cases):
        started = time.monotonic()
        if not adapter.send({"id": case["id"], "op": case["op"], "input": message_input(keys, case)}):
            return "the implementation is not running", len(cases) - position
        while True:
            kind, value = adapter.next_answer(args.timeout)
            if kind == "answer" and value.get("id") not in (None, case["id"]):
                continue  # a late answer to an earlier case
            break
        if kind == "answer":
            silent = 0
            if "id" in value:
                status, message, expected, received = grade(case, value, args.ignore_codes)
            else:
                status, message, expected, received = "fail", 'answer has no "id"', case["expected"], value
        elif kind == "garbage":
            status, message = "fail", "implementation printed a line that is not a JSON object: " + json.dumps(value)
            expected, received = case["expected"], value
        elif kind == "timeout":
            silent += 1
            status, message = "fail", "no answer within %s s" % args.timeout
            expected, received = case["expected"], MISSING
        else:
            status, message = "fail", "the implementation exited with code %s before answering" % value
            expected, received = case["expected"], MISSING
        records.append({"id": case["id"], "file": path, "op": case["op"], "result": case["result"], "status": status,
                        "message": message if message else MISSING, "expected": expected, "received": received,
                        "durationMs": int((time.monotonic() - started) * 1000)})
        if status != "pass" or args.verbose:
            print("%s %s (%s, %s)%s" % (MARK[status], case["id"], path, case["op"], ": " + message if message else ""),
                  file=out)
        if status == "fail":
            print("  expected: %s\n  received: %s" % (show(expected), show(received)), file=out)
        if kind == "exited":
            return "the implementation exited", len(cases) - position - 1
        if silent >= MAX_SILENT:
            return "the implementation gave no answer to %d cases in a row" % MAX_SILENT, len(cases) - position - 1
    return None, 0


MARK = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP", "inexpressible": "CANNOT"}
REPORT_FORMATS = ("junit", "json")


def report_spec(text):
    """FORMAT:PATH, FORMAT junit or json (PATH - is standard output)."""
    fmt, _, path = text.partition(":")
    if fmt.lower() not in REPORT_FORMATS or not path:
        raise argparse.ArgumentTypeError(
            "expects FORMAT:PATH with FORMAT one of %s, got %s" % (", ".join(REPORT_FORMATS), json.dumps(text)))
    return fmt.lower(), path


def tokens(values):
    return [t.strip() for v in values or [] for t in v.split(",") if t.strip()]


def parse_args():
    parser = argparse.ArgumentParser(description="Check and run the payconform vectors without Node.")
    parser.add_argument("--exec", dest="command", help="the adapter command (run through the shell, in this folder)")
    parser.add_argument("--check-only", action="store_true", help="verify the checksums and exit")
    parser.add_argument("--only", action="append", metavar="FILE|OP|ID,...",
                        help="run only the cases of these vector files, ops or case ids (repeatable)")
    parser.add_argument("--report", action="append", type=report_spec, default=[], metavar="FORMAT:PATH",
                        help="write a report: FORMAT junit or json; PATH - is standard output (repeatable)")
    parser.add_argument("--allow-skips", action="store_true", help="skipped cases do not make the run INCOMPLETE")
    parser.add_argument("--fail-on-skip", action="store_true", help="skipped cases fail the run")
    parser.add_argument("--ignore-codes", action="store_true", help="compare verdicts only, not error codes")
    parser.add_argument("--timeout", type=float, default=5.0, help="per-case timeout in seconds (default 5)")
    parser.add_argument("--startup-timeout", type=float, default=30.0, help="handshake timeout (default 30)")
    parser.add_argument("--verbose", action="store_true", help="list passing cases too")
    return parser, parser.parse_args()


def verdict_of(run, args):
    """The exit code and the verdict (run.ts exitCodeOf)."""
    s = run["summary"]
    skipped = s["skipped"] + s["inexpressible"]
    if not run["started"]:
        return 3, "NOT STARTED"
    if s["failed"] or s["notRun"] or (skipped and args.fail_on_skip):
        return 1, "FAIL"
    if skipped and not args.allow_skips:
        return 4, "INCOMPLETE"
    return 0, "PASS"


def write_reports(run, args):
    for fmt, path in args.report:
        text = junit_report(run) if fmt == "junit" else json_report(run)
        if path == "-":
            sys.stdout.write(text)
            continue
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as e:
            print("cannot write %s report to %s: %s" % (fmt, json.dumps(path), e), file=sys.stderr)
            return False
    return True


def execute(args, index, keys, cases, out):
    """Runs the adapter over the cases; the run as the JSON report records it (verdict last)."""
    started_at, started = datetime.datetime.now(datetime.timezone.utc), time.monotonic()
    run = {"schemaVersion": 1, "tool": "payconform run-vectors.py", "vectors": index["version"],
           "command": args.command, "startedAt": started_at.isoformat().replace("+00:00", "Z"), "protocol": 1}
    records, aborted, not_run = [], None, 0
    adapter = Adapter(args.command)
    try:
        state, value = handshake(adapter, args.startup_timeout, int(args.timeout * 1000))
        if state == "aborted":
            time.sleep(0.1)
            aborted, not_run = value, len(cases)
            print("ERROR the implementation did not start: %s" % value, file=out)
            for line in adapter.stderr:
                if line:
                    print("  stderr: " + line, file=out)
            print("no case run (%d in the set)" % len(cases), file=out)
        else:
            run["protocol"] = value[0]
            if value[1] is not None:
                run["implementation"] = value[1]
                print("implementation: %s%s (protocol %d)" % (
                    value[1]["name"], " " + value[1]["version"] if "version" in value[1] else "", value[0]), file=out)
            aborted, not_run = run_cases(adapter, keys, cases, args, records, out)
    finally:
        adapter.stop()
    counts = collections.Counter(r["status"] for r in records)
    run.update(finishedAt=datetime.datetime.now(datetime.timezone.utc).isoformat().replace("+00:00", "Z"),
               durationMs=int((time.monotonic() - started) * 1000),
               summary=dict(counts_json(counts), notRun=not_run), started=state != "aborted", cases=records)
    if aborted:
        run["aborted"] = aborted
    if aborted and any(adapter.stderr):
        run["adapterStderr"] = "\n".join(line for line in adapter.stderr if line)
    return run


def main():
    parser, args = parse_args()
    problems = check_sums(HERE)
    if problems:
        print("checksums: %d problem(s):\n  %s" % (len(problems), "\n  ".join(problems)), file=sys.stderr)
        return 2
    index, keys, cases = load_cases(HERE)
    # With a report on standard output, everything else goes to standard error (as `payconform vectors run`).
    out = sys.stderr if any(path == "-" for _, path in args.report) else sys.stdout
    print("payconform vectors %s: checksums verified (%d files)" % (index["version"], len(index["sha256"])), file=out)
    if args.check_only:
        return 0
    if not args.command:
        parser.error("--exec CMD is required (or --check-only)")
    cases, unknown = select(cases, tokens(args.only))
    if unknown:
        parser.error("--only: no vector file, op or case id %s" % ", ".join(json.dumps(u) for u in unknown))
    run = execute(args, index, keys, cases, out)
    code, verdict = verdict_of(run, args)
    run["verdict"] = verdict
    if run["started"]:
        s = run["summary"]
        lines = ["run stopped early: %s" % run["aborted"]] if run.get("aborted") else []
        lines += [""] + summary_lines(run["cases"]) + [""]
        lines.append(count_line(collections.Counter(r["status"] for r in run["cases"]))
                     + (", %d not run" % s["notRun"] if s["notRun"] else ""))
        print("\n".join(lines), file=out)
    print("verdict: " + (verdict + " (--allow-skips accepts skipped cases)" if verdict == "INCOMPLETE" else verdict),
          file=out)
    return code if write_reports(run, args) else 2


if __name__ == "__main__":
    sys.exit(main())
