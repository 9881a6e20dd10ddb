"""Tests of the Python client against a real hitl server, started here.

HITL_BIN names a built hitl binary; without it the tests build one with `go build`.
"""

import base64
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

import hitl  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
ADMIN_TOKEN = "python-test-admin-token-0123456789"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        binary = os.environ.get("HITL_BIN")
        if not binary:
            binary = os.path.join(cls.dir.name, "hitl")
            subprocess.run(["go", "build", "-o", binary, "./cmd/hitl"], cwd=ROOT, check=True)
        port = free_port()
        env = dict(os.environ, HITL_ADMIN_TOKEN=ADMIN_TOKEN, HITL_CREDENTIALS=os.path.join(cls.dir.name, "credentials.json"))
        cls.server = subprocess.Popen(
            [binary, "serve", "--addr", "127.0.0.1:%d" % port, "--db", os.path.join(cls.dir.name, "hitl.db"), "--log-level", "warn"],
            env=env,
            stdout=subprocess.DEVNULL,
        )
        cls.url = "http://127.0.0.1:%d" % port
        admin = hitl.Client(cls.url, ADMIN_TOKEN)
        deadline = time.monotonic() + 20
        while True:
            try:
                admin._request("GET", "/readyz")
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        cls.admin = admin
        cls.agent = hitl.Client(cls.url, cls.key("py-agent", "agent"))
        cls.human = hitl.Client(cls.url, cls.key("py-human", "responder"))

    @classmethod
    def key(cls, name, role):
        return cls.admin._request("POST", "/v1/keys", {"name": name, "roles": [role]})["token"]

    @classmethod
    def tearDownClass(cls):
        cls.server.terminate()
        cls.server.wait(timeout=20)
        cls.dir.cleanup()

    def answer_when_asked(self, prompt, response, comment=None):
        """A human who answers the pending question with this prompt, in the background."""

        def run():
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                for inq in self.human.list_inquiries(status="pending")["data"]:
                    if inq["prompt"] == prompt:
                        self.human.respond(inq["id"], response, comment)
                        return
                time.sleep(0.02)

        t = threading.Thread(target=run)
        t.start()
        return t

    def test_approval(self):
        t = self.answer_when_asked("Refund $499 for order 12345?", {"approved": True, "comment": "ok"})
        answer = self.agent.request_input(
            "Refund $499 for order 12345?", context={"order_id": "12345", "amount": 499}, request_type="approval"
        )
        t.join()
        self.assertEqual(answer, {"approved": True, "comment": "ok"})

    def test_selection(self):
        t = self.answer_when_asked("Which venue?", "bergen")
        answer = self.agent.request_input("Which venue?", options=["oslo", "bergen", "tromso"])
        t.join()
        self.assertEqual(answer, "bergen")

    def test_deadline_with_fallback_and_without(self):
        answer = self.agent.request_input(
            "Approve the budget?", request_type="approval", timeout_seconds=1,
            fallback_policy="complete_with_fallback", fallback_value={"approved": False},
        )
        self.assertEqual(answer, {"approved": False})
        with self.assertRaises(hitl.InputTimeoutError) as cm:
            self.agent.request_input("Anything to add?", timeout_seconds=1)
        self.assertEqual(cm.exception.inquiry["status"], "timeout")

    def test_cancelled(self):
        def cancel():
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                for inq in self.agent.list_inquiries(status="pending")["data"]:
                    if inq["prompt"] == "Rename the service?":
                        self.agent.cancel(inq["id"], "decided without it")
                        return
                time.sleep(0.02)

        t = threading.Thread(target=cancel)
        t.start()
        with self.assertRaises(hitl.InputCancelledError) as cm:
            self.agent.request_input("Rename the service?")
        t.join()
        self.assertIn("decided without it", str(cm.exception))

    def test_refused_requests_carry_the_servers_message(self):
        with self.assertRaises(hitl.HitlError) as cm:
            self.agent.request_input("   ")
        self.assertEqual(cm.exception.status, 400)
        self.assertEqual(cm.exception.code, "invalid")
        self.assertIn("/prompt", [e["path"] for e in cm.exception.errors])
        with self.assertRaises(hitl.HitlError) as cm:
            self.agent.request_input("x", response_schema={"type": "nonsense"})
        self.assertIn("/response_schema", str(cm.exception))
        with self.assertRaises(hitl.HitlError) as cm:
            self.human.request_input("Can a responder ask?")
        self.assertEqual(cm.exception.code, "forbidden")
        with self.assertRaises(hitl.HitlError) as cm:
            self.human.respond(999999, "x")
        self.assertEqual(cm.exception.code, "not_found")
        with self.assertRaises(hitl.HitlError) as cm:
            hitl.Client(self.url, "wrong-token").list_inquiries()
        self.assertEqual(cm.exception.status, 401)

    def _asked(self, prompt, **kwargs):
        """Asks prompt with kwargs, and returns the inquiry as the server kept it, cancelled
        from another thread once seen (request_input blocks until then)."""
        seen = {}

        def check_and_cancel():
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                for inq in self.agent.list_inquiries(status="pending")["data"]:
                    if inq["prompt"] == prompt:
                        seen.update(inq)
                        self.agent.cancel(inq["id"], "seen")
                        return
                time.sleep(0.02)

        t = threading.Thread(target=check_and_cancel)
        t.start()
        with self.assertRaises(hitl.InputCancelledError):
            self.agent.request_input(prompt, **kwargs)
        t.join()
        return seen

    def test_reminders_and_escalation(self):
        seen = self._asked("Remind me?", remind_every="90m", escalate_after="2h", escalate_to=["bob", "group:leads"])
        self.assertEqual(seen["remind_every"], "1h30m")
        self.assertEqual(seen["escalate_after"], "2h")
        self.assertEqual(seen["escalate_to"], ["bob", "group:leads"])
        self.assertEqual(seen["reminders_sent"], 0)
        self.assertIsNotNone(seen["next_reminder_at"])
        with self.assertRaises(hitl.HitlError) as cm:
            self.agent.request_input("x", remind_every="10s")
        self.assertIn("/remind_every", [e["path"] for e in cm.exception.errors])

    def test_escalation_ladder_and_priority(self):
        ladder = [{"after": "1h", "assigned_to": ["bob"]}, {"after": "2h", "assigned_to": ["group:leads"], "channels": ["slack"]}]
        seen = self._asked("Climb the ladder?", escalate=ladder, priority="urgent")
        self.assertEqual(seen["priority"], "urgent")
        self.assertEqual([s["after"] for s in seen["escalation"]["steps"]], ["1h", "2h"])
        self.assertEqual(seen["escalation"]["steps"][1]["channels"], ["slack"])
        self.assertEqual(seen["escalation"]["reached"], 0)
        with self.assertRaises(hitl.HitlError) as cm:
            self.agent.request_input("x", escalate=[{"after": "2h", "assigned_to": ["bob"]}, {"after": "1h", "assigned_to": ["cid"]}])
        self.assertIn("/escalate/1/after", [e["path"] for e in cm.exception.errors])

    def test_idempotency_key_asks_once(self):
        first = self.agent.create_inquiry({"prompt": "Once?"}, idempotency_key="py-once")
        again = self.agent.create_inquiry({"prompt": "Once?"}, idempotency_key="py-once")
        self.assertEqual(first["id"], again["id"])
        self.agent.cancel(first["id"])

    def test_should_request_input(self):
        d = self.agent.should_request_input(confidence=0.55, risk=0.7, reversibility=0.8)
        self.assertEqual(d["mode"], "require_input")
        self.assertTrue(d["should_ask"])
        d = self.agent.should_request_input(confidence=0.95, risk=0.1, reversibility=0.9)
        self.assertEqual(d["mode"], "autonomous")
        self.assertFalse(d["should_ask"])

    def test_the_credentials_file_of_hitl_serve(self):
        """With HITL_URL and HITL_TOKEN unset, the client reads the file `hitl serve` wrote, as the CLI does."""
        env = {k: v for k, v in os.environ.items() if k not in ("HITL_URL", "HITL_TOKEN", "HITL_CREDENTIALS")}
        # The server of these tests has HITL_ADMIN_TOKEN, so it saved its URL only.
        with mock.patch.dict(os.environ, dict(env, HITL_CREDENTIALS=os.path.join(self.dir.name, "credentials.json")), clear=True):
            self.assertEqual((hitl.Client().url, hitl.Client().token), (self.url, ""))
        # A file with a token too (what a first start saves), found under $XDG_CONFIG_HOME.
        xdg = os.path.join(self.dir.name, "xdg")
        os.makedirs(os.path.join(xdg, "hitl"))
        with open(os.path.join(xdg, "hitl", "credentials.json"), "w") as f:
            json.dump({"url": self.url, "token": self.agent.token}, f)
        with mock.patch.dict(os.environ, dict(env, XDG_CONFIG_HOME=xdg, HOME=os.path.join(self.dir.name, "nohome")), clear=True):
            if sys.platform in ("darwin", "ios") or os.name == "nt":
                self.skipTest("XDG_CONFIG_HOME is the Unix rule")
            d = hitl.Client().should_request_input(confidence=0.95, risk=0.1, reversibility=0.9)
        self.assertEqual(d["mode"], "autonomous")

    def test_request_user_input_tool(self):
        t = self.answer_when_asked("Which date?", "2026-12-04")
        text = self.agent.request_user_input("Which date?", context="the venue is free on both", options=["2026-12-04", "2026-12-11"])
        t.join()
        self.assertEqual(text, "2026-12-04")  # a text answer is the text, without JSON's quotes
        t = self.answer_when_asked("Ship the haiku?", {"approved": True})
        text = self.agent.request_user_input("Ship the haiku?", request_type="approval")
        t.join()
        self.assertEqual(json.loads(text), {"approved": True})  # any other answer is JSON text
        # Bound to a model's tool call: the tool result of the call.
        call = {"id": "call_py_1", "name": "request_user_input", "arguments": {"prompt": "Ship it?"}}
        text = self.agent.request_user_input("Ship it?", request_type="approval", timeout_seconds=1, tool_call=call)
        self.assertIn("did not answer", text)
        defs = self.agent.tool_definitions()
        self.assertEqual(defs["openai"]["function"]["name"], "request_user_input")
        self.assertEqual(defs["anthropic"]["input_schema"]["required"], ["prompt"])

    def test_review_tool_call(self):
        params = {
            "type": "object",
            "required": ["service", "replicas"],
            "properties": {"service": {"type": "string"}, "replicas": {"type": "integer", "minimum": 1, "maximum": 10}},
        }
        call = {"id": "call_py_review", "name": "deploy", "arguments": {"service": "api", "replicas": 3}, "parameters_schema": params}
        t = self.answer_when_asked("Scale api?", {"decision": "edit", "args": {"service": "api", "replicas": 5}})
        result = self.agent.review_tool_call("Scale api?", call, allowed_decisions=["approve", "edit", "reject"])
        t.join()
        self.assertEqual(result["tool_call_id"], "call_py_review")
        self.assertTrue(result["run"])
        self.assertEqual(result["decision"], "edit")
        self.assertEqual(result["arguments"], {"service": "api", "replicas": 5})
        self.assertIn("Run deploy now with these arguments", result["content"])
        # Without decisions nor a schema: approve or reject, and a rejection says not to run it.
        call = {"id": "call_py_review_2", "name": "delete_bucket", "arguments": {"bucket": "logs"}}
        t = self.answer_when_asked("Delete logs?", {"decision": "reject", "message": "we keep logs"})
        result = self.agent.review_tool_call("Delete logs?", call)
        t.join()
        self.assertFalse(result["run"])
        self.assertEqual(result["message"], "we keep logs")
        self.assertIn("Do not run delete_bucket", result["content"])
        # An edit that does not fit the parameters schema is refused with its path.
        call = {"id": "call_py_review_3", "name": "deploy", "arguments": {"service": "api", "replicas": 3}, "parameters_schema": params}
        inquiry = self.agent.create_inquiry({"prompt": "Scale again?", "request_type": "approval", "tool_call": call, "allowed_decisions": ["edit"]})
        with self.assertRaises(hitl.HitlError) as cm:
            self.human.respond(inquiry["id"], {"decision": "edit", "args": {"service": "api", "replicas": 11}})
        self.assertEqual(cm.exception.status, 422)
        self.assertIn("/args/replicas", [e["path"] for e in cm.exception.errors])
        with self.assertRaises(hitl.HitlError) as cm:
            self.agent.review_tool_call("No call?", {"name": "x"})
        self.assertEqual(cm.exception.code, "invalid")
        self.agent.cancel(inquiry["id"])

    def test_wait_many(self):
        a = self.agent.create_inquiry({"prompt": "Wait A?"})
        b = self.agent.create_inquiry({"prompt": "Wait B?"})
        self.human.respond(b["id"], "b first")
        lines = []
        threading.Timer(0.3, lambda: self.human.respond(a["id"], "a later")).start()
        for line in self.agent.wait_many([a["id"], b["id"], 999999], timeout=20):
            lines.append(line)
        self.assertEqual([l["type"] for l in lines], ["inquiry", "error", "waiting", "inquiry", "end"])
        self.assertEqual((lines[0]["inquiry"]["id"], lines[0]["inquiry"]["response"]), (b["id"], "b first"))
        self.assertEqual((lines[1]["id"], lines[1]["error"]["code"]), (999999, "not_found"))
        self.assertEqual(lines[2]["count"], 1)
        self.assertEqual((lines[3]["inquiry"]["id"], lines[3]["inquiry"]["response"]), (a["id"], "a later"))
        self.assertEqual(lines[4]["reason"], "done")
        c = self.agent.create_inquiry({"prompt": "Wait C?"})
        lines = list(self.agent.wait_many([c["id"]], timeout=0))
        self.assertEqual(lines[-1], {"type": "end", "reason": "timeout", "pending": [c["id"]]})
        self.agent.cancel(c["id"])
        # Refused whole, with the server's words: no ids, too many.
        with self.assertRaises(hitl.HitlError) as cm:
            list(self.agent.wait_many([]))
        self.assertEqual((cm.exception.status, cm.exception.code), (400, "invalid"))
        with self.assertRaises(hitl.HitlError) as cm:
            list(self.agent.wait_many(range(1, hitl.MAX_WAIT_IDS + 2)))
        self.assertEqual((cm.exception.status, cm.exception.code), (413, "too_large"))
        self.assertIn("split them over several waits", str(cm.exception))

    def test_waiter_shares_streams_among_threads(self):
        answers = {}

        def ask(i, waiter):
            answers[i] = self.agent.request_input("Shared wait %d?" % i, waiter=waiter)

        with self.agent.waiter() as waiter:
            threads = [threading.Thread(target=ask, args=(i, waiter)) for i in range(30)]
            for t in threads:
                t.start()
            deadline = time.monotonic() + 20
            answered = set()
            while len(answered) < 30 and time.monotonic() < deadline:
                for inq in self.human.list_inquiries(status="pending", limit=100)["data"]:
                    if inq["prompt"].startswith("Shared wait ") and inq["id"] not in answered:
                        self.human.respond(inq["id"], inq["prompt"].upper())
                        answered.add(inq["id"])
                time.sleep(0.02)
            for t in threads:
                t.join(20)
            self.assertEqual(answers, {i: "SHARED WAIT %d?" % i for i in range(30)})
            # Far fewer streams than waits: the 30 went out in a few bursts.
            self.assertLessEqual(waiter.streams_opened, 10)
            with self.assertRaises(hitl.HitlError) as cm:
                waiter.wait(999999)
            self.assertEqual(cm.exception.code, "not_found")
            pending = self.agent.create_inquiry({"prompt": "Never answered?"})
            with self.assertRaises(TimeoutError):
                waiter.wait(pending["id"], timeout=0.2)
            self.agent.cancel(pending["id"])
        with self.assertRaises(hitl.HitlError) as cm:
            waiter.wait(pending["id"])
        self.assertEqual(cm.exception.code, "closed")

    def _decided(self, call_id, answer, **extra):
        """A deploy asked about and answered through the API: (the proposed arguments, the ended inquiry)."""
        proposed = {"service": "api", "replicas": 3, "note": "été ☃"}
        params = {
            "type": "object",
            "required": ["service", "replicas"],
            "properties": {"service": {"type": "string"}, "replicas": {"type": "integer", "minimum": 1, "maximum": 10}, "note": {"type": "string"}},
        }
        call = {"id": call_id, "name": "deploy", "arguments": proposed, "parameters_schema": params}
        inquiry = self.agent.create_inquiry(
            dict({"prompt": "Deploy %s?" % call_id, "request_type": "approval", "tool_call": call, "allowed_decisions": ["approve", "edit", "reject"]}, **extra)
        )
        self.human.respond(inquiry["id"], answer)
        return proposed, self.agent.inquiry(inquiry["id"])

    def test_an_edits_receipt_verifies_against_the_served_jwks(self):
        edited = {"service": "api", "replicas": 5, "note": "été ☃"}
        proposed, inquiry = self._decided("call_py_receipt_edit", {"decision": "edit", "args": edited})
        self.assertIsInstance(inquiry.get("receipt"), str, "an ended, decided inquiry carries its receipt")
        # The JWKS needs no token, and may be kept for five minutes.
        with urllib.request.urlopen(self.url + "/.well-known/jwks.json") as resp:
            self.assertIn("max-age=300", resp.headers.get("Cache-Control", ""))
            served = json.load(resp)
        jwks = self.agent.jwks()
        self.assertEqual(jwks, served)
        self.assertEqual((jwks["keys"][0]["kty"], jwks["keys"][0]["crv"]), ("OKP", "Ed25519"))

        claims = hitl.verify_receipt(inquiry["receipt"], jwks, issuer=self.url, args={"note": "été ☃", "replicas": 5.0, "service": "api"})
        self.assertEqual(claims["iss"], self.url)
        self.assertEqual(claims["sub"], str(inquiry["id"]))
        self.assertRegex(claims["jti"], r"^rcpt_[a-z2-7]{26}$")
        self.assertEqual(claims["decision"], "edit")
        self.assertEqual(claims["decided_by"], [{"name": "py-human"}])
        self.assertEqual(claims["tool"], "deploy")
        self.assertEqual(claims["args_sha256"], hitl.args_sha256(inquiry["tool_result"]["arguments"]))
        self.assertEqual(claims["response_sha256"], hitl.args_sha256(inquiry["response"]))
        self.assertEqual(claims["exp"] - claims["iat"], 3600, "the server's default validity: an hour")
        with self.assertRaises(hitl.ReceiptError) as cm:
            hitl.verify_receipt(inquiry["receipt"], jwks, args=proposed)
        self.assertEqual(cm.exception.reason, "args_mismatch")
        self.assertEqual(self.agent.wait(inquiry["id"], timeout=1)["receipt"], inquiry["receipt"], "the wait's result carries the same receipt")

    def test_a_receipt_is_redeemed_once(self):
        _, inquiry = self._decided("call_py_receipt_redeem", {"decision": "approve"})
        jti = hitl.verify_receipt(inquiry["receipt"], self.agent.jwks())["jti"]
        first = self.agent.redeem_receipt(jti)
        self.assertEqual((first["jti"], first["inquiry_id"], first["redeemed_by"]), (jti, inquiry["id"], "py-agent"))
        with self.assertRaises(hitl.HitlError) as cm:
            self.human.redeem_receipt(jti)
        self.assertEqual(cm.exception.status, 409)
        self.assertRegex(str(cm.exception), r"already redeemed at .* by py-agent$")
        with self.assertRaises(hitl.HitlError) as cm:
            self.agent.redeem_receipt("rcpt_aaaaaaaaaaaaaaaaaaaaaaaaaa")
        self.assertEqual(cm.exception.status, 404)

    def test_what_an_executor_refuses(self):
        proposed, inquiry = self._decided("call_py_receipt_refuse", {"decision": "reject", "message": "not today"})
        jwks = self.agent.jwks()
        claims = hitl.verify_receipt(inquiry["receipt"], jwks, args=proposed)
        self.assertEqual(claims["decision"], "reject")
        header, payload, signature = inquiry["receipt"].split(".")
        forged = dict(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))), decision="approve")
        forged = base64.urlsafe_b64encode(json.dumps(forged).encode()).decode().rstrip("=")
        cases = {
            "wrong_issuer": dict(issuer="https://hitl.example.com"),
            "expired": dict(now=claims["exp"]),
            "bad_signature": dict(token="%s.%s.%s" % (header, forged, signature)),
            "unknown_key": dict(jwks={"keys": jwks["keys"][1:]}),
        }
        for reason, options in cases.items():
            with self.subTest(reason):
                options = dict(dict(token=inquiry["receipt"], jwks=jwks), **options)
                with self.assertRaises(hitl.ReceiptError) as cm:
                    hitl.verify_receipt(options.pop("token"), options.pop("jwks"), **options)
                self.assertEqual(cm.exception.reason, reason)
        self.assertEqual(hitl.verify_receipt(inquiry["receipt"], jwks, now=claims["exp"], leeway=5), claims)

        answered = self.agent.create_inquiry({"prompt": "Which venue for the receipt?", "options": ["oslo", "bergen"]})
        self.human.respond(answered["id"], "bergen")
        answered = self.agent.inquiry(answered["id"])
        self.assertEqual(hitl.verify_receipt(answered["receipt"], jwks, issuer=self.url)["decision"], "answer")
        with self.assertRaises(hitl.ReceiptError) as cm:
            hitl.verify_receipt(answered["receipt"], jwks, args={})
        self.assertEqual(cm.exception.reason, "no_args_hash")
        cancelled = self.agent.create_inquiry({"prompt": "Withdrawn, no receipt?"})
        self.assertNotIn("receipt", self.agent.cancel(cancelled["id"], "not needed"))

    def test_a_receipt_valid_for_a_second_expires(self):
        _, inquiry = self._decided("call_py_receipt_short", {"decision": "approve"}, receipt_valid_for="1s")
        jwks = self.agent.jwks()
        claims = hitl.verify_receipt(inquiry["receipt"], jwks, leeway=5)  # a slow machine may have taken the second already
        self.assertEqual(claims["exp"] - claims["iat"], 1)
        time.sleep(max(0, claims["exp"] - time.time()) + 0.02)  # real time must pass: the server's clock decides the redeem
        with self.assertRaises(hitl.ReceiptError) as cm:
            hitl.verify_receipt(inquiry["receipt"], jwks)
        self.assertEqual(cm.exception.reason, "expired")
        with self.assertRaises(hitl.HitlError) as cm:
            self.agent.redeem_receipt(claims["jti"])
        self.assertEqual(cm.exception.status, 409)
        self.assertIn("expired at ", str(cm.exception))

    def test_a_receipt_after_rotations_of_the_signing_key(self):
        """One rotation keeps the old key as the previous one; a second drops it: unknown_key."""
        proposed, inquiry = self._decided("call_py_receipt_rotate", {"decision": "approve"})
        before = self.agent.jwks()
        self.admin._request("POST", "/v1/signing-keys/rotate")
        once = self.agent.jwks()
        self.assertEqual(once["keys"][1]["kid"], before["keys"][0]["kid"])
        self.assertEqual(hitl.verify_receipt(inquiry["receipt"], once, issuer=self.url, args=proposed)["sub"], str(inquiry["id"]))
        self.admin._request("POST", "/v1/signing-keys/rotate")
        twice = self.agent.jwks()
        self.assertNotIn(before["keys"][0]["kid"], [k["kid"] for k in twice["keys"]])
        with self.assertRaises(hitl.ReceiptError) as cm:
            hitl.verify_receipt(inquiry["receipt"], twice)
        self.assertEqual(cm.exception.reason, "unknown_key")
        _, fresh = self._decided("call_py_receipt_rotated", {"decision": "approve"})
        self.assertEqual(hitl.verify_receipt(fresh["receipt"], twice, issuer=self.url)["decision"], "approve")

    def test_the_receipt_example_runs(self):
        """clients/python/examples/receipt.py: a person edits the deploy; it verifies, redeems once, refuses the rest."""
        env = dict(os.environ, HITL_URL=self.url, HITL_TOKEN=self.key("py-example-deployer", "agent"))
        example = os.path.join(os.path.dirname(__file__), "..", "examples", "receipt.py")
        lines = []
        with subprocess.Popen([sys.executable, example], env=env, stdout=subprocess.PIPE, text=True) as proc:
            for line in proc.stdout:
                lines.append(line.rstrip("\n"))
                asked = re.search(r"inquiry (\d+) \(", line)
                if asked:
                    self.human.respond(int(asked.group(1)), {"decision": "edit", "args": {"service": "api", "replicas": 5}})
        self.assertEqual(proc.returncode, 0, lines)
        out = "\n".join(lines)
        self.assertRegex(out, r"receipt rcpt_[a-z2-7]{26}: edit by py-human for inquiry \d+")
        self.assertRegex(out, r'redeemed at .* by py-example-deployer; deploying \{"service":"api","replicas":5\}')
        self.assertIn("with replicas 9 instead: args_mismatch: the arguments differ from those approved", out)
        self.assertRegex(out, r"redeemed again: 409: .*already redeemed at .* by py-example-deployer")

    def test_server_down_is_an_error_not_a_hang(self):
        down = hitl.Client("http://127.0.0.1:%d" % free_port(), "token", give_up_after=0.5)
        start = time.monotonic()
        with self.assertRaises(hitl.ServerUnavailableError):
            down.request_input("Anyone there?")
        self.assertLess(time.monotonic() - start, 5)
        # A call that is not retried says so in words, not with urllib's traceback.
        with self.assertRaises(hitl.ServerUnavailableError) as caught:
            down.inquiry(1)
        self.assertIn("cannot reach the hitl server at " + down.url + " — is `hitl serve` running?", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
