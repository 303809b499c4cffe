#!/usr/bin/env python3
"""A small payments-service SDK in Python behind payconform's SDK adapter protocol 1 (docs/sdk-adapters.md).

Run: payconform audit client --adapter "python3 vectors/adapters/python/sdk_adapter.py"
Standard library plus `cryptography`. The application secret and the Ed25519 private key (PEM) come from the
environment: PAYCONFORM_APPLICATION_SECRET and PAYCONFORM_PRIVATE_KEY. Written from the service spec.
"""

import base64
import hashlib
import http.client
import json
import os
import sys
import time
import urllib.parse
import uuid

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

PAYOUT_MEDIA = "application/vnd.service.v1.0+json"
REFUND_MEDIA = "application/vnd.service.v0.7+json"
COMPONENTS = ["@method", "@path", "@authority", "content-digest", "content-type", "content-length",
              "x-application-id", "x-application-secret"]
ATTEMPTS = 3  # in all, when the service answers 503 (each attempt signed afresh: a new nonce)


class PaymentsClient:
    """The SDK: one method per operation; each returns {"resource": ...} or {"error": ...} as its caller sees it."""

    def __init__(self, config, secret, private_key):
        self.config, self.secret, self.key = config, secret, private_key
        url = urllib.parse.urlsplit(config["baseUrl"])
        self.host, self.port = url.hostname, url.port or 80
        self.authority = url.netloc  # as written: a default port is already left out of the base URL

    def _signed_headers(self, method, path, body, content_type, accept):
        digest = "sha-512=:" + base64.b64encode(hashlib.sha512(body).digest()).decode() + ":"
        values = {"@method": method, "@path": path, "@authority": self.authority, "content-digest": digest,
                  "content-type": content_type, "content-length": str(len(body)),
                  "x-application-id": self.config["applicationId"], "x-application-secret": self.secret}
        params = "(" + " ".join('"%s"' % c for c in COMPONENTS) + ")" + \
            ';created=%d;keyid="%s";alg="ed25519";nonce="%s"' % (int(time.time()), self.config["keyId"], uuid.uuid4())
        base = "\n".join('"%s": %s' % (c, values[c]) for c in COMPONENTS) + '\n"@signature-params": ' + params
        signature = base64.b64encode(self.key.sign(base.encode("utf-8"))).decode()
        headers = {"Content-Type": content_type, "Content-Length": str(len(body)), "Content-Digest": digest,
                   "x-application-id": self.config["applicationId"], "x-application-secret": self.secret,
                   "Signature-Input": "sig1=" + params, "Signature": "sig1=:" + signature + ":"}
        if accept:
            headers["Accept"] = accept
        return headers

    def _call(self, path, body_object, content_type, accept):
        body = b"" if body_object is None else json.dumps(body_object, separators=(",", ":")).encode("utf-8")
        status, text = 0, ""
        for _ in range(ATTEMPTS):
            headers = self._signed_headers("POST", path, body, content_type, accept)
            try:
                connection = http.client.HTTPConnection(self.host, self.port, timeout=10)
                connection.request("POST", path, body=body, headers=headers)
                response = connection.getresponse()
                status, text = response.status, response.read().decode("utf-8", "replace")
                connection.close()
            except OSError as error:
                return {"error": {"status": None, "body": None, "message": str(error), "code": "NETWORK"}}
            if status != 503:
                break
        if 200 <= status < 300:
            return {"resource": json.loads(text)}
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = {}
        parsed = parsed if isinstance(parsed, dict) else {}
        return {"error": {"status": status, "body": text, "message": parsed.get("errorMessage"),
                          "code": parsed.get("statusName")}}

    def create_payout(self, amount, reference, destination, hold=None):
        body = {"applicationId": self.config["applicationId"],
                "payInAccountSelector": self.config["payInAccountSelector"],
                "amount": amount, "reference": reference, "destination": destination}
        if hold is not None:
            body["doNotCommitOnCoPMismatch"] = hold
        return self._call("/api/payouts", body, PAYOUT_MEDIA, None)

    def commit_payout(self, payout_id):
        return self._call("/api/payouts/%s/commit" % urllib.parse.quote(payout_id, safe=""), None,
                          PAYOUT_MEDIA, PAYOUT_MEDIA)

    def cancel_payout(self, payout_id):
        return self._call("/api/payouts/%s/cancel" % urllib.parse.quote(payout_id, safe=""), None,
                          PAYOUT_MEDIA, PAYOUT_MEDIA)

    def create_refund(self, payment_id, amount):
        path = "/api/merchants/%s/applications/%s/refunds" % (
            urllib.parse.quote(self.config["merchantId"], safe=""),
            urllib.parse.quote(self.config["applicationId"], safe=""))
        return self._call(path, {"paymentId": payment_id, "amount": amount}, REFUND_MEDIA, REFUND_MEDIA)


def verify_webhook(headers, body, served_key):
    """True when Authorization is `SHA256withRSA <base64>` over exactly `body`, by the key the service serves."""
    authorization = next((v for n, v in headers if n.lower() == "authorization"), None)
    if authorization is None:
        return False
    parts = authorization.strip().split(None, 1)
    if len(parts) != 2 or parts[0] != "SHA256withRSA":
        return False
    pem = "-----BEGIN PUBLIC KEY-----\n" + served_key.strip() + "\n-----END PUBLIC KEY-----\n"
    try:
        key = serialization.load_pem_public_key(pem.encode("ascii"))
        key.verify(base64.b64decode(parts[1], validate=True), body, padding.PKCS1v15(), hashes.SHA256())
        return True
    except (InvalidSignature, ValueError, TypeError):
        return False


def answer(client, message):
    op, data = message.get("op"), message.get("input") or {}
    if op == "configure":
        secret, key = os.environ.get("PAYCONFORM_APPLICATION_SECRET"), os.environ.get("PAYCONFORM_PRIVATE_KEY")
        if not secret or not key:
            return client, {"unsupported": True, "reason": "PAYCONFORM_APPLICATION_SECRET and PAYCONFORM_PRIVATE_KEY"}
        private_key = serialization.load_pem_private_key(key.encode("ascii"), password=None)
        return PaymentsClient(data, secret, private_key), {"protocolVersion": 1,
                                                           "sdk": {"name": "python-reference-sdk", "version": "1"}}
    if op == "verifyWebhook":
        valid = verify_webhook(data["headers"], base64.b64decode(data["bodyBase64"]), data["publicKey"])
        return client, {"webhook": {"valid": valid}}
    if client is None:
        return client, {"unsupported": True, "reason": "not configured"}
    if op == "createPayout":
        return client, client.create_payout(data["amount"], data["reference"], data["destination"],
                                            data.get("doNotCommitOnCoPMismatch"))
    if op == "commitPayout":
        return client, client.commit_payout(data["payoutId"])
    if op == "cancelPayout":
        return client, client.cancel_payout(data["payoutId"])
    if op == "createRefund":
        return client, client.create_refund(data["paymentId"], data["amount"])
    return client, {"unsupported": True, "reason": "no operation %r" % op}


def main():
    client = None
    for line in sys.stdin:
        if not line.strip():
            continue
        message_id = "?"
        try:
            message = json.loads(line)
            message_id = str(message.get("id"))
            client, reply = answer(client, message)
        except Exception as error:  # a message that breaks the adapter is answered, never a crash
            reply = {"unsupported": True, "reason": "%s: %s" % (type(error).__name__, error)}
        sys.stdout.write(json.dumps(dict(reply, id=message_id)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
