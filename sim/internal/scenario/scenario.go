// Package scenario is the scenario model (SIM-1): the versioned YAML
// file, its compiled form the endpoints read and the pure decisions made
// on it. parse.go reads and compiles files; registry.go holds the
// scenarios in force at run time.
package scenario

import (
	"io/fs"
	"strconv"
	"time"

	"github.com/rewardsim/rewardsim/sim/internal/fault"
	"github.com/rewardsim/rewardsim/sim/internal/latency"
	"github.com/rewardsim/rewardsim/sim/internal/limit"
	"github.com/rewardsim/rewardsim/sim/internal/model"
)

// Schema is the name of the scenario schema in the schema set.
const Schema = "scenario"

// File is the YAML form of a scenario, version 1.
type File struct {
	Version     int      `yaml:"version"`
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	Seed        int64    `yaml:"seed"`
	Timezone    string   `yaml:"timezone"`
	Service     Service  `yaml:"service"`
	Tokens      Tokens   `yaml:"tokens"`
	Sessions    Sessions `yaml:"sessions"`
	Switches    Switches `yaml:"switches"`
	// ChannelSpecs and FaultRules are the file's words; a Scenario's
	// Channels and Faults are what they compile to.
	ChannelSpecs []Channel    `yaml:"channels"`
	FaultRules   []fault.Rule `yaml:"faults"`
	// LatencyProfiles are the file's latency profiles; Latency arms them.
	LatencyProfiles []latency.Profile `yaml:"latency"`

	// Offers are the coupon offers per channel name (offers.go).
	Offers    map[string][]OfferFile `yaml:"offers"`
	Campaigns []Campaign             `yaml:"campaigns"`
	Pools     []Pool                 `yaml:"pools"`
	SDK       SDK                    `yaml:"sdk"`
	// Limits are the channels' capacity limits, by channel name
	// (capacity.go, docs/limits.md); a limit set at run time overrides one.
	Limits map[string]limit.Config `yaml:"limits"`
}

// Service is the service's own identity.
type Service struct {
	ChannelID string `yaml:"channelId"`
}

// Tokens sets token lifetimes and the expireDate format (TOK-4).
type Tokens struct {
	ReferenceTTL     model.Duration `yaml:"referenceTTL"`
	UserTTL          model.Duration `yaml:"userTTL"`
	ExpireDateFormat string         `yaml:"expireDateFormat"`
}

// Sessions sets the session lifetime; 0 means sessions never expire.
type Sessions struct {
	TTL model.Duration `yaml:"ttl"`
}

// Switches choose among readings of what the contract does not show.
type Switches struct {
	// FailureHTTPStatus is the HTTP status of a bare failure caused by the request.
	FailureHTTPStatus int `yaml:"failureHttpStatus"`
	// UnknownChannel picks the ERRORSTRING for an unknown CHANNELID.
	UnknownChannel string `yaml:"unknownChannel"`
	// Webhook sets the push retry policy and deadline (webhook.go).
	Webhook WebhookSwitches `yaml:"webhook"`
	// Coupons are the coupon host's switches (offers.go).
	Coupons CouponSwitches `yaml:"coupons"`
	// Cards are the scratch-card switches (see cards.go).
	Cards CardSwitches `yaml:"cards"`
	// SDK are the SDK-emulation switches (see sdk.go).
	SDK SDKSwitches `yaml:"sdk"`
	// Limits are the readings of a call refused by its channel's limit
	// (capacity.go).
	Limits LimitSwitches `yaml:"limits"`
}

// Channel is a publisher registered by the scenario.
type Channel struct {
	Name            string `yaml:"name"`
	ChannelID       string `yaml:"channelId"`
	Certificate     string `yaml:"certificate"`
	CertificateFile string `yaml:"certificateFile"`
	AppKey          string `yaml:"appKey"`
	SecKey          string `yaml:"secKey"`
	WebhookURL      string `yaml:"webhookUrl"`
	// DrawAs keys the channel's card draws by another channel's name: a
	// replay's copy of a channel draws the cards its original drew.
	DrawAs string `yaml:"drawAs"`
}

// Scenario is a compiled scenario, ready for the endpoints.
type Scenario struct {
	File
	Location *time.Location
	Channels []model.Channel
	Source   string
	// YAML is the scenario as in force: an overlay merged onto its base
	// (GET /__sim/scenarios/{name}, rewardsim scenario show).
	YAML []byte
	// SHA256 is the hex digest of the file as loaded: a recording names
	// the scenario it was made against by name and digest.
	SHA256 string
	// Faults is armed from the file's faults: its counters start afresh
	// each time the scenario is loaded.
	Faults *fault.Engine
	// Latency is armed from the file's latency profiles (each its own
	// random source), afresh each time the scenario is loaded.
	Latency *latency.Set
	// Offers are the compiled coupon offers per channel (offers.go).
	Offers Offers

	// poolByID indexes Pools (cards.go).
	poolByID map[string]*Pool
}

// Sources resolves certificateFile references: Files for paths relative
// to the scenario file, Builtin for "builtin:NAME" (the embedded certs/).
type Sources struct {
	Files   fs.FS
	Builtin fs.FS
	// Base finds the YAML of the scenario an overlay extends, by name
	// (overlay.go); nil: nothing can be extended.
	Base func(name string) ([]byte, bool)
	// Embedded says the file is one of the scenarios built into the
	// binary, unchanged: Parse skips its schema pass, which
	// TestParse_embeddedScenariosNeedNoSchemaPass runs on each of them at
	// build time. Compiling the scenario schema and validating the
	// default against it was half of rewardsim's start-up.
	Embedded bool
}

// FormatExpire renders a token expiry in the tokens.expireDateFormat switch's format.
func (s *Scenario) FormatExpire(t time.Time) string {
	t = t.In(s.Location)
	switch s.Tokens.ExpireDateFormat {
	case ExpireISO8601:
		return t.Format(time.RFC3339)
	case ExpireEpochMs:
		return strconv.FormatInt(t.UnixMilli(), 10)
	default:
		return t.Format("2006-01-02 15:04:05.000")
	}
}

// DrawKey is the name the channel's card draws are keyed by: its drawAs,
// or its own name.
func (s *Scenario) DrawKey(channel string) string {
	for _, c := range s.ChannelSpecs {
		if c.Name == channel && c.DrawAs != "" {
			return c.DrawAs
		}
	}
	return channel
}

// HasChannel reports whether the scenario lists a channel of that name.
func (s *Scenario) HasChannel(name string) bool {
	_, ok := channelIn(s, name)
	return ok
}

// ChannelByID finds a channel by CHANNELID.
func (s *Scenario) ChannelByID(id string) (model.Channel, bool) {
	for _, c := range s.Channels {
		if c.ChannelID == id {
			return c, true
		}
	}
	return model.Channel{}, false
}
