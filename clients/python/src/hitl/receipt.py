"""Decision receipts: check offline that a person approved exactly this.

hitl signs each decision as an EdDSA JWT (typ "hitl-receipt+jwt"). verify_receipt checks one
against the server's public keys (GET /.well-known/jwks.json, Client.jwks()) with the same
checks and failure codes as the Go (receipt.Verify), TypeScript (verifyReceipt) and CLI
(hitl receipt verify) verifiers. Standard library only: Ed25519 is in hitl._ed25519.
"""

import base64
import datetime
import hashlib
import json
import math
import re
import time

from . import _ed25519

__all__ = ["ReceiptError", "verify_receipt", "canonical_json", "args_sha256"]

RECEIPT_TYPE = "hitl-receipt+jwt"

REASONS = (
    "malformed",
    "unknown_key",
    "bad_signature",
    "wrong_issuer",
    "expired",
    "not_yet_valid",
    "args_mismatch",
    "no_args_hash",
)


class ReceiptError(Exception):
    """Why a receipt does not verify: reason is a stable code (see REASONS), str() is for people."""

    def __init__(self, reason, message):
        super().__init__(message)
        self.reason = reason
        self.message = message


def _malformed(detail):
    return ReceiptError("malformed", "the receipt is not a compact JWS hitl issued: " + detail)


_BASE64URL = re.compile(r"[A-Za-z0-9_-]*\Z")


def _base64url(part, what):
    """Decodes as Go's base64.RawURLEncoding does (go-jose, on the server): the URL alphabet, no padding."""
    if not _BASE64URL.match(part) or len(part) % 4 == 1:
        raise _malformed("its %s is not base64url" % what)
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def _reject_constant(name):
    raise ValueError("%s is not JSON" % name)


def _json_object(raw, what):
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError):
        raise _malformed("its %s is not JSON" % what) from None
    if not isinstance(value, dict):
        raise _malformed("its %s is not a JSON object" % what)
    return value


def _rfc3339(seconds):
    """A NumericDate as Go's time.RFC3339 writes it in UTC: 2026-11-26T18:00:00Z."""
    try:
        moment = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return str(seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_claims(claims):
    for name in ("iss", "sub", "jti", "decision"):
        if not isinstance(claims.get(name), str):
            raise _malformed("claim %s is missing or not a string" % name)
    for name in ("iat", "exp"):
        if not _is_number(claims.get(name)):
            raise _malformed("claim %s is missing or not a number" % name)
    if "args_sha256" in claims and not isinstance(claims["args_sha256"], str):
        raise _malformed("claim args_sha256 is not a string")
    return claims


def _seconds(now):
    if now is None:
        return time.time()
    if isinstance(now, datetime.datetime):
        if now.tzinfo is None:
            raise ValueError("now must be an aware datetime (with a tzinfo), or seconds since the epoch")
        return now.timestamp()
    return float(now)


def _public_key(jwks, kid):
    """The 32 bytes of kid's Ed25519 key in jwks, None when it holds none (as Go's receipt.Verify:
    a key of the kid that is no 32-byte Ed25519 key is skipped)."""
    if isinstance(jwks, (str, bytes, bytearray)):
        try:
            jwks = json.loads(jwks)
        except ValueError:
            raise ValueError("the JWKS given to verify_receipt is not JSON") from None
    if not isinstance(jwks, dict) or not isinstance(jwks.get("keys"), list):
        raise ValueError('verify_receipt needs the server\'s JWKS: {"keys": [...]}')
    for key in jwks["keys"]:
        if not isinstance(key, dict) or key.get("kid") != kid or key.get("kty") != "OKP" or key.get("crv") != "Ed25519":
            continue
        x = key.get("x")
        if isinstance(x, str) and _BASE64URL.match(x) and len(x) == 43:
            return base64.urlsafe_b64decode(x + "=")
    return None


def verify_receipt(token, jwks, issuer=None, args=None, now=None, leeway=0):
    """Checks a receipt hitl issued and returns its claims (a dict).

    jwks is the server's JWKS document (a dict, or its JSON text), as Client.jwks() returns
    it. The receipt must be a compact JWS with alg EdDSA and typ hitl-receipt+jwt, signed by a
    key of jwks (found by its kid), issued by issuer (when given; a trailing slash is
    ignored), not expired and not issued in
    the future (beyond leeway seconds), and, when args are given (the arguments about to be
    run), approve exactly those arguments (args_sha256). now is an aware datetime or seconds
    since the epoch (default: now).

    Raises ReceiptError, whose reason says why not: malformed, unknown_key, bad_signature,
    wrong_issuer, expired, not_yet_valid, args_mismatch or no_args_hash. A jwks that is not a
    JWKS raises ValueError.
    """
    if not isinstance(token, str):
        raise _malformed("it is not a string")
    parts = token.strip().split(".")
    if len(parts) != 3:
        raise _malformed("it has %d part%s, not 3" % (len(parts), "" if len(parts) == 1 else "s"))
    header = _json_object(_base64url(parts[0], "header"), "header")
    if header.get("alg") != "EdDSA":
        raise _malformed('its alg is %s, not "EdDSA"' % json.dumps(header.get("alg")))
    if header.get("typ") != RECEIPT_TYPE:
        raise _malformed('its typ is %s, not "%s"' % (json.dumps(header.get("typ")), RECEIPT_TYPE))
    kid = header.get("kid")
    if not isinstance(kid, str) or not kid:
        raise _malformed("it names no key (kid)")
    payload = _base64url(parts[1], "payload")
    signature = _base64url(parts[2], "signature")

    public_key = _public_key(jwks, kid)
    if public_key is None:
        raise ReceiptError("unknown_key", "signed with key %s, which the JWKS does not hold (rotated out?)" % kid)
    signed = (parts[0] + "." + parts[1]).encode("ascii")
    if not _ed25519.verify(public_key, signed, signature):
        raise ReceiptError("bad_signature", "the signature does not match: the receipt was changed")

    claims = _check_claims(_json_object(payload, "payload"))
    if issuer:
        issuer = issuer[:-1] if issuer.endswith("/") else issuer  # a public URL may be written with its slash
        if claims["iss"] != issuer:
            raise ReceiptError("wrong_issuer", "issued by %s, not %s" % (claims["iss"], issuer))
    at = _seconds(now)
    # A NaN would compare false and let an expired receipt through.
    if not math.isfinite(at):
        raise ValueError("now must be a time, not %r" % now)
    if not _is_number(leeway) or leeway < 0:
        raise ValueError("leeway must be a number of seconds, 0 or more, not %r" % (leeway,))
    if at >= claims["exp"] + leeway:
        raise ReceiptError("expired", "expired at %s" % _rfc3339(claims["exp"]))
    if claims["iat"] > at + leeway:
        raise ReceiptError("not_yet_valid", "issued in the future (%s)" % _rfc3339(claims["iat"]))
    if args is not None:
        if "args_sha256" not in claims:
            raise ReceiptError("no_args_hash", "arguments were given but the receipt approves no tool call")
        if args_sha256(args) != claims["args_sha256"].lower():
            raise ReceiptError("args_mismatch", "the arguments differ from those approved")
    return claims


# ---- RFC 8785 canonical JSON

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f\ud800-\udfff]')


def _escape(match):
    ch = match.group(0)
    if "\ud800" <= ch <= "\udfff":
        raise ValueError("a string with a lone surrogate has no canonical JSON form")
    return _ESCAPES.get(ch) or "\\u%04x" % ord(ch)


def _string(s):
    return '"' + _NEEDS_ESCAPE.sub(_escape, s) + '"'


def _number(value):
    """A number as ECMAScript's Number.prototype.toString writes the double nearest it."""
    try:
        f = float(value)
    except OverflowError:
        raise ValueError("%d is beyond what a JSON number (a double) holds" % value) from None
    if not math.isfinite(f):
        raise ValueError("%r has no JSON form" % value)
    if f == 0:
        return "0"  # -0 too
    sign = "-" if f < 0 else ""
    # repr gives the shortest digits that read back as the same double, as ECMAScript does;
    # only where the decimal point goes, and when to use an exponent, differ.
    mantissa, _, exponent = repr(abs(f)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    n = len(whole) + (int(exponent) if exponent else 0)  # the value is 0.DIGITS * 10**n
    stripped = digits.lstrip("0")
    n -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        e = n - 1
        text = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + text


def _utf16_order(name):
    return name.encode("utf-16-be", "surrogatepass")


def _canonical(value, out):
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, (int, float)):
        out.append(_number(value))
    elif isinstance(value, dict):
        for name in value:
            if not isinstance(name, str):
                raise TypeError("JSON object member names are strings, not %s" % type(name).__name__)
        out.append("{")
        for i, name in enumerate(sorted(value, key=_utf16_order)):
            if i:
                out.append(",")
            out.append(_string(name))
            out.append(":")
            _canonical(value[name], out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _canonical(item, out)
        out.append("]")
    else:
        raise TypeError("a %s has no JSON form" % type(value).__name__)


def canonical_json(value):
    """The RFC 8785 (JSON Canonicalization Scheme) form of a JSON value, as a str.

    Object members sorted by their names' UTF-16 code units, no whitespace, numbers as
    ECMAScript writes the double nearest them (an int beyond 2**53 loses precision, as it does
    in JSON everywhere else), strings escaped as JSON.stringify escapes them. Raises ValueError
    for NaN, infinities and lone surrogates, TypeError for what JSON cannot hold.
    """
    out = []
    _canonical(value, out)
    return "".join(out)


def args_sha256(args):
    """What a receipt's args_sha256 holds for these arguments: hex SHA-256 of their canonical JSON."""
    return hashlib.sha256(canonical_json(args).encode("utf-8")).hexdigest()
