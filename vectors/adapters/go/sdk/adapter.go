// A small payments-service SDK in Go (standard library only) behind payconform's SDK adapter protocol 1
// (docs/sdk-adapters.md). Run: payconform audit client --adapter "go run vectors/adapters/go/sdk/adapter.go"
// The application secret and the Ed25519 private key (PKCS#8 PEM) come from the environment:
// PAYCONFORM_APPLICATION_SECRET and PAYCONFORM_PRIVATE_KEY. Written from the service spec.
package main

import (
	"bufio"
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

const (
	payoutMedia = "application/vnd.service.v1.0+json"
	refundMedia = "application/vnd.service.v0.7+json"
	attempts    = 3 // in all, when the service answers 503 (each attempt signed afresh: a new nonce)
)

var components = []string{"@method", "@path", "@authority", "content-digest", "content-type", "content-length",
	"x-application-id", "x-application-secret"}

// Client is the SDK: one method per operation, each returning what its caller sees.
type Client struct {
	config map[string]string
	secret string
	key    ed25519.PrivateKey
	http   *http.Client
}

type sdkError struct {
	Status  *int    `json:"status"`
	Body    *string `json:"body"`
	Message *string `json:"message"`
	Code    *string `json:"code"`
}

func nonce() string {
	b := make([]byte, 16)
	if _, err := io.ReadFull(rand.Reader, b); err != nil {
		panic(err)
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func (c *Client) sign(path string, body []byte, contentType string) http.Header {
	sum := sha512.Sum512(body)
	digest := "sha-512=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"
	authority := strings.TrimPrefix(strings.TrimPrefix(c.config["baseUrl"], "http://"), "https://")
	values := map[string]string{"@method": "POST", "@path": path, "@authority": authority, "content-digest": digest,
		"content-type": contentType, "content-length": fmt.Sprint(len(body)),
		"x-application-id": c.config["applicationId"], "x-application-secret": c.secret}
	quoted := make([]string, len(components))
	lines := make([]string, 0, len(components)+1)
	for i, name := range components {
		quoted[i] = `"` + name + `"`
		lines = append(lines, fmt.Sprintf("%q: %s", name, values[name]))
	}
	params := fmt.Sprintf(`(%s);created=%d;keyid="%s";alg="ed25519";nonce="%s"`,
		strings.Join(quoted, " "), time.Now().Unix(), c.config["keyId"], nonce())
	base := strings.Join(lines, "\n") + "\n\"@signature-params\": " + params
	h := http.Header{}
	h.Set("Content-Type", contentType)
	h.Set("Content-Digest", digest)
	h.Set("x-application-id", c.config["applicationId"])
	h.Set("x-application-secret", c.secret)
	h.Set("Signature-Input", "sig1="+params)
	h.Set("Signature", "sig1=:"+base64.StdEncoding.EncodeToString(ed25519.Sign(c.key, []byte(base)))+":")
	return h
}

func (c *Client) call(path string, payload interface{}, contentType, accept string) map[string]interface{} {
	body := []byte{}
	if payload != nil {
		body, _ = json.Marshal(payload)
	}
	status, text := 0, ""
	for i := 0; i < attempts; i++ {
		req, _ := http.NewRequest("POST", c.config["baseUrl"]+path, bytes.NewReader(body))
		req.Header = c.sign(path, body, contentType)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		res, err := c.http.Do(req)
		if err != nil {
			msg := err.Error()
			return map[string]interface{}{"error": sdkError{Message: &msg}}
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		status, text = res.StatusCode, string(raw)
		if status != 503 {
			break
		}
	}
	if status >= 200 && status < 300 {
		var resource map[string]interface{}
		decoder := json.NewDecoder(strings.NewReader(text))
		decoder.UseNumber() // amounts keep every digit the service sent
		if err := decoder.Decode(&resource); err == nil {
			return map[string]interface{}{"resource": resource}
		}
	}
	var parsed struct {
		ErrorMessage *string `json:"errorMessage"`
		StatusName   *string `json:"statusName"`
	}
	_ = json.Unmarshal([]byte(text), &parsed)
	return map[string]interface{}{"error": sdkError{&status, &text, parsed.ErrorMessage, parsed.StatusName}}
}

func (c *Client) refundsPath() string {
	return "/api/merchants/" + url.PathEscape(c.config["merchantId"]) + "/applications/" +
		url.PathEscape(c.config["applicationId"]) + "/refunds"
}

// verifyWebhook: Authorization `SHA256withRSA <base64>` over exactly body, by the key the service serves.
func verifyWebhook(headers [][2]string, body []byte, served string) bool {
	authorization := ""
	for _, h := range headers {
		if strings.EqualFold(h[0], "authorization") {
			authorization = h[1]
		}
	}
	parts := strings.Fields(authorization)
	if len(parts) != 2 || parts[0] != "SHA256withRSA" {
		return false
	}
	block, _ := pem.Decode([]byte("-----BEGIN PUBLIC KEY-----\n" + strings.TrimSpace(served) + "\n-----END PUBLIC KEY-----\n"))
	if block == nil {
		return false
	}
	parsed, err := x509.ParsePKIXPublicKey(block.Bytes)
	key, ok := parsed.(*rsa.PublicKey)
	signature, err2 := base64.StdEncoding.DecodeString(parts[1])
	if err != nil || !ok || err2 != nil {
		return false
	}
	digest := sha256.Sum256(body)
	return rsa.VerifyPKCS1v15(key, crypto.SHA256, digest[:], signature) == nil
}

type message struct {
	ID    string                 `json:"id"`
	Op    string                 `json:"op"`
	Input map[string]interface{} `json:"input"`
}

func configure(input map[string]interface{}) (*Client, map[string]interface{}, error) {
	secret, keyPem := os.Getenv("PAYCONFORM_APPLICATION_SECRET"), os.Getenv("PAYCONFORM_PRIVATE_KEY")
	block, _ := pem.Decode([]byte(keyPem))
	if secret == "" || block == nil {
		return nil, nil, errors.New("PAYCONFORM_APPLICATION_SECRET and PAYCONFORM_PRIVATE_KEY are needed")
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	key, ok := parsed.(ed25519.PrivateKey)
	if err != nil || !ok {
		return nil, nil, errors.New("PAYCONFORM_PRIVATE_KEY is no Ed25519 PKCS#8 key")
	}
	config := map[string]string{}
	for k, v := range input {
		config[k] = fmt.Sprint(v)
	}
	client := &Client{config, secret, key, &http.Client{Timeout: 10 * time.Second}}
	return client, map[string]interface{}{"protocolVersion": 1, "sdk": map[string]string{"name": "go-reference-sdk", "version": "1"}}, nil
}

func answer(client **Client, m message) (map[string]interface{}, error) {
	in := m.Input
	str := func(k string) string { s, _ := in[k].(string); return s }
	if m.Op == "configure" {
		c, reply, err := configure(in)
		if err == nil {
			*client = c
		}
		return reply, err
	}
	if m.Op == "verifyWebhook" {
		var headers [][2]string
		raw, _ := json.Marshal(in["headers"])
		_ = json.Unmarshal(raw, &headers)
		body, err := base64.StdEncoding.DecodeString(str("bodyBase64"))
		return map[string]interface{}{"webhook": map[string]bool{"valid": err == nil && verifyWebhook(headers, body, str("publicKey"))}}, nil
	}
	c := *client
	if c == nil {
		return nil, errors.New("not configured")
	}
	switch m.Op {
	case "createPayout":
		payout := map[string]interface{}{"applicationId": c.config["applicationId"],
			"payInAccountSelector": c.config["payInAccountSelector"], "amount": in["amount"],
			"reference": in["reference"], "destination": in["destination"]}
		if hold, ok := in["doNotCommitOnCoPMismatch"]; ok {
			payout["doNotCommitOnCoPMismatch"] = hold
		}
		return c.call("/api/payouts", payout, payoutMedia, ""), nil
	case "commitPayout", "cancelPayout":
		action := strings.ToLower(strings.TrimSuffix(m.Op, "Payout"))
		return c.call("/api/payouts/"+url.PathEscape(str("payoutId"))+"/"+action, nil, payoutMedia, payoutMedia), nil
	case "createRefund":
		refund := map[string]interface{}{"paymentId": str("paymentId"), "amount": str("amount")}
		return c.call(c.refundsPath(), refund, refundMedia, refundMedia), nil
	}
	return nil, fmt.Errorf("no operation %q", m.Op)
}

func main() {
	var client *Client
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	out := json.NewEncoder(os.Stdout)
	for scanner.Scan() {
		var m message
		decoder := json.NewDecoder(bytes.NewReader(scanner.Bytes()))
		decoder.UseNumber() // amounts go on exactly as written
		if strings.TrimSpace(scanner.Text()) == "" {
			continue
		}
		reply, err := map[string]interface{}(nil), decoder.Decode(&m)
		if err == nil {
			reply, err = answer(&client, m)
		}
		if err != nil {
			reply = map[string]interface{}{"unsupported": true, "reason": err.Error()}
		}
		reply["id"] = m.ID
		_ = out.Encode(reply)
	}
}
