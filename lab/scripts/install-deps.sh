#!/usr/bin/env bash
# Installs what numalab needs, from Debian's archive only, idempotently.
# QEMU and libvirt come from bookworm-backports: 512-vCPU guests need QEMU >= 8.1.
set -euo pipefail

BASE_PKGS=(build-essential pkg-config libjansson-dev libcurl4-openssl-dev cpio jq python3 bc
           linux-image-amd64 procps)
# libgsl-dev: t-distribution for `lab compare`.  Tests only: python3-jsonschema validates every
# report against reports/report.schema.json; chromium renders the `lab report` dashboard.
BASE_PKGS+=(libgsl-dev python3-jsonschema chromium)
# libsqlite3-dev: the history index of reports (lab/history/, `lab history`).
BASE_PKGS+=(libsqlite3-dev)
# libmicrohttpd-dev: labd's HTTP API (lab/daemon/api.c).  Tests only: curl speaks to labd's
# socket in lab/tests/integration/labd.sh; groff-base, man-db and systemd check what
# `make install` installs (lab/tests/test_install.sh: man pages, systemd-analyze verify).
BASE_PKGS+=(libmicrohttpd-dev curl groff-base man-db systemd)
# libarchive-dev: the bundle archives (lab/util/archive.c; their gzip layer is read with zlib,
# zlib1g-dev below).
BASE_PKGS+=(libarchive-dev)
# Tests only: clang and its libFuzzer/sanitizer runtimes build the fuzz harnesses (lab/fuzz/,
# `make fuzz`, lab/tests/test_fuzz_smoke.sh).
BASE_PKGS+=(clang libclang-rt-14-dev)
# Tests only: ss finds a free loopback port for the pool test's second libvirt daemon
# (lab/tests/lib.sh libvirtd2_start; setpriv, from util-linux, runs it as nobody).
BASE_PKGS+=(iproute2)
# Kernel variants (kernels/): the offline 6.12 source (in bookworm's security suite; backports
# has it too), what a kernel build needs, ccache, patch/git for patch series and git sources,
# libssl-dev for the lab's sha256 (libcrypto), zlib1g-dev for the static agent reading
# /proc/config.gz.
BASE_PKGS+=(linux-source-6.12 bison flex libelf-dev libssl-dev ccache xz-utils lz4 zlib1g-dev
            patch git)
BPO_PKGS=(qemu-system-x86 libvirt-dev libvirt-daemon libvirt-daemon-driver-qemu
          libvirt-daemon-system libvirt-clients)
# Guest disk images (images/, lab/builder/image.c): the libguestfs C API and mmdebstrap;
# qemu-img (qemu-utils) from backports to match QEMU 10: libguestfs makes the qcow2s with it.
BASE_PKGS+=(libguestfs-dev mmdebstrap libssl-dev)
BPO_PKGS+=(qemu-utils)
# The contention model's QEMU (`lab qemu build`, images/qemu/): Debian's +ds source needs
# meson >= 1.5 and pycotap from backports (it bundles no wheels) and a deb-src entry for it.
BASE_PKGS+=(libglib2.0-dev libpixman-1-dev ninja-build python3-venv)
BPO_PKGS+=(meson python3-pycotap)
# labd's Slurm backend and its test (lab/tests/integration/slurm.sh starts its own one-node
# cluster on localhost: the packages' system services are not used; without a slurm.conf
# Debian's slurmctld and slurmd units do not start).
BASE_PKGS+=(slurmctld slurmd slurm-client munge)
bpo_src=/etc/apt/sources.list.d/numalab-bookworm-backports-src.sources

# --check: only say what is missing (exit 1), never install: what a plain `make` runs, as any
# user.  `make deps`, `make run` and `make check` install.
check_only=
[ "${1:-}" = --check ] && check_only=1

missing=()
for p in "${BASE_PKGS[@]}" "${BPO_PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ -e "$bpo_src" ] || missing+=("deb-src:bookworm-backports")
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if [ -n "$check_only" ] || [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing ${missing[*]}" >&2
	echo "install-deps: install them with 'sudo make deps' (Debian packages, QEMU and libvirt from bookworm-backports)" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}"

bpo=/etc/apt/sources.list.d/numalab-bookworm-backports.sources
if ! grep -rqs --exclude="${bpo_src##*/}" 'bookworm-backports' /etc/apt/sources.list \
	/etc/apt/sources.list.d/; then
	cat >"$bpo" <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

[ -e "$bpo_src" ] || cat >"$bpo_src" <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${BASE_PKGS[@]}"
apt-get install -y -q --no-install-recommends -t bookworm-backports "${BPO_PKGS[@]}"
