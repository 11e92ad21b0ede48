# rewardsim: `make run` serves the embedded default scenario; `make test` runs every test.
GO      ?= go
PKGS    := ./...
FUZZTIME ?= 30s

.PHONY: run test build lint bench fuzz fuzz-scenario keys startup clean browser-deps

run:
	$(GO) run ./cmd/rewardsim serve

build:
	$(GO) build -o bin/rewardsim ./cmd/rewardsim

# gofmt and vet first (cheap), then every test under the race detector,
# then a short coverage-guided fuzz of the envelope decoder. Browser tests
# must run here, not skip: browser-deps installs Chromium when missing.
test: lint browser-deps
	REWARDSIM_REQUIRE_BROWSER=1 $(GO) test -race -count=1 $(PKGS)
	$(GO) test -run '^$$' -fuzz '^FuzzSignedEndpoints$$' -fuzztime $(FUZZTIME) ./sim/

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# Benchmarks behind the README's performance section.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3s ./sim/ ./sim/internal/envelope/ ./sim/internal/state/

# A longer fuzz run than `make test` does.
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzSignedEndpoints$$' -fuzztime 2m ./sim/

# Fuzz scenario parsing under its allocation bound (docs/security.md);
# `make test` runs only its seeds, as ordinary tests.
fuzz-scenario:
	$(GO) test -run '^$$' -fuzz '^FuzzScenarioParse$$' -fuzztime 1m ./sim/internal/scenario/

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

# Replay every recorded session under fixtures/sessions/ against a running
# simulator or a UAT (SIM-4); exit 1 on any difference.
.PHONY: replay
TARGET ?= http://127.0.0.1:8080
replay:
	$(GO) run ./cmd/rewardsim replay fixtures/sessions/*.json --target $(TARGET)
