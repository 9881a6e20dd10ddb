"""verify_receipt offline: the pure-Python Ed25519 on RFC 8032's test vectors and RFC 8032's
decoding rules, RFC 8785 canonical JSON on the vectors every hitl verifier passes, and every
case of receipt_fixtures.json (receipts signed by jose, written by
clients/typescript/scripts/receipt-fixtures.mjs), which the TypeScript client verifies too.
"""

import datetime
import hashlib
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

import hitl  # noqa: E402
from hitl import _ed25519  # noqa: E402

HERE = os.path.dirname(__file__)
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

# RFC 8032 section 7.1: TEST 1, 2, 3 and SHA(abc) (public key, message, signature).
RFC8032_VECTORS = [
    (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
    (
        "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
        hashlib.sha512(b"abc").hexdigest(),
        "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704",
    ),
]


def le(n):
    return n.to_bytes(32, "little")


class Ed25519Test(unittest.TestCase):
    def test_rfc8032_vectors_verify(self):
        for public, message, signature in RFC8032_VECTORS:
            with self.subTest(public=public[:8]):
                self.assertTrue(_ed25519.verify(bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature)))

    def test_a_changed_message_key_or_signature_does_not_verify(self):
        public, message, signature = (bytes.fromhex(h) for h in RFC8032_VECTORS[2])
        self.assertFalse(_ed25519.verify(public, message + b"\x00", signature))
        self.assertFalse(_ed25519.verify(public, b"\xaf\x83", signature))
        self.assertFalse(_ed25519.verify(bytes.fromhex(RFC8032_VECTORS[1][0]), message, signature), "another key")
        for i in (0, 31, 32, 63):
            sig = bytearray(signature)
            sig[i] ^= 0x04
            self.assertFalse(_ed25519.verify(public, message, bytes(sig)), "byte %d changed" % i)
        self.assertFalse(_ed25519.verify(public, message, signature[:63]), "63 bytes")
        self.assertFalse(_ed25519.verify(public[:31], message, signature), "a 31-byte key")

    def test_a_non_canonical_s_is_refused(self):
        """S + L satisfies the same equation; RFC 8032 (and Go, and OpenSSL) refuse it."""
        public, message, signature = (bytes.fromhex(h) for h in RFC8032_VECTORS[0])
        s = int.from_bytes(signature[32:], "little")
        self.assertLess(s, _ed25519.L)
        self.assertFalse(_ed25519.verify(public, message, signature[:32] + le(s + _ed25519.L)))
        self.assertFalse(_ed25519.verify(public, message, signature[:32] + le(_ed25519.L)), "S = L")
        self.assertFalse(_ed25519.verify(public, message, signature[:32] + b"\xff" * 32), "S = 2^256 - 1")

    def test_points_that_do_not_decode_verify_nothing(self):
        public, message, signature = (bytes.fromhex(h) for h in RFC8032_VECTORS[0])
        p = _ed25519.P
        no_x = next(y for y in range(2, 100) if _ed25519._recover_x(y, 0) is None)
        cases = {
            "y = p (not below p)": le(p),
            "y = p + 1 (a non-canonical 1)": le(p + 1),
            "y = 1 with the sign bit: x = 0 cannot be odd": le(1 | 1 << 255),
            "a y with no x": le(no_x),
        }
        for name, encoded in cases.items():
            with self.subTest(name):
                self.assertIsNone(_ed25519._decode_point(encoded))
                self.assertFalse(_ed25519.verify(encoded, message, signature), "as the key")
                self.assertFalse(_ed25519.verify(public, message, encoded + signature[32:]), "as R")
        self.assertIsNotNone(_ed25519._decode_point(le(1)), "y = 1, x = 0: the identity decodes")

    def test_decoding_and_encoding_round_trip(self):
        for public, _, _ in RFC8032_VECTORS:
            encoded = bytes.fromhex(public)
            self.assertEqual(_ed25519._encode_point(_ed25519._decode_point(encoded)), encoded)
        self.assertEqual(_ed25519._encode_point(_ed25519.BASE).hex(), "58" + "66" * 31)


class CanonicalJSONTest(unittest.TestCase):
    def test_every_vector_of_receipt_testdata(self):
        with open(os.path.join(ROOT, "receipt", "testdata", "canonical.json"), encoding="utf-8") as f:
            vectors = json.load(f)
        self.assertGreaterEqual(len(vectors), 30)
        for v in vectors:
            with self.subTest(v["input"]):
                value = json.loads(v["input"])
                self.assertEqual(hitl.canonical_json(value), v["canonical"])
                self.assertEqual(hitl.args_sha256(value), v["sha256"])

    def test_python_values_json_has_no_literal_for(self):
        self.assertEqual(hitl.canonical_json({"t": (1, True), "f": False, "n": None}), '{"f":false,"n":null,"t":[1,true]}')
        self.assertEqual(hitl.canonical_json(2**53 + 1), "9007199254740992", "an int is the double nearest it, as in JavaScript")
        self.assertEqual(hitl.canonical_json(-0.0), "0")
        self.assertEqual(hitl.canonical_json([1e-6, 1e-7, 1e21, 1e20, -5e-324, 0.5]), "[0.000001,1e-7,1e+21,100000000000000000000,-5e-324,0.5]")

    def test_what_has_no_canonical_form_raises(self):
        for value in (float("nan"), float("inf"), -float("inf"), 10**400, "\ud800", {"a": ["x\udc00"]}):
            with self.subTest(repr(value)[:20]):
                self.assertRaises(ValueError, hitl.canonical_json, value)
        for value in ({1: "a"}, {"a": {1, 2}}, b"bytes", object()):
            with self.subTest(repr(value)[:20]):
                self.assertRaises(TypeError, hitl.canonical_json, value)


def load_fixtures():
    with open(os.path.join(HERE, "receipt_fixtures.json"), encoding="utf-8") as f:
        return json.load(f)


def outcome(fixtures, case, **overrides):
    """What verify_receipt says of a fixture case: {"ok", "claims"} or {"ok": False, "reason", "message"}."""
    args = json.loads(case["args_json"]) if "args_json" in case else case.get("args")
    options = dict(
        jwks=case.get("jwks", fixtures["jwks"]), issuer=case.get("issuer"), args=args, now=case["now"], leeway=case.get("leeway", 0)
    )
    options.update(overrides)
    try:
        return {"ok": True, "claims": hitl.verify_receipt(case["token"], **options)}
    except hitl.ReceiptError as e:
        return {"ok": False, "reason": e.reason, "message": str(e)}


class VerifyReceiptTest(unittest.TestCase):
    fixtures = load_fixtures()

    def case(self, prefix):
        return next(c for c in self.fixtures["cases"] if c["name"].startswith(prefix))

    def test_every_fixture_case(self):
        self.assertGreaterEqual(len(self.fixtures["cases"]), 30)
        reasons = set()
        for case in self.fixtures["cases"]:
            with self.subTest(case["name"]):
                got = outcome(self.fixtures, case)
                if case["expect"]["ok"]:
                    self.assertEqual(got, case["expect"])
                else:
                    self.assertEqual(got.get("reason"), case["expect"]["reason"], got.get("message"))
                reasons.add(got.get("reason", "valid"))
        self.assertEqual(reasons, set(hitl.receipt.REASONS) | {"valid"})

    def test_the_failure_messages_are_the_specs(self):
        kid = self.fixtures["jwks"]["keys"][0]["kid"]
        expect = {
            "malformed: two parts": "the receipt is not a compact JWS hitl issued: it has 2 parts, not 3",
            "tampered header: alg none": 'the receipt is not a compact JWS hitl issued: its alg is "none", not "EdDSA"',
            "rotated-out key: an empty": "signed with key %s, which the JWKS does not hold (rotated out?)" % kid,
            "tampered payload: decision": "the signature does not match: the receipt was changed",
            "other issuer": "issued by https://hitl.example.com, not https://hitl.other.example",
            "expired: a second": "expired at 2026-11-18T12:06:40Z",
            "not yet valid": "issued in the future (2026-11-18T11:06:40Z)",
            "changed args: one": "the arguments differ from those approved",
            "args given": "arguments were given but the receipt approves no tool call",
        }
        for prefix, message in expect.items():
            with self.subTest(prefix):
                self.assertEqual(outcome(self.fixtures, self.case(prefix))["message"], message)

    def test_now_is_an_aware_datetime_or_seconds_and_the_jwks_may_be_text(self):
        case = self.case("valid: an edit")
        at = datetime.datetime.fromtimestamp(case["now"], datetime.timezone(datetime.timedelta(hours=2)))
        self.assertTrue(outcome(self.fixtures, case, now=at)["ok"])
        self.assertTrue(outcome(self.fixtures, case, jwks=json.dumps(self.fixtures["jwks"]))["ok"])
        self.assertEqual(outcome(self.fixtures, case, now=at + datetime.timedelta(hours=1))["reason"], "expired")
        with self.assertRaises(ValueError):
            outcome(self.fixtures, case, now=datetime.datetime(2026, 11, 18, 12))  # naive: which zone?
        for jwks in ("not json", {"keys": "x"}, []):
            with self.assertRaises(ValueError):
                outcome(self.fixtures, case, jwks=jwks)
        self.assertEqual(outcome(self.fixtures, case, now=None)["reason"], "expired", "the fixtures' receipts expired in 2026")
        for bad in (dict(now=float("nan")), dict(now="soon"), dict(leeway=float("nan")), dict(leeway=-1), dict(leeway="5")):
            with self.subTest(bad), self.assertRaises(ValueError):
                outcome(self.fixtures, case, **bad)

    def test_a_token_that_is_not_text_is_malformed(self):
        with self.assertRaises(hitl.ReceiptError) as cm:
            hitl.verify_receipt(None, self.fixtures["jwks"])
        self.assertEqual(cm.exception.reason, "malformed")


if __name__ == "__main__":
    unittest.main()
