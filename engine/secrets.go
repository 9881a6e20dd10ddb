package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/outbound"
	"github.com/hitl-dev/hitl/internal/secretbox"
)

// Secrets at rest. The secrets hitl keeps in its store (the settings below, every webhook's
// signing secret and every chat webhook's URL) are encrypted under the operator's key (HITL_SECRET_KEY) when
// there is one, and stored in plaintext when there is none. The store keeps whatever it is
// given; the engine seals before it writes and opens after it reads.

// secretSettings are the settings that hold secrets: all of them, today.
var secretSettings = []string{"callback_secret", "link_secret", "audit_key"}

// setting is tx.Setting for a secret: init is sealed before it is stored, and the value
// opened after it is read.
func (e *Engine) setting(tx hitl.Tx, name, init string) (string, error) {
	s := hitl.StoredSecret{Kind: hitl.SecretSetting, Name: name}
	v, err := tx.Setting(name, e.secretKey.Seal(init, s.Place()))
	if err != nil {
		return "", err
	}
	return e.secretKey.Open(v, s.Place())
}

// LoadSecrets reads the secrets kept in the store, generating those missing; with a secret
// key, it first encrypts those stored in plaintext, in the same transaction. A store whose
// secrets the engine's key cannot open (there is none, or it is another) is refused with a
// message that names HITL_SECRET_KEY, and nothing is changed. Start calls it when nothing
// has; a server calls it before anything else touches the store.
func (e *Engine) LoadSecrets(ctx context.Context) error {
	if e.linkSecret != "" {
		return nil
	}
	var (
		sealed         int
		callback, link = e.callbackSecret, ""
		auditKey       = e.audit.key
	)
	err := e.store.Update(ctx, func(tx hitl.Tx) (err error) {
		if sealed, err = reseal(tx, e.secretKey, e.secretKey, false, "HITL_SECRET_KEY"); err != nil {
			return err
		}
		if callback == "" {
			if callback, err = e.setting(tx, "callback_secret", outbound.NewSecret()); err != nil {
				return err
			}
		}
		if link, err = e.setting(tx, "link_secret", outbound.NewSecret()); err != nil { // any random secret will do
			return err
		}
		if auditKey == nil {
			auditKey, err = e.storedAuditKey(tx)
		}
		return err
	})
	if err != nil {
		return err
	}
	e.callbackSecret, e.linkSecret, e.audit.key = callback, link, auditKey
	if sealed > 0 {
		e.log.Info("secrets stored in plaintext are now encrypted with HITL_SECRET_KEY", "secrets", sealed)
	}
	return nil
}

// RotateSecrets opens every secret in the store with from and stores it sealed with to, in
// one transaction, and returns how many it rewrote. A nil key is none: from nil takes the
// secrets to be in plaintext, to nil stores them so. A secret in plaintext is taken as it is
// whatever from is. When from does not open one, nothing changes and the error says so,
// naming fromName (the flag or variable from came from).
func RotateSecrets(ctx context.Context, store hitl.Store, from, to *secretbox.Key, fromName string) (int, error) {
	var n int
	err := store.Update(ctx, func(tx hitl.Tx) (err error) {
		n, err = reseal(tx, from, to, true, fromName)
		return err
	})
	return n, err
}

// reseal opens the stored secrets with from and seals them with to: every one when all, else
// only those in plaintext (the others are opened, which checks that from is their key).
// A secret from does not open is an error that names fromName.
func reseal(tx hitl.Tx, from, to *secretbox.Key, all bool, fromName string) (int, error) {
	secrets, err := tx.StoredSecrets(secretSettings)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range secrets {
		secret, err := from.Open(s.Value, s.Place())
		if err != nil {
			return 0, &KeyError{Key: fromName, Place: s.Place(), Err: err}
		}
		if !all && secretbox.Sealed(s.Value) {
			continue
		}
		s.Value = to.Seal(secret, s.Place())
		if err := tx.SetStoredSecret(s); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

// KeyError: a key (HITL_SECRET_KEY, or none) does not open a secret in the store. Err is
// secretbox.ErrNoKey or secretbox.ErrWrongKey.
type KeyError struct {
	Key   string // where the key came from: "HITL_SECRET_KEY", "--old"
	Place string // the first secret it did not open
	Err   error
}

// Error says what to do about it.
func (e *KeyError) Error() string {
	if errors.Is(e.Err, secretbox.ErrNoKey) {
		return fmt.Sprintf("the database holds encrypted secrets (%s first) and %s is not set: set it to the key they were encrypted with", e.Place, e.Key)
	}
	return fmt.Sprintf("%s does not decrypt the secrets in the database (%s first): it is not the key they were encrypted with, or they were altered", e.Key, e.Place)
}

func (e *KeyError) Unwrap() error { return e.Err }

func webhookSecretPlace(id string) string {
	return hitl.StoredSecret{Kind: hitl.SecretWebhook, Name: id}.Place()
}

// WebhookSigningSecret is the secret of the webhook a claimed delivery goes to, opened
// (deliveries carry it as the store keeps it), for the dispatcher.
func (e *Engine) WebhookSigningSecret(d *hitl.Delivery) (string, error) {
	s, err := e.secretKey.Open(d.Secret, webhookSecretPlace(d.WebhookID))
	if err != nil {
		return "", &KeyError{Key: "HITL_SECRET_KEY", Place: webhookSecretPlace(d.WebhookID), Err: err}
	}
	return s, nil
}

func chatWebhookPlace(id string) string {
	return hitl.StoredSecret{Kind: hitl.SecretChatWebhook, Name: id}.Place()
}

// ChatWebhookURL is the URL of a chat webhook, opened, for the sender that posts to it: a
// notification names its room by the chat webhook's ID and carries no copy of the URL, which
// is a credential. ENotFound once the chat webhook is deleted; a *KeyError when
// HITL_SECRET_KEY does not open the URL.
func (e *Engine) ChatWebhookURL(ctx context.Context, id string) (string, error) {
	w, err := e.store.ChatWebhook(ctx, id)
	if err != nil {
		return "", err
	}
	u, err := e.secretKey.Open(w.URL, chatWebhookPlace(id))
	if err != nil {
		return "", &KeyError{Key: "HITL_SECRET_KEY", Place: chatWebhookPlace(id), Err: err}
	}
	return u, nil
}

// openedChatWebhook is a chat webhook as the store keeps it with its URL opened, for admins.
// A URL the key does not open (altered in the database since the start) is shown empty and
// logged, rather than failing the whole list.
func (e *Engine) openedChatWebhook(w *hitl.ChatWebhook) *hitl.ChatWebhook {
	u, err := e.secretKey.Open(w.URL, chatWebhookPlace(w.ID))
	if err != nil {
		e.log.Error("a chat webhook's URL does not decrypt", "chat_webhook_id", w.ID,
			"err", &KeyError{Key: "HITL_SECRET_KEY", Place: chatWebhookPlace(w.ID), Err: err})
	}
	w.URL = u
	return w
}
