"""OpenIntent's calls (RFC-0025) over hitl, against a real server started as test_client does.

The refund agent below is the seed's example as written; only its imports differ.
"""

import asyncio
import json
import os
import sys
import threading
import unittest
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
sys.path.insert(0, os.path.dirname(__file__))

import hitl  # noqa: E402
import test_client  # noqa: E402 - its server, not its tests

from hitl.openintent import (  # noqa: E402
    Agent,
    EngagementDecision,
    EngagementSignals,
    InputTimeoutError,
    on_assignment,
    on_engagement_decision,
    on_input_received,
    on_input_requested,
    on_suspension_expired,
)

slack = []  # what the agent posted, in order
operator_key = None
server_url = None


def operator_answers(intent_id, suspension_id, value):
    """The seed's operator: POST /suspend/respond with X-API-Key, from another thread."""

    def run():
        body = json.dumps({"suspension_id": str(suspension_id), "value": value, "responded_by": "test-operator"}).encode()
        req = urllib.request.Request(
            "%s/api/v1/intents/%s/suspend/respond" % (server_url, intent_id),
            data=body,
            method="POST",
            headers={"X-API-Key": operator_key, "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req) as resp:
            slack.append(("operator", resp.status, json.loads(resp.read())["resolution"]))

    threading.Thread(target=run, daemon=True).start()


async def post_slack(text, context=None):
    slack.append(("slack", text, context))
    if text.startswith("Refund approval needed"):
        operator_answers(RefundAgent.current_intent, RefundAgent.current_suspension, "approve")


# ---- the seed's example, as written


@Agent("refund-agent")
class RefundAgent:
    @on_assignment
    async def handle(self, intent):
        order_id = intent.ctx.data.get("order_id")
        amount = intent.ctx.data.get("amount", 0)

        # Compute engagement signals
        confidence = 0.9 if amount < 100 else 0.4
        risk = 0.8 if amount > 1000 else 0.3
        signals = EngagementSignals(confidence=confidence, risk=risk, reversibility=0.5)

        decision = await self.should_request_input(intent.id, signals=signals)

        if decision.should_ask:
            try:
                answer = await self.request_input(
                    intent.id,
                    question=f"Approve refund of ${amount} for order {order_id}?",
                    context={"order_id": order_id, "amount": amount},
                    channel_hint="slack",
                    timeout_seconds=7200,
                    fallback_policy="complete_with_fallback",
                    fallback_value="deny",
                    confidence=confidence,
                )
            except InputTimeoutError:
                answer = "deny"
        else:
            answer = "approve" if confidence >= 0.85 else "deny"

        return {"order_id": order_id, "refund_decision": answer}

    @on_input_requested
    async def notify_slack(self, intent, suspension):
        RefundAgent.current_intent, RefundAgent.current_suspension = intent.id, suspension.id  # for the test's operator
        await post_slack(
            f"Refund approval needed: {suspension.question}",
            context=suspension.context,
        )

    @on_suspension_expired
    async def alert_on_timeout(self, intent, suspension):
        await post_slack(f"Refund approval timed out for suspension {suspension.id}")


class OpenIntentTest(unittest.TestCase):
    setUpClass = test_client.ServerTest.__dict__["setUpClass"]
    tearDownClass = test_client.ServerTest.__dict__["tearDownClass"]
    key = test_client.ServerTest.__dict__["key"]

    def setUp(self):
        global operator_key, server_url
        operator_key, server_url = self.key("test-operator", "responder"), self.url
        self.agent_token = self.key("refund-agent-%d" % len(slack), "agent")
        slack.clear()

    def put_intent(self, intent_id, data):
        hitl.Client(self.url, self.agent_token)._request("PUT", "/v1/sessions/" + intent_id, {"agent": "refund-agent", "state": data})

    def test_refund_agent_as_the_seed_writes_it(self):
        self.put_intent("refund-1", {"order_id": "A-1", "amount": 499.99})
        agent = RefundAgent(client=hitl.AsyncClient(self.url, self.agent_token))
        result = asyncio.run(agent.assign("refund-1"))
        self.assertEqual(result, {"order_id": "A-1", "refund_decision": "approve"})
        self.assertEqual(slack[0][0], "slack")
        self.assertEqual(slack[0][1], "Refund approval needed: Approve refund of $499.99 for order A-1?")
        self.assertEqual(slack[0][2], {"order_id": "A-1", "amount": 499.99})
        self.assertEqual(slack[1], ("operator", 200, "responded"))
        intent = asyncio.run(hitl.AsyncClient(self.url, self.agent_token).get_intent("refund-1"))
        self.assertEqual(intent.status, "active")
        self.assertEqual(intent.state["_suspension"]["responded_by"], "test-operator")

    def test_small_refund_is_autonomous(self):
        self.put_intent("refund-2", {"order_id": "A-2", "amount": 20})
        agent = RefundAgent(client=hitl.AsyncClient(self.url, self.agent_token))
        self.assertEqual(asyncio.run(agent.assign("refund-2")), {"order_id": "A-2", "refund_decision": "approve"})
        self.assertEqual(slack, [])

    def test_hooks_order_decision_override_and_errors(self):
        calls = []

        @Agent("hooks-agent")
        class HooksAgent:
            @on_engagement_decision
            async def audit(self, intent, decision):
                calls.append(("decision", decision.mode))
                return EngagementDecision(mode="require_input", should_ask=True, rationale="policy: always ask")

            @on_input_requested
            def requested(self, intent, suspension):
                calls.append(("requested", suspension.question, suspension.channel_hint))

            @on_input_received
            async def received(self, intent, response):
                calls.append(("received", response.value, response.responded_by))

            @on_suspension_expired
            async def expired(self, intent, suspension):
                calls.append(("expired", suspension.resolution))

        client = hitl.AsyncClient(self.url, self.agent_token)
        agent = HooksAgent(client=client)
        decision = asyncio.run(agent.should_request_input("hooks-1", confidence=0.99, risk=0.01, reversibility=0.99))
        self.assertEqual((decision.mode, decision.should_ask, decision.rationale), ("require_input", True, "policy: always ask"))
        self.assertEqual(calls.pop(0), ("decision", "autonomous"))

        # The deadline passes: the expired hook runs, then the fallback is returned.
        value = asyncio.run(agent.request_input("hooks-1", "Quick?", timeout_seconds=1, fallback_policy="complete_with_fallback", fallback_value="deny"))
        self.assertEqual(value, "deny")
        self.assertEqual(calls, [("requested", "Quick?", None), ("expired", "expired")])
        # Under "fail", InputTimeoutError, an OpenIntentError with the suspension id; the
        # intent ends with it (abandoned, with the expiry as its reason), as every run whose
        # question times out under "fail" does.
        with self.assertRaises(hitl.OpenIntentError) as caught:
            asyncio.run(agent.request_input("hooks-1", "Quick again?", timeout_seconds=1))
        self.assertIsInstance(caught.exception, InputTimeoutError)
        self.assertIsInstance(caught.exception.suspension_id, int)
        intent = asyncio.run(client.get_intent("hooks-1"))
        self.assertEqual(
            (intent.status, intent.abandonment_reason), ("abandoned", "question %d timed out" % caught.exception.suspension_id)
        )

        # An answer comes back through the received hook.
        calls.clear()

        async def answer_when_requested():
            task = asyncio.create_task(agent.request_input("hooks-2", "Ship it?", channel_hint="email"))
            while not calls and not task.done():
                await asyncio.sleep(0.01)
            if task.done():  # request_input failed: say why rather than wait for ever
                return await task
            pending = await operator.list_inquiries(status="pending", session="hooks-2")
            await operator.respond("hooks-2", pending["data"][0]["id"], "ship", responded_by="test-operator")
            return await task

        operator = hitl.AsyncClient(self.url, operator_key)
        self.assertEqual(asyncio.run(answer_when_requested()), "ship")
        self.assertEqual(calls, [("requested", "Ship it?", "email"), ("received", "ship", "test-operator")])

    def test_log_and_abandon_when_nobody_answers(self):
        """The seed's handling of InputTimeoutError as written: log the expiry, abandon the intent.
        The fallback_value under "fail" is taken and ignored, as OpenIntent's SDK ignores it."""

        @Agent("expiry-agent")
        class ExpiryAgent:
            @on_assignment
            async def handle(self, intent):
                intent_id = intent.id
                try:
                    return await self.request_input(
                        intent_id, question="Approve?", timeout_seconds=1, fallback_policy="fail", fallback_value="deny"
                    )
                except InputTimeoutError as e:
                    ExpiryAgent.expired = e.suspension_id
                    await self.log(intent_id, f"Suspension {e.suspension_id} expired")
                    await self.abandon(intent_id, reason="No operator response")
                    return "abandoned"

        self.put_intent("refund-x", {"order_id": "A-9", "amount": 5000})
        client = hitl.AsyncClient(self.url, self.agent_token)
        self.assertEqual(asyncio.run(ExpiryAgent(client=client).assign("refund-x")), "abandoned")
        intent = asyncio.run(client.get_intent("refund-x"))
        self.assertEqual(intent.status, "abandoned")
        self.assertEqual(intent.state["_suspension"]["fallback_value"], None)
        # Why it ended: the agent's reason, unless the expiry had already ended it with its own.
        self.assertTrue(intent.abandonment_reason)
        comments = [e for e in asyncio.run(client.get_events("refund-x")) if e["event_type"] == "comment"]
        self.assertEqual([c["payload"] for c in comments], [{"message": "Suspension %d expired" % ExpiryAgent.expired}])
        self.assertTrue(comments[0]["actor"].startswith("refund-agent-"))

    def test_abandon_a_running_intent_with_its_reason(self):
        self.put_intent("refund-y", {"order_id": "A-10"})
        agent = RefundAgent(client=hitl.AsyncClient(self.url, self.agent_token))
        asyncio.run(agent.log("refund-y", "fraud check failed", score=0.97))
        intent = asyncio.run(agent.abandon("refund-y", reason="Fraud suspected"))
        self.assertEqual((intent.status, intent.abandonment_reason), ("abandoned", "Fraud suspected"))
        # Abandoning again leaves it as it was; a note after the end is kept.
        self.assertEqual(asyncio.run(agent.abandon("refund-y", reason="again")).abandonment_reason, "Fraud suspected")
        asyncio.run(agent.log("refund-y", "customer told"))
        events = asyncio.run(agent.client.get_events("refund-y"))
        self.assertEqual(
            [(e["event_type"], e["payload"].get("message")) for e in events],
            [("intent_created", None), ("comment", "fraud check failed"), ("status_changed", None), ("comment", "customer told")],
        )
        self.assertEqual(events[1]["payload"], {"message": "fraud check failed", "score": 0.97})
        # A completed intent cannot be abandoned: the server's message, as an OpenIntentError.
        self.put_intent("refund-z", {})
        hitl.Client(self.url, self.agent_token)._request("POST", "/v1/sessions/refund-z/complete", {})
        with self.assertRaises(hitl.OpenIntentError) as caught:
            asyncio.run(agent.abandon("refund-z", reason="too late"))
        self.assertEqual(caught.exception.status, 409)
        self.assertIn("cannot be abandoned", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
