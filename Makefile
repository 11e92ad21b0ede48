# rewardsim: `make run` serves the embedded default scenario; `make test` runs every test.
GO      ?= go
PKGS    := ./...
FUZZTIME ?= 20s
# Minimising each new interesting input re-runs it for up to a minute, and
# the fuzzer counts none of those runs: the rate sat at 0 execs/s for most
# of a 30 s run. Inputs are kept unminimised instead.
FUZZFLAGS := -fuzzminimizetime 0
FUZZ_TARGETS := FuzzSignedEndpoints FuzzPlainJSONEndpoints

.PHONY: run test build lint bench fuzz keys startup clean browser-deps

run:
	$(GO) run ./cmd/rewardsim serve

build:
	$(GO) build -o bin/rewardsim ./cmd/rewardsim

# gofmt and vet first (cheap), then every test under the race detector,
# then a short coverage-guided fuzz of the envelope and the plain-JSON
# (coupon host, GetReward, SDK) decoders. Browser tests must run here,
# not skip: browser-deps installs Chromium when missing.
test: lint browser-deps
	REWARDSIM_REQUIRE_BROWSER=1 $(GO) test -race -count=1 $(PKGS)
	for f in $(FUZZ_TARGETS); do $(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) ./sim/ || exit 1; done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# Benchmarks behind the README's performance section.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3s ./sim/ ./sim/internal/envelope/ ./sim/internal/state/

# A longer fuzz run than `make test` does.
fuzz:
	for f in $(FUZZ_TARGETS); do $(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime 2m $(FUZZFLAGS) ./sim/ || exit 1; done

# Remake the test-only development keys of certs/ (then commit them).
keys:
	$(GO) run ./cmd/rewardsim keys --out certs --name publisher-dev --cn DEMOBANK
	$(GO) run ./cmd/rewardsim keys --out certs --name service-dev --cn REWARDSIM

# Time from exec to the first answered request (see README, Performance).
startup:
	$(GO) test -run '^$$' -bench '^BenchmarkStartup$$' -benchtime 20x ./cmd/rewardsim/

# Debian's headless Chromium and chromedriver for the browser tests.
browser-deps:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  echo "installing Debian's chromium and chromium-driver for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	fi

clean:
	rm -rf bin rewardsim-data

# Replay every recording under fixtures/sessions/ against a running
# simulator (SIM-4), each into channels of its own through CONTROL (the
# token, if any, from REWARDSIM_CONTROL_TOKEN); exit 1 on any difference.
# Against a UAT: make replay TARGET=https://uat... REPLAY_FLAGS=--shared
.PHONY: replay
TARGET ?= http://127.0.0.1:8080
CONTROL ?= http://127.0.0.1:8090
replay:
	$(GO) run ./cmd/rewardsim replay fixtures/sessions/ --target $(TARGET) --control $(CONTROL) $(REPLAY_FLAGS)
