"""Ed25519 signature verification (RFC 8032, section 5.1.7) in pure Python.

The client is standard library only, and the standard library has no Ed25519, so decision
receipts are checked with this: Python integers, extended twisted Edwards coordinates.
Verification handles public data only (the key, the message, the signature), so it need not
run in constant time. Only verify is here: the client never signs.

It holds to RFC 8032's decoding rules: a point whose y is not below p, or that has no x, or
that asks for x = 0 with the sign bit set, does not decode; S must be below L. The equation
checked is [S]B = R + [k]A without the cofactor, as Go's crypto/ed25519 and OpenSSL (which
the hitl server and the TypeScript client use) check it, so that every hitl verifier accepts
the same signatures.
"""

import hashlib

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)


def _recover_x(y, sign):
    """x for y on the curve, with the sign (low bit) asked for; None when there is none."""
    u = (y * y - 1) % P
    v = (D * y * y + 1) % P
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    vx2 = v * x * x % P
    if vx2 == (-u) % P and vx2 != u:
        x = x * SQRT_M1 % P
    elif vx2 != u:
        return None
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = P - x
    return x


def _decode_point(encoded):
    """The point of a 32-byte encoding (RFC 8032 section 5.1.3), or None when it is none."""
    if len(encoded) != 32:
        return None
    y = int.from_bytes(encoded, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    if y >= P:
        return None
    x = _recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % P)


def _encode_point(point):
    x, y, z, _ = point
    zinv = pow(z, P - 2, P)
    x, y = x * zinv % P, y * zinv % P
    return (y | (x & 1) << 255).to_bytes(32, "little")


def _add(p, q):
    """p + q in extended coordinates (RFC 8032 section 5.1.4); complete, so it also doubles."""
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = t1 * 2 * D * t2 % P
    d = z1 * 2 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _negate(point):
    x, y, z, t = point
    return ((-x) % P, y, z, (-t) % P)


_IDENTITY = (0, 1, 1, 0)
_BY = 4 * pow(5, P - 2, P) % P
_BX = _recover_x(_BY, 0)
BASE = (_BX, _BY, 1, _BX * _BY % P)


def _double_scalar_mult(a, p, b, q):
    """[a]p + [b]q, the bits of both scalars walked together (Straus)."""
    both = _add(p, q)
    acc = _IDENTITY
    for i in range(max(a.bit_length(), b.bit_length()) - 1, -1, -1):
        acc = _add(acc, acc)
        bit_a, bit_b = (a >> i) & 1, (b >> i) & 1
        if bit_a and bit_b:
            acc = _add(acc, both)
        elif bit_a:
            acc = _add(acc, p)
        elif bit_b:
            acc = _add(acc, q)
    return acc


def verify(public_key, message, signature):
    """Whether signature is public_key's Ed25519 signature of message (all bytes).

    False, never an exception, for a key or a signature of the wrong length, a key or an R
    that does not decode, or a non-canonical S (S >= L).
    """
    public_key, message, signature = bytes(public_key), bytes(message), bytes(signature)
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = _decode_point(public_key)
    if a is None:
        return False
    r_bytes = signature[:32]
    if _decode_point(r_bytes) is None:
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= L:
        return False
    k = int.from_bytes(hashlib.sha512(r_bytes + public_key + message).digest(), "little") % L
    # [S]B - [k]A must be R. Decoding accepts canonical encodings only, so comparing the
    # encodings compares the points.
    return _encode_point(_double_scalar_mult(s, BASE, k, _negate(a))) == r_bytes
