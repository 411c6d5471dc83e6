# The harness's own image: Python 3 + Node + npm + git, and `probe` (installed from this build
# context) as the entrypoint. See containers/README.md for how to build it with or without a registry.
#
#   docker build --network host -t probe .                                  # online: node:22 base
#   docker build --network host --build-arg BASE_IMAGE=probe-base:bookworm -t probe .   # no registry
#
# Works with the legacy builder and with BuildKit: no `# syntax=` line (it would pull a frontend
# image) and no RUN --mount (the legacy builder rejects it).
ARG BASE_IMAGE=node:22-bookworm-slim
FROM ${BASE_IMAGE}

ENV DEBIAN_FRONTEND=noninteractive \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

# Install with apt only what the base lacks: node:22-bookworm-slim has node and npm but no python3
# or git; a bare Debian base (containers/make-base-image.sh) has none of them, and gets Debian's
# nodejs 18 and npm.
RUN set -eu; need=""; \
    command -v python3 >/dev/null || need="$need python3"; \
    { python3 -m venv /tmp/venv-check && rm -rf /tmp/venv-check; } >/dev/null 2>&1 || need="$need python3-venv"; \
    command -v node >/dev/null || need="$need nodejs"; \
    command -v npm >/dev/null || need="$need npm"; \
    command -v git >/dev/null || need="$need git"; \
    dpkg -s ca-certificates >/dev/null 2>&1 || need="$need ca-certificates"; \
    if [ -n "$need" ]; then \
        echo "installing:$need"; \
        apt-get update; \
        apt-get install -y --no-install-recommends $need; \
        rm -rf /var/lib/apt/lists/*; \
    fi

# Optional extra CA bundle, for building and running behind a TLS-intercepting proxy: copy the
# host's bundle to containers/ca.crt before building. The glob lets the build go on without it;
# make-base-image.sh is only there because COPY needs at least one source that exists.
# (update-ca-certificates warns that rehash skips a multi-certificate file: harmless, the bundle
# /etc/ssl/certs/ca-certificates.crt gets all of it.)
COPY containers/make-base-image.sh containers/ca.cr[t] /tmp/probe-ca/
RUN if [ -f /tmp/probe-ca/ca.crt ]; then \
        cp /tmp/probe-ca/ca.crt /usr/local/share/ca-certificates/probe-extra-ca.crt; \
        update-ca-certificates; \
    fi; \
    rm -rf /tmp/probe-ca
# Make pip (its own certifi), npm and node (their own CA list) use the system bundle too.
ENV SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt

# The harness in a venv on PATH; the source tree (recipes/ etc.) stays in /src, the workdir.
# results/ is not in the context: mount it, e.g. -v "$PWD/results:/src/results".
RUN python3 -m venv /opt/probe
ENV PATH=/opt/probe/bin:$PATH
COPY . /src
# The context has no .git: the commit a record names as harness_commit (probes/evidence/provenance.py)
# comes in as a build argument, e.g. --build-arg PROBE_COMMIT=$(git rev-parse HEAD), and is
# written to probes/COMMIT; without it, records say null.
ARG PROBE_COMMIT=
# Build from a throw-away copy so /src keeps no build/ or *.egg-info; drop the CA copy from /src.
RUN cp -a /src /tmp/probe-src && { [ -z "$PROBE_COMMIT" ] || echo "$PROBE_COMMIT" > /tmp/probe-src/probes/COMMIT; } \
    && pip install /tmp/probe-src && rm -rf /tmp/probe-src \
    && rm -f /src/containers/ca.crt && probe --help >/dev/null
WORKDIR /src

ENTRYPOINT ["probe"]
