"""An executor that runs a tool call only on a valid decision receipt.

The agent asks a person about a deploy; the person approves (or edits the arguments); then,
as the separate process that runs tools would, it checks the receipt offline against the
server's public keys and the arguments about to run, redeems it once, and shows what a
changed argument and a second redemption get.

    hitl serve                                  # in another terminal
    python3 clients/python/examples/receipt.py  # asks, prints the inquiry id, waits
    hitl respond <id> --approve                 # or --edit '{"service":"api","replicas":5}'

The token is HITL_TOKEN or the credentials file `hitl serve` wrote. The issuer to expect is
the server's public URL (--public-url), which without one is the address it listens on:
HITL_ISSUER, else the client's URL.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))  # run from a checkout

import hitl  # noqa: E402

client = hitl.Client()
issuer = os.environ.get("HITL_ISSUER") or client.url

call = {
    "id": "deploy-%d" % time.time_ns(),
    "name": "deploy",
    "arguments": {"service": "api", "replicas": 3},
    "parameters_schema": {
        "type": "object",
        "properties": {"service": {"type": "string"}, "replicas": {"type": "integer", "minimum": 1, "maximum": 10}},
    },
}
inquiry = client.create_inquiry(
    {"prompt": "Deploy api with 3 replicas?", "request_type": "approval", "tool_call": call, "allowed_decisions": ["approve", "edit", "reject"]},
    idempotency_key="tool-review:" + call["id"],
)
print("waiting for a person to decide on inquiry %d (hitl respond %d --approve)" % (inquiry["id"], inquiry["id"]), flush=True)
while inquiry["status"] == "pending":
    inquiry = client.wait(inquiry["id"])
result = inquiry.get("tool_result") or {}
if not result.get("run"):
    print("not deploying: %s" % (result.get("message") or inquiry["status"]))
    sys.exit(0)

# The executor: it trusts nothing but the receipt, the JWKS and the arguments it will run.
receipt, args = inquiry["receipt"], result["arguments"]
jwks = client.jwks()
try:
    claims = hitl.verify_receipt(receipt, jwks, issuer=issuer, args=args)
except hitl.ReceiptError as e:
    print("not deploying: %s: %s" % (e.reason, e))
    sys.exit(1)
who = ", ".join(d["name"] for d in claims.get("decided_by", []))
print("receipt %s: %s by %s for inquiry %s, valid until %s" % (claims["jti"], claims["decision"], who, claims["sub"], time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(claims["exp"]))))
redeemed = client.redeem_receipt(claims["jti"])
print("redeemed at %s by %s; deploying %s" % (redeemed["redeemed_at"], redeemed["redeemed_by"], json.dumps(args, separators=(",", ":"))))

# What an executor refuses: arguments other than those approved, a receipt used twice.
try:
    hitl.verify_receipt(receipt, jwks, issuer=issuer, args=dict(args, replicas=9))
except hitl.ReceiptError as e:
    print("with replicas 9 instead: %s: %s" % (e.reason, e))
try:
    client.redeem_receipt(claims["jti"])
except hitl.HitlError as e:
    print("redeemed again: %s: %s" % (e.status, e.detail))
