"""OpenIntent's HITL calls (RFC-0025) over hitl: an intent is a hitl session, a suspension an
inquiry asked in it. Standard library only; the blocking Client runs in a thread.

    from hitl.openintent import Agent, on_assignment, on_input_requested, EngagementSignals

Agent classes written for OpenIntent's SDK run unchanged apart from their imports: construct
one with a client (RefundAgent(client=AsyncClient(url, token))) and await agent.assign(intent_id).
Their self.log(intent_id, message) and self.abandon(intent_id, reason=...) are the server's:
a comment in the intent's event log, and the intent abandoned (its session failed).
"""

import asyncio
import inspect
from dataclasses import dataclass, field
from typing import Any, Optional

from . import Client, HitlError, InputCancelledError, InputTimeoutError

__all__ = [
    "AsyncClient",
    "Agent",
    "EngagementSignals",
    "EngagementDecision",
    "SuspensionRecord",
    "InputResponse",
    "Intent",
    "OpenIntentError",
    "InputTimeoutError",
    "InputCancelledError",
    "on_assignment",
    "on_input_requested",
    "on_input_received",
    "on_engagement_decision",
    "on_suspension_expired",
]

# OpenIntent's base exception is hitl's.
OpenIntentError = HitlError


@dataclass
class EngagementSignals:
    confidence: float
    risk: float
    reversibility: float


@dataclass
class EngagementDecision:
    mode: str  # autonomous, request_input, require_input or defer
    should_ask: bool
    rationale: str


@dataclass
class SuspensionRecord:
    id: int
    question: str
    context: Any = None
    channel_hint: Optional[str] = None
    timeout_seconds: Optional[int] = None
    fallback_policy: str = "fail"
    fallback_value: Any = None
    resolution: str = "pending"  # pending, responded, expired, cancelled
    value: Any = None
    responded_by: Optional[str] = None
    responded_at: Optional[str] = None


@dataclass
class InputResponse:
    suspension_id: int
    value: Any
    responded_by: Optional[str]
    responded_at: Optional[str]


@dataclass
class IntentContext:
    data: dict = field(default_factory=dict)


@dataclass
class Intent:
    """An intent as hooks see it: ctx.data is the session's state without _suspension.

    status is active, suspended_awaiting_input, completed or abandoned (its session failed or
    was cancelled; abandonment_reason says why, when it says).
    """

    id: str
    status: str = "active"
    state: dict = field(default_factory=dict)
    ctx: IntentContext = field(default_factory=IntentContext)
    abandonment_reason: Optional[str] = None


def _intent(raw):
    state = raw.get("state") or {}
    data = {k: v for k, v in state.items() if k != "_suspension"}
    return Intent(
        id=raw["id"], status=raw["status"], state=state, ctx=IntentContext(data=data), abandonment_reason=raw.get("abandonment_reason")
    )


def _hook(kind):
    def mark(fn):
        fn._openintent_hook = kind
        return fn

    return mark


on_assignment = _hook("assignment")
on_input_requested = _hook("input_requested")  # after the suspension is stored, before waiting
on_input_received = _hook("input_received")  # when the answer is in, before request_input returns
on_engagement_decision = _hook("engagement_decision")  # may return a decision that replaces it
on_suspension_expired = _hook("suspension_expired")  # at the deadline, before the fallback is applied


def _hooks_of(obj, kind):
    if obj is None:
        return []
    return [getattr(obj, n) for n in dir(type(obj)) if getattr(getattr(type(obj), n, None), "_openintent_hook", None) == kind]


async def _call(fn, *args):
    out = fn(*args)
    return await out if inspect.isawaitable(out) else out


def _suspension(inquiry):
    resolution = {"pending": "pending", "timeout": "expired"}.get(inquiry["status"], inquiry["status"])
    return SuspensionRecord(
        id=inquiry["id"],
        question=inquiry["prompt"],
        context=inquiry.get("context"),
        channel_hint=inquiry.get("channel_hint") or None,
        fallback_policy=inquiry.get("fallback_policy") or "fail",
        fallback_value=inquiry.get("fallback_value"),
        resolution=resolution,
        value=inquiry.get("response"),
        responded_by=inquiry.get("responded_by"),
        responded_at=inquiry.get("responded_at"),
    )


class AsyncClient:
    """Client's calls for asyncio, and OpenIntent's: each blocking call runs in a thread.

    hooks is an object whose methods carry the decorators above (an Agent passes itself).
    """

    def __init__(self, url=None, token=None, timeout=30.0, give_up_after=15.0, hooks=None):
        self.client = Client(url, token, timeout=timeout, give_up_after=give_up_after)
        self.hooks = hooks

    def __getattr__(self, name):
        # Every call of Client, awaitable: await client.inquiry(id), client.cancel(id), ...
        method = getattr(self.client, name)
        if not callable(method):
            return method

        async def call(*args, **kwargs):
            return await asyncio.to_thread(method, *args, **kwargs)

        return call

    async def get_intent(self, intent_id):
        raw = await asyncio.to_thread(self.client._request, "GET", "/api/v1/intents/%s" % intent_id)
        return _intent(raw)

    async def log(self, intent_id, message, **data):
        """Logs a comment to the intent's event log, as OpenIntent's log() does: {"message":
        message, **data}. It changes nothing; it is kept in the session's events and timeline,
        also once the intent has ended."""
        body = {"event_type": "comment", "payload": {"message": message, **data}}
        await asyncio.to_thread(self.client._request, "POST", "/api/v1/intents/%s/events" % intent_id, body)

    async def abandon(self, intent_id, reason=None):
        """Ends the intent as abandoned: its session fails with the reason, and its pending
        suspensions are cancelled. An intent that has already ended without completing (a
        suspension that expired under "fail" may have ended it) stays as it is, with the reason
        it ended for. Returns the intent."""
        body = {"status": "abandoned"}
        if reason:
            body["reason"] = reason
        raw = await asyncio.to_thread(self.client._request, "POST", "/api/v1/intents/%s/status" % intent_id, body)
        return _intent(raw)

    async def get_events(self, intent_id, limit=100):
        """The intent's event log, oldest first: dicts with id, event_type, actor, payload and
        created_at (a logged comment has event_type "comment" and its payload)."""
        path = "/api/v1/intents/%s/events" % intent_id
        return await asyncio.to_thread(self.client._request, "GET", path, None, {"limit": limit})

    async def respond(self, intent_id, suspension_id, value, responded_by=None):
        """POST /api/v1/intents/{intent_id}/suspend/respond, as an operator's tool does."""
        body = {"suspension_id": suspension_id, "value": value}
        if responded_by:
            body["responded_by"] = responded_by
        path = "/api/v1/intents/%s/suspend/respond" % intent_id
        return await asyncio.to_thread(self.client._request, "POST", path, body)

    async def should_request_input(self, intent_id, signals=None, confidence=None, risk=None, reversibility=None):
        """The engagement decision for signals (or the keyword form); hooks may replace it."""
        if signals is None:
            signals = EngagementSignals(confidence=confidence, risk=risk, reversibility=reversibility)
        raw = await asyncio.to_thread(self.client.should_request_input, signals.confidence, signals.risk, signals.reversibility)
        decision = EngagementDecision(mode=raw["mode"], should_ask=raw["should_ask"], rationale=raw["rationale"])
        hooks = _hooks_of(self.hooks, "engagement_decision")
        if hooks:
            intent = Intent(id=intent_id)
            for hook in hooks:
                replaced = await _call(hook, intent, decision)
                if isinstance(replaced, EngagementDecision):
                    decision = replaced
        return decision

    async def request_input(
        self,
        intent_id,
        question,
        context=None,
        channel_hint=None,
        timeout_seconds=None,
        fallback_policy="fail",
        fallback_value=None,
        confidence=None,
    ):
        """Suspends the intent with a question and returns the operator's value.

        InputTimeoutError at the deadline under "fail" (else fallback_value is returned),
        InputCancelledError when the suspension is cancelled; both carry suspension_id.
        """
        request = {"prompt": question, "session": str(intent_id), "fallback_policy": fallback_policy}
        optional = {
            "context": context if context else None,
            "channel_hint": channel_hint,
            "timeout_seconds": timeout_seconds,
            "fallback_value": fallback_value,
            "confidence": confidence,
        }
        request.update({k: v for k, v in optional.items() if v is not None})
        inquiry = await asyncio.to_thread(self.client.create_inquiry, request)
        suspension = _suspension(inquiry)
        suspension.timeout_seconds = timeout_seconds
        intent = Intent(id=str(intent_id), status="suspended_awaiting_input")
        for hook in _hooks_of(self.hooks, "input_requested"):
            await _call(hook, intent, suspension)
        inquiry = await asyncio.to_thread(self.client._until_final, inquiry)
        intent.status = "active"
        status = inquiry["status"]
        if status == "cancelled":
            reason = inquiry.get("cancel_reason")
            raise InputCancelledError(
                "suspension %d was cancelled" % inquiry["id"] + (": " + reason if reason else ""), code="cancelled", inquiry=inquiry
            )
        if status == "timeout":
            expired = _suspension(inquiry)
            expired.timeout_seconds = timeout_seconds
            for hook in _hooks_of(self.hooks, "suspension_expired"):
                await _call(hook, intent, expired)
            if not inquiry.get("fallback_applied"):
                raise InputTimeoutError("suspension %d expired with no answer" % inquiry["id"], code="timeout", inquiry=inquiry)
            return inquiry.get("response")
        response = InputResponse(inquiry["id"], inquiry.get("response"), inquiry.get("responded_by"), inquiry.get("responded_at"))
        for hook in _hooks_of(self.hooks, "input_received"):
            await _call(hook, intent, response)
        return response.value


def Agent(name):
    """A class decorator: the class gets request_input, should_request_input, log, abandon and
    assign, and its decorated methods run as the hooks of its calls."""

    def decorate(cls):
        def __init__(self, client=None, url=None, token=None):
            self.name = name
            self.client = client or AsyncClient(url, token)
            self.client.hooks = self

        async def request_input(self, intent_id, question, **kwargs):
            return await self.client.request_input(intent_id, question, **kwargs)

        async def should_request_input(self, intent_id, signals=None, **kwargs):
            return await self.client.should_request_input(intent_id, signals=signals, **kwargs)

        async def log(self, intent_id, message, **data):
            await self.client.log(intent_id, message, **data)

        async def abandon(self, intent_id, reason=None):
            return await self.client.abandon(intent_id, reason=reason)

        async def assign(self, intent_id):
            """Runs the @on_assignment handlers on the intent; returns the last one's result."""
            intent = await self.client.get_intent(intent_id)
            result = None
            for handler in _hooks_of(self, "assignment"):
                result = await _call(handler, intent)
            return result

        cls.__init__ = __init__
        for fn in (request_input, should_request_input, log, abandon, assign):
            if not hasattr(cls, fn.__name__):
                setattr(cls, fn.__name__, fn)
        cls.agent_name = name
        return cls

    return decorate
