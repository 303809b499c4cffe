#!/usr/bin/env python3
"""payconform vector adapter: the harness glue around payconform_profile.py, an independent Python implementation
of the payments service signing profile.

Speaks the harness protocol of `payconform vectors run --exec "python3 vectors/adapters/python/adapter.py"`:
one JSON object per line on stdin ({"id", "op", "input"}), one answer per line on stdout
({"id", "result": {...}} or {"id", "error": {"message"}} or {"id", "unsupported": true}), after answering the
"hello" handshake with protocol 2. See vectors/README.md. The signing and verification themselves are
payconform_profile.py's `sign_request()`, `verify_request()` and `verify_webhook()`, importable on their own.
"""

import base64
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from payconform_profile import (  # noqa: E402  (the library beside this file)
    Failure, InvalidSignature, SfError, b64, build_base, compute_digest, field_values,
    parse_dictionary, parse_ed25519_private, parse_ed25519_public, parse_rsa_public, parse_target_uri,
    profile_base, raw_public, serialization, sign_request, verify_digest, verify_request, verify_webhook,
)


def body_of(obj):
    """The exact body bytes of a harness message ({"bodyUtf8"} or {"bodyBase64"})."""
    if "bodyUtf8" in obj:
        return obj["bodyUtf8"].encode("utf-8")
    return base64.b64decode(obj["bodyBase64"], validate=True)


def key_material(material):
    """A key as the harness sends it, {"format", "value"}: text, or bytes for the *-der-base64 formats."""
    if material["format"].endswith("der-base64"):
        return base64.b64decode(material["value"], validate=True)
    return material["value"]


def _request(req):
    return {"method": req["method"], "url": req["url"], "headers": req["headers"], "body": body_of(req)}


def sign(inp):
    credentials = dict(inp["credentials"], privateKey=key_material(inp["credentials"]["privateKey"]))
    return sign_request(_request(inp["request"]), credentials, inp["created"], inp["nonce"])


def verify(inp):
    applications = [dict(a, keys=[dict(k, publicKey=key_material(k["publicKey"])) for k in a["keys"]])
                    for a in inp["verifier"]["applications"]]
    result = verify_request(_request(inp["request"]), inp["now"], applications, inp["nonceState"])
    return {"ok": True, "signatureBase": result["signatureBase"]} if result["ok"] else result


def webhook_verify(inp):
    return verify_webhook(body_of(inp["body"]), inp["authorization"], key_material(inp["publicKey"]))


# ---------------------------------------------------------------------------------------------------------------
# Generic RFC 9421 (for the rfc/ vectors)
# ---------------------------------------------------------------------------------------------------------------

def rfc9421_base(inp):
    req = inp["request"]
    members = dict(parse_dictionary(", ".join(field_values(req["headers"], "signature-input"))))
    kind, items, params = members[inp["label"]]
    if kind != "inner":
        raise Failure("SIGNATURE_INPUT_MALFORMED")
    return build_base(req["method"], parse_target_uri(req["url"]), req["headers"], items, params, False)


def rfc9421_verify(inp):
    try:
        base = rfc9421_base(inp)
        sigs = dict(parse_dictionary(", ".join(field_values(inp["request"]["headers"], "signature"))))
        kind, signature, _ = sigs[inp["label"]]
        if kind != "item" or not isinstance(signature, bytes):
            return {"ok": False}
        parse_ed25519_public(key_material(inp["publicKey"])).verify(signature, base.encode("ascii"))
        return {"ok": True}
    except (Failure, SfError, KeyError, InvalidSignature):
        return {"ok": False}


# ---------------------------------------------------------------------------------------------------------------
# Dispatch
# ---------------------------------------------------------------------------------------------------------------

def op_digest(inp):
    body = body_of(inp)
    if inp["mode"] == "compute":
        return {"contentDigest": compute_digest(body, inp["algorithm"])}
    try:
        verify_digest(inp["contentDigest"], body, inp["algorithms"])
        return {"valid": True}
    except Failure as f:
        return {"valid": False, "code": f.code}


def op_signature_base(inp):
    p = inp["parameters"]
    try:
        return {"signatureBase": profile_base(inp["request"], p["created"], p["keyid"], p["nonce"])}
    except Failure as f:
        return {"error": f.code}


def op_parse_key(inp):
    value = inp["text"] if "text" in inp else base64.b64decode(inp["bytesBase64"], validate=True)
    try:
        if inp["keyType"] == "ed25519-private":
            return {"ok": True, "publicKey": b64(raw_public(parse_ed25519_private(value).public_key()))}
        if inp["keyType"] == "ed25519-public":
            return {"ok": True, "publicKey": b64(raw_public(parse_ed25519_public(value)))}
        key = parse_rsa_public(value)
        der = key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        return {"ok": True, "publicKey": b64(der)}
    except Failure as f:
        return {"ok": False, "code": f.code}


OPS = {
    "digest": op_digest,
    "signature-base": op_signature_base,
    "sign": sign,
    "verify": verify,
    "webhook-verify": webhook_verify,
    "parse-key": op_parse_key,
    "rfc9421-signature-base": lambda inp: {"signatureBase": rfc9421_base(inp)},
    "rfc9421-verify": rfc9421_verify,
}


PROTOCOL = 2


def hello():
    """The handshake answer (protocol 2): the version chosen and what runs behind this adapter."""
    import cryptography
    return {
        "protocol": PROTOCOL,
        "implementation": {
            "name": "payconform Python adapter (standard library + cryptography)",
            "version": "python %d.%d.%d, cryptography %s" % (sys.version_info[:3] + (cryptography.__version__,)),
            "configuration": "an independent implementation of the profile, written from the spec and vectors/README.md",
        },
        "ops": sorted(OPS),
    }


def answer(message):
    case_id = message.get("id")
    if message.get("op") == "hello":
        return {"id": case_id, "result": hello()}
    handler = OPS.get(message.get("op"))
    if handler is None:
        return {"id": case_id, "unsupported": True}
    try:
        return {"id": case_id, "result": handler(message["input"])}
    except Exception as e:  # an adapter bug, reported per case rather than crashing the run
        return {"id": case_id, "error": {"message": "%s: %s" % (type(e).__name__, e)}}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError as e:
            reply = {"id": None, "error": {"message": "request is not JSON: %s" % e}}
        else:
            reply = answer(message)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
