package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/receipt"
)

// JWKS fetches the server's receipt keys (GET /.well-known/jwks.json): the document
// receipt.Verify checks receipts against.
func (c *Client) JWKS(ctx context.Context) ([]byte, error) {
	var doc json.RawMessage
	if err := c.get(ctx, "/.well-known/jwks.json", &doc); err != nil {
		return nil, err
	}
	return doc, nil
}

// VerifyReceipt checks a decision receipt against the server's current keys and returns its
// claims; a receipt that fails is a *receipt.Error with its reason. opts.Issuer "" expects
// the server this client talks to (its base URL); give the server's --public-url when it
// differs. An executor that verifies often fetches JWKS once and calls receipt.Verify.
func (c *Client) VerifyReceipt(ctx context.Context, token string, opts receipt.Options) (*receipt.Claims, error) {
	jwks, err := c.JWKS(ctx)
	if err != nil {
		return nil, err
	}
	if opts.Issuer == "" {
		opts.Issuer = c.baseURL
	}
	return receipt.Verify(token, jwks, opts)
}

// RedeemReceipt uses a receipt once (POST /v1/receipts/{jti}/redeem): a second redeem, from
// anyone on any node, is a conflict (409) saying when and by whom it was redeemed.
func (c *Client) RedeemReceipt(ctx context.Context, jti string) (*hitl.ReceiptRedemption, error) {
	r := new(hitl.ReceiptRedemption)
	return r, c.post(ctx, "/v1/receipts/"+url.PathEscape(jti)+"/redeem", nil, r)
}

// SigningKeyRotation is the answer of RotateSigningKey: the new key's id and the keys served now.
type SigningKeyRotation struct {
	Kid  string        `json:"kid"`
	Keys []receipt.JWK `json:"keys"`
}

// RotateSigningKey makes a new receipt signing key (POST /v1/signing-keys/rotate; admins).
func (c *Client) RotateSigningKey(ctx context.Context) (*SigningKeyRotation, error) {
	r := new(SigningKeyRotation)
	_, err := c.do(ctx, http.MethodPost, "/v1/signing-keys/rotate", nil, nil, r, c.RequestTimeout)
	return r, err
}
