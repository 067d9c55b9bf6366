#!/usr/bin/env bash
# Host test of the guest's "kernel" line (runners/rt_kconfig.c) through `agent --kernel ROOT`
# on fake /proc trees: the .config from config.gz, the vma_lock_* counters of vmstat, and
# what happens without them, with a broken gzip and with a config that is too large.
# TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
. lab/tests/lib.sh
agent=${B:-build}/runners/agent
tmp=$(mktemp -d /tmp/numalab-rtk.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
line() { "$agent" --kernel "$tmp/$1" 2>/dev/null; }
is() { local desc=$1 root=$2 expr=$3; line "$root" | jq -e "$expr" >/dev/null 2>&1; ok $? "$desc"; }

mkdir -p "$tmp/full/proc" "$tmp/none/proc" "$tmp/badgz/proc" "$tmp/big/proc"
gzip -c lab/tests/data/kconfig/baseline.config >"$tmp/full/proc/config.gz"
# The build's .config in the initramfs (/numalab/kernel.config): the same, one byte off, none.
mkdir -p "$tmp/same/proc" "$tmp/same/numalab" "$tmp/differs/proc" "$tmp/differs/numalab"
cp lab/tests/data/kconfig/baseline.config "$tmp/same/numalab/kernel.config"
{ cat lab/tests/data/kconfig/baseline.config; echo "CONFIG_EXTRA=y"; } >"$tmp/differs/numalab/kernel.config"
printf 'nr_free_pages 1000\nvma_lock_success 12\nvma_lock_abort 1\nvma_lock_retry 2\nvma_lock_miss 0\npgfault 99\n' >"$tmp/full/proc/vmstat"
printf 'nr_free_pages 1000\npgfault 99\n' >"$tmp/none/proc/vmstat"
for r in same differs; do cp "$tmp/full/proc/"* "$tmp/$r/proc/"; done
echo "not gzip" >"$tmp/badgz/proc/config.gz"
head -c 900000 /dev/zero | tr '\0' 'x' | gzip -c >"$tmp/big/proc/config.gz"

is "the .config arrives whole" full '.t == "kernel" and (.config | length) == '"$(wc -c <lab/tests/data/kconfig/baseline.config)"
ok "$(line full | jq -j .config | cmp -s - lab/tests/data/kconfig/baseline.config; echo $?)" "byte for byte"
is "vma_lock counters only, as integers" full '.vmstat == {"vma_lock_success": 12, "vma_lock_abort": 1, "vma_lock_retry": 2, "vma_lock_miss": 0}'
is "no config.gz: null with the reason" none '.config == null and (.config_error | test("IKCONFIG_PROC"))'
is "no vma_lock counters: vmstat null" none '.vmstat == null'
is "not gzip: null with the reason" badgz '.config == null and (.config_error | test("gzip"))'
is "too large: refused" big '.config == null and (.config_error | test("too large"))'
is "one line, well under the 1 MiB channel limit" full '. != null'
ok "$([ "$(line full | wc -l)" = 1 ] && echo 0 || echo 1)" "exactly one line"
is "the build's .config given and equal: config_same, no text" same '.config_same == true and (has("config") | not) and .vmstat.vma_lock_success == 12'
is "given but different: the text, whole" differs '(has("config_same") | not) and (.config | length) == '"$(wc -c <lab/tests/data/kconfig/baseline.config)"

finish
