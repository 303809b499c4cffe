#!/usr/bin/env python3
"""Starter state hook for payconform (docs/state-hook.md; contract payconform-state-hook/1, schemas/state-hook.schema.json):
sets up in YOUR test environment the states an audit needs and the spec shows no API for. Adapt backend() and the
state functions (PLUG IN) to your test database. As shipped they call the payconform reference service's own helpers
(`payconform serve --sandbox-path /private-helpers`), standing in for that database: STATE_HOOK_BACKEND=URL of them.
    python3 state_hook.py --listen 127.0.0.1:8099   # config: "stateHook": {"url": "http://127.0.0.1:8099/"}
    python3 state_hook.py '{"contract": ...}'       # config: "stateHook": {"command": ["python3", "state_hook.py"]}
    python3 state_hook.py --lines                   # config: "stateHook": {"command": [..., "--lines"], "lines": true}
"""
import json, os, sys, threading, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CONTRACT = "payconform-state-hook/1"
NOT_OFFERED_EXIT = 3  # the checks needing a state this hook does not offer skip


class NotOffered(Exception):  # a state this hook does not offer: HTTP 501 / exit 3
    pass


def backend(path, body):  # PLUG IN: write to your test database instead
    base = os.environ.get("STATE_HOOK_BACKEND") or ""
    if not base:
        raise NotOffered("STATE_HOOK_BACKEND is not set")
    request = urllib.request.Request(base.rstrip("/") + path, json.dumps(body).encode(), {"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def settled_payment(amount, payer):  # PLUG IN: a SETTLED payment of exactly `amount`, with no refund
    p = backend("/payments", {"amount": amount, "status": "SETTLED"})
    made = {"paymentId": p["paymentId"], "amount": amount}
    if payer:
        made["payer"] = {k: p["payer"][k] for k in ("name", "accountNumber", "sortCode")}
    return made


def refund_status(refund_id, status):  # PLUG IN: move the refund on (to `status`, or its next), sending its webhook
    moved = backend("/refunds/%s/advance" % refund_id, {"status": status} if status else {})
    return {"refundId": refund_id, "status": moved["status"]}


def payment_webhook(status, reference):  # PLUG IN: a payment moved to `status` (SETTLED via COMPLETED), a webhook each
    p = backend("/payments", {"amount": "20.00", "reference": reference} if reference else {"amount": "20.00"})
    for step in ["COMPLETED", status] if status == "SETTLED" else [status]:
        p = backend("/payments/%s/status" % p["paymentId"], {"status": step})
    return {"paymentId": p["paymentId"], "status": p["status"], "reference": p["reference"]}


STATES = {  # "unsettled-payment", "payout-status", "payouts": not offered; add them the same way
    "settled-payment": lambda q: settled_payment(q["amount"], q.get("payer", False)),
    "refund-status": lambda q: refund_status(q["refundId"], q.get("status")),
    "payment-webhook": lambda q: payment_webhook(q["status"], q.get("reference")),
}


def answer(request):
    if request.get("contract") != CONTRACT:
        raise ValueError("unknown contract %r" % request.get("contract"))
    if request.get("state") not in STATES:
        raise NotOffered("this hook does not offer %s" % request.get("state"))
    return STATES[request["state"]](request)


def serve_lines():  # --lines: one request line in, one answer line out, each paired by its "id", until stdin ends
    out = threading.Lock()

    def reply(envelope):
        try:
            line = {"id": envelope["id"], "answer": answer(envelope["request"])}
        except NotOffered as e:
            line = {"id": envelope["id"], "notOffered": {"reason": str(e)}}
        except Exception as e:  # a readable reason, never a traceback to the audit
            line = {"id": envelope["id"], "failed": {"reason": "%s: %s" % (type(e).__name__, e)}}
        with out:
            sys.stdout.write(json.dumps(line) + "\n")
            sys.stdout.flush()

    for text in sys.stdin:  # each request on its own thread: the audit asks several at once
        if text.strip():
            threading.Thread(target=reply, args=(json.loads(text),), daemon=True).start()


class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        try:
            status, body = 200, answer(json.loads(self.rfile.read(int(self.headers.get("content-length") or 0))))
        except NotOffered as e:
            status, body = 501, {"reason": str(e)}
        except Exception as e:  # a readable reason, never a traceback to the audit
            status, body = 500, {"reason": "%s: %s" % (type(e).__name__, e)}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--listen":
        host, port = sys.argv[2].rsplit(":", 1)
        server = ThreadingHTTPServer((host, int(port)), Hook)
        print("state hook on http://%s:%d/" % server.server_address[:2], flush=True)
        server.serve_forever()
    if sys.argv[1:] == ["--lines"]:
        serve_lines()
        sys.exit(0)
    try:
        print(json.dumps(answer(json.loads(sys.argv[-1]))))
    except NotOffered as e:
        print(json.dumps({"reason": str(e)}))
        sys.exit(NOT_OFFERED_EXIT)
    except Exception as e:
        print("%s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(1)
