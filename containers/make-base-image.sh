#!/usr/bin/env bash
# Make a minimal Debian bookworm image without an image registry:
# debootstrap a rootfs from the host's own Debian mirror and `docker import` it.
#
#   containers/make-base-image.sh [--force] [--mirror URL] [NAME]
#
# NAME defaults to probe-base:bookworm. Does nothing if NAME already exists, unless --force.
# The mirror is read from the host's apt sources (override with --mirror or $MIRROR).
# Needs root, debootstrap and a running Docker engine. Takes about a minute.
set -euo pipefail

SUITE=bookworm
NAME=probe-base:bookworm
FORCE=0
MIRROR=${MIRROR:-}

usage() { sed -n '2,9s/^# \{0,1\}//p' "$0"; }
die() { echo "make-base-image: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
    case $1 in
        --force) FORCE=1 ;;
        --mirror) [ $# -ge 2 ] || die "--mirror needs a URL"; MIRROR=$2; shift ;;
        -h|--help) usage; exit 0 ;;
        -*) die "unknown option $1 (try --help)" ;;
        *) NAME=$1 ;;
    esac
    shift
done

# Print "URI SUITE" for every deb entry in the host's apt sources, one-line and deb822 formats.
host_sources() {
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -r "$f" ] || continue
        # deb [options] URI SUITE COMPONENTS...
        sed -E 's/#.*//; s/\[[^]]*\]//' "$f" | awk '$1 == "deb" { print $2, $3 }'
    done
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -r "$f" ] || continue
        # Stanzas separated by blank lines; Types/URIs/Suites fields may hold several values.
        awk 'function flush() { if (types ~ /(^| )deb( |$)/) { n = split(uris, u, " "); m = split(suites, s, " ");
                                  for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) print u[i], s[j] }
                                types = uris = suites = "" }
             /^[ \t]*#/ { next }
             /^[ \t]*$/ { flush(); next }
             tolower($1) == "types:"  { $1 = ""; types = $0 }
             tolower($1) == "uris:"   { $1 = ""; uris = $0 }
             tolower($1) == "suites:" { $1 = ""; suites = $0 }
             END { flush() }' "$f"
    done
}

command -v docker >/dev/null || die "docker not found (apt-get install docker.io)"
docker info >/dev/null 2>&1 || die "no Docker engine answers (start dockerd first)"

if [ "$FORCE" = 0 ] && docker image inspect "$NAME" >/dev/null 2>&1; then
    echo "make-base-image: $NAME already exists (use --force to rebuild)"
    exit 0
fi

[ "$(id -u)" = 0 ] || die "must run as root (debootstrap needs it)"
command -v debootstrap >/dev/null || die "debootstrap not found (apt-get install debootstrap)"

if [ -z "$MIRROR" ]; then
    MIRROR=$(host_sources | awk -v s="$SUITE" '$2 == s { print $1; exit }')
fi
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SECURITY=$(host_sources | awk -v s="$SUITE-security" '$2 == s { print $1; exit }')

WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/probe-base.XXXXXX")
ROOTFS=$WORK/rootfs
cleanup() {
    # debootstrap may leave /proc, /sys etc. mounted inside the rootfs if it failed: unmount first.
    awk -v r="$ROOTFS" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r |
        while read -r m; do umount -l "$m" || true; done
    rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT

start=$(date +%s)
echo "make-base-image: debootstrap $SUITE from $MIRROR into $ROOTFS"
debootstrap --variant=minbase "$SUITE" "$ROOTFS" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
    { tail -n 20 "$WORK/debootstrap.log" >&2; die "debootstrap failed (log above)"; }

# Same apt sources as the host for this suite (updates, and security if the host has it).
{
    echo "deb $MIRROR $SUITE main"
    echo "deb $MIRROR $SUITE-updates main"
    [ -z "$SECURITY" ] || echo "deb $SECURITY $SUITE-security main"
} >"$ROOTFS/etc/apt/sources.list"
# Keep the image small: no downloaded .debs, no package lists (run apt-get update before installs).
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*

tar --numeric-owner -C "$ROOTFS" -c . |
    docker import \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'CMD ["/bin/bash"]' \
        - "$NAME" >/dev/null
echo "make-base-image: imported $NAME in $(( $(date +%s) - start )) s"
