#!/usr/bin/env bash
# One full pass on a GPU machine: build for the GPU present, `make test`, then for
# each exercise named: the -k all ladder, the score table of the fastest version and
# of yours, and compute-sanitizer's four tools (memcheck, racecheck, synccheck,
# initcheck) over every version and the peer (-k all) at two small sizes, one odd.
# Logs go to $OUT (or ./device-logs); a summary is printed last, with each
# sanitizer tool's error count.
#   scripts/device-session.sh saxpy reduction scan find_repeats
#   SANITIZE_SIZES="1000 20001" scripts/device-session.sh scan
#   SANITIZE_SIZES_heat="100 131" scripts/device-session.sh heat   (one exercise's sizes)
set -u
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-device-logs}
mkdir -p "$out"
sizes=${SANITIZE_SIZES:-1000 20001}
tools=(memcheck racecheck synccheck initcheck)
summary=()
note() { summary+=("$(printf '%-44s %s' "$1" "$2")"); }

nvidia-smi --query-gpu=name,compute_cap,memory.total,clocks.sm,clocks.mem --format=csv >"$out/gpu.txt" 2>&1
cat "$out/gpu.txt"
if make -j16 >"$out/build.log" 2>&1; then note build ok; else note build FAILED; tail -30 "$out/build.log"; fi
make test >"$out/test.log" 2>&1; note "make test" "rc=$? $(tail -n 1 "$out/test.log")"
grep -E '^(FAIL|SKIP)' "$out/test.log" | head -20

# The errors a sanitizer log reports: racecheck's hazards counted as errors, every
# other tool's ERROR SUMMARY; "?" when the log has neither (the run did not finish).
sanitizer_errors() {
    local log=$1 n
    n=$(grep -oE 'RACECHECK SUMMARY: [0-9]+ hazards displayed \([0-9]+ errors' "$log" | grep -oE '[0-9]+ errors' | grep -oE '[0-9]+' | tail -n 1)
    [ -n "$n" ] || n=$(grep -oE 'ERROR SUMMARY: [0-9]+' "$log" | grep -oE '[0-9]+' | tail -n 1)
    echo "${n:-?}"
}

# One exercise's sanitizer runs; its summary rows go to $out/san_rows_<ex>.txt.
sanitize_exercise() {
    local ex=$1 n tool log rc row own="SANITIZE_SIZES_$1"
    : >"$out/san_rows_$ex.txt"
    for n in ${!own:-$sizes}; do
        row=$(printf '%-14s %-7s' "$ex" "$n")
        for tool in "${tools[@]}"; do
            log="$out/san_${ex}_${n}_$tool.log"
            compute-sanitizer --tool "$tool" --error-exitcode 99 "bin/$ex" -k all -n "$n" -i 1 >"$log" 2>&1
            rc=$?
            row+=$(printf ' %-10s' "$(sanitizer_errors "$log")$([ $rc -eq 0 ] || echo " rc=$rc")")
        done
        echo "$row" >>"$out/san_rows_$ex.txt"
    done
}

# Timed runs first, one at a time.
for ex in "$@"; do
    "bin/$ex" -k all >"$out/${ex}_ladder.log" 2>&1; note "$ex -k all (default n)" "rc=$?"
    cat "$out/${ex}_ladder.log"
    "bin/$ex" --check >"$out/${ex}_check.log" 2>&1; note "$ex --check" "rc=$?"
    cat "$out/${ex}_check.log"
    "bin/$ex" --check -k yours >"$out/${ex}_check_yours.log" 2>&1; note "$ex --check -k yours" "rc=$?"
    cat "$out/${ex}_check_yours.log"
done
# Then the sanitizers (nothing timed), the exercises side by side.
for ex in "$@"; do sanitize_exercise "$ex" & done
wait
echo
printf '%s\n' "${summary[@]}"
if [ $# -gt 0 ]; then
    echo
    echo "compute-sanitizer errors, every version and the peer (-k all -i 1):"
    printf '%-14s %-7s %-10s %-10s %-10s %-10s\n' exercise n "${tools[@]}"
    for ex in "$@"; do cat "$out/san_rows_$ex.txt"; done
fi
