"""Ask a human from a Python agent and resume when they answer: the client of a hitl server.

Standard library only. See Client.request_input, and request_user_input for agent frameworks.
"""

import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

__all__ = [
    "Client",
    "AsyncClient",
    "HitlError",
    "OpenIntentError",
    "InputTimeoutError",
    "InputCancelledError",
    "ServerUnavailableError",
    "request_user_input",
    "credentials_path",
    "load_credentials",
]

# How long each long poll lasts; the server holds it at most 5 minutes.
POLL_SECONDS = 30

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

    def _until_final(self, inquiry):
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
    ):
        """Asks a human and blocks until the answer, which it returns (decoded JSON).

        Under fallback_policy "complete_with_fallback" or "use_default_and_continue" a deadline
        returns fallback_value; under "fail" it raises InputTimeoutError. A cancellation raises
        InputCancelledError, a refused request HitlError with the server's message.

        remind_every ("30m") reminds the people asked while nobody answers; escalate_after ("2h")
        with escalate_to (names or "group:NAME") adds those people when nobody has answered by then.
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
        }
        request.update({k: v for k, v in optional.items() if v is not None})
        if multiple:
            request["multiple"] = True
        inquiry = self._until_final(self.create_inquiry(request, idempotency_key))
        return _outcome(inquiry)

    def request_user_input(self, prompt, context=None, request_type=None, options=None, **kwargs):
        """A tool function for agent frameworks: asks and returns the result as text for the model.

        The answer comes back as JSON text; a deadline or a cancellation comes back as a sentence
        saying so (the model must not act as if the human had agreed). Refused requests raise
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
            return json.dumps(_outcome(inquiry))
        except InputTimeoutError:
            return "The human did not answer before the deadline; there is no answer. Do not go ahead as if they had agreed."
        except InputCancelledError as e:
            return "The question was cancelled before the human answered. " + str(e)

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
