#!/usr/bin/env bash
# cudalab's test runner (`make test`): the CPU unit tests in bin/tests/, then each
# binary's integration tests. A GPU test whose binary exits 77 (no usable CUDA
# device) counts as skipped. Ends with "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.." || exit 2
passed=0 failed=0 skipped=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pass() { passed=$((passed + 1)); echo "PASS $1"; }
# A skip with its own reason gets a line; GPU skips (no usable CUDA device) are
# counted and summed up in one line an exercise, so the result is not buried.
gpu_skips=0
skip() {
    skipped=$((skipped + 1))
    if [ $# -ge 2 ]; then echo "SKIP $1 ($2)"; else gpu_skips=$((gpu_skips + 1)); fi
}
fail() {
    failed=$((failed + 1))
    echo "FAIL $1"
    [ -s "$tmp/out" ] && sed 's/^/    | /' "$tmp/out" | tail -n 25
    return 0
}

# Runs a command with output in $tmp/out; sets rc.
run() { "$@" >"$tmp/out" 2>&1; rc=$?; }

# --- unit tests: every PASS/FAIL line counts --------------------------------------
for t in bin/tests/test_*; do
    run "$t"
    p=$(grep -c '^PASS ' "$tmp/out"); f=$(grep -c '^FAIL ' "$tmp/out")
    # A test's diagnostics (indented) print before its PASS/FAIL line: show them after
    # it, under its name.
    grep -E '^(PASS|FAIL) |^  ' "$tmp/out" | sed -E "s#^(PASS|FAIL) #\1 $(basename "$t"): #" |
        awk '/^  / { held = held "    " substr($0, 3) "\n"; next } { printf "%s\n%s", $0, held; held = "" } END { printf "%s", held }'

    passed=$((passed + p)); failed=$((failed + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then fail "$(basename "$t") exited $rc"; fi
done

# --- integration tests -------------------------------------------------------------

# expect_gpu NAME WANT_RC CMD...: a GPU run; 77 means skipped.
expect_gpu() {
    local name=$1 want=$2; shift 2
    run "$@"
    if [ "$rc" -eq 77 ] && [ "$want" -ne 77 ]; then skip "$name"
    elif [ "$rc" -eq "$want" ]; then pass "$name"
    else echo "    exit $rc, wanted $want: $*" >>"$tmp/out"; fail "$name"; fi
}

# expect_rotated NAME MIN CMD...: exit 0 and a "timed over N rotating copies" note with
# N >= MIN (the timed repeats read inputs the L2 cache has not just seen).
expect_rotated() {
    local name=$1 min=$2 copies; shift 2
    run "$@"
    copies=$(sed -n 's/.*timed over \([0-9]*\) rotating copies.*/\1/p' "$tmp/out" | head -n 1)
    if [ "$rc" -eq 77 ]; then skip "$name"
    elif [ "$rc" -eq 0 ] && [ "${copies:-0}" -ge "$min" ]; then pass "$name"
    else echo "    exit $rc, copies '${copies}', wanted 0 and >= $min: $*" >>"$tmp/out"; fail "$name"; fi
}

# expect_usage NAME TEXT CMD...: exit 2 with a message containing TEXT, nothing on stdout.
expect_usage() {
    local name=$1 text=$2; shift 2
    "$@" >"$tmp/stdout" 2>"$tmp/out"; rc=$?
    if [ "$rc" -eq 2 ] && grep -qF -- "$text" "$tmp/out" && [ ! -s "$tmp/stdout" ]; then pass "$name"
    else echo "    exit $rc, wanted 2 and '$text': $*" >>"$tmp/out"; fail "$name"; fi
}

# No device (CUDA_VISIBLE_DEVICES hides every GPU; on CI there is no driver at all):
# exit 77 with exactly one line, on stderr, that says which case it is.
expect_no_device() {
    local name=$1; shift
    CUDA_VISIBLE_DEVICES=-1 "$@" >"$tmp/stdout" 2>"$tmp/out"; rc=$?
    if [ "$rc" -eq 77 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] && [ ! -s "$tmp/stdout" ] &&
        grep -q "no usable CUDA device: " "$tmp/out" &&
        grep -qE "no NVIDIA driver is installed|hides every GPU|supports CUDA" "$tmp/out"; then pass "$name"
    else echo "    exit $rc, wanted 77 and one line" >>"$tmp/out"; fail "$name"; fi
}

# Every line of stdout must be a JSON object (checked by python3 where present).
expect_json_lines() {
    local name=$1; shift
    "$@" >"$tmp/stdout" 2>"$tmp/out"; rc=$?
    if [ "$rc" -eq 77 ]; then skip "$name"; return; fi
    if [ "$rc" -ne 0 ]; then fail "$name"; return; fi
    if ! command -v python3 >/dev/null; then skip "$name" "python3 absent: the lines cannot be checked"; return; fi
    if python3 -c '
import json, sys
lines = [l for l in open(sys.argv[1])]
assert lines, "no output"
for l in lines:
    assert isinstance(json.loads(l), dict), l
' "$tmp/stdout" >>"$tmp/out" 2>&1; then pass "$name"; else fail "$name"; fi
}

# The learner's slot. expect_yours NAME EXERCISE WANT_RC PATTERN SED ARGS...: in a
# copy of the tree (built objects included, so only yours.o is rebuilt), edits
# EXERCISE/yours.cu with SED, builds, runs bin/EXERCISE ARGS and expects exit
# WANT_RC with PATTERN (grep -E) in the output. The source tree is never touched.
# Skipped without a GPU, before anything is built (the probe runs -n $yours_probe_n,
# 1 unless an exercise's script sets its smallest size).
yours_tree=$tmp/tree
expect_yours() {
    local name=$1 ex=$2 want=$3 pattern=$4 edit=$5; shift 5
    run "bin/$ex" -k yours -n "${yours_probe_n:-1}" -i 1
    if [ "$rc" -eq 77 ]; then skip "$name"; return; fi
    if [ ! -d "$yours_tree" ]; then
        mkdir -p "$yours_tree" && tar -C . --exclude=./.git -cf - . | tar -C "$yours_tree" -xf -
    fi
    sed -e "$edit" "$ex/yours.cu" >"$yours_tree/$ex/yours.cu"
    if cmp -s "$ex/yours.cu" "$yours_tree/$ex/yours.cu"; then
        echo "    the edit '$edit' changed nothing in $ex/yours.cu" >"$tmp/out"; fail "$name"; return
    fi
    if ! make -C "$yours_tree" "bin/$ex" >"$tmp/out" 2>&1; then fail "$name (build)"; return; fi
    run "$yours_tree/bin/$ex" "$@"
    if [ "$rc" -eq "$want" ] && grep -qE -- "$pattern" "$tmp/out"; then pass "$name"
    else echo "    exit $rc, wanted $want and /$pattern/: $ex/yours.cu edited by '$edit', $*" >>"$tmp/out"; fail "$name"; fi
}

# expect_learner_slot EXERCISE PEER WRONG_EDIT FAULT_EDIT [WRONG_MESSAGE]: `--check -k
# yours` scores yours against PEER and says so; yours edited by WRONG_EDIT scores 0
# with (F), exits 1 and prints WRONG_MESSAGE (default: the first bad index);
# edited by FAULT_EDIT (a bad pointer) it exits 3 with CUDA's message.
expect_learner_slot() {
    local ex=$1 peer=$2 wrong=$3 fault=$4 message=${5:-"yours: wrong result: first bad index"}
    expect_gpu "$ex --check -k yours" 0 "bin/$ex" --check -k yours -i 3
    if [ "$rc" -eq 0 ] && ! grep -qF "Your = yours, Ref = $peer" "$tmp/out"; then
        fail "$ex --check -k yours names yours and $peer"; fi
    expect_yours "$ex: a wrong yours scores 0 (F), exit 1" "$ex" 1 '[|] 0 [(]F[)]' "$wrong" --check -k yours -i 2
    if [ "$rc" -eq 1 ] && ! grep -qF "$message" "$tmp/out"; then
        fail "$ex: a wrong yours prints '$message'"; fi
    expect_yours "$ex: a faulting yours exits 3" "$ex" 3 'CUDA error.*illegal memory access' "$fault" -k yours -n 1000 -i 2
}

# expect_make_line NAME LINE MAKE-ARGS...: `make -n` prints LINE (no GPU needed).
expect_make_line() {
    local name=$1 line=$2; shift 2
    run make -n "$@"
    if [ "$rc" -eq 0 ] && grep -qxF -- "$line" "$tmp/out"; then pass "$name"
    else echo "    wanted the line '$line' from make -n $*" >>"$tmp/out"; fail "$name"; fi
}

for t in tests/exercise_*.sh tests/scripts.sh; do
    gpu_skips=0
    # shellcheck source=/dev/null
    . "$t"
    if [ "$gpu_skips" -gt 0 ]; then
        what=$(basename "$t" .sh)
        echo "SKIP ${what#exercise_}: $gpu_skips GPU test$([ "$gpu_skips" -eq 1 ] || echo s) (no usable CUDA device)"
    fi
done

# `make ARCH=sm_80` is remembered by the plain makes after it, and `make ARCH=auto`
# forgets it (a scratch ARCH file and flags stamp: the tree's own build is untouched).
arch_state=(ARCH_FILE="$tmp/arch" FLAGS_STAMP="$tmp/flags.stamp")
run make -n "${arch_state[@]}" ARCH=sm_80 build/common/scan.o
run make -n "${arch_state[@]}" build/common/scan.o
if [ "$rc" -eq 0 ] && grep -q -- "-arch=sm_80" "$tmp/out" && grep -q "building for ARCH=sm_80" "$tmp/out"; then
    pass "make remembers ARCH=sm_80"; else fail "make remembers ARCH=sm_80"; fi
run make -n "${arch_state[@]}" ARCH=auto build/common/scan.o
if [ "$rc" -eq 0 ] && [ ! -e "$tmp/arch" ] && ! grep -q -- "-arch=sm_80" "$tmp/out"; then
    pass "make ARCH=auto forgets it"; else fail "make ARCH=auto forgets it"; fi

expect_make_line "make -C scan clean removes scan's build only" "rm -rf ../build/scan ../bin/scan" -C scan clean

# make format / make lint without their tool: one line naming it, exit 2.
run make format CLANG_FORMAT=no-such-formatter
if [ "$rc" -eq 2 ] && grep -q "needs no-such-formatter, which is not installed" "$tmp/out"; then
    pass "make format names a missing clang-format"; else fail "make format names a missing clang-format"; fi
run make lint CPPCHECK=no-such-checker
if [ "$rc" -eq 2 ] && grep -q "needs no-such-checker, which is not installed" "$tmp/out"; then
    pass "make lint names a missing cppcheck"; else fail "make lint names a missing cppcheck"; fi

# A rebuild with nothing changed does nothing.
if make -q all >/dev/null 2>&1; then pass "make: up to date after a build"; else fail "make: up to date after a build"; fi

echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
