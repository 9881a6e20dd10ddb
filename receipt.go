package hitl

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"
)

// ReceiptID is the id (jti) of the receipt inq carries, "" for none: the stores keep it
// beside the receipt, to find the inquiry a redeemed receipt is of.
func (inq *Inquiry) ReceiptID() string {
	_, rest, ok := strings.Cut(inq.Receipt, ".")
	claims, signature, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 || strings.Contains(signature, ".") {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(claims)
	if err != nil {
		return ""
	}
	var c struct {
		ID string `json:"jti"`
	}
	if json.Unmarshal(payload, &c) != nil {
		return ""
	}
	return c.ID
}

// ReceiptRedemption records that a receipt was redeemed (POST /v1/receipts/{jti}/redeem):
// once per receipt, on whichever node.
type ReceiptRedemption struct {
	ID         string    `json:"jti"`
	InquiryID  int64     `json:"inquiry_id"`
	RedeemedAt time.Time `json:"redeemed_at"`
	RedeemedBy string    `json:"redeemed_by"`
}
