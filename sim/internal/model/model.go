// Package model holds the simulator's domain types and sentinel errors.
// It imports nothing of ours, so every other package may depend on it.
package model

import (
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"strings"
	"time"
)

// TokenKind tells a reference token from a user token (TOK-3): they are
// distinct credentials and never interchangeable.
type TokenKind string

const (
	ReferenceToken TokenKind = "reference"
	UserToken      TokenKind = "user"
)

// Token is a bearer credential the simulator issued. Value is the opaque
// string the publisher holds; it is the storage key, so it is not serialised.
type Token struct {
	Value     string    `json:"-"`
	Kind      TokenKind `json:"kind"`
	Channel   string    `json:"channel"`
	VirtualID string    `json:"virtualId,omitempty"`
	IssuedAt  time.Time `json:"issuedAt"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// Session is what GenerateSessionInfoV2 created: a sessionId bound to one
// user of one channel (SESS-2: the pair must come together).
type Session struct {
	ID        string    `json:"-"`
	Channel   string    `json:"channel"`
	VirtualID string    `json:"virtualId"`
	IssuedAt  time.Time `json:"issuedAt"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
}

// Channel is a publisher as the service knows it after onboarding.
type Channel struct {
	// Name is the bName / channelName the publisher sends in payloads.
	Name string
	// ChannelID is the CHANNELID of its envelopes and X-CHANNELID header.
	ChannelID string
	// PublicKey verifies the publisher's envelope signatures.
	PublicKey *rsa.PublicKey
	// AppKey and SecKey authenticate fetchCouponCode.
	AppKey, SecKey string
	// SecKeyHash replaces SecKey for a channel registered at run time,
	// so the store does not keep its secKey in clear (HashSecKey).
	SecKeyHash string
	// WebhookURL receives coupon-status pushes.
	WebhookURL string
	// KeyOrigin is "library" when a test library made the channel's key
	// pair: a signature that fails on it says how to hand the key over.
	KeyOrigin string
}

// KeyOriginLibrary marks a key pair a test library made (Channel.KeyOrigin).
const KeyOriginLibrary = "library"

// Sentinel errors shared across packages.
var (
	ErrNotFound  = errors.New("not found")
	ErrExpired   = errors.New("expired")
	ErrWrongKind = errors.New("wrong token type")
)

// HashSecKey is a salted SHA-256 of a secKey, "sha256:<salt hex>:<hash hex>".
func HashSecKey(salt []byte, secKey string) string {
	sum := sha256.Sum256(append(append([]byte(nil), salt...), secKey...))
	return "sha256:" + hex.EncodeToString(salt) + ":" + hex.EncodeToString(sum[:])
}

// HasSecKey reports whether the channel has a secKey, in clear or hashed.
func (c Channel) HasSecKey() bool { return c.SecKey != "" || c.SecKeyHash != "" }

// SecKeyMatches compares sec with the channel's secKey in constant time.
func (c Channel) SecKeyMatches(sec string) bool {
	if c.SecKeyHash == "" {
		return subtle.ConstantTimeCompare([]byte(sec), []byte(c.SecKey)) == 1
	}
	parts := strings.Split(c.SecKeyHash, ":")
	salt, err := hex.DecodeString(parts[min(1, len(parts)-1)])
	if len(parts) != 3 || err != nil {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(HashSecKey(salt, sec)), []byte(c.SecKeyHash)) == 1
}
