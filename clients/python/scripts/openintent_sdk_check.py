"""Runs OpenIntent's own Python SDK (openintent 0.17.0) against a hitl server: a manual check,
not run in CI (the SDK cannot be installed from a registry there). docs/openintent.md says how.

    PYTHONPATH=<openintent checkout at tag 0.17.0> HITL_URL=http://127.0.0.1:7447 \
    HITL_AGENT_KEY=<a key with the agent role> HITL_RESPONDER_KEY=<a key with the responder role> \
    python3 clients/python/scripts/openintent_sdk_check.py

It prints one line per SDK call it makes, ok or FAIL, and exits 1 if any failed.
"""

import asyncio
import json
import os
import sys
import threading
import urllib.request
import uuid

from openintent import AsyncOpenIntentClient, EventType, IntentStatus, OpenIntentClient
from openintent.agents import Agent, BaseAgent, on_assignment
from openintent.exceptions import ConflictError, NotFoundError, OpenIntentError, ValidationError
from openintent.models import SuspensionChoice, SuspensionRecord

URL = os.environ.get("HITL_URL", "http://127.0.0.1:7447")
AGENT_KEY = os.environ["HITL_AGENT_KEY"]
RESPONDER_KEY = os.environ["HITL_RESPONDER_KEY"]
AGENT_ID = "refund-agent"

failed = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + (": " + str(detail) if detail else ""))
    if not ok:
        failed.append(name)


def v1(method, path, key, body=None):
    """hitl's own API, for what a person does in the inbox."""
    req = urllib.request.Request(URL + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as resp:
        return json.loads(resp.read())


async def client_calls(c):
    d = await c.discover()
    check("discover()", d.get("protocol") == "OpenIntent Coordination Protocol", d.get("capabilities"))
    cfg = await c.get_server_config()
    check("get_server_config()", "default_retry_policy" in cfg.get("suspension", {}), cfg)

    intent = await c.create_intent("Refund order 12345", "Decide whether to refund", initial_state={"order": "12345"})
    check("create_intent()", intent.title == "Refund order 12345" and intent.status == IntentStatus.ACTIVE and intent.version == 1
          and intent.state.get("order") == "12345", (intent.id, intent.version, intent.status))
    got = await c.get_intent(intent.id)
    check("get_intent()", got.id == intent.id and got.created_at is not None, (got.title, got.version, got.status))

    updated = await c.update_state(intent.id, got.version, {"step": "review"})
    check("update_state()", updated.state.get("step") == "review" and updated.version == got.version + 1, updated.version)
    try:
        await c.update_state(intent.id, got.version, {"step": "stale"})
        check("update_state() with a stale version raises ConflictError", False)
    except ConflictError as e:
        check("update_state() with a stale version raises ConflictError", e.current_version == updated.version, e.message)

    # What request_input() means to do (it cannot, see below): the status, then the suspension.
    now = await c.set_status(intent.id, updated.version, IntentStatus.SUSPENDED_AWAITING_INPUT)
    check("set_status(SUSPENDED_AWAITING_INPUT)", now.version == updated.version + 1, (now.status, now.version))
    suspension = SuspensionRecord(id=str(uuid.uuid4()), question="Refund $499.99 for order 12345?", response_type="choice",
                                  choices=[SuspensionChoice(value="approve", label="Approve"), SuspensionChoice(value="deny", label="Deny")],
                                  context={"amount": 499.99}, timeout_seconds=3600, fallback_policy="fail")
    suspended = await c.update_state(intent.id, now.version, {"_suspension": suspension.to_dict()})
    s = suspended.state.get("_suspension", {})
    check("update_state({'_suspension': ...}) asks a person", suspended.status == IntentStatus.SUSPENDED_AWAITING_INPUT
          and s.get("id") == suspension.id and s.get("resolution") == "pending", (suspended.status, s.get("id")))
    event = await c.log_event(intent.id, EventType.INTENT_SUSPENDED, {"suspension_id": suspension.id}, trace_id="trace-1")
    check("log_event()", event.event_type == EventType.INTENT_SUSPENDED and event.intent_id == intent.id, event.id)

    # A person answers in hitl (here through /v1, as the inbox does).
    inquiries = v1("GET", "/v1/sessions/%s/inquiries" % intent.id, AGENT_KEY)["data"]
    inquiry = next(i for i in inquiries if i["metadata"].get("openintent_suspension_id") == suspension.id)
    v1("POST", "/v1/inquiries/%d/respond" % inquiry["id"], RESPONDER_KEY, {"response": "approve"})
    answered = await c.get_intent(intent.id)
    s = answered.state.get("_suspension", {})
    check("get_intent() shows the answer as _suspension.response", s.get("resolution") == "responded" and s.get("response") == "approve"
          and answered.status == IntentStatus.ACTIVE, (s.get("resolution"), s.get("response"), s.get("responded_by")))

    events = await c.get_events(intent.id)
    check("get_events()", len(events) > 0, [e.event_type.value for e in events])
    done = await c.set_status(intent.id, answered.version, IntentStatus.COMPLETED)
    check("set_status(COMPLETED)", done.status == IntentStatus.COMPLETED, done.version)

    try:
        await c.get_intent("no-such-intent")
        check("get_intent() of an unknown intent raises NotFoundError", False)
    except NotFoundError as e:
        check("get_intent() of an unknown intent raises NotFoundError", e.status_code == 404, e.response.get("detail"))
    try:
        await c.set_status(intent.id, done.version, IntentStatus.BLOCKED)
        check("set_status(BLOCKED) raises ValidationError", False)
    except ValidationError as e:
        check("set_status(BLOCKED) raises ValidationError", e.status_code == 400, e.message)
    sync = OpenIntentClient(URL, AGENT_KEY, AGENT_ID)  # the synchronous client makes the same calls
    i = sync.create_intent("Sync client", "The same calls")
    i = sync.update_state(i.id, i.version, {"a": 1})
    i = sync.set_status(i.id, i.version, IntentStatus.COMPLETED)
    check("OpenIntentClient: create_intent, update_state, set_status", i.status == IntentStatus.COMPLETED and i.state.get("a") == 1, i.version)
    async with AsyncOpenIntentClient(URL, "not-a-key", AGENT_ID) as bad:
        try:
            await bad.get_intent(intent.id)
            check("a wrong key raises OpenIntentError 401", False)
        except OpenIntentError as e:
            check("a wrong key raises OpenIntentError 401", e.status_code == 401, e.response.get("detail"))
    return intent


def agent_run():
    """Agent.run(): the assignment arrives on its SSE subscription; its handler's result is patched in."""
    handled = threading.Event()

    @Agent(AGENT_ID)
    class RefundAgent:
        @on_assignment
        async def work(self, intent):
            handled.set()
            return {"handled_by": AGENT_ID, "title_seen": intent.title}

    agent = RefundAgent(base_url=URL, api_key=AGENT_KEY)
    # RefundAgent.run() recurses forever in 0.17.0 (the decorator's run calls instance.run(),
    # which is itself): BaseAgent.run is the run it means.
    threading.Thread(target=BaseAgent.run, args=(agent,), daemon=True).start()
    return agent, handled


async def assignment(c):
    agent, handled = agent_run()
    await asyncio.sleep(1.5)  # the agent subscribes
    intent = await c.create_intent("Refund order 777", "Assigned to the agent")
    await c.assign_agent(intent.id, AGENT_ID)
    ok = await asyncio.to_thread(handled.wait, 20)
    check("Agent.run() receives AGENT_ASSIGNED and runs @on_assignment", ok)
    for _ in range(50):
        state = (await c.get_intent(intent.id)).state
        if state.get("handled_by"):
            break
        await asyncio.sleep(0.2)
    check("its result is patched into the intent's state", state.get("handled_by") == AGENT_ID, state.to_dict())
    try:
        await agent.request_input(intent.id, question="Approve?")
        check("request_input() (known SDK bug: set_status's arguments in the wrong order)", False, "it worked?")
    except AttributeError as e:
        print("note request_input() fails in the SDK before any HTTP call:", repr(e))


async def main():
    async with AsyncOpenIntentClient(URL, AGENT_KEY, AGENT_ID) as c:
        await client_calls(c)
        await assignment(c)
    print("%d failed" % len(failed) if failed else "all ok")
    sys.exit(1 if failed else 0)


asyncio.run(main())
