# One CLI version in its own image (probe-cli:<agent>-<version>), built by probe's docker
# backend (probes/backends/docker.py) with the docker SDK; the build context is a temporary
# directory holding this file and, when the host configures one, its CA bundle as ca.crt.
ARG BASE_IMAGE=node:22-bookworm-slim
FROM ${BASE_IMAGE}
ENV DEBIAN_FRONTEND=noninteractive

# Extra CA bundle first: apt and npm both need it behind a TLS-intercepting proxy.
COPY cli.Dockerfile ca.cr[t] /tmp/probe-ca/
RUN if [ -f /tmp/probe-ca/ca.crt ]; then mkdir -p /usr/local/share/ca-certificates \
      && cp /tmp/probe-ca/ca.crt /usr/local/share/ca-certificates/probe-extra-ca.crt; fi; rm -rf /tmp/probe-ca
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt

# Only what the base lacks: python3 (runner, model server, hook), git (the workspace), node, npm.
RUN set -eu; need=""; \
    command -v python3 >/dev/null || need="$need python3"; \
    command -v git >/dev/null || need="$need git"; \
    command -v node >/dev/null || need="$need nodejs"; \
    command -v npm >/dev/null || need="$need npm"; \
    dpkg -s ca-certificates >/dev/null 2>&1 || need="$need ca-certificates"; \
    if [ -n "$need" ]; then apt-get update && apt-get install -y --no-install-recommends $need \
      && rm -rf /var/lib/apt/lists/*; fi; \
    if [ -f /usr/local/share/ca-certificates/probe-extra-ca.crt ]; then update-ca-certificates >/dev/null 2>&1 || true; fi

ARG PACKAGE
ARG VERSION
ARG BINARY
ARG SEED=true
# The Node.js the CLI asks for (engines.node) where the image's is older (Debian's 18 in
# probe-base:bookworm): from npm into /opt/cli/node, first on PATH (probes/versions/node.py).
COPY node.py /tmp/probe-node.py
ENV PATH=/opt/cli/node/bin:$PATH
RUN npm install --prefix /opt/cli --no-audit --no-fund --loglevel=error "$PACKAGE@$VERSION" \
    && test -x "/opt/cli/$BINARY" \
    && python3 /tmp/probe-node.py /opt/cli "$PACKAGE" "$BINARY" && sh -c "$SEED"
