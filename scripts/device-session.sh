#!/usr/bin/env bash
# One full pass on a GPU machine: build for the GPU present, `make test`, then for
# each exercise named: the -k all ladder, the score table, and compute-sanitizer
# (memcheck + racecheck) at a small size. Logs go to $OUT (or ./device-logs); a
# summary table is printed last.
#   scripts/device-session.sh saxpy reduction
set -u
cd "$(dirname "$0")/.."
out=${OUT:-device-logs}
mkdir -p "$out"
summary=()
note() { summary+=("$(printf '%-44s %s' "$1" "$2")"); }

nvidia-smi --query-gpu=name,compute_cap,memory.total,clocks.sm,clocks.mem --format=csv >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
if make -j16 >"$out/build.log" 2>&1; then note build ok; else note build FAILED; tail -30 "$out/build.log"; fi
make test >"$out/test.log" 2>&1; note "make test" "rc=$? $(tail -n 1 "$out/test.log")"
grep -E '^(FAIL|SKIP)' "$out/test.log" | head -20

sanitize() { # name, args...
    local name=$1; shift
    for tool in memcheck racecheck; do
        compute-sanitizer --tool "$tool" --error-exitcode 99 "$@" >"$out/san_${name}_$tool.log" 2>&1
        note "sanitizer $tool $name" "rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/san_${name}_$tool.log" | tail -n 1)"
    done
}

for ex in "$@"; do
    bin/$ex -k all >"$out/${ex}_ladder.log" 2>&1; note "$ex -k all (default n)" "rc=$?"
    cat "$out/${ex}_ladder.log"
    bin/$ex --check >"$out/${ex}_check.log" 2>&1; note "$ex --check" "rc=$?"
    cat "$out/${ex}_check.log"
    sanitize "$ex" bin/$ex -k all -n 1025 -i 1
    [ -n "${EXTRA_SANITIZE:-}" ] && sanitize "${ex}_extra" bin/$ex $EXTRA_SANITIZE
done
echo
printf '%s\n' "${summary[@]}"
