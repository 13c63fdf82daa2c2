#!/usr/bin/env bash
# Records the testbed calibration corpus (testdata/calibration/README.md):
# for each N3 configuration in scenarios/testbed/, measure its network with
# `detsim testbed --probe` (60 s per phase) and derive the links the
# calibration scenario extends with, then record three minutes of real
# daemons on it. Needs root, iproute2 and nftables. Run from the
# repository root, on a machine doing nothing else if you can: the load
# average at each start and end is printed for the README.
#
#   bash testdata/calibration/record-testbed.sh OUTDIR [probe|record]
#
# (both stages by default; one, to redo only it).
# OUTDIR receives NAME/ (the bundle), NAME.links.toml (the derived
# links) and NAME.probe.txt (the probe's table) for each pair.
set -euo pipefail
out=${1:?usage: record-testbed.sh OUTDIR [probe|record]}
stage=${2:-all}
mkdir -p "$out"
bin=$(mktemp -d)
go build -o "$bin/detsim" ./cmd/detsim
go build -o "$bin/swimd" ./cmd/swimd
(cd bench && go build -o "$bin/memberlistd" ./cmd/memberlistd)
echo "commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with uncommitted changes)')"

for name in n3_default n3_legacy n3_lossy; do
  [ "$stage" = record ] && break
  echo "== probe $name: $(date -u +%FT%TZ) load $(cut -d' ' -f1 /proc/loadavg)"
  "$bin/detsim" testbed --probe "scenarios/testbed/$name.toml" --probe-duration 60s \
    --derive "$out/$name.links.toml" | tee "$out/$name.probe.txt"
  echo "   end $(date -u +%FT%TZ) load $(cut -d' ' -f1 /proc/loadavg)"
done
# memberlist runs on n3_default's links: the same measured network.
[ "$stage" = record ] || cp "$out/n3_default.links.toml" "$out/n3_memberlist.links.toml"

for name in n3_default n3_legacy n3_lossy n3_memberlist; do
  [ "$stage" = probe ] && break
  impl=swimd
  [ "$name" = n3_memberlist ] && impl=memberlist
  echo "== record $name ($impl): $(date -u +%FT%TZ) load $(cut -d' ' -f1 /proc/loadavg)"
  "$bin/detsim" testbed "scenarios/testbed/$name.toml" --impl "$impl" \
    --daemon "$bin/$([ "$impl" = swimd ] && echo swimd || echo memberlistd)" --out "$out/$name" || true
  echo "   end $(date -u +%FT%TZ) load $(cut -d' ' -f1 /proc/loadavg)"
done
rm -rf "$bin"

# The calibration scenarios: each keeps its header and takes the derived
# links below its marker line.
if [ "$stage" != record ]; then
  for name in n3_default n3_legacy n3_lossy n3_memberlist; do
    sc=scenarios/calibration/$name.toml
    marker='# --- measured links: record-testbed.sh writes everything below ---'
    grep -qxF "$marker" "$sc" || { echo "$sc has no marker line"; exit 1; }
    { sed "/^$marker\$/q" "$sc"; cat "$out/$name.links.toml"; } > "$sc.new"
    mv "$sc.new" "$sc"
  done
fi
