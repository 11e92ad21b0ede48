package controlplane

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"github.com/rewardsim/rewardsim/sim/internal/refusal"
	"github.com/rewardsim/rewardsim/sim/internal/token"
)

// kindChannelToken is a channel's control token, kept as its hash.
const kindChannelToken = "channelToken"

// channelToken is the stored record: the channel and the SHA-256 of its
// token (32 random bytes, so no salt is needed), never the token.
type channelToken struct {
	Channel string `json:"channel"`
	Hash    string `json:"hash"`
}

// channelTokens is the channel tokens in force: hash -> channel.
type channelTokens struct {
	mu     sync.RWMutex
	byHash map[string]string
}

func tokenHash(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
}

// set makes channel's token the one of hash (hash "": none).
func (t *channelTokens) set(channel, hash string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byHash == nil {
		t.byHash = map[string]string{}
	}
	for h, ch := range t.byHash {
		if ch == channel {
			delete(t.byHash, h)
		}
	}
	if hash != "" {
		t.byHash[hash] = channel
	}
}

func (p *Plane) restoreChannelTokens() {
	restore(p, kindChannelToken, func(rec channelToken) error {
		p.tokens.set(rec.Channel, rec.Hash)
		return nil
	})
}

// IssueChannelToken gives channel name a control token of its own, which
// acts on that channel alone (docs/security.md), and returns it: the
// only time it is shown, for the store keeps its hash. A token issued
// before for the channel stops working. Only on a shared box: elsewhere
// one control token serves one team.
func (p *Plane) IssueChannelToken(name string) (string, error) {
	if !p.sharedBox {
		return "", refuse(refusal.Conflict, "channel tokens are a shared box's: start the simulator with --shared-box")
	}
	if err := p.knownChannel(name); err != nil {
		return "", err
	}
	tok, err := token.NewOpaque(p.rand, 32)
	if err != nil {
		return "", err
	}
	tok = "ct-" + tok
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.store.WriteConfig(put(kindChannelToken, name, channelToken{Channel: name, Hash: tokenHash(tok)})); err != nil {
		return "", err
	}
	p.tokens.set(name, tokenHash(tok))
	return tok, nil
}

// TokenChannel is the channel whose control token tok is, if any.
func (p *Plane) TokenChannel(tok string) (string, bool) {
	if tok == "" {
		return "", false
	}
	p.tokens.mu.RLock()
	defer p.tokens.mu.RUnlock()
	ch, ok := p.tokens.byHash[tokenHash(tok)]
	return ch, ok
}
