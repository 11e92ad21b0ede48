# rewardsim: `make run` serves the embedded default scenario; `make test` runs every test.
GO      ?= go
PKGS    := ./...
FUZZTIME ?= 20s
# Minimising each new interesting input re-runs it for up to a minute, and
# the fuzzer counts none of those runs: the rate sat at 0 execs/s for most
# of a 30 s run. Inputs are kept unminimised instead.
FUZZFLAGS := -fuzzminimizetime 0
FUZZ_TARGETS := FuzzSignedEndpoints FuzzPlainJSONEndpoints

# Build info stamped into every release binary (rewardsim version, /__sim/health).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
DATE    ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
# Read once: a recursive ?= ran git describe at every use, so an edit made
# while `make test` ran labelled the image -dirty beside a clean binary.
VERSION := $(VERSION)
COMMIT  := $(COMMIT)
DATE    := $(DATE)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)
# Build-only tools (image, dist, OpenAPI validation) live in their own module.
TOOLS   := .ci/tools
IMAGE_ARCH ?= $(shell $(GO) env GOARCH)
# Where the harness records every answer during `make test`, for the OpenAPI check.
ANSWERS := $(CURDIR)/bin/answers

.PHONY: bins run test test-all build lint bench fuzz fuzz-scenario keys startup clean browser-deps crypto-deps doc-deps kit-deps engine-deps gen-deps image-libs image-load load load-against image dist

run:
	$(GO) run ./cmd/rewardsim serve

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o bin/rewardsim ./cmd/rewardsim

# Static binaries for every platform the Java and Node libraries carry
# (their platform artefacts, make java and make node): bin/platforms/
# <os>-<arch>/rewardsim, .exe on windows. The Go build cache makes a
# second run cheap.
BIN_PLATFORMS := linux-amd64 linux-arm64 darwin-amd64 darwin-arm64 windows-amd64 windows-arm64
bins:
	for p in $(BIN_PLATFORMS); do \
	  os=$${p%-*}; arch=$${p#*-}; ext=; [ $$os = windows ] && ext=.exe; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/platforms/$$p/rewardsim$$ext ./cmd/rewardsim || exit 1; \
	done

# gofmt and vet first (cheap), then every test under the race detector
# (the harness recording every answer), then the build tools' tests: the
# image of `make image` run from its layers, the OpenAPI document through
# an independent validator and every recorded answer against it; then a
# short coverage-guided fuzz of the envelope and the plain-JSON (coupon
# host, GetReward, SDK) decoders. Browser tests, the libcrypto identity
# test and the Java and Node libraries (make java, make node; their
# suites in clients/) must run here, not skip: browser-deps, crypto-deps,
# kit-deps and java-deps install what is missing; the
# docs' examples (docs/examples_test.go) need curl and wrk: doc-deps installs them.
test:
	.ci/no-leftovers $(MAKE) --no-print-directory test-all
test-all: lint browser-deps crypto-deps doc-deps kit-deps engine-deps gen-deps node-kit image java node
	rm -rf $(ANSWERS) && mkdir -p $(ANSWERS)
	REWARDSIM_REQUIRE_BROWSER=1 REWARDSIM_REQUIRE_LIBCRYPTO=1 REWARDSIM_REQUIRE_KIT=1 REWARDSIM_RECORD_ANSWERS=$(ANSWERS) $(GO) test -race -count=1 -timeout 15m $(PKGS)
	eval "$$(.ci/engine/up)" && cd $(TOOLS) && REWARDSIM_REQUIRE_ENGINE=1 REWARDSIM_REQUIRE_GENERATORS=1 REWARDSIM_RECORD_ANSWERS=$(ANSWERS) REWARDSIM_IMAGE=$(CURDIR)/dist/image REWARDSIM_IMAGE_STATIC=$(CURDIR)/dist/image-static $(GO) test -count=1 ./...
	for f in $(FUZZ_TARGETS); do $(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) ./sim/ || exit 1; done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	cd $(TOOLS) && $(GO) vet ./...
	cd examples/sweep-service && $(GO) vet ./...

# Benchmarks behind docs/performance.md.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3s ./sim/ ./sim/internal/envelope/ ./sim/internal/state/

# Load a real `rewardsim serve` on loopback, each target alternating with
# its baseline, and print issues 14 and 25's ratios (docs/performance.md).
# LOADFLAGS: -duration, -conns, -mixed, -only, -adjacent, -stretches, -profile, -against (see
# .ci/load/main.go).
LOADFLAGS ?=
# Start-up is also measured on a state file of STARTUP_BYTES (1 GiB),
# written afresh by this build's store (about 20 s) and removed after;
# STARTUP_BYTES=0 leaves it out.
STARTUP_BYTES ?= 1073741824
LARGE := $(CURDIR)/bin/startup-large
# AGAINST=<git rev>: an A/B in the same run. That revision's
# cmd/rewardsim is built as build makes bin/rewardsim (same flags, cgo as
# the environment has it), in a temporary detached worktree removed after,
# into bin/rewardsim-against, and every rewardsim figure is measured
# against it too, the two alternating (-against; docs/performance.md).
AGAINST ?=
AGAINST_BIN := bin/rewardsim-against
load: crypto-deps build $(if $(AGAINST),load-against)
	$(GO) vet ./.ci/load
	$(GO) build -o bin/load ./.ci/load
	rm -rf $(LARGE)
	if [ "$(STARTUP_BYTES)" != 0 ]; then $(GO) test -count=1 -run '^TestLargeStateFile$$' ./sim/internal/state -large-state $(LARGE) -large-state-bytes $(STARTUP_BYTES) >/dev/null || exit 1; fi
	s=0; ./bin/load -bin bin/rewardsim $$([ "$(STARTUP_BYTES)" != 0 ] && echo -startup-data $(LARGE)) $(if $(AGAINST),-against $(AGAINST_BIN)) $(LOADFLAGS) || s=$$?; rm -rf $(LARGE); exit $$s

# The version stamp names the revision built, not this checkout.
load-against:
	@[ -n "$(AGAINST)" ] || { echo "load-against: set AGAINST=<git rev>"; exit 1; }
	rev=$$(git rev-parse --verify '$(AGAINST)^{commit}') && tmp=$$(mktemp -d) && \
	trap 'git worktree remove --force "$$tmp/src" 2>/dev/null; rm -rf "$$tmp"' EXIT && trap 'exit 130' INT TERM && \
	git worktree add --quiet --detach "$$tmp/src" $$rev && \
	(cd "$$tmp/src" && $(GO) build -ldflags "-s -w -X main.version=$$(git describe --tags --always $$rev) -X main.commit=$$rev -X main.date=$(DATE)" -o $(CURDIR)/$(AGAINST_BIN) ./cmd/rewardsim)

# A longer fuzz run than `make test` does.
fuzz:
	for f in $(FUZZ_TARGETS); do $(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime 2m $(FUZZFLAGS) ./sim/ || exit 1; done

# Fuzz scenario parsing under its allocation bound (docs/security.md);
# `make test` runs only its seeds, as ordinary tests.
fuzz-scenario:
	$(GO) test -run '^$$' -fuzz '^FuzzScenarioParse$$' -fuzztime 1m ./sim/internal/scenario/

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

# Debian's headless Chromium for the browser tests (driven over its
# DevTools protocol by chromedp: no chromedriver).
browser-deps:
	@if [ ! -x /usr/bin/chromium ]; then \
	  echo "installing Debian's chromium for the browser tests"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	fi

# curl for the docs' shell examples, run by docs/examples_test.go.
doc-deps:
	@if ! command -v curl >/dev/null || ! command -v wrk >/dev/null; then \
	  echo "installing curl and wrk for the docs' examples"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl wrk; \
	fi

# Node.js (18+, for fetch) and npm from Debian, when missing: all that
# make node needs (no JDK).
node-deps:
	@if ! command -v node >/dev/null || [ "$$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 18 ]; then \
	  echo "installing Debian's nodejs for make node"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs; \
	fi
	@node -e 'if (+process.versions.node.split(".")[0] < 18) { console.error("node >= 18 needed for fetch"); process.exit(1) }'
	@if ! command -v npm >/dev/null; then \
	  echo "installing Debian's npm for make node"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm; \
	fi

# A headless JDK beside Node.js for the publisher kit of examples/
# (docs/publisher-kit.md), from Debian, when missing.
kit-deps: node-deps
	@if ! command -v java >/dev/null || ! command -v javac >/dev/null; then \
	  echo "installing Debian's openjdk-17-jdk-headless for the publisher kit"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless; \
	fi

# The JDK and Debian's JUnit 5 jars (there is no Maven repository to
# download from) for make java and the Java library's tests; Debian's
# Maven with its install and dependency plugins (in /usr/share/maven-repo,
# which stands in for Maven Central) for the per-OS profiles of
# docs/java.md (TestJavaMavenPlatformProfiles).
.PHONY: java-deps java node node-deps node-kit
JUNIT_JARS := /usr/share/java/junit-jupiter-api.jar:/usr/share/java/apiguardian-api.jar:/usr/share/java/opentest4j.jar:/usr/share/java/junit-platform-commons.jar
MAVEN_PLUGINS := /usr/share/maven-repo/org/apache/maven/plugins
java-deps: kit-deps
	@if [ ! -f /usr/share/java/junit-jupiter-api.jar ] || [ ! -f /usr/share/java/junit-platform-console-standalone.jar ] || \
	    ! command -v jar >/dev/null; then \
	  echo "installing Debian's junit5 and openjdk-17-jdk-headless for make java"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq junit5 openjdk-17-jdk-headless; \
	fi
	@if ! command -v mvn >/dev/null || [ ! -d $(MAVEN_PLUGINS)/maven-install-plugin ] || [ ! -d $(MAVEN_PLUGINS)/maven-dependency-plugin ]; then \
	  echo "installing Debian's maven and its install and dependency plugins for the Maven recipe's test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq maven libmaven-install-plugin-java libmaven-dependency-plugin-java; \
	fi

# The Java library (clients/java, docs/java.md), with the JDK's javac,
# javadoc and jar only: dist/java/rewardsim.jar, its -sources.jar, its
# -javadoc.jar (doclint on everything, no warning allowed) and pom.xml,
# and one jar per platform, rewardsim-<os>-<arch>.jar (the classifier),
# holding that platform's binary of `make bins` and its SHA-256. The
# library's jar pins every platform binary of the build (binaries.sha256)
# and refuses any other (Binary.java); its Main-Class is the rewardsim
# command (java -jar rewardsim.jar <verb>). Every jar carries LICENSE and
# a manifest naming its module and version.
JAVA_VERSION ?= 0.1.0
JAVA_PLATFORMS := linux-amd64 linux-arm64 darwin-amd64 darwin-arm64 windows-amd64 windows-arm64
java: java-deps bins
	rm -rf dist/java bin/java && mkdir -p dist/java bin/java/classes/META-INF bin/java/api
	javac --release 17 -Xlint:all -Werror -encoding UTF-8 -d bin/java/classes -cp $(JUNIT_JARS) $$(find clients/java/src/main/java -name '*.java' | sort)
	javadoc --release 17 -Xdoclint:all -Werror -quiet -encoding UTF-8 -d bin/java/api -cp $(JUNIT_JARS) \
	  -sourcepath clients/java/src/main/java io.github.rewardsim io.github.rewardsim.junit
	mkdir -p bin/java/api/META-INF && cp LICENSE bin/java/classes/META-INF/LICENSE && cp LICENSE bin/java/api/META-INF/LICENSE
	for p in $(JAVA_PLATFORMS); do \
	  exe=rewardsim; case $$p in windows-*) exe=rewardsim.exe;; esac; \
	  (cd bin/platforms && sha256sum $$p/$$exe) || exit 1; \
	done > bin/java/classes/io/github/rewardsim/binaries.sha256
	printf 'Automatic-Module-Name: io.github.rewardsim\nImplementation-Title: rewardsim\nImplementation-Version: $(JAVA_VERSION)\n' > bin/java/MANIFEST.MF
	cat bin/java/MANIFEST.MF > bin/java/MAIN.MF && printf 'Main-Class: io.github.rewardsim.Main\n' >> bin/java/MAIN.MF
	jar --create --file dist/java/rewardsim.jar --manifest bin/java/MAIN.MF -C bin/java/classes .
	jar --create --file dist/java/rewardsim-sources.jar --manifest bin/java/MANIFEST.MF -C clients/java/src/main/java . -C bin/java/classes META-INF/LICENSE
	jar --create --file dist/java/rewardsim-javadoc.jar --manifest bin/java/MANIFEST.MF -C bin/java/api .
	for p in $(JAVA_PLATFORMS); do \
	  exe=rewardsim; case $$p in windows-*) exe=rewardsim.exe;; esac; \
	  d=bin/java/platform/$$p; r=$$d/io/github/rewardsim/bin/$$p; mkdir -p $$r $$d/META-INF && \
	  cp bin/platforms/$$p/$$exe $$r/$$exe && (cd $$r && sha256sum $$exe > rewardsim.sha256) && cp LICENSE $$d/META-INF/LICENSE && \
	  printf 'Automatic-Module-Name: io.github.rewardsim.%s\nImplementation-Title: rewardsim (%s)\nImplementation-Version: $(JAVA_VERSION)\n' \
	    "$$(echo $$p | tr - .)" $$p > $$d.MF && \
	  jar --create --file dist/java/rewardsim-$$p.jar --manifest $$d.MF -C $$d . || exit 1; \
	done
	sed 's/@VERSION@/$(JAVA_VERSION)/g' clients/java/pom.xml > dist/java/pom.xml

# The Node package (clients/node, docs/node.md): dist/node/rewardsim.tgz
# (with the rewardsim command, and the SHA-256 of every platform binary of
# the build, which it pins) and one package per platform (@rewardsim/<os>-<cpu>,
# the binary of make bins inside, with os and cpu fields),
# rewardsim-<os>-<cpu>.tgz, installed beside it; LICENSE in every tarball.
# Staged under bin/node-pack, packed with npm pack.
node: node-deps bins
	rm -rf dist/node bin/node-pack && mkdir -p dist/node
	node clients/node/pack.mjs --version $(NODE_VERSION) --bins bin/platforms --license LICENSE --stage bin/node-pack --out dist/node

# What the Node package's suites run on in make test, from the npm
# registry only, cached under bin/node-kit and reinstalled when a pin
# changes: Node 20, 22 and 24 (the registry's node-linux-<cpu> packages),
# testcontainers 11 (Node 20) and 12 (Node 22.22+), Jest, Vitest 3 with
# Vite 7, TypeScript and Node's types (clients/node_test.go).
NODE_VERSION ?= 0.1.0
NODE_CPU := $(shell uname -m | sed 's/x86_64/x64/;s/aarch64/arm64/')
NODE_KIT := node20@npm:node-linux-$(NODE_CPU)@20.20.2 node22@npm:node-linux-$(NODE_CPU)@22.23.3 \
  node24@npm:node-linux-$(NODE_CPU)@24.21.0 tc11@npm:testcontainers@11.14.0 tc12@npm:testcontainers@12.2.0 \
  jest@30.5.2 vitest@3.2.7 vite@7.3.8 typescript@5.9.3 @types/node@20.19.43
node-kit: node-deps
	@if [ "$$(cat bin/node-kit/.pinned 2>/dev/null)" != "$(NODE_KIT)" ]; then \
	  echo "installing the Node test kit under bin/node-kit"; \
	  rm -rf bin/node-kit && mkdir -p bin/node-kit && echo '{"name":"rewardsim-node-kit","private":true}' > bin/node-kit/package.json && \
	  npm install --prefix bin/node-kit --no-audit --no-fund --loglevel=error $(NODE_KIT) && \
	  echo "$(NODE_KIT)" > bin/node-kit/.pinned; \
	fi

# The private podman engine of .ci/engine/up (installs podman and runc
# when missing) and Debian's docker-compose, for the image's tests in a
# real engine (.ci/tools/engine, docs/ci.md).
engine-deps:
	.ci/engine/up --install >/dev/null
	@if ! command -v docker-compose >/dev/null; then \
	  echo "installing Debian's docker-compose for the compose recipe of docs/ci.md"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose; \
	fi

# openapi-typescript and TypeScript (pinned), cached under bin/npm, for
# the generator test of .ci/tools/openapi; Debian's npm when missing.
NPM_TOOLS := openapi-typescript@7.13.0 typescript@5.9.3
gen-deps:
	@if ! command -v npm >/dev/null; then \
	  echo "installing Debian's npm for the OpenAPI generator test"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm; \
	fi
	@if [ ! -x bin/npm/node_modules/.bin/openapi-typescript ] || [ ! -x bin/npm/node_modules/.bin/tsc ] || \
	    [ "$$(cat bin/npm/.pinned 2>/dev/null)" != "$(NPM_TOOLS)" ]; then \
	  mkdir -p bin/npm && npm install --prefix bin/npm --no-audit --no-fund --loglevel=error $(NPM_TOOLS) && \
	  echo "$(NPM_TOOLS)" > bin/npm/.pinned; \
	fi

# The container images, assembled in Go without a daemon or base image
# (docs/ci.md): dist/image/ holds rewardsim:<version> (and :latest), a cgo
# binary that signs with libcrypto, with the ELF loader, libc and
# libcrypto taken from Debian's libc6 and libssl3 .debs (apt-get download,
# dpkg-deb -x, cached under bin/image-libs/); dist/image-static/ holds
# rewardsim:<version>-static, the pure-Go static binary. Each folder has
# rewardsim-image.tar (docker load) and oci/ (OCI layout). The libcrypto
# image is built for the machine's own architecture (cgo).
IMAGE_LIBS := bin/image-libs/$(IMAGE_ARCH)
image-libs:
	@if ! ls $(IMAGE_LIBS)/debs/libc6_*.deb $(IMAGE_LIBS)/debs/libssl3_*.deb >/dev/null 2>&1; then \
	  echo "downloading Debian's libc6 and libssl3 .debs for the image"; \
	  mkdir -p $(IMAGE_LIBS)/debs && cd $(IMAGE_LIBS)/debs && \
	  { apt-get download libc6:$(IMAGE_ARCH) libssl3:$(IMAGE_ARCH) 2>/dev/null || \
	    { apt-get update -qq && apt-get download libc6:$(IMAGE_ARCH) libssl3:$(IMAGE_ARCH); }; }; \
	fi
	rm -rf $(IMAGE_LIBS)/root && for d in $(IMAGE_LIBS)/debs/*.deb; do dpkg-deb -x $$d $(IMAGE_LIBS)/root; done

image: crypto-deps image-libs
	CGO_ENABLED=0 GOOS=linux GOARCH=$(IMAGE_ARCH) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/linux-$(IMAGE_ARCH)/rewardsim-static ./cmd/rewardsim
	cd $(TOOLS) && $(GO) run ./cmd/mkimage -binary $(CURDIR)/bin/linux-$(IMAGE_ARCH)/rewardsim-static -arch $(IMAGE_ARCH) \
	  -version $(VERSION) -revision $(COMMIT) -suffix -static -out $(CURDIR)/dist/image-static
	CGO_ENABLED=1 GOOS=linux GOARCH=$(IMAGE_ARCH) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/linux-$(IMAGE_ARCH)/rewardsim ./cmd/rewardsim
	cd $(TOOLS) && $(GO) run ./cmd/mkimage -binary $(CURDIR)/bin/linux-$(IMAGE_ARCH)/rewardsim -arch $(IMAGE_ARCH) \
	  -version $(VERSION) -revision $(COMMIT) -libs $(CURDIR)/$(IMAGE_LIBS)/root -out $(CURDIR)/dist/image

# Signed throughput of both images side by side in the engine
# (docs/performance.md): IMAGELOADFLAGS: -duration, -rounds, -conns, -cpus.
IMAGELOADFLAGS ?=
image-load: image
	eval "$$(.ci/engine/up)" && podman load -i dist/image/rewardsim-image.tar >/dev/null && \
	  podman load -i dist/image-static/rewardsim-image.tar >/dev/null && \
	  cd $(TOOLS) && $(GO) run ./cmd/imageload -image rewardsim:$(VERSION) -image rewardsim:$(VERSION)-static $(IMAGELOADFLAGS)

# Release archives for linux, darwin and windows on amd64 and arm64 (or
# only PLATFORMS, e.g. PLATFORMS=linux/amd64), and SHA256SUMS; then
# verified: one archive per platform, every checksum, and the host's
# binary out of its archive reporting this version. Each archive stands
# alone: binary, README, docs/, certs/, default scenario (docs/ci.md).
PLATFORMS ?= linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64,windows/arm64
dist:
	rm -f dist/*.tar.gz dist/*.zip dist/SHA256SUMS
	cd $(TOOLS) && $(GO) run ./cmd/mkdist -version $(VERSION) -commit $(COMMIT) -date $(DATE) -platforms $(PLATFORMS) -out $(CURDIR)/dist
	cd dist && sha256sum -c SHA256SUMS
	test "$$(ls dist/*.tar.gz dist/*.zip 2>/dev/null | wc -l)" -eq "$$(echo $(PLATFORMS) | tr ',' '\n' | wc -l)"
	@if [ -f dist/rewardsim_$(VERSION)_linux_$(IMAGE_ARCH).tar.gz ]; then \
	  tmp=$$(mktemp -d) && tar -xzf dist/rewardsim_$(VERSION)_linux_$(IMAGE_ARCH).tar.gz -C $$tmp && \
	  $$tmp/rewardsim version | grep -qx 'rewardsim $(VERSION)' && rm -rf $$tmp && echo "dist: host archive runs"; \
	fi
	@echo "dist: $$(ls dist/*.tar.gz dist/*.zip 2>/dev/null | wc -l) archive(s) verified"

clean:
	-.ci/engine/down --purge
	rm -rf bin dist rewardsim-data

# Replay every recording under fixtures/recordings/ against a running
# simulator (SIM-4), each into channels of its own through CONTROL (the
# token, if any, from REWARDSIM_CONTROL_TOKEN); exit 1 on any difference.
# Against a UAT: make replay TARGET=https://uat... REPLAY_FLAGS=--shared
.PHONY: replay
TARGET ?= http://127.0.0.1:8080
CONTROL ?= http://127.0.0.1:8090
replay:
	$(GO) run ./cmd/rewardsim replay fixtures/recordings/ --target $(TARGET) --control $(CONTROL) $(REPLAY_FLAGS)
