"""Ask a human from a Python agent and resume when they answer: the client of a hitl server.

Standard library only. See Client.request_input, and request_user_input for agent frameworks.
"""

import http.client
import json
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

from .receipt import ReceiptError, args_sha256, canonical_json, verify_receipt

__all__ = [
    "Client",
    "Waiter",
    "AsyncClient",
    "HitlError",
    "OpenIntentError",
    "InputTimeoutError",
    "InputCancelledError",
    "ServerUnavailableError",
    "request_user_input",
    "credentials_path",
    "load_credentials",
    "verify_receipt",
    "ReceiptError",
    "canonical_json",
    "args_sha256",
]

# How long each long poll lasts; the server holds it at most 5 minutes.
POLL_SECONDS = 30

# How many inquiries one POST /v1/inquiries/wait may name (the server's bound).
MAX_WAIT_IDS = 10000

# Where the client connects when neither an argument, HITL_URL nor the credentials file says.
DEFAULT_URL = "http://127.0.0.1:7447"


class HitlError(Exception):
    """A request the server refused: its HTTP status, problem code, detail and field errors."""

    def __init__(self, detail, status=None, code=None, errors=None, inquiry=None):
        super().__init__(detail)
        self.detail = detail
        self.status = status
        self.code = code
        self.errors = errors or []
        self.inquiry = inquiry

    def __str__(self):
        if not self.errors:
            return self.detail
        fields = "; ".join("%s: %s" % (e.get("path"), e.get("message")) for e in self.errors)
        return "%s (%s)" % (self.detail, fields)


class InputTimeoutError(HitlError):
    """The deadline passed with no answer, under fallback_policy "fail"."""

    @property
    def suspension_id(self):
        """The inquiry's id (OpenIntent's suspension id)."""
        return (self.inquiry or {}).get("id")


class InputCancelledError(HitlError):
    """The question was cancelled before anyone answered."""

    suspension_id = InputTimeoutError.suspension_id


# OpenIntent's name for the base of its errors (hitl.openintent has its calls).
OpenIntentError = HitlError


class ServerUnavailableError(HitlError):
    """The server could not be reached (connection refused, no such host), or did not answer
    for give_up_after seconds."""


def _retryable(err):
    if isinstance(err, ServerUnavailableError):
        return True  # refused while the server restarts: worth another try
    if isinstance(err, HitlError):
        return err.status is not None and (err.status >= 500 or err.status == 429)
    return isinstance(err, (urllib.error.URLError, ConnectionError, TimeoutError, OSError))


# ---- the credentials file of the hitl CLI (internal/credentials in the Go module)


def _user_config_dir():
    """The user's config directory, as Go's os.UserConfigDir finds it."""
    if os.name == "nt":
        d = os.environ.get("AppData", "")
        if not d:
            raise HitlError("%AppData% is not defined")
        return d
    if sys.platform in ("darwin", "ios"):
        d = os.environ.get("HOME", "")
        if not d:
            raise HitlError("$HOME is not defined")
        return d + "/Library/Application Support"
    d = os.environ.get("XDG_CONFIG_HOME", "")
    if not d:
        d = os.environ.get("HOME", "")
        if not d:
            raise HitlError("neither $XDG_CONFIG_HOME nor $HOME are defined")
        return d + "/.config"
    if not os.path.isabs(d):
        raise HitlError("path in $XDG_CONFIG_HOME is relative")
    return d


def credentials_path():
    """The file where `hitl serve` leaves the server's URL and the first admin token.

    HITL_CREDENTIALS, else hitl/credentials.json in the user's config directory:
    $XDG_CONFIG_HOME, else ~/.config (~/Library/Application Support on macOS, %AppData% on
    Windows), as the hitl CLI finds it. Raises HitlError when there is no such directory.
    """
    p = os.environ.get("HITL_CREDENTIALS", "")
    if p:
        return p
    try:
        d = _user_config_dir()
    except HitlError as e:
        raise HitlError("no place for the credentials file (set HITL_CREDENTIALS): %s" % e) from None
    p = os.path.normpath(os.path.join(d, "hitl", "credentials.json"))
    if os.name != "nt" and p.startswith("//"):
        p = "/" + p.lstrip("/")  # as Go's filepath.Clean
    return p


class _Members(list):
    """A JSON object's members in order, duplicates kept."""


def _reject_constant(name):
    raise ValueError("invalid character %r" % name[0])


def load_credentials():
    """Reads the credentials file: {"url": ..., "token": ...} ("" for what it lacks).

    A missing file gives both empty; a file that cannot be read or is not a credentials file
    raises HitlError. It is read as the hitl CLI reads it: member names in any case, the last
    of a repeated name wins, null leaves a field as it was, other members are ignored.
    """
    path = credentials_path()
    creds = {"url": "", "token": ""}
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return creds
    except OSError as e:
        raise HitlError("cannot read the credentials file %s: %s" % (path, e)) from None
    try:
        doc = json.loads(raw.decode("utf-8", "replace"), object_pairs_hook=_Members, parse_constant=_reject_constant)
        if doc is not None and not isinstance(doc, _Members):
            raise ValueError("want a JSON object")
        for name, value in doc or []:
            field = name.casefold()
            if field not in creds or value is None:
                continue
            if not isinstance(value, str):
                raise ValueError("%s must be a string" % name)
            creds[field] = value
    except ValueError as e:
        raise HitlError("%s is not a hitl credentials file: %s" % (path, e)) from None
    return creds


class Client:
    """Talks to one hitl server with one token.

    url and token default to the HITL_URL and HITL_TOKEN environment variables, and where those
    are unset or empty to the credentials file the hitl CLI uses (see credentials_path), which
    `hitl serve` writes on its first start; the URL then defaults to http://127.0.0.1:7447.
    The file is read only when it is needed, and then a file that cannot be read raises
    HitlError, as the CLI stops on it.
    """

    def __init__(self, url=None, token=None, timeout=30.0, give_up_after=15.0):
        env_url = os.environ.get("HITL_URL", "")
        env_token = os.environ.get("HITL_TOKEN", "")
        creds = {}
        if (not url and not env_url) or (token is None and not env_token):
            creds = load_credentials()
        self.url = (url or env_url or creds.get("url") or DEFAULT_URL).rstrip("/")
        self.token = token if token is not None else (env_token or creds.get("token", ""))
        self.timeout = timeout
        self.give_up_after = give_up_after

    # ---- HTTP

    def _request(self, method, path, body=None, query=None, headers=None, timeout=None):
        url = self.url + path
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None}, doseq=True)
        data = None
        req_headers = {"Accept": "application/json"}
        if self.token:
            req_headers["Authorization"] = "Bearer " + self.token
        if body is not None:
            data = json.dumps(body).encode()
            req_headers["Content-Type"] = "application/json"
        req_headers.update(headers or {})
        req = urllib.request.Request(url, data=data, method=method, headers=req_headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout or self.timeout) as resp:
                raw = resp.read()
                return json.loads(raw) if raw else None
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                problem = json.loads(raw)
            except ValueError:
                problem = {}
            raise HitlError(
                problem.get("detail") or "%d %s" % (e.code, e.reason),
                status=e.code,
                code=problem.get("code"),
                errors=problem.get("errors"),
                inquiry=problem.get("inquiry"),
            ) from None
        except urllib.error.URLError as e:
            raise ServerUnavailableError(
                "cannot reach the hitl server at %s — is `hitl serve` running? (%s; the address is from "
                "the url argument, HITL_URL or the credentials file)" % (self.url, e.reason),
                code="unavailable",
            ) from None

    def _persist(self, fn, give_up_after=None):
        """Calls fn until it succeeds, fails for good, or the server stays unreachable."""
        limit = self.give_up_after if give_up_after is None else give_up_after
        deadline = time.monotonic() + limit
        backoff = 0.05
        while True:
            try:
                return fn()
            except Exception as err:  # noqa: BLE001 - sorted by _retryable
                if not _retryable(err):
                    raise
                if time.monotonic() + backoff > deadline:
                    raise ServerUnavailableError(
                        "the hitl server at %s did not answer within %gs: %s" % (self.url, limit, err)
                    ) from err
            time.sleep(backoff)
            backoff = min(backoff * 2, 2.0)

    # ---- inquiries

    def create_inquiry(self, request, idempotency_key=None):
        """POST /v1/inquiries. An idempotency key is made when none is given."""
        key = idempotency_key or "py-" + uuid.uuid4().hex
        return self._persist(lambda: self._request("POST", "/v1/inquiries", request, headers={"Idempotency-Key": key}))

    def inquiry(self, inquiry_id):
        return self._request("GET", "/v1/inquiries/%d" % inquiry_id)

    def wait(self, inquiry_id, timeout=POLL_SECONDS):
        """Long-polls until the inquiry is final or timeout seconds pass (it is then still pending)."""
        return self._request(
            "GET", "/v1/inquiries/%d/wait" % inquiry_id, query={"timeout": "%ds" % timeout}, timeout=timeout + self.timeout
        )

    def wait_many(self, ids, timeout=POLL_SECONDS):
        """Waits on many inquiries with one request (POST /v1/inquiries/wait), yielding each line.

        Yields dicts in order: {"type": "inquiry", "inquiry": ...} once per inquiry when it is
        final (at once when it already is), {"type": "error", "id", "error": {"code", "message"}}
        for an id that cannot be waited on, {"type": "waiting", "count"} once all are registered,
        and {"type": "end", "reason", "pending"} last. A refused request raises HitlError; a
        stream that breaks before its end raises ServerUnavailableError.
        """
        stream = self._open_wait(ids, timeout)
        try:
            for line in stream.lines():
                yield line
        finally:
            stream.close()

    def _open_wait(self, ids, timeout):
        return _WaitStream(self, list(ids), timeout)

    def waiter(self):
        """A Waiter: many waits of this process over a few shared connections."""
        return Waiter(self)

    def respond(self, inquiry_id, response, comment=None):
        body = {"response": response}
        if comment:
            body["comment"] = comment
        return self._request("POST", "/v1/inquiries/%d/respond" % inquiry_id, body)

    def cancel(self, inquiry_id, reason=None):
        return self._request("POST", "/v1/inquiries/%d/cancel" % inquiry_id, {"reason": reason or ""})

    def list_inquiries(self, status=None, session=None, assigned_to=None, limit=None, cursor=None):
        """One page, newest first: {"data": [...], "next_cursor": ...}."""
        query = {"status": status, "session": session, "assigned_to": assigned_to, "limit": limit, "cursor": cursor}
        return self._request("GET", "/v1/inquiries", query=query)

    def should_request_input(self, confidence, risk, reversibility):
        """The engagement decision: {"mode", "should_ask", "rationale"}."""
        body = {"confidence": confidence, "risk": risk, "reversibility": reversibility}
        return self._request("POST", "/v1/engagement/decide", body)

    def tool_definitions(self):
        """request_user_input in the shapes of OpenAI and Anthropic tool lists."""
        return self._request("GET", "/v1/tools/request_user_input")

    def jwks(self):
        """The server's receipt signing keys (GET /.well-known/jwks.json), current key first.

        What verify_receipt checks a receipt against. Fetch it once and keep it a few minutes
        (the server says max-age=300), not once per receipt.
        """
        return self._request("GET", "/.well-known/jwks.json")

    def redeem_receipt(self, jti):
        """Marks a receipt used (POST /v1/receipts/{jti}/redeem), for an executor that runs an
        approved call once only: {"jti", "inquiry_id", "redeemed_at", "redeemed_by"} the first
        time; every later redemption, on any node, raises HitlError 409 ("already redeemed at
        ... by ..."), as does an expired receipt; an unknown jti raises HitlError 404.
        """
        return self._request("POST", "/v1/receipts/%s/redeem" % urllib.parse.quote(jti, safe=""))

    def _until_final(self, inquiry, waiter=None):
        if waiter is not None and inquiry["status"] == "pending":
            return waiter.wait(inquiry["id"])
        while inquiry["status"] == "pending":
            inquiry_id = inquiry["id"]
            inquiry = self._persist(lambda: self.wait(inquiry_id), give_up_after=max(self.give_up_after, 60))
        return inquiry

    def request_input(
        self,
        question,
        context=None,
        options=None,
        response_schema=None,
        request_type=None,
        multiple=False,
        timeout_seconds=None,
        fallback_policy="fail",
        fallback_value=None,
        session=None,
        assigned_to=None,
        origin=None,
        idempotency_key=None,
        remind_every=None,
        escalate_after=None,
        escalate_to=None,
        escalate=None,
        priority=None,
        waiter=None,
    ):
        """Asks a human and blocks until the answer, which it returns (decoded JSON).

        Under fallback_policy "complete_with_fallback" or "use_default_and_continue" a deadline
        returns fallback_value; under "fail" it raises InputTimeoutError. A cancellation raises
        InputCancelledError, a refused request HitlError with the server's message.

        remind_every ("30m") reminds the people asked while nobody answers; escalate_after ("2h")
        with escalate_to (names or "group:NAME") adds those people when nobody has answered by then;
        escalate is a ladder of such steps instead, a list of {"after": "1h", "assigned_to": [...],
        "channels": [...]}. priority "urgent" reminds and escalates at any hour; "normal" (the
        default) waits for the working hours of the people reached.

        waiter (see Client.waiter) waits for the answer on its shared stream rather than with long
        polls of this call's own: what a process with many questions open at once should use.
        """
        request = {"prompt": question, "fallback_policy": fallback_policy}
        optional = {
            "context": context,
            "options": options,
            "response_schema": response_schema,
            "request_type": request_type,
            "timeout_seconds": timeout_seconds,
            "fallback_value": fallback_value,
            "session": session,
            "assigned_to": assigned_to,
            "origin": origin,
            "remind_every": remind_every,
            "escalate_after": escalate_after,
            "escalate_to": escalate_to,
            "escalate": escalate,
            "priority": priority,
        }
        request.update({k: v for k, v in optional.items() if v is not None})
        if multiple:
            request["multiple"] = True
        inquiry = self._until_final(self.create_inquiry(request, idempotency_key), waiter)
        return _outcome(inquiry)

    def request_user_input(self, prompt, context=None, request_type=None, options=None, **kwargs):
        """A tool function for agent frameworks: asks and returns the result as text for the model.

        A text answer comes back as that text ("haiku", not '"haiku"'); any other answer (an
        approval's object, a number, a list) as JSON text. A deadline or a cancellation comes back
        as a sentence saying so (the model must not act as if the human had agreed). Refused requests raise
        HitlError, so the framework reports them as tool errors.
        """
        call = kwargs.pop("tool_call", None)
        request = {"prompt": prompt}
        optional = {"context": context, "request_type": request_type, "options": options}
        request.update({k: v for k, v in optional.items() if v is not None})
        request.update({k: v for k, v in kwargs.items() if v is not None})
        if call:
            request["tool_call"] = call
        key = "tool-call:" + call["id"] if call else None
        inquiry = self._until_final(self.create_inquiry(request, key))
        if inquiry.get("tool_result"):
            return inquiry["tool_result"]["content"]
        try:
            answer = _outcome(inquiry)
        except InputTimeoutError:
            return "The human did not answer before the deadline; there is no answer. Do not go ahead as if they had agreed."
        except InputCancelledError as e:
            return "The question was cancelled before the human answered. " + str(e)
        # The model reads text: its quotes would be noise, and it could take them as part of the answer.
        return answer if isinstance(answer, str) else json.dumps(answer)

    def review_tool_call(
        self,
        prompt,
        tool_call,
        allowed_decisions=None,
        context=None,
        assigned_to=None,
        timeout_seconds=None,
        session=None,
        **kwargs
    ):
        """Asks a person to decide about a call of one of the model's own tools, before it runs.

        tool_call is {"id", "name", "arguments"} and, to let the person edit the arguments, the
        tool's "parameters_schema" with "edit" among allowed_decisions (approve, edit, reject,
        respond; the default is approve and reject). Blocks until the decision, and returns the
        tool result: {"tool_call_id", "content" (for the model), "run" (whether to run the tool),
        "arguments" (to run it with: the proposed ones or the person's edit), "decision",
        "message" (why not, or the person's answer instead)}. A deadline or a cancellation is a
        result with run False. The call's id is the idempotency key: a retry never asks twice.
        """
        if not tool_call or not tool_call.get("id"):
            raise HitlError("a tool call to review needs the call, with its id", code="invalid")
        request = {"prompt": prompt, "request_type": "approval", "tool_call": tool_call}
        if allowed_decisions is None and "parameters_schema" not in tool_call:
            allowed_decisions = ["approve", "reject"]  # answered with a decision, not {"approved"}
        optional = {
            "allowed_decisions": allowed_decisions,
            "context": context,
            "assigned_to": assigned_to,
            "timeout_seconds": timeout_seconds,
            "session": session,
        }
        request.update({k: v for k, v in optional.items() if v is not None})
        request.update({k: v for k, v in kwargs.items() if v is not None})
        inquiry = self._until_final(self.create_inquiry(request, "tool-review:" + tool_call["id"]))
        return inquiry["tool_result"]


class _WaitStream:
    """One POST /v1/inquiries/wait, read line by line; close() may be called from any thread."""

    def __init__(self, client, ids, timeout):
        u = urllib.parse.urlsplit(client.url)
        cls = http.client.HTTPSConnection if u.scheme == "https" else http.client.HTTPConnection
        # The server sends a ping every 15 s: client.timeout beyond that means it is gone.
        self._conn = cls(u.hostname, u.port, timeout=max(client.timeout, 15) + 15)
        self._closed = False
        headers = {"Content-Type": "application/json", "Accept": "application/x-ndjson"}
        if client.token:
            headers["Authorization"] = "Bearer " + client.token
        body = json.dumps({"ids": ids, "timeout": "%gs" % timeout})
        try:
            self._conn.request("POST", u.path.rstrip("/") + "/v1/inquiries/wait", body=body, headers=headers)
            self._resp = self._conn.getresponse()
        except (OSError, http.client.HTTPException) as e:
            self._conn.close()
            raise ServerUnavailableError("cannot reach the hitl server at %s (%s)" % (client.url, e), code="unavailable") from None
        if self._resp.status != 200:
            raw = self._resp.read()
            self._conn.close()
            try:
                problem = json.loads(raw)
            except ValueError:
                problem = {}
            raise HitlError(
                problem.get("detail") or "%d %s" % (self._resp.status, self._resp.reason),
                status=self._resp.status, code=problem.get("code"), errors=problem.get("errors"),
            )

    def lines(self):
        """Yields each line but pings; returns after the end line."""
        while True:
            try:
                raw = self._resp.readline()
            except (OSError, http.client.HTTPException, ValueError):
                raw = b""
            if not raw:
                if self._closed:
                    return
                raise ServerUnavailableError("the wait's stream broke before its end", code="unavailable")
            line = json.loads(raw)
            if line.get("type") == "ping":
                continue
            yield line
            if line.get("type") == "end":
                return

    def close(self):
        self._closed = True
        sock = self._conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes a reader blocked on it
            except OSError:
                pass
        self._conn.close()


class Waiter:
    """Waits on many inquiries for many threads over a few connections.

    Each wait is an id on a shared POST /v1/inquiries/wait stream (at most MAX_WAIT_IDS a
    stream), not a long poll of its own: a process with 100,000 questions open holds about a
    dozen connections, and the server a few dozen bytes a question. The ids of a burst of
    questions go out together; a new stream takes over the ids of open streams no larger than
    it once there are four, and those close when it has registered them. Streams are renewed
    when they end, and after a dropped connection or a restart with backoff, never missing an
    answer. Use one per process (it is thread-safe), and close it when done; it is also a
    context manager.
    """

    SOFT_STREAMS = 4
    HARD_STREAMS = 64
    LINGER = 0.02  # seconds for the ids of a burst of questions to gather

    def __init__(self, client, stream_wait=300):
        self.client = client
        self.stream_wait = stream_wait
        self._lock = threading.Lock()
        self._kick = threading.Event()
        self._closed = False
        self._calls = {}  # id -> list of [event, result, error]
        self._owner = {}  # id -> the stream it is registered on; None: queued
        self._queued = []
        self._streams = set()
        self._live = 0
        self._backoff = 0.05
        self._thread = None
        self.streams_opened = 0  # how many wait requests it has made, for a look at its cost

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def wait(self, inquiry_id, timeout=None):
        """Blocks until the inquiry is final and returns it; HitlError when it cannot be waited on.

        With timeout (seconds) and no answer by then, raises TimeoutError.
        """
        call = [threading.Event(), None, None]
        with self._lock:
            if self._closed:
                raise HitlError("the waiter is closed", code="closed")
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="hitl-waiter", daemon=True)
                self._thread.start()
            self._calls.setdefault(inquiry_id, []).append(call)
            if inquiry_id not in self._owner:
                self._owner[inquiry_id] = None
                self._queued.append(inquiry_id)
            self._kick.set()
        if not call[0].wait(timeout):
            with self._lock:
                calls = self._calls.get(inquiry_id, [])
                if call in calls:
                    calls.remove(call)
                    if not calls:
                        del self._calls[inquiry_id]
            raise TimeoutError("inquiry %d is not final after %gs" % (inquiry_id, timeout))
        if call[2] is not None:
            raise call[2]
        return call[1]

    def close(self):
        """Ends every stream; waits still open raise HitlError (code closed)."""
        with self._lock:
            self._closed = True
            calls, self._calls = self._calls, {}
            streams = list(self._streams)
            self._kick.set()
        for stream in streams:
            stream.cancel()
        for cs in calls.values():
            for call in cs:
                call[2] = HitlError("the waiter is closed", code="closed")
                call[0].set()

    def _run(self):
        while True:
            self._kick.wait()
            if self._closed:
                return
            time.sleep(self.LINGER)
            self._kick.clear()
            self._flush()

    def _flush(self):
        with self._lock:
            if self._closed:
                return
            s = _WaiterStream()
            rest = []
            for i in self._queued:
                if i not in self._owner or self._owner[i] is not None:
                    continue  # reported meanwhile, or already in this batch
                if not self._calls.get(i):
                    del self._owner[i]
                elif len(s.ids) >= MAX_WAIT_IDS:
                    rest.append(i)
                else:
                    s.ids.append(i)
                    self._owner[i] = s
            self._queued = rest
            if rest:
                self._kick.set()
            if not s.ids:
                return
            while self._live >= self.SOFT_STREAMS:
                live = [o for o in self._streams if not o.retired]
                if not live:
                    break
                small = min(live, key=lambda o: o.n)
                if len(s.ids) + small.n > MAX_WAIT_IDS or (small.n > len(s.ids) and self._live < self.HARD_STREAMS):
                    break
                for i in small.ids:
                    if self._owner.get(i) is small:
                        if not self._calls.get(i):
                            del self._owner[i]
                            continue
                        self._owner[i] = s
                        s.ids.append(i)
                small.retired, small.n = True, 0
                self._live -= 1
                s.retire.append(small)
            s.n = len(s.ids)
            self.streams_opened += 1
            self._streams.add(s)
            self._live += 1
        threading.Thread(target=self._stream, args=(s,), name="hitl-wait-stream", daemon=True).start()

    def _stream(self, s):
        err = None
        try:
            conn = self.client._open_wait(s.ids, self.stream_wait)
            with self._lock:
                s.conn = conn
                cancelled = s.cancelled
            if cancelled:
                conn.close()
            for line in conn.lines():
                kind = line.get("type")
                if kind == "inquiry":
                    self._report(line["inquiry"]["id"], line["inquiry"], None)
                elif kind == "error":
                    e = line.get("error") or {}
                    self._report(line["id"], None, HitlError(e.get("message", ""), status=404 if e.get("code") == "not_found" else None, code=e.get("code")))
                elif kind == "waiting":
                    with self._lock:
                        retire, s.retire = s.retire, []
                        self._backoff = 0.05
                    for o in retire:
                        o.cancel()
            conn.close()
        except Exception as e:  # noqa: BLE001 - sorted below
            err = e
        self._ended(s, err)

    def _report(self, inquiry_id, inquiry, error):
        with self._lock:
            calls = self._calls.pop(inquiry_id, [])
            owner = self._owner.pop(inquiry_id, None)
            if owner is not None:
                owner.n -= 1
        for call in calls:
            call[1], call[2] = inquiry, error
            call[0].set()

    def _ended(self, s, err):
        final = err is not None and not _retryable(err) and not s.cancelled
        failed, requeue, delay = [], False, 0
        with self._lock:
            self._streams.discard(s)
            if not s.retired:
                self._live -= 1
            retire, s.retire = s.retire, []
            for i in s.ids:
                if self._owner.get(i) is not s:
                    continue
                if final:
                    failed.extend(self._calls.pop(i, []))
                    del self._owner[i]
                elif not self._calls.get(i):
                    del self._owner[i]
                else:
                    self._owner[i] = None
                    self._queued.append(i)
                    requeue = True
            if requeue and err is not None:
                delay = self._backoff
                self._backoff = min(self._backoff * 2, 2.0)
        for o in retire:  # it failed before it took their ids over: theirs are requeued too
            o.cancel()
        for call in failed:
            call[2] = err
            call[0].set()
        if requeue:
            threading.Timer(delay, self._kick.set).start()


class _WaiterStream:
    """A stream of a Waiter: the ids it was opened with, how many it still owns."""

    def __init__(self):
        self.ids = []
        self.n = 0
        self.retired = False
        self.retire = []
        self.conn = None
        self.cancelled = False

    def cancel(self):
        self.cancelled = True
        if self.conn is not None:
            self.conn.close()


def _outcome(inquiry):
    status = inquiry["status"]
    if status == "timeout" and not inquiry.get("fallback_applied"):
        raise InputTimeoutError("inquiry %d timed out with no answer" % inquiry["id"], code="timeout", inquiry=inquiry)
    if status == "cancelled":
        reason = inquiry.get("cancel_reason")
        detail = "inquiry %d was cancelled" % inquiry["id"] + (": " + reason if reason else "")
        raise InputCancelledError(detail, code="cancelled", inquiry=inquiry)
    return inquiry.get("response")


def request_user_input(prompt, context=None, request_type=None, options=None, **kwargs):
    """request_user_input as a plain function, with a client from HITL_URL and HITL_TOKEN (or the credentials file)."""
    return Client().request_user_input(prompt, context=context, request_type=request_type, options=options, **kwargs)


from .openintent import AsyncClient  # noqa: E402 - it builds on Client
