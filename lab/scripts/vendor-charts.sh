#!/usr/bin/env bash
# Refreshes the chart library that `lab report` embeds in its dashboards: Chart.js and the
# chartjs-chart-error-bars plugin (error bars on line charts), both MIT, from the npm registry.
# `npm pack` fetches the published tarballs only (no install, no scripts run); their UMD
# builds and licences are copied to lab/report/vendor/ and committed, so building, testing and
# using the lab never needs the network.  The trailing "//# sourceMappingURL" comment is cut
# (the maps are not vendored, and a dashboard must not point at files it does not have).
# Usage: lab/scripts/vendor-charts.sh [CHARTJS_VERSION [ERRORBARS_VERSION]]
set -euo pipefail
cd "$(dirname "$0")/../.."
chartjs=${1:-4.6.1}
errorbars=${2:-4.4.5}
out=lab/report/vendor
tmp=$(mktemp -d /tmp/numalab-vendor.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

pack() { # pack NAME VERSION -> prints the tarball's integrity; unpacks into $tmp/NAME
	local meta
	meta=$(cd "$tmp" && npm pack --json --silent "$1@$2")
	mkdir -p "$tmp/$1"
	tar -xzf "$tmp/$(jq -r '.[0].filename' <<<"$meta")" -C "$tmp/$1"
	jq -r '.[0].integrity' <<<"$meta"
}
strip_map() { sed '/^\/\/# sourceMappingURL=/d' "$1"; }

int_c=$(pack chart.js "$chartjs")
int_e=$(pack chartjs-chart-error-bars "$errorbars")
mkdir -p "$out"
strip_map "$tmp/chart.js/package/dist/chart.umd.min.js" >"$out/chart.umd.min.js"
cp "$tmp/chart.js/package/LICENSE.md" "$out/chart.js.LICENSE.md"
strip_map "$tmp/chartjs-chart-error-bars/package/build/index.umd.min.js" \
	>"$out/chartjs-chart-error-bars.umd.min.js"
cp "$tmp/chartjs-chart-error-bars/package/LICENSE" "$out/chartjs-chart-error-bars.LICENSE"
cat >"$out/VERSIONS" <<V
# Written by lab/scripts/vendor-charts.sh; npm tarball integrity as the registry states it.
chart.js $chartjs $int_c
chartjs-chart-error-bars $errorbars $int_e
V
echo "vendored chart.js $chartjs and chartjs-chart-error-bars $errorbars into $out/"
