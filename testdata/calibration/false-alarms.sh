#!/usr/bin/env bash
# Measures calibration's false-alarm rate (docs/calibration.md, "False
# alarms"): every recording under DIR... named CONFIG or CONFIG-runN (as
# record-testbed.sh with RUNS=N writes them) is calibrated against
# scenarios/calibration/CONFIG.toml, unperturbed, at K seeds; a recording
# "alarms" when any judged row fails. The recordings of one configuration
# are repeats of the same experiment, so every alarm among them is a false
# alarm or a model the kernel disagrees with; a row that fails in most
# repeats is the second, a row that fails once is the first.
#
#   bash testdata/calibration/false-alarms.sh [-k K] DIR...
#
# Prints one line per recording (marked: the delay line's p99 lateness
# passed a tenth of the smallest latency asked, manifest "testbed"), then
# per configuration and overall: recordings, alarms, alarms among the
# unmarked, and the whole-recording rule's alarms (calibrate.Conformal,
# judged from 19 seeds: run with -k 20 or more; the docs use -k 40,
# as CI does); then every failing row with how
# many recordings it failed in.
# Needs python3 for the JSON. Run from the repository root.
set -euo pipefail
k=10
if [ "${1:-}" = -k ]; then k=$2; shift 2; fi
[ $# -gt 0 ] || { echo "usage: false-alarms.sh [-k K] DIR..." >&2; exit 2; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/detsim" ./cmd/detsim
for dir in "$@"; do
  for rec in "$dir"/*/; do
    rec=${rec%/}
    [ -f "$rec/manifest.json" ] || continue
    run=$(basename "$rec")
    cfg=${run%-run*}
    sc=scenarios/calibration/$cfg.toml
    [ -f "$sc" ] || { echo "skip $rec: no $sc" >&2; continue; }
    "$bin/detsim" calibrate --json --seeds "$k" "$sc" "$rec" > "$bin/$run.json" 2>/dev/null || true
    printf '%s\t%s\t%s\n' "$cfg" "$run" "$bin/$run.json"
  done
done > "$bin/index.tsv"
python3 - "$bin/index.tsv" <<'EOF'
import json, sys, collections
per_cfg = collections.OrderedDict()
rows = collections.Counter()
rows_cfg = collections.defaultdict(collections.Counter)
total = alarms = unmarked = unmarked_alarms = 0
for line in open(sys.argv[1]):
    cfg, run, path = line.rstrip("\n").split("\t")
    try:
        r = json.load(open(path))
    except ValueError:
        print(f"{run:40s} calibrate failed to run")
        continue
    marked = bool((r.get("recording") or {}).get("marked"))
    failed = [x["metric"] for x in r["rows"] if x["status"] == "FAIL"]
    conf = r.get("conformal")
    c = per_cfg.setdefault(cfg, [0, 0, 0, 0, 0, 0])
    if conf is not None:
        c[4] += 1
        if conf["alarm"]:
            c[5] += 1
    c[0] += 1; total += 1
    if failed:
        c[1] += 1; alarms += 1
    if not marked:
        c[2] += 1; unmarked += 1
        if failed:
            c[3] += 1; unmarked_alarms += 1
    for m in failed:
        rows[(cfg, m)] += 1
    whole = "" if conf is None else f"  whole: {'ALARM' if conf['alarm'] else 'ok'} p={conf['p']:.3f} ({conf['fails']} vs seeds {min(conf['seed_fails'])}-{max(conf['seed_fails'])})"
    print(f"{run:40s} {'marked' if marked else 'clean ':6s}{whole} {'FAIL ' + str(len(failed)) + ' rows' if failed else 'pass'}" + (": " + ", ".join(failed[:6]) + (" …" if len(failed) > 6 else "") if failed else ""))
print()
print(f"{'configuration':28s} recordings  row alarms  unmarked  unmarked row alarms  whole-recording alarms (of judged)")
for cfg, (n, a, u, ua, wn, wa) in per_cfg.items():
    print(f"{cfg:28s} {n:10d} {a:11d} {u:9d} {ua:20d}  {wa:d} of {wn:d}")
wn = sum(c[4] for c in per_cfg.values()); wa = sum(c[5] for c in per_cfg.values())
print(f"{'all':28s} {total:10d} {alarms:11d} {unmarked:9d} {unmarked_alarms:20d}  {wa:d} of {wn:d}")
print()
print("failing rows (configuration, metric: recordings failing it / recordings of the configuration)")
for (cfg, m), n in sorted(rows.items(), key=lambda kv: (kv[0][0], -kv[1], kv[0][1])):
    print(f"  {cfg:28s} {m:50s} {n}/{per_cfg[cfg][0]}")
EOF
