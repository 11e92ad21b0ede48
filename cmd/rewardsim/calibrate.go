package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rewardsim/rewardsim/sim/calibrate"
)

// calibrateExit is calibrate's exit status: 1 for drift, 2 when it could
// not calibrate (a stop, nothing determined, bad input).
type calibrateExit struct {
	code int
	msg  string
}

func (e calibrateExit) Error() string { return e.msg }
func (e calibrateExit) ExitCode() int { return e.code }

type calibrateFlags struct {
	rewards, bank, hotdeals         string
	channel, channelID              string
	key, keyPassword, serviceCert   string
	appKey, secKey                  string
	offers                          []string
	campaign, trigger, prefix, zone string
	budget                          int
	allowWrites, dryRun             bool
	out, jsonOut, against           string
	wait                            time.Duration
	failUnchecked                   bool
	latencySamples                  int
}

func newCalibrateCmd() *cobra.Command {
	var f calibrateFlags
	cmd := &cobra.Command{
		Use:   "calibrate --rewards URL --bank URL --hotdeals URL --channel NAME --key FILE --service-cert FILE --app-key K --sec-key S",
		Short: "Learn a real service's readings of what the contract leaves open, within a budget of calls",
		Long: `calibrate calls a service (the vendor's UAT) the way a publisher would and decides, for each
behaviour switch it can, the service's reading, from the fewest calls. Without --allow-writes it never
calls what would issue a card, claim a coupon or burn stock. It prints a table; --out writes a scenario
overlay, --json the same as data, --against compares with a scenario and exits 1 listing each drift;
it says "no drift" only when every switch a publisher can observe was checked, and counts the others.
--fail-on-unchecked also exits 1 when one of those went unchecked (writes off, no --wait, budget spent).
Exit 2: it stopped (a transport failure, a burst of 5xx answers) or determined nothing.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCalibrate(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.rewards, "rewards", "", "base URL of the rewards host")
	fl.StringVar(&f.bank, "bank", "", "base URL of the bank host")
	fl.StringVar(&f.hotdeals, "hotdeals", "", "base URL of the hotdeals (coupon) host")
	fl.StringVar(&f.channel, "channel", "", "the channel's name (bName, channelName): use a test channel")
	fl.StringVar(&f.channelID, "channel-id", "", "the channel's CHANNELID (default: --channel)")
	fl.StringVar(&f.key, "key", "", "the channel's private key: PEM (PKCS#1 or PKCS#8) or PKCS#12")
	fl.StringVar(&f.keyPassword, "key-password", "", "password of a PKCS#12 key")
	fl.StringVar(&f.serviceCert, "service-cert", "", "the service's certificate (PEM or PKCS#12), to verify signed answers")
	fl.StringVar(&f.appKey, "app-key", "", "the coupon host's ServiceAppKey app key")
	fl.StringVar(&f.secKey, "sec-key", "", "the coupon host's ServiceAppKey secret key")
	fl.StringArrayVar(&f.offers, "offer", nil, "an offer to claim (write probes); a second one for the cross-offer probe")
	fl.StringVar(&f.campaign, "campaign", "", "a campaignId of GetScratchCardForBank (write probe)")
	fl.StringVar(&f.trigger, "trigger", "UPI", "a triggerEventType that earns a card (write probe)")
	fl.StringVar(&f.prefix, "virtual-id-prefix", "CAL-", "prefix of every virtualId calibrate makes up")
	fl.StringVar(&f.zone, "timezone", "+05:30", "the service's UTC offset, to read an expireDate without one")
	fl.IntVar(&f.budget, "budget", calibrate.DefaultBudget, "the most calls it makes")
	fl.BoolVar(&f.allowWrites, "allow-writes", false, "permit calls that issue cards, claim coupons or burn stock")
	fl.IntVar(&f.latencySamples, "latency-samples", 0, fmt.Sprintf("after the probes, call each endpoint they call this many times more (the read-only calls; with --allow-writes the write probes' own) (at most %d) and write its latency as a log-normal profile into the overlay; every endpoint with %d samples or more is written", calibrate.MaxLatencySamples, calibrate.MinProfileSamples))
	fl.BoolVar(&f.dryRun, "dry-run", false, "print the plan (each call and what it decides) and call nothing")
	fl.StringVar(&f.out, "out", "", "write a scenario overlay (extends: default) of what it found")
	fl.StringVar(&f.jsonOut, "json", "", "write the findings as JSON (schemas/calibrate.json)")
	fl.StringVar(&f.against, "against", "", "compare with this scenario; exit 1 listing each drift")
	fl.DurationVar(&f.wait, "wait", 0, "watch what shows only after a wait (a session's lifetime) for up to this long; 0: not at all")
	fl.BoolVar(&f.failUnchecked, "fail-on-unchecked", false,
		"exit 1 when a switch a publisher can observe went unchecked (not determined: writes off, no --wait, budget spent, an ambiguous answer)")
	return cmd
}

func runCalibrate(cmd *cobra.Command, f calibrateFlags) error {
	w := cmd.OutOrStdout()
	if f.budget < 1 {
		return calibrateExit{2, "--budget must be at least 1"}
	}
	if f.latencySamples < 0 || f.latencySamples > calibrate.MaxLatencySamples {
		return calibrateExit{2, fmt.Sprintf("--latency-samples must be from 0 to %d", calibrate.MaxLatencySamples)}
	}
	if f.wait < 0 {
		return calibrateExit{2, "--wait must not be negative"}
	}
	if f.dryRun {
		calibrate.WritePlan(w, f.allowWrites, f.budget)
		return nil
	}
	t, err := f.target()
	if err != nil {
		return calibrateExit{2, err.Error()}
	}
	if f.against != "" { // a scenario that does not load fails before any call
		if _, err := calibrate.LoadScenario(f.against); err != nil {
			return calibrateExit{2, "--against: " + err.Error()}
		}
	}
	rep := calibrate.Run(cmd.Context(), t, calibrate.Options{Budget: f.budget, AllowWrites: f.allowWrites, Wait: f.wait, LatencySamples: f.latencySamples})
	var drift []calibrate.Drift
	if f.against != "" {
		if drift, err = rep.CompareFile(f.against); err != nil {
			return calibrateExit{2, "--against: " + err.Error()}
		}
	}
	rep.WriteTable(w)
	if err := f.write(rep); err != nil {
		return calibrateExit{2, err.Error()}
	}
	if rep.Stopped != "" {
		return calibrateExit{2, "calibrate stopped: " + rep.Stopped}
	}
	rep.WriteVerdict(w)
	if len(drift) > 0 {
		return calibrateExit{1, fmt.Sprintf("%d switches drifted from %s", len(drift), f.against)}
	}
	if n := rep.Open(); f.failUnchecked && n > 0 {
		return calibrateExit{1, fmt.Sprintf("%d switches a publisher can observe went unchecked (--fail-on-unchecked)", n)}
	}
	return nil
}

// write writes --out and --json.
func (f calibrateFlags) write(rep *calibrate.Report) error {
	if f.out != "" {
		overlay := rep.Overlay()
		if _, err := calibrate.ParseScenario(f.out, overlay); err != nil {
			return fmt.Errorf("the overlay does not load (a bug): %w", err)
		}
		if err := os.WriteFile(f.out, overlay, 0o644); err != nil {
			return err
		}
	}
	if f.jsonOut != "" {
		var b bytes.Buffer
		if err := rep.WriteJSON(&b); err != nil {
			return err
		}
		return os.WriteFile(f.jsonOut, b.Bytes(), 0o644)
	}
	return nil
}

// target reads the flags and files that make the publisher calibrate acts as.
func (f calibrateFlags) target() (calibrate.Target, error) {
	var missing []string
	for _, req := range []struct{ name, v string }{{"--rewards", f.rewards}, {"--bank", f.bank}, {"--hotdeals", f.hotdeals},
		{"--channel", f.channel}, {"--key", f.key}, {"--service-cert", f.serviceCert}, {"--app-key", f.appKey}, {"--sec-key", f.secKey}} {
		if req.v == "" {
			missing = append(missing, req.name)
		}
	}
	if len(missing) > 0 {
		return calibrate.Target{}, fmt.Errorf("missing %s (or --dry-run to see the plan)", strings.Join(missing, ", "))
	}
	loc, err := parseZone(f.zone)
	if err != nil {
		return calibrate.Target{}, err
	}
	t := calibrate.Target{RewardsURL: strings.TrimRight(f.rewards, "/"), BankURL: strings.TrimRight(f.bank, "/"), HotdealsURL: strings.TrimRight(f.hotdeals, "/"),
		Channel: f.channel, ChannelID: f.channelID, AppKey: f.appKey, SecKey: f.secKey, Offers: f.offers, Campaign: f.campaign,
		Trigger: f.trigger, VirtualIDPrefix: f.prefix, Location: loc}
	data, err := os.ReadFile(f.key)
	if err != nil {
		return t, fmt.Errorf("--key: %w", err)
	}
	if t.Key, err = calibrate.LoadKey(data, f.keyPassword); err != nil {
		return t, fmt.Errorf("--key %s: %w", f.key, err)
	}
	if data, err = os.ReadFile(f.serviceCert); err != nil {
		return t, fmt.Errorf("--service-cert: %w", err)
	}
	if t.ServiceKey, err = calibrate.LoadServiceCert(data, f.keyPassword); err != nil {
		return t, fmt.Errorf("--service-cert %s: %w", f.serviceCert, err)
	}
	return t, nil
}

// parseZone reads a UTC offset (+05:30, -03:00, Z).
func parseZone(s string) (*time.Location, error) {
	if s == "Z" || s == "UTC" {
		return time.UTC, nil
	}
	t, err := time.Parse("-07:00", s)
	if err != nil {
		return nil, fmt.Errorf("--timezone %q: want a UTC offset such as +05:30", s)
	}
	_, off := t.Zone()
	return time.FixedZone(s, off), nil
}
