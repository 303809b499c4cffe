#!/usr/bin/env python3
"""Starter adapter for the payconform vectors: the harness protocol loop and one op, "digest" (RFC 9530
Content-Digest), end to end; every other op is answered "unsupported" (a skip). Copy it and fill in your ops.
Protocol: README.md, "The harness". From an unpacked release:
    python3 run-vectors.py --exec "python3 adapters/python/starter.py" --only digest
"""
import base64, binascii, hashlib, hmac, json, re, sys

HASHES = {"sha-512": hashlib.sha512, "sha-256": hashlib.sha256}
# One Dictionary member as RFC 9530 sends it: a lowercase key and a byte sequence of padded standard base64.
MEMBER = re.compile(r"^([a-z*][a-z0-9_.*-]*)=:([A-Za-z0-9+/]*={0,2}):$")


def body_of(input):
    return base64.b64decode(input["bodyBase64"]) if "bodyBase64" in input else input["bodyUtf8"].encode("utf-8")


def digest(input):
    body = body_of(input)  # PLUG IN: hand these bytes to your own Content-Digest code instead of the lines below
    if input["mode"] == "compute":
        value = base64.b64encode(HASHES[input["algorithm"]](body).digest()).decode("ascii")
        return {"contentDigest": "%s=:%s:" % (input["algorithm"], value)}
    members = {}  # PLUG IN: your verifier; this parse is the minimum the vectors need (a member without parameters)
    for text in input["contentDigest"].split(","):
        match = MEMBER.match(text.strip(" \t"))
        if match is None or match.group(1) in members:
            return {"valid": False, "code": "DIGEST_MALFORMED"}
        try:
            members[match.group(1)] = base64.b64decode(match.group(2), validate=True)
        except binascii.Error:
            return {"valid": False, "code": "DIGEST_MALFORMED"}
    checked = [a for a in input["algorithms"] if a in members and a in HASHES]
    if not checked:
        return {"valid": False, "code": "DIGEST_ALGORITHM_UNSUPPORTED"}
    for a in checked:
        expected = HASHES[a](body).digest()
        if len(members[a]) != len(expected):
            return {"valid": False, "code": "DIGEST_MALFORMED"}
        if not hmac.compare_digest(members[a], expected):
            return {"valid": False, "code": "DIGEST_MISMATCH"}
    return {"valid": True}


# PLUG IN: one entry per op you implement ("signature-base", "sign", "verify", "webhook-verify", "parse-key").
OPS = {"digest": digest}


def answer(message):
    if message["op"] == "hello":  # PLUG IN: the name and version of what you test
        return {"result": {"protocol": 2, "implementation": {"name": "my-implementation", "version": "0.0.0"}}}
    if message["op"] not in OPS:
        return {"unsupported": True, "reason": "not implemented yet"}
    try:
        return {"result": OPS[message["op"]](message["input"])}
    except Exception as e:  # a bug in one case fails that case, not the run
        return {"error": {"message": "%s: %s" % (type(e).__name__, e)}}


for line in sys.stdin:  # one request per line; stdout carries only answers (log to stderr)
    if line.strip():
        message = json.loads(line)
        print(json.dumps(dict(answer(message), id=message["id"])), flush=True)
