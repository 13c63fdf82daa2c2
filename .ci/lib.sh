# Sourced by .ci/run and .ci/quick: named stages that print their time,
# the linters both run (pinned, installed from the module proxy when
# missing), and the builds for the other architectures.

# stage NAME WHAT starts a stage: it closes the one before with its time
# in seconds, and says what this one checks.
stage() {
  stage_end
  _stage=$1 _stage_t0=$(date +%s)
  echo "== $1: $2"
}

stage_end() {
  [ -n "${_stage:-}" ] || return 0
  local s=$(( $(date +%s) - _stage_t0 ))
  echo "-- $_stage: ${s} s"
  _stage_times+=("$(printf '%6d s  %s' "$s" "$_stage")")
  _stage=
}

# stages_done closes the last stage and prints every stage's time, and
# the total.
stages_done() {
  stage_end
  echo "== stages"
  printf '%s\n' "${_stage_times[@]}"
  echo "total: $(( $(date +%s) - _stages_t0 )) s"
}
_stages_t0=$(date +%s)
_stage_times=()
export PATH="$(go env GOPATH)/bin:$PATH"

# beside_burners N CMD... runs CMD beside N CPU-burning processes (a
# busy machine, as users run tests on) and stops them when CMD ends,
# passing on its exit status; the EXIT trap stops them if the script
# dies first.
beside_burners() {
  local n=$1 i rc=0
  shift
  _burners=()
  for ((i = 0; i < n; i++)); do
    ( while :; do :; done ) &
    _burners+=($!)
  done
  trap 'kill "${_burners[@]}" 2>/dev/null || true' EXIT
  "$@" || rc=$?
  kill "${_burners[@]}" 2>/dev/null || true
  wait "${_burners[@]}" 2>/dev/null || true
  _burners=()
  trap - EXIT
  return $rc
}

# go_install TOOL PACKAGE VERSION installs PACKAGE@VERSION into GOPATH/bin
# unless TOOL there is that version already (go version -m names the
# module version a binary was built from).
go_install() {
  local bin mod
  bin="$(go env GOPATH)/bin/$1"
  # A tool not installed yet fails go version -m; under set -e and
  # pipefail that failure would end the script without a word, so it
  # counts as "no version" here.
  mod=$(go version -m "$bin" 2>/dev/null | awk '$1 == "mod" {print $3}') || mod=
  if [ "$mod" != "$3" ]; then
    GOBIN="$(go env GOPATH)/bin" go install "$2@$3"
  fi
}

# lint: vet, staticcheck and the import layout, on the whole module.
lint() {
  stage vet "go vet ./..."
  go vet ./...

  stage staticcheck "no finding (unused code, deprecated calls, dead loops)"
  # Pinned so a new release's new checks land in a change that fixes them,
  # not in an unrelated one's CI run.
  go_install staticcheck honnef.co/go/tools/cmd/staticcheck v0.8.2
  staticcheck ./...

  stage format "gofmt, and goimports: the standard library's imports in a group of their own, first"
  # goimports at the x/tools version go.mod already requires: one version
  # to download, and it moves only with the module's.
  go_install goimports golang.org/x/tools/cmd/goimports "$(go list -m -f '{{.Version}}' golang.org/x/tools)"
  local files unformatted
  files=$(git ls-files '*.go')
  unformatted=$(gofmt -l $files)
  if [ -n "$unformatted" ]; then
    echo "gofmt would change:"; echo "$unformatted"; return 1
  fi
  unformatted=$(goimports -l $files)
  if [ -n "$unformatted" ]; then
    echo "goimports would change (goimports -w FILE; the standard library first):"; echo "$unformatted"; return 1
  fi
}

# other_archs: the module builds, and vets with its tests, for a 32-bit
# machine (GOARCH=386: an int is 32 bits, so a constant past 2^31 or a
# nanosecond count held in an int fails here) and for arm64.
other_archs() {
  stage build-386 "GOARCH=386 go build ./... and go vet ./... (the tests too)"
  GOARCH=386 go build ./...
  GOARCH=386 go vet ./...
  stage build-arm64 "GOARCH=arm64 go build ./..."
  GOARCH=arm64 go build ./...
}
