package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/outbound"
	"github.com/hitl-dev/hitl/internal/secretbox"
	"github.com/hitl-dev/hitl/receipt"
)

// Secrets at rest. The secrets hitl keeps in its store (the settings below, every webhook's
// signing secret and every chat webhook's URL) are encrypted under the operator's key
// (HITL_SECRET_KEY) when there is one, and stored in plaintext when there is none. The store keeps whatever it is
// given; the engine seals before it writes and opens after it reads.

// secretSettings are the settings that hold secrets: all of them, today.
var secretSettings = []string{"callback_secret", "link_secret", "audit_key", vapidSetting, receiptKeySetting, receiptPreviousKeySetting}

// secretKeySetting records which key the stored secrets are under (secretbox.Key.ID), so
// that a server still running on the old key after `hitl secrets rotate` writes no secret
// under it: its secrets would open under neither key.
const secretKeySetting = "secret_key_id"

// seal is Seal for a secret stored in tx, provided the store's secrets are under the engine's
// key: when they were rotated to another while this server ran, nothing is written.
func (e *Engine) seal(tx hitl.Tx, secret, place string) (string, error) {
	id, err := tx.Setting(secretKeySetting, e.secretKey.ID())
	if err != nil {
		return "", err
	}
	if id != e.secretKey.ID() {
		return "", hitl.Errorf(hitl.EUnavailable, "the database's secrets were encrypted with another key (hitl secrets rotate) while this server ran: restart it with the new HITL_SECRET_KEY")
	}
	return e.secretKey.Seal(secret, place), nil
}

// setting is tx.Setting for a secret: init is sealed before it is stored, and the value
// opened after it is read.
func (e *Engine) setting(tx hitl.Tx, name, init string) (string, error) {
	s := hitl.StoredSecret{Kind: hitl.SecretSetting, Name: name}
	sealed, err := e.seal(tx, init, s.Place())
	if err != nil {
		return "", err
	}
	v, err := tx.Setting(name, sealed)
	if err != nil {
		return "", err
	}
	return e.open(v, s.Place())
}

// open is Open of a secret stored at place, with the engine's key; a *KeyError when the key
// does not open it.
func (e *Engine) open(stored, place string) (string, error) {
	s, err := e.secretKey.Open(stored, place)
	if err != nil {
		return "", &KeyError{Key: "HITL_SECRET_KEY", Place: place, Err: err}
	}
	return s, nil
}

// recordKey records that the store's secrets are now under key.
func recordKey(tx hitl.Tx, key *secretbox.Key) error {
	id, err := tx.Setting(secretKeySetting, key.ID())
	if err != nil || id == key.ID() {
		return err
	}
	return tx.SetStoredSecret(hitl.StoredSecret{Kind: hitl.SecretSetting, Name: secretKeySetting, Value: key.ID()})
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
		vapid          string
		auditKey       = e.audit.key
		signing        [2]*receipt.Key
	)
	err := e.store.Update(ctx, func(tx hitl.Tx) (err error) {
		// Every stored secret opens with this key (or none is encrypted): they are under it.
		if sealed, err = reseal(tx, e.secretKey, e.secretKey, false, "HITL_SECRET_KEY"); err != nil {
			return err
		}
		if err := recordKey(tx, e.secretKey); err != nil {
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
		if vapid, err = e.setting(tx, vapidSetting, newVAPIDKey()); err != nil {
			return err
		}
		if signing[0], signing[1], err = e.storedSigningKeys(tx); err != nil {
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
	public, err := vapidPublic(vapid)
	if err != nil {
		return err
	}
	e.callbackSecret, e.linkSecret, e.audit.key = callback, link, auditKey
	e.vapid.private, e.vapid.public = vapid, public
	e.signing.set(signing[0], signing[1])
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
		if n, err = reseal(tx, from, to, true, fromName); err != nil {
			return err
		}
		return recordKey(tx, to)
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
		if !all && (secretbox.Sealed(s.Value) || to == nil) {
			continue // already under its key, or in plaintext with no key to seal it
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
	return e.open(d.Secret, webhookSecretPlace(d.WebhookID))
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
	return e.open(w.URL, chatWebhookPlace(id))
}

// openedChatWebhook is a chat webhook as the store keeps it with its URL opened, for admins.
// A URL the key does not open (altered in the database since the start) is shown empty and
// logged, rather than failing the whole list.
func (e *Engine) openedChatWebhook(w *hitl.ChatWebhook) *hitl.ChatWebhook {
	u, err := e.open(w.URL, chatWebhookPlace(w.ID))
	if err != nil {
		e.log.Error("a chat webhook's URL does not decrypt", "chat_webhook_id", w.ID, "err", err)
	}
	w.URL = u
	return w
}
