#!/usr/bin/env bash
# TAP test of `make install DESTDIR=TMP PREFIX=/usr`: everything it should install is there
# (lab, labd when built, the guest programs, the lab's data files, the systemd units with
# PREFIX's paths, the sysusers.d and tmpfiles.d entries, the man pages); the units pass
# `systemd-analyze verify`, the sysusers and tmpfiles entries apply to a scratch root, the man
# pages render without a warning; and the installed lab, run from elsewhere with no LAB_ROOT,
# finds its kernels, topologies, dashboard assets and guest programs under the install tree.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
B=${B:-build}
PY=/usr/bin/python3
T=$(mktemp -d /tmp/numalab-test-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
D=$T/root

[ -x "$B/lab" ] || { ok 1 "$B/lab is built (run make first)"; finish; }

make --no-print-directory -s install B="$B" DESTDIR="$D" PREFIX=/usr >"$T/make.log" 2>&1
rc=$?
ok $rc "make install DESTDIR=... PREFIX=/usr"
[ $rc -eq 0 ] || diag "$T/make.log"

# ---- what is installed ------------------------------------------------------------------
present() { [ -e "$D/$1" ]; ok $? "installed: /$1"; }
present usr/bin/lab
if [ -x "$B/labd" ]; then present usr/bin/labd; else echo "# $B/labd is not built: not installed"; fi
for r in "$B"/runners/*; do present "usr/lib/numalab/runners/$(basename "$r")"; done
present usr/lib/numalab/slurm/epilog
present usr/lib/numalab/slurm/healthcheck
present usr/lib/numalab/plugin/lockinsn.so
present usr/lib/numalab/plugin/profile.so
for f in kernels/baseline.json kernels/base.config images/debian-perf.json \
	configs/quick.json configs/topologies/4s-8c.json lab/report/dashboard.js \
	lab/report/dashboard.css lab/report/vendor/chart.umd.min.js; do
	present "usr/share/numalab/$f"
done
want=$(find kernels images configs lab/report -type f | wc -l)
got=$(find "$D/usr/share/numalab" -type f | wc -l)
ok "$(rc_is "$got" "$want")" "all $want data files of kernels/ images/ configs/ lab/report/ ($got)"
for u in numalab-labd.service numalab-nightly@.service numalab-nightly@.timer; do
	present "usr/lib/systemd/system/$u"
done
present usr/lib/sysusers.d/numalab.conf
present usr/lib/tmpfiles.d/numalab.conf
present usr/share/man/man1/lab.1
present usr/share/man/man8/labd.8
present usr/share/bash-completion/completions/lab
has "$D/usr/lib/systemd/system/numalab-labd.service" "ExecStart=/usr/bin/labd --socket /run/numalab/labd.sock" \
	"the service runs PREFIX's labd on /run/numalab/labd.sock"
has "$D/usr/lib/systemd/system/numalab-nightly@.service" "ExecStart=/usr/bin/lab nightly" \
	"the nightly service runs PREFIX's lab"
! grep -rq /usr/local "$D/usr/lib/systemd" "$D/usr/share/man"
ok $? "no /usr/local left in the units and man pages"

# ---- units, sysusers, tmpfiles ----------------------------------------------------------
if command -v systemd-analyze >/dev/null; then
	# The units name /usr/bin: verify copies that name the install tree instead (labd, while
	# it is not built, stands in as lab: any executable does for the check).
	mkdir -p "$T/units"
	[ -x "$D/usr/bin/labd" ] || { cp "$D/usr/bin/lab" "$D/usr/bin/labd"; stub=1; }
	for u in "$D"/usr/lib/systemd/system/*; do
		sed "s|=/usr/bin/|=$D/usr/bin/|" "$u" >"$T/units/$(basename "$u")"
	done
	(cd "$T/units" && MANPATH=$D/usr/share/man systemd-analyze verify ./*) >"$T/verify" 2>&1
	ok $? "systemd-analyze verify: the units and their man pages"
	diag "$T/verify"
	[ -n "${stub:-}" ] && rm -f "$D/usr/bin/labd"
else
	echo "# systemd-analyze is not installed: the units were not verified"
fi
if command -v systemd-sysusers >/dev/null && command -v systemd-tmpfiles >/dev/null; then
	check "systemd-sysusers applies sysusers.d/numalab.conf to a scratch root" \
		systemd-sysusers --root="$D" "$D/usr/lib/sysusers.d/numalab.conf"
	gid=$(awk -F: '$1 == "numalab" { print $3 }' "$D/etc/group")
	grep -q '^kvm:.*numalab' "$D/etc/group"
	ok $? "... the user numalab (group $gid) is in the group kvm"
	check "systemd-tmpfiles applies tmpfiles.d/numalab.conf" \
		systemd-tmpfiles --root="$D" --create "$D/usr/lib/tmpfiles.d/numalab.conf"
	ok "$(rc_is "$(stat -c %a:%g "$D/run/numalab" 2>/dev/null)" "750:$gid")" \
		"... /run/numalab is 0750, group numalab"
	ok "$(rc_is "$(stat -c %a:%g "$D/var/lib/numalab" 2>/dev/null)" "750:$gid")" \
		"... /var/lib/numalab is 0750, group numalab"
else
	echo "# systemd-sysusers or systemd-tmpfiles is not installed: entries not applied"
fi

# ---- man pages ----------------------------------------------------------------------------
for m in man1/lab.1 man8/labd.8; do
	groff -ww -man -z "$D/usr/share/man/$m" >"$T/groff" 2>&1
	ok "$([ $? -eq 0 ] && [ ! -s "$T/groff" ] && echo 0 || echo 1)" "groff -ww: $m, no warning"
	diag "$T/groff"
	MANWIDTH=80 man --warnings -l "$D/usr/share/man/$m" >"$T/man" 2>"$T/groff"
	ok "$([ $? -eq 0 ] && [ -s "$T/man" ] && [ ! -s "$T/groff" ] && echo 0 || echo 1)" \
		"man -l renders $m without a warning"
	diag "$T/groff"
done

# ---- the installed lab, run from elsewhere ------------------------------------------------
LAB=$D/usr/bin/lab
mkdir -p "$T/cwd" "$T/state"
cd "$T/cwd" || exit 1
run() { env -u LAB_ROOT -u LAB_RUNNERS_DIR LAB_STATE_DIR="$T/state" "$@"; }
run "$LAB" --help >"$T/out" 2>&1
ok $? "installed lab --help"
has "$T/out" "submit" "... lists the labd commands"
run "$LAB" doctor --help >"$T/out" 2>&1
ok $? "installed lab doctor --help"
run "$LAB" kernel list >"$T/out" 2>&1
ok $? "installed lab kernel list"
has "$T/out" "baseline" "... finds the kernel variants in /usr/share/numalab/kernels"
printf '{"name": "t", "topology": "4s-8c", "kernel": {"image": "/nonexistent"}, "repeats": 1,
  "workloads": [{"name": "no-such-workload"}]}\n' >"$T/cwd/job.json"
run "$LAB" run job.json >"$T/out" 2>&1
ok "$(rc_is $? 2)" "installed lab run of a bad job (exit 2)"
! grep -q "no topology named" "$T/out" && grep -q "workloads" "$T/out"
ok $? "... the topology 4s-8c was found, the workload refused"
diag "$T/out"
$PY "$OLDPWD/lab/tests/make-reports.py" "$T/reports" --reports 1 --runs 2 --seed 1 >/dev/null
run "$LAB" report "$T/reports" -o "$T/dash.html" >"$T/out" 2>&1
ok $? "installed lab report finds the dashboard assets"
diag "$T/out"
run "$LAB" doctor >"$T/out" 2>&1
grep -qE "^ok +runners +$D/usr/lib/numalab/runners\$" "$T/out"
ok $? "installed lab doctor finds the guest programs in /usr/lib/numalab/runners"
grep runners "$T/out" | diag /dev/stdin

# ---- plain `make` builds as any user: it checks the packages, only some goals install ----
cd "$OLDPWD" || exit 1
make -n all B="$T/nb" 2>/dev/null >"$T/make-all"
grep -q "install-deps.sh --check" "$T/make-all" && ! grep -qE "install-deps.sh *$" "$T/make-all"
ok $? "make (all) only checks the packages, installs none"
for goal in deps run check unit; do
	make -n "$goal" B="$T/nb" 2>/dev/null | grep -qE "install-deps.sh *$"
	ok $? "make $goal installs what is missing"
done
bash lab/scripts/install-deps.sh --check
ok $? "install-deps.sh --check: nothing missing here (no root needed to say so)"
finish
