"""payconform_profile: the payments service's signing profile in Python, a small library an implementer can lift.

`sign_request()` signs a request under the profile (spec: Authentication, Signed requests), `verify_request()`
verifies one in the spec's server verification order, `verify_webhook()` checks a webhook's SHA256withRSA
Authorization. Only the standard library and the `cryptography` package; written from the service spec and the
vector README, not translated from payconform's TypeScript. `adapter.py` beside it runs these functions under the
vector harness (`payconform vectors run`); this file knows nothing of the harness.
"""

import base64
import binascii
import hashlib
import hmac
import ipaddress
import re
import time
import uuid

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, padding, rsa

# ---------------------------------------------------------------------------------------------------------------
# The service profile (spec: Authentication)
# ---------------------------------------------------------------------------------------------------------------

LABEL = "sig1"
COMPONENTS = ["@method", "@path", "@authority", "content-digest", "content-type", "content-length",
              "x-application-id", "x-application-secret"]
PARAMETER_ORDER = ["created", "keyid", "alg", "nonce"]
ALG = "ed25519"
MAX_AGE = 300
MAX_FUTURE = 300
NONCE_MAX = 50
BODY_METHODS = ("POST", "PUT", "PATCH")
BODYLESS_METHODS = ("GET", "DELETE")
SINGLE_VALUED = ["content-digest", "content-type", "content-length", "x-application-id", "x-application-secret"]
WEBHOOK_ALGORITHM = "SHA256withRSA"
DIGEST_SIZES = {"sha-512": 64, "sha-256": 32}
MAX_DIGEST_MEMBERS = 16


def body_carrying(method, body):
    """The headers' table names its columns' methods as examples: any other method is body-carrying when it has body
    bytes (spec: "Body-carrying request"; Step 1 digests the exact body bytes), bodyless when it has none."""
    return method in BODY_METHODS or (method not in BODYLESS_METHODS and len(body) > 0)


class Failure(Exception):
    """A typed failure carrying one of the documented codes."""

    def __init__(self, code, message=""):
        super().__init__(message or code)
        self.code = code


# ---------------------------------------------------------------------------------------------------------------
# Strict base64 (RFC 4648 section 4: standard alphabet, canonical padding, zero pad bits)
# ---------------------------------------------------------------------------------------------------------------

_B64 = re.compile(r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$")


def strict_b64decode(text):
    if not isinstance(text, str) or not _B64.match(text):
        raise ValueError("not strict base64")
    data = base64.b64decode(text, validate=True)
    if base64.b64encode(data).decode("ascii") != text:  # non-zero pad bits
        raise ValueError("non-canonical base64")
    return data


def b64(data):
    return base64.b64encode(data).decode("ascii")


# ---------------------------------------------------------------------------------------------------------------
# RFC 8941 structured fields: the subset the profile needs (Dictionary, Inner List, Item, Parameters)
# ---------------------------------------------------------------------------------------------------------------

class Token(str):
    pass


class SfError(Exception):
    pass


class SfDuplicateKey(SfError):
    pass


_KEY_START = "abcdefghijklmnopqrstuvwxyz*"
_KEY_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_-.*"
_TOKEN_START = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz*"
_TOKEN_CHARS = _TOKEN_START + "0123456789!#$%&'+-.^_`|~:/"


class _Parser:
    def __init__(self, text):
        self.s = text
        self.i = 0
        self.repeated = None

    def peek(self):
        return self.s[self.i] if self.i < len(self.s) else ""

    def skip_sp(self):
        while self.peek() == " ":
            self.i += 1

    def skip_ows(self):
        while self.peek() in (" ", "\t") and self.peek() != "":
            self.i += 1

    def key(self):
        if self.peek() == "" or self.peek() not in _KEY_START:
            raise SfError("key expected at offset %d" % self.i)
        start = self.i
        while self.peek() != "" and self.peek() in _KEY_CHARS:
            self.i += 1
        return self.s[start:self.i]

    def bare_item(self):
        c = self.peek()
        if c == "-" or c.isdigit() and c != "":
            return self.number()
        if c == '"':
            return self.string()
        if c == ":":
            return self.byte_sequence()
        if c == "?":
            self.i += 1
            v = self.peek()
            if v not in ("0", "1") or v == "":
                raise SfError("boolean expected")
            self.i += 1
            return v == "1"
        if c != "" and c in _TOKEN_START:
            start = self.i
            while self.peek() != "" and self.peek() in _TOKEN_CHARS:
                self.i += 1
            return Token(self.s[start:self.i])
        raise SfError("bare item expected at offset %d" % self.i)  # includes RFC 9651 Date (@) and Display String (%)

    def number(self):
        start = self.i
        if self.peek() == "-":
            self.i += 1
        if not self.peek().isdigit() or self.peek() == "":
            raise SfError("digit expected")
        while self.peek() != "" and (self.peek().isdigit() or self.peek() == "."):
            self.i += 1
        text = self.s[start:self.i]
        digits = text.lstrip("-")
        if "." in digits:
            whole, _, frac = digits.partition(".")
            if "." in frac or len(whole) > 12 or not 1 <= len(frac) <= 3:
                raise SfError("bad decimal")
            return float(text)
        if len(digits) > 15:
            raise SfError("integer too long")
        return int(text)

    def string(self):
        self.i += 1
        out = []
        while True:
            c = self.peek()
            if c == "":
                raise SfError("unterminated string")
            self.i += 1
            if c == "\\":
                n = self.peek()
                if n not in ('"', "\\") or n == "":
                    raise SfError("bad escape")
                out.append(n)
                self.i += 1
            elif c == '"':
                return "".join(out)
            elif not " " <= c <= "~":
                raise SfError("invalid string character")
            else:
                out.append(c)

    def byte_sequence(self):
        self.i += 1
        end = self.s.find(":", self.i)
        if end < 0:
            raise SfError("unterminated byte sequence")
        text = self.s[self.i:end]
        self.i = end + 1
        try:
            return strict_b64decode(text)  # the profile requires padded standard base64
        except (ValueError, binascii.Error):
            raise SfError("byte sequence is not padded standard base64")

    def parameters(self):
        params = []
        while self.peek() == ";":
            self.i += 1
            self.skip_sp()
            k = self.key()
            v = True
            if self.peek() == "=":
                self.i += 1
                v = self.bare_item()
            if any(pk == k for pk, _ in params) and self.repeated is None:
                # RFC 8941 would keep the last value; the profile refuses (a second value hides behind the first).
                # Raised once the whole field parsed, so a duplicated label is reported first, as payconform does.
                self.repeated = SfError("parameter %r appears more than once" % k)
            params.append((k, v))
        return params

    def item_or_inner_list(self):
        if self.peek() == "(":
            self.i += 1
            items = []
            while True:
                self.skip_sp()
                if self.peek() == ")":
                    self.i += 1
                    return ("inner", items, self.parameters())
                items.append((self.bare_item(), self.parameters()))
                if self.peek() not in (" ", ")"):
                    raise SfError("inner list member not followed by space or ')'")
        item = self.bare_item()
        return ("item", item, self.parameters())

    def dictionary(self):
        members = []
        seen = set()
        while self.i < len(self.s):
            k = self.key()
            if self.peek() == "=":
                self.i += 1
                member = self.item_or_inner_list()
            else:
                member = ("item", True, self.parameters())
            if k in seen:
                raise SfDuplicateKey("duplicate key %r" % k)
            seen.add(k)
            members.append((k, member))
            self.skip_ows()
            if self.i >= len(self.s):
                return members
            if self.peek() != ",":
                raise SfError("',' expected at offset %d" % self.i)
            self.i += 1
            self.skip_ows()
            if self.i >= len(self.s):
                raise SfError("trailing comma")
        return members


def parse_dictionary(text):
    p = _Parser(text)
    p.skip_sp()
    members = p.dictionary()
    if p.i != len(p.s):
        raise SfError("trailing characters")
    if p.repeated is not None:
        raise p.repeated
    return members


def serialize_string(s):
    if any(not " " <= c <= "~" for c in s):
        raise SfError("string with non-printable-ASCII characters")
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def serialize_bare(v):
    if isinstance(v, bool):
        return "?1" if v else "?0"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, Token):
        return str(v)
    if isinstance(v, str):
        return serialize_string(v)
    if isinstance(v, (bytes, bytearray)):
        return ":" + b64(bytes(v)) + ":"
    raise SfError("cannot serialise %r" % (v,))


def serialize_params(params):
    return "".join(";" + k + ("" if v is True else "=" + serialize_bare(v)) for k, v in params)


def signature_params_value(components, params):
    """The @signature-params value: ("c1" "c2");p1=v1;... in the given orders."""
    inner = " ".join(serialize_string(name) + serialize_params(cp) for name, cp in components)
    return "(" + inner + ")" + serialize_params(params)


# ---------------------------------------------------------------------------------------------------------------
# Requests, target URI, field values
# ---------------------------------------------------------------------------------------------------------------

_URI = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?$", re.S)
_AUTHORITY = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[^:\[\]]+)(?::([0-9]*))?$")
_REG_NAME = re.compile(r"^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$")
_NUMERIC_LABEL = re.compile(r"(?:^|\.)(?:0[xX][0-9A-Fa-f]*|[0-9]+)\.?$")
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_DOTTED_QUAD = re.compile(r"^(?:%s\.){3}%s$" % (_OCTET, _OCTET))


def parse_target_uri(url):
    m = _URI.match(url)
    if not m:
        raise Failure("TARGET_URI_INVALID", "not an absolute URI")
    scheme, raw_authority, path, query = m.group(1).lower(), m.group(2), m.group(3), m.group(4)
    if scheme not in ("http", "https"):
        raise Failure("TARGET_URI_INVALID", "scheme")
    if re.search(r"[^\x21-\x7e]", raw_authority) or "@" in raw_authority:
        raise Failure("TARGET_URI_INVALID", "authority")
    a = _AUTHORITY.match(raw_authority)
    if not a:
        raise Failure("TARGET_URI_INVALID", "authority")
    host = a.group(1)
    if host.startswith("["):
        try:
            host = "[" + ipaddress.IPv6Address(host[1:-1]).compressed + "]"
        except ValueError:
            raise Failure("TARGET_URI_INVALID", "IPv6 host")
    else:
        # The host as written (RFC 3986 reg-name, lowercased), never read as WHATWG would: a host that parser takes
        # for an IPv4 address must be a canonical dotted quad (127.0.01, 0x7f.1, 2130706433 are refused).
        if not _REG_NAME.match(host):
            raise Failure("TARGET_URI_INVALID", "host is not an RFC 3986 host")
        if _NUMERIC_LABEL.search(host) and not _DOTTED_QUAD.match(host):
            raise Failure("TARGET_URI_INVALID", "non-canonical IPv4 host")
        host = host.lower()
    if host == "":
        raise Failure("TARGET_URI_INVALID", "empty host")
    port = a.group(2)
    if port:
        if len(port) > 5 or int(port) > 65535:
            raise Failure("TARGET_URI_INVALID", "port")
        port = int(port)
    else:
        port = None
    return {"scheme": scheme, "host": host, "port": port, "path": path or "/", "query": query,
            "without_fragment": url.split("#", 1)[0]}


def canonical_line(value):
    value = re.sub(r"\r?\n[ \t]+", " ", value)
    return value.strip(" \t")


def field_values(headers, lower_name):
    return [canonical_line(v) for n, v in headers if len(n) == len(lower_name) and n.lower() == lower_name]


def forbidden(value):
    return re.search(r"[\r\n\0]", value) is not None


def build_base(method, uri, headers, components, params, profile):
    """Signature base (RFC 9421 section 2.5), with the profile's deviations when `profile` is true."""
    try:
        sp = signature_params_value(components, params)
    except SfError as e:
        raise Failure("SIGNATURE_PARAMS_INVALID", str(e))
    lines = []
    seen = set()
    for name, cparams in components:
        ident = serialize_string(name) + serialize_params(cparams)
        if ident in seen:
            raise Failure("COMPONENT_DUPLICATE")
        seen.add(ident)
        if cparams:
            raise Failure("COMPONENT_PARAMETER_UNKNOWN", "component parameters are not supported by this adapter")
        if name.startswith("@"):
            if name == "@method":
                value = method
            elif name == "@authority":
                port = uri["port"]
                if profile:
                    omit = port in (80, 443)
                else:
                    omit = (uri["scheme"], port) in (("http", 80), ("https", 443))
                value = uri["host"] if port is None or omit else "%s:%d" % (uri["host"], port)
            elif name == "@path":
                value = uri["path"]
                if profile and uri["query"] is not None:
                    value += "?" + uri["query"]
            elif name == "@query":
                value = "?" + (uri["query"] or "")
            elif name == "@scheme":
                value = uri["scheme"]
            elif name == "@target-uri":
                value = uri["without_fragment"]
            elif name == "@request-target":
                value = uri["path"] + ("" if uri["query"] is None else "?" + uri["query"])
            else:
                raise Failure("COMPONENT_UNKNOWN", name)
        else:
            if not re.match(r"^[a-z0-9!#$%&'*+\-.^_`|~]+$", name):
                raise Failure("COMPONENT_NAME_INVALID", name)
            values = field_values(headers, name)
            if any(forbidden(v) for v in values):
                raise Failure("FIELD_VALUE_INVALID", name)
            if not values:
                if not profile:
                    raise Failure("FIELD_MISSING", name)
                value = ""
            elif len(values) > 1 and profile and name in SINGLE_VALUED:
                raise Failure("FIELD_DUPLICATED", name)
            else:
                value = ", ".join(values)
        if forbidden(value):
            raise Failure("FIELD_VALUE_INVALID", name)
        lines.append("%s: %s" % (ident, value))
    lines.append('"@signature-params": ' + sp)
    base = "\n".join(lines)
    if any(ord(c) > 0x7F for c in base):
        raise Failure("BASE_NOT_ASCII")
    return base


def profile_base(request, created, keyid, nonce):
    uri = parse_target_uri(request["url"])
    params = [("created", created), ("keyid", keyid), ("alg", ALG), ("nonce", nonce)]
    return build_base(request["method"], uri, request["headers"], [(c, []) for c in COMPONENTS], params, True)


# ---------------------------------------------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------------------------------------------

_PEM = re.compile(r"^-----BEGIN ([A-Z0-9 ]+)-----\r?\n(.*?)\r?\n?-----END \1-----$", re.S)


def parse_pem(text):
    m = _PEM.match(text)
    if not m:
        raise Failure("KEY_FORMAT_INVALID", "malformed PEM")
    body = re.sub(r"\r?\n", "", m.group(2))
    try:
        return m.group(1), strict_b64decode(body)
    except ValueError:
        raise Failure("KEY_FORMAT_INVALID", "PEM body is not base64")


def _load_private_der(der):
    try:
        key = serialization.load_der_private_key(der, password=None)
    except (ValueError, TypeError):
        raise Failure("KEY_FORMAT_INVALID", "not a PKCS#8 DER")
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        raise Failure("KEY_TYPE_UNSUPPORTED", "not an Ed25519 key")
    return key


def _load_public_der(der):
    try:
        key = serialization.load_der_public_key(der)
    except (ValueError, TypeError):
        raise Failure("KEY_FORMAT_INVALID", "not an SPKI DER")
    if not isinstance(key, ed25519.Ed25519PublicKey):
        raise Failure("KEY_TYPE_UNSUPPORTED", "not an Ed25519 key")
    return key


def _parse_ed25519(value, kind):
    """value: str (base64 raw key, PEM, base64 DER) or bytes (raw key or DER); kind: "private" or "public"."""
    if kind == "private":
        from_raw, load_der, label, raw = ed25519.Ed25519PrivateKey.from_private_bytes, _load_private_der, "PRIVATE KEY", "seed"
    else:
        from_raw, load_der, label, raw = ed25519.Ed25519PublicKey.from_public_bytes, _load_public_der, "PUBLIC KEY", "key"
    if isinstance(value, bytes):
        return from_raw(value) if len(value) == 32 else load_der(value)
    text = value.strip()
    if text == "":
        raise Failure("KEY_FORMAT_INVALID", "empty")
    if text.startswith("-----BEGIN"):
        found, der = parse_pem(text)
        if found != label:
            raise Failure("KEY_FORMAT_INVALID", "expected a %s PEM" % label)
        return load_der(der)
    try:
        # A public key's base64 may be wrapped over lines (as served); a private key's is one line.
        data = strict_b64decode(text if kind == "private" else re.sub(r"\r?\n", "", text))
    except ValueError:
        raise Failure("KEY_FORMAT_INVALID", "not strict base64")
    if len(data) == 32:
        return from_raw(data)
    # 64 bytes is a private seed and public key side by side, not DER.
    if len(data) > 32 and data[0] == 0x30 and (kind == "public" or len(data) != 64):
        return load_der(data)
    raise Failure("KEY_FORMAT_INVALID", "expected a 32-byte %s" % raw)


def parse_ed25519_private(value):
    """value: str (base64 seed, PKCS#8 PEM, base64 PKCS#8 DER) or bytes (seed or DER)."""
    return _parse_ed25519(value, "private")


def parse_ed25519_public(value):
    """value: str (base64 raw key, SPKI PEM, base64 SPKI DER, lines allowed) or bytes (raw key or DER)."""
    return _parse_ed25519(value, "public")


def _load_rsa_der(der):
    key = None
    try:
        key = serialization.load_der_public_key(der)
    except (ValueError, TypeError):
        try:
            key = serialization.load_der_public_key(_pkcs1_to_spki(der))
        except (ValueError, TypeError):
            raise Failure("KEY_FORMAT_INVALID", "not an SPKI or PKCS#1 DER")
    if not isinstance(key, rsa.RSAPublicKey):
        raise Failure("KEY_TYPE_UNSUPPORTED", "not an RSA key")
    if not 2048 <= key.key_size <= 16384:
        raise Failure("KEY_TYPE_UNSUPPORTED", "modulus size")
    return key


def _der_len(n):
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def _pkcs1_to_spki(der):
    algorithm = bytes.fromhex("300d06092a864886f70d0101010500")
    bit_string = b"\x03" + _der_len(len(der) + 1) + b"\x00" + der
    body = algorithm + bit_string
    return b"\x30" + _der_len(len(body)) + body


def parse_rsa_public(value):
    if isinstance(value, bytes):
        return _load_rsa_der(value)
    text = value.strip()
    if text == "":
        raise Failure("KEY_FORMAT_INVALID", "empty")
    if text.startswith("-----BEGIN"):
        label, der = parse_pem(text)
        if label in ("PUBLIC KEY", "RSA PUBLIC KEY"):
            return _load_rsa_der(der)
        raise Failure("KEY_FORMAT_INVALID", "expected a PUBLIC KEY PEM")
    try:
        der = strict_b64decode(re.sub(r"\r?\n", "", text))
    except ValueError:
        raise Failure("KEY_FORMAT_INVALID", "trimmed PEM body is not base64")
    return _load_rsa_der(der)


def raw_public(key):
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


# ---------------------------------------------------------------------------------------------------------------
# Content-Digest (RFC 9530)
# ---------------------------------------------------------------------------------------------------------------

def compute_digest(body, algorithm):
    h = hashlib.sha512(body) if algorithm == "sha-512" else hashlib.sha256(body)
    return "%s=:%s:" % (algorithm, b64(h.digest()))


def verify_digest(value, body, accept):
    try:
        members = parse_dictionary(value)
    except SfError as e:
        raise Failure("DIGEST_MALFORMED", str(e))
    if not members or len(members) > MAX_DIGEST_MEMBERS:
        raise Failure("DIGEST_MALFORMED", "empty or too many members")
    digests = {}
    for key, member in members:
        kind, item, _params = member
        if kind != "item" or not isinstance(item, bytes):
            raise Failure("DIGEST_MALFORMED", "member is not a byte sequence")
        if key in DIGEST_SIZES and len(item) != DIGEST_SIZES[key]:
            raise Failure("DIGEST_MALFORMED", "wrong digest length")
        digests[key] = item
    checked = 0
    for algorithm in accept:
        if algorithm in digests and algorithm in DIGEST_SIZES:
            expected = compute_digest(body, algorithm)
            if not hmac.compare_digest(expected, "%s=:%s:" % (algorithm, b64(digests[algorithm]))):
                raise Failure("DIGEST_MISMATCH")
            checked += 1
    if checked == 0:
        raise Failure("DIGEST_ALGORITHM_UNSUPPORTED")


# ---------------------------------------------------------------------------------------------------------------
# Signing and verification under the profile (spec: Signed requests, steps 1-5; Server verification order, 1-12)
# ---------------------------------------------------------------------------------------------------------------

def sign_request(request, credentials, created=None, nonce=None):
    """Signs a request under the profile (spec: Signed requests, steps 1-5).

    request: {"method", "url", "headers": [[name, value], ...], "body": bytes}.
    credentials: {"applicationId", "applicationSecret", "keyId", "privateKey"} (the key as PEM text, a base64 seed
    or DER bytes; read it from a file or the environment, never from code). created: Unix seconds (default now); nonce:
    default a UUID4. Returns {"headers": [[name, value], ...] to add to the request, "signatureBase": str}.
    """
    created = int(time.time()) if created is None else created
    nonce = str(uuid.uuid4()) if nonce is None else nonce
    key = parse_ed25519_private(credentials["privateKey"])
    body = request["body"]
    added = [("x-application-id", credentials["applicationId"]),
             ("x-application-secret", credentials["applicationSecret"])]
    if body_carrying(request["method"], body):
        added.append(("content-digest", compute_digest(body, "sha-512")))
    has_length = any(n.lower() == "content-length" for n, _ in request["headers"])
    if not has_length and (request["method"] in BODY_METHODS or body):
        added.append(("content-length", str(len(body))))
    names = {n for n, _ in added}
    headers = [(n, v) for n, v in request["headers"] if n.lower() not in names] + added
    base = profile_base(dict(request, headers=headers), created, credentials["keyId"], nonce)
    signature = key.sign(base.encode("ascii"))
    params = signature_params_value([(c, []) for c in COMPONENTS],
                                    [("created", created), ("keyid", credentials["keyId"]), ("alg", ALG),
                                     ("nonce", nonce)])
    added += [("signature-input", LABEL + "=" + params), ("signature", "%s=:%s:" % (LABEL, b64(signature)))]
    return {"headers": [list(h) for h in added], "signatureBase": base}


class Refusal(Failure):
    """A verification failure: the documented code and the spec step that gives it."""

    def __init__(self, code, step):
        super().__init__(code)
        self.step = step


def _extract(headers):
    """Step 1: the signature headers, each present, and no single-valued component sent twice."""
    sig_lines = field_values(headers, "signature")
    if not sig_lines:
        raise Refusal("SIGNATURE_MISSING", 1)
    input_lines = field_values(headers, "signature-input")
    if not input_lines:
        raise Refusal("SIGNATURE_INPUT_MISSING", 1)
    for name in SINGLE_VALUED:
        if len(field_values(headers, name)) > 1:
            raise Refusal("HEADER_DUPLICATED", 1)
    return sig_lines, input_lines


def _dictionary(lines, malformed):
    try:
        return parse_dictionary(", ".join(lines))
    except SfDuplicateKey:
        raise Refusal("LABEL_DUPLICATED", 2)
    except SfError:
        raise Refusal(malformed, 2)


def _is_string(v):
    return isinstance(v, str) and not isinstance(v, Token)


def _parse_inputs(input_lines):
    """Step 2: Signature-Input's members, each an Inner List of Strings with parameters of their types."""
    parsed = {}
    for label, (kind, items, params) in _dictionary(input_lines, "SIGNATURE_INPUT_MALFORMED"):
        if kind != "inner" or any(not _is_string(v) for v, _ in items):
            raise Refusal("SIGNATURE_INPUT_MALFORMED", 2)
        for k, v in params:
            if isinstance(v, float):
                # A Decimal parameter, known or not: @signature-params would re-serialise it (payconform refuses it).
                raise Refusal("SIGNATURE_INPUT_MALFORMED", 2)
            if k in ("created", "expires") and (isinstance(v, bool) or not isinstance(v, int)):
                raise Refusal("SIGNATURE_INPUT_MALFORMED", 2)
            if k in ("keyid", "alg", "nonce", "tag") and not _is_string(v):
                raise Refusal("SIGNATURE_INPUT_MALFORMED", 2)
        parsed[label] = (items, params)
    return parsed


def _parse_signatures(sig_lines):
    """Step 2: Signature's members, each a Byte Sequence."""
    parsed = {}
    for label, (kind, item, _params) in _dictionary(sig_lines, "SIGNATURE_MALFORMED"):
        if kind != "item" or not isinstance(item, bytes):
            raise Refusal("SIGNATURE_MALFORMED", 2)
        parsed[label] = item
    return parsed


def _select_sig1(inputs, signatures):
    """Step 2: the one label, sig1, in both fields; a 64-byte signature; the eight components in order."""
    if LABEL not in inputs:
        raise Refusal("LABEL_UNSUPPORTED", 2)
    if LABEL not in signatures:
        raise Refusal("SIGNATURE_MALFORMED", 2)
    if any(label != LABEL for label in list(inputs) + list(signatures)):
        raise Refusal("LABEL_UNSUPPORTED", 2)
    if len(signatures[LABEL]) != 64:
        raise Refusal("SIGNATURE_MALFORMED", 2)
    items, params = inputs[LABEL]
    if [name for name, _ in items] != COMPONENTS or any(p for _, p in items):
        raise Refusal("COMPONENTS_MISMATCH", 2)
    return signatures[LABEL], items, params


def _check_parameters(params):
    """Step 2: alg ed25519, created an Integer, a keyid, and the parameters in the profile's order."""
    pmap = dict(params)
    if "alg" in pmap and pmap["alg"] != ALG:
        raise Refusal("ALG_UNSUPPORTED", 2)
    created = pmap.get("created")
    if not isinstance(created, int) or isinstance(created, bool):
        raise Refusal("CREATED_INVALID", 2)
    keyid = pmap.get("keyid")
    if not isinstance(keyid, str) or keyid == "":
        raise Refusal("KEY_ID_MISSING", 2)
    last = -1
    for name, _ in params:
        if name not in PARAMETER_ORDER or PARAMETER_ORDER.index(name) < last:
            raise Refusal("PARAMETERS_MISMATCH", 2)
        last = PARAMETER_ORDER.index(name)
    if "alg" not in pmap:
        raise Refusal("PARAMETERS_MISMATCH", 2)
    return pmap


def _check_fresh(created, now, nonce, used_nonces):
    """Steps 3 and 4: at most 300 s old and not ahead; a nonce present, at most 50 characters, not used before."""
    if now - created > MAX_AGE:
        raise Refusal("CREATED_EXPIRED", 3)
    if created - now > MAX_FUTURE:
        raise Refusal("CREATED_IN_FUTURE", 3)
    if nonce == "":
        raise Refusal("NONCE_MISSING", 4)
    if len(nonce) > NONCE_MAX:
        raise Refusal("NONCE_TOO_LONG", 4)
    if nonce in used_nonces:
        raise Refusal("NONCE_REPLAYED", 4)


def _resolve_key(headers, applications, keyid):
    """Steps 5 to 7: the application id known, its secret matching (in constant time), the key id its own."""
    app_ids = field_values(headers, "x-application-id")
    if not app_ids or app_ids[0] == "":
        raise Refusal("APPLICATION_ID_MISSING", 5)
    app = next((a for a in applications if a["applicationId"] == app_ids[0]), None)
    if app is None:
        raise Refusal("APPLICATION_ID_UNKNOWN", 5)
    secrets = field_values(headers, "x-application-secret")
    if not secrets or secrets[0] == "":
        raise Refusal("APPLICATION_SECRET_MISSING", 6)
    if not hmac.compare_digest(hashlib.sha256(secrets[0].encode()).digest(),
                               hashlib.sha256(app["applicationSecret"].encode()).digest()):
        raise Refusal("APPLICATION_SECRET_INVALID", 6)
    entry = next((k for k in app["keys"] if k["keyId"] == keyid), None)
    if entry is None:
        raise Refusal("KEY_UNKNOWN", 7)
    return app["applicationId"], parse_ed25519_public(entry["publicKey"])


def _check_digest(method, headers, body):
    """Step 8: Content-Digest required on a body-carrying request, forbidden on a bodyless one, matching the body."""
    digests = field_values(headers, "content-digest")
    if not body_carrying(method, body):
        if digests:
            raise Refusal("DIGEST_UNEXPECTED", 8)
        if body:
            raise Refusal("BODY_UNEXPECTED", 8)
    elif not digests:
        raise Refusal("DIGEST_MISSING", 8)
    else:
        try:
            verify_digest(digests[0], body, ["sha-512"])
        except Failure as f:
            raise Refusal(f.code, 8)


def _verify_steps(request, now, applications, used_nonces):
    headers = request["headers"]
    sig_lines, input_lines = _extract(headers)
    signature, items, params = _select_sig1(_parse_inputs(input_lines), _parse_signatures(sig_lines))
    pmap = _check_parameters(params)
    nonce = pmap.get("nonce", "")
    _check_fresh(pmap["created"], now, nonce, used_nonces)
    application_id, public_key = _resolve_key(headers, applications, pmap["keyid"])
    _check_digest(request["method"], headers, request["body"])
    try:  # Step 9: rebuild the signature base.
        base = build_base(request["method"], parse_target_uri(request["url"]), headers, items, params, True)
    except Failure:
        raise Refusal("SIGNATURE_BASE_INVALID", 9)
    try:  # Step 10: Ed25519.
        public_key.verify(signature, base.encode("ascii"))
    except InvalidSignature:
        raise Refusal("SIGNATURE_INVALID", 10)
    return {"ok": True, "signatureBase": base, "applicationId": application_id, "keyId": pmap["keyid"],
            "nonce": nonce}


def verify_request(request, now, applications, used_nonces=()):
    """Verifies a signed request under the profile (spec: Server verification order, steps 1 to 10).

    request: {"method", "url", "headers": [[name, value], ...], "body": bytes}; now: Unix seconds; applications:
    [{"applicationId", "applicationSecret", "keys": [{"keyId", "publicKey" (PEM, base64 or DER)}]}]; used_nonces: the nonces already
    recorded. Returns {"ok": True, "signatureBase", "applicationId", "keyId", "nonce"} (step 11: the caller records
    the nonce, atomically, before it accepts) or {"ok": False, "code", "step"}.
    """
    try:
        return _verify_steps(request, now, applications, used_nonces)
    except Refusal as r:
        return {"ok": False, "code": r.code, "step": r.step}


# ---------------------------------------------------------------------------------------------------------------
# Webhooks: Authorization: SHA256withRSA <base64> over the exact body bytes
# ---------------------------------------------------------------------------------------------------------------

_HTTP_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


def verify_webhook(body, authorization, public_key):
    """Verifies a webhook's `Authorization: SHA256withRSA <base64>` over its exact body bytes.

    body: the bytes as received (never re-serialised); authorization: the header's value or None; public_key: the
    key as the public-key endpoint serves it (trimmed PEM body) or a PEM. Returns {"ok": True} or {"ok": False,
    "code"}.
    """
    try:
        key = parse_rsa_public(public_key)
    except Failure:
        return {"ok": False, "code": "KEY_INVALID"}
    auth = authorization
    if auth is None:
        return {"ok": False, "code": "AUTHORIZATION_MISSING"}
    if len(auth) > 8192:
        return {"ok": False, "code": "AUTHORIZATION_MALFORMED"}
    value = auth.strip(" \t")
    if value == "":
        return {"ok": False, "code": "AUTHORIZATION_MISSING"}
    if " " not in value:
        return {"ok": False, "code": "AUTHORIZATION_MALFORMED"}
    algorithm, _, rest = value.partition(" ")
    if not _HTTP_TOKEN.match(algorithm):
        return {"ok": False, "code": "AUTHORIZATION_MALFORMED"}
    if algorithm != WEBHOOK_ALGORITHM:
        return {"ok": False, "code": "ALGORITHM_UNSUPPORTED"}
    try:
        signature = strict_b64decode(rest.lstrip(" "))
    except ValueError:
        return {"ok": False, "code": "SIGNATURE_MALFORMED"}
    if len(signature) != (key.key_size + 7) // 8:
        return {"ok": False, "code": "SIGNATURE_MALFORMED"}
    try:
        key.verify(signature, body, padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        return {"ok": False, "code": "SIGNATURE_INVALID"}
    return {"ok": True}
