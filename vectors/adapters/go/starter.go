// Starter adapter for the payconform vectors: the harness protocol loop and one op, "digest" (RFC 9530
// Content-Digest), end to end; every other op is answered "unsupported" (a skip). Copy it and fill in your ops.
// Protocol: README.md, "The harness". From an unpacked release:
//
//	go build -o starter adapters/go/starter.go && python3 run-vectors.py --exec "$PWD/starter" --only digest
package main

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
)

type obj = map[string]any

var b64 = base64.StdEncoding

// One Dictionary member as RFC 9530 sends it: a lowercase key and a byte sequence of padded standard base64.
var member = regexp.MustCompile(`^([a-z*][a-z0-9_.*-]*)=:([A-Za-z0-9+/]*={0,2}):$`)

var hashes = map[string]func([]byte) []byte{
	"sha-512": func(b []byte) []byte { s := sha512.Sum512(b); return s[:] },
	"sha-256": func(b []byte) []byte { s := sha256.Sum256(b); return s[:] },
}

func digest(raw json.RawMessage) (obj, error) {
	var in struct {
		Mode, Algorithm, ContentDigest, BodyUtf8, BodyBase64 string
		Algorithms                                           []string
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, err
	}
	body := []byte(in.BodyUtf8) // PLUG IN: hand these bytes to your own Content-Digest code instead of the lines below
	if in.BodyBase64 != "" {
		body, _ = b64.DecodeString(in.BodyBase64) // the vectors' bodies are valid base64
	}
	if in.Mode == "compute" {
		if hashes[in.Algorithm] == nil {
			return nil, errors.New("unknown algorithm " + in.Algorithm)
		}
		return obj{"contentDigest": in.Algorithm + "=:" + b64.EncodeToString(hashes[in.Algorithm](body)) + ":"}, nil
	}
	invalid := func(code string) (obj, error) { return obj{"valid": false, "code": code}, nil }
	members := map[string][]byte{} // PLUG IN: your verifier; this parse is the minimum the vectors need (no parameters)
	for _, text := range strings.Split(in.ContentDigest, ",") {
		m := member.FindStringSubmatch(strings.Trim(text, " \t"))
		if m == nil || members[m[1]] != nil {
			return invalid("DIGEST_MALFORMED")
		}
		value, err := b64.DecodeString(m[2])
		if err != nil {
			return invalid("DIGEST_MALFORMED")
		}
		members[m[1]] = value
	}
	checked := false
	for _, a := range in.Algorithms {
		if got := members[a]; got != nil && hashes[a] != nil {
			if expected := hashes[a](body); len(got) != len(expected) {
				return invalid("DIGEST_MALFORMED")
			} else if subtle.ConstantTimeCompare(got, expected) != 1 {
				return invalid("DIGEST_MISMATCH")
			}
			checked = true
		}
	}
	if !checked {
		return invalid("DIGEST_ALGORITHM_UNSUPPORTED")
	}
	return obj{"valid": true}, nil
}

// PLUG IN: one entry per op you implement ("signature-base", "sign", "verify", "webhook-verify", "parse-key").
var ops = map[string]func(json.RawMessage) (obj, error){"digest": digest}

func main() {
	in, out := json.NewDecoder(os.Stdin), json.NewEncoder(os.Stdout) // one request per line; stdout carries only answers
	for {
		var m struct {
			ID, Op string
			Input  json.RawMessage
		}
		if in.Decode(&m) != nil {
			return // stdin closed: the run is over
		}
		reply := obj{"id": m.ID, "unsupported": true, "reason": "not implemented yet"}
		if m.Op == "hello" { // PLUG IN: the name and version of what you test
			reply = obj{"id": m.ID, "result": obj{"protocol": 2, "implementation": obj{"name": "my-implementation", "version": "0.0.0"}}}
		} else if op := ops[m.Op]; op != nil {
			if result, err := op(m.Input); err != nil { // a bug in one case fails that case, not the run
				reply = obj{"id": m.ID, "error": obj{"message": err.Error()}}
			} else {
				reply = obj{"id": m.ID, "result": result}
			}
		}
		out.Encode(reply)
	}
}
