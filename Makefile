# rewardsim: `make run` serves the embedded default scenario; `make test` runs every test.
GO      ?= go
PKGS    := ./...
FUZZTIME ?= 20s
# Minimising each new interesting input re-runs it for up to a minute, and
# the fuzzer counts none of those runs: the rate sat at 0 execs/s for most
# of a 30 s run. Inputs are kept unminimised instead.
FUZZFLAGS := -fuzzminimizetime 0
FUZZ_TARGETS := FuzzSignedEndpoints FuzzPlainJSONEndpoints

.PHONY: run test build lint bench fuzz keys startup clean browser-deps crypto-deps doc-deps load

run:
	$(GO) run ./cmd/rewardsim serve

build:
	$(GO) build -o bin/rewardsim ./cmd/rewardsim

# gofmt and vet first (cheap), then every test under the race detector,
# then a short coverage-guided fuzz of the envelope and the plain-JSON
# (coupon host, GetReward, SDK) decoders. Browser tests must run here,
# not skip: browser-deps installs Chromium when missing; crypto-deps
# installs libcrypto for the back-end identity test; the docs' examples
# (docs/examples_test.go) need curl: doc-deps installs it.
test: lint browser-deps crypto-deps doc-deps
	REWARDSIM_REQUIRE_BROWSER=1 REWARDSIM_REQUIRE_LIBCRYPTO=1 $(GO) test -race -count=1 $(PKGS)
	for f in $(FUZZ_TARGETS); do $(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) ./sim/ || exit 1; done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# Benchmarks behind docs/performance.md.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3s ./sim/ ./sim/internal/envelope/ ./sim/internal/state/

# Load a real `rewardsim serve` on loopback beside same-run baselines and
# print issue 14's ratios (docs/performance.md). LOADFLAGS: -duration,
# -conns, -mixed, -only (see .ci/load/main.go).
LOADFLAGS ?=
load: crypto-deps build
	$(GO) vet ./.ci/load
	$(GO) build -o bin/load ./.ci/load
	./bin/load -bin bin/rewardsim $(LOADFLAGS)

# A longer fuzz run than `make test` does.
fuzz:
	for f in $(FUZZ_TARGETS); do $(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime 2m $(FUZZFLAGS) ./sim/ || exit 1; done

# Remake the test-only development keys of certs/ (then commit them).
keys:
	$(GO) run ./cmd/rewardsim keys --out certs --name publisher-dev --cn DEMOBANK
	$(GO) run ./cmd/rewardsim keys --out certs --name service-dev --cn REWARDSIM

# Time from exec to the first answered request (see docs/performance.md).
startup:
	$(GO) test -run '^$$' -bench '^BenchmarkStartup$$' -benchtime 20x ./cmd/rewardsim/

# The libcrypto back end is loaded with dlopen at run time: no OpenSSL
# headers are needed, only libcrypto.so.3 (Debian's libssl3) and a C
# compiler for cgo. The test comparing it with crypto/rsa byte for byte
# must run here, not skip, so both are installed when missing.
crypto-deps:
	@if ! ldconfig -p | grep -q 'libcrypto\.so\.3 ' || ! command -v cc >/dev/null; then \
	  echo "installing Debian's libssl3, gcc and libc6-dev for the libcrypto back end"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libssl3 gcc libc6-dev; \
	fi

# Debian's headless Chromium and chromedriver for the browser tests.
browser-deps:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  echo "installing Debian's chromium and chromium-driver for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	fi

# curl for the docs' shell examples, run by docs/examples_test.go.
doc-deps:
	@if ! command -v curl >/dev/null; then \
	  echo "installing curl for the docs' examples"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl; \
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
