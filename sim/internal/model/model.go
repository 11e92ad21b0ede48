// Package model holds the simulator's domain types and sentinel errors.
// It imports nothing of ours, so every other package may depend on it.
package model

import (
	"crypto/rsa"
	"errors"
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
	// WebhookURL receives coupon-status pushes.
	WebhookURL string
}

// Sentinel errors shared across packages.
var (
	ErrNotFound  = errors.New("not found")
	ErrExpired   = errors.New("expired")
	ErrWrongKind = errors.New("wrong token type")
)
