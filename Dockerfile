# rewardsim for those who build with Docker: the :<version>-static variant
# (multi-stage, static, CGO off, signing with Go's crypto/rsa), no base
# image at run time, non-root. NOT built by this repository's tests
# (its golang:1.26 stage needs a registry): `make image` assembles the image
# in Go instead, with the same configuration (a test in .ci/tools/image checks
# that this file agrees with it), and make test runs that image in podman.
# See docs/ci.md.
#
#   docker build --build-arg VERSION=$(git describe --tags --always) -t rewardsim .
#   docker run --rm -p 8080:8080 -p 8090:8090 rewardsim

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
ARG DATE=unknown
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.date=${DATE}" \
      -o /out/rewardsim ./cmd/rewardsim \
 && mkdir -p /out/data /out/tmp

FROM scratch
ARG VERSION=dev
COPY --from=build /out/rewardsim /usr/local/bin/rewardsim
COPY --from=build --chown=65532:65532 /out/data /data
COPY --from=build --chmod=1777 /out/tmp /tmp
ENV REWARDSIM_LISTEN=0.0.0.0:8080 \
    REWARDSIM_CONTROL_LISTEN=0.0.0.0:8090 \
    REWARDSIM_DATA=/data
USER 65532:65532
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080 8090
LABEL org.opencontainers.image.title="rewardsim" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="https://github.com/rewardsim/rewardsim"
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["/usr/local/bin/rewardsim", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/rewardsim", "serve"]
