#!/usr/bin/env bash
# cudalab's test runner. `make test` runs every group of tests; `make test_<exercise>`
# (`bash tests/run.sh EXERCISE...`) runs that exercise's group only: its CPU unit tests
# (bin/tests/test_<exercise>) and its integration tests (tests/exercise_<exercise>.sh).
# The other groups: common (common/'s unit tests), scripts (tests/scripts.sh) and make
# (the Makefile's own behaviour). A GPU test whose binary exits 77 (no usable CUDA
# device) counts as skipped. Ends with "N passed, N failed, N skipped"; exit 0 when
# none failed.
#
# The groups' jobs run at once, TEST_JOBS at a time (default: one a CPU core), each in
# its own scratch directory, the longest first; a long exercise's tests are split in
# parts (tests/exercise_<exercise>.<part>.sh), each a job. A job's lines print together
# when it ends, under a line with its counts and seconds. The jobs share the GPU
# (time-sliced) and no test asserts a time, so none has to run alone. A loop of small
# runs of one program is a batch (batch, batch_gpu, batch_end below): one process, so
# one CUDA context, for them all. TEST_TIMES=1 adds each test's seconds and CPU seconds
# to its line (a batch's seconds all go to its first test).
set -u
cd "$(dirname "$0")/.." || exit 2
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
# A script's background jobs ignore Ctrl-C: take them (the process group) down with it.
trap 'trap - INT TERM; kill -TERM 0 2>/dev/null; exit 130' INT TERM

# TEST_TIMES=1: each PASS/FAIL line ends with the seconds since the job's line before
# it, and the CPU seconds its programs used (user + system), to find the slow tests.
took() {
    local now=${EPOCHREALTIME/./} ds cpu
    ds=$(((now - last_result_us) / 100000)) last_result_us=$now took=
    if [ -n "${TEST_TIMES:-}" ]; then
        children_cpu_ds
        cpu=$((children_ds - last_cpu_ds)) last_cpu_ds=$children_ds
        took=" ($((ds / 10)).$((ds % 10)) s, cpu $((cpu / 10)).$((cpu % 10)) s)"
    fi
}
# children_ds = the CPU time of this shell's finished child processes, in tenths of a
# second (bash's `times`, its second line: "1m2.345s 0m6.789s"; read through a file,
# since a subshell's `times` would be the subshell's).
children_cpu_ds() {
    local part
    times >"$tmp/times"
    children_ds=0
    for part in $(tail -n 1 "$tmp/times"); do
        [[ $part =~ ^([0-9]+)m([0-9]+)[.]([0-9])[0-9]*s$ ]] &&
            children_ds=$((children_ds + BASH_REMATCH[1] * 600 + 10#${BASH_REMATCH[2]} * 10 + BASH_REMATCH[3]))
    done
}
pass() { passed=$((passed + 1)); took; echo "PASS $1$took"; }
# A skip with its own reason gets a line; GPU skips (no usable CUDA device) are
# counted and summed up in one line a job, so the result is not buried.
skip() {
    skipped=$((skipped + 1)); took
    if [ $# -ge 2 ]; then echo "SKIP $1 ($2)"; else gpu_skips=$((gpu_skips + 1)); fi
}
fail() {
    failed=$((failed + 1))
    took; echo "FAIL $1$took"
    [ -s "$tmp/out" ] && sed 's/^/    | /' "$tmp/out" | tail -n 25
    return 0
}

# Runs a command with output in $tmp/out; sets rc.
run() { "$@" >"$tmp/out" 2>&1; rc=$?; }

# --- unit tests: every PASS/FAIL line counts --------------------------------------
unit_tests() {
    local t=$1 p f
    run "$t"
    p=$(grep -c '^PASS ' "$tmp/out"); f=$(grep -c '^FAIL ' "$tmp/out")
    # A test's diagnostics (indented) print before its PASS/FAIL line: show them after
    # it, under its name.
    grep -E '^(PASS|FAIL) |^  ' "$tmp/out" | sed -E "s#^(PASS|FAIL) #\1 $(basename "$t"): #" |
        awk '/^  / { held = held "    " substr($0, 3) "\n"; next } { printf "%s\n%s", $0, held; held = "" } END { printf "%s", held }'

    passed=$((passed + p)); failed=$((failed + f))
    # A GPU unit test with no usable device (exit 77 before any test): skipped.
    if [ "$rc" -eq 77 ] && [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then skip "$(basename "$t")"
    elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then fail "$(basename "$t") exited $rc"; fi
}

# --- integration tests -------------------------------------------------------------

# expect_gpu NAME WANT_RC CMD...: a GPU run; 77 means skipped.
expect_gpu() {
    local name=$1 want=$2; shift 2
    run "$@"
    gpu_verdict "$name" "$want" "$*"
}
# gpu_verdict NAME WANT_RC COMMAND: a GPU run's rc against WANT_RC; 77 (no usable device)
# skips unless it is the one wanted.
gpu_verdict() {
    if [ "$rc" -eq 77 ] && [ "$2" -ne 77 ]; then skip "$1"
    elif [ "$rc" -eq "$2" ]; then pass "$1"
    else echo "    exit $rc, wanted $2: $3" >>"$tmp/out"; fail "$1"; fi
}

# usable_gpus: how many GPUs the binaries find usable (CUDA_VISIBLE_DEVICES counts; 0
# without a driver): a test that needs N GPUs runs where this is at least N, else skips.
usable_gpus() { bin/tests/gpu_count 2>/dev/null || echo 0; }

# expect_too_few_gpus NAME COMMAND...: COMMAND (a --gpus 2 run) with one GPU visible
# says so in one line and exits 77; with no GPU at all it gives the usual line (skipped).
expect_too_few_gpus() {
    local name=$1; shift
    run env CUDA_VISIBLE_DEVICES=0 "$@"
    if grep -q "no usable CUDA device" "$tmp/out"; then skip "$name"
    elif [ "$rc" -eq 77 ] && grep -qF -- "--gpus 2: 1 GPU visible" "$tmp/out"; then pass "$name"
    else fail "$name"; fi
}

# A batch: runs of one program in one process, so one CUDA context serves them all
# (`PROGRAM --batch FILE`, cl_main in common/cli.h; with 16 jobs starting programs at
# once a context takes over a second to create). `batch PROGRAM`, then `batch_gpu NAME
# WANT_RC ARGS...` for each run (as expect_gpu; no spaces inside an argument), then
# `batch_end`, which runs them and reports each as expect_gpu would. A run that ends the
# process (exit 2 or 3, a crash) ends the batch: the runs after it fail as not run, or
# are skipped when it was 77 (no usable device).
batch() { batch_prog=$1 batch_n=0 batch_names=() batch_wants=(); : >"$tmp/batch"; }
batch_gpu() {
    local name=$1 want=$2 arg; shift 2
    for arg in "$@"; do
        [[ $arg =~ [[:space:]] ]] && { echo "    batch_gpu: '$arg' holds a space" >"$tmp/out"; fail "$name"; return; }
    done
    batch_names[batch_n]=$name batch_wants[batch_n]=$want batch_n=$((batch_n + 1))
    echo "$*" >>"$tmp/batch"
}
batch_end() {
    local i process_rc ended=
    "$batch_prog" --batch "$tmp/batch" >"$tmp/batch.out" 2>&1; process_rc=$?
    rm -f "$tmp"/batch.[0-9]* "$tmp"/batch.rc.*
    # Each run's output into batch.I, its exit status into batch.rc.I ("3 ends": it ended
    # the process).
    awk -v dir="$tmp" 'BEGIN { i = 0 }
        /^@@ cudalab batch: exit [0-9]+/ { sub(/,$/, "", $5); print $5 ($6 == "the" ? " ends" : "") > (dir "/batch.rc." i)
            close(dir "/batch.rc." i); close(dir "/batch." i); i++; next }
        { print > (dir "/batch." i) }' "$tmp/batch.out"
    for ((i = 0; i < batch_n; i++)); do
        if [ -n "$ended" ]; then
            if [ "$process_rc" -eq 77 ]; then skip "${batch_names[i]}"
            else echo "    not run: the batch ended at '$ended' (exit $process_rc)" >"$tmp/out"; fail "${batch_names[i]}"; fi
            continue
        fi
        if [ -f "$tmp/batch.$i" ]; then cp "$tmp/batch.$i" "$tmp/out"; else : >"$tmp/out"; fi
        # No status: the process died in this run (a signal).
        if [ -f "$tmp/batch.rc.$i" ]; then read -r rc ended <"$tmp/batch.rc.$i"; else rc=$process_rc ended=yes; fi
        [ -n "$ended" ] && ended=${batch_names[i]}
        gpu_verdict "${batch_names[i]}" "${batch_wants[i]}" "$batch_prog $(sed -n "$((i + 1))p" "$tmp/batch")"
    done
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
# yours` scores the untouched yours against the faster of PEER and the default version
# (slot_ref_is_peer=1: against PEER, the exercise's own table), says so, and leaves room:
# below full marks (slot_at_the_roof=1 where the starting kernel is already at the copy
# rate and the README says so); yours edited by WRONG_EDIT scores 0
# with (F), exits 1 and prints WRONG_MESSAGE (default: the first bad index);
# edited by FAULT_EDIT (a bad pointer) it exits 3 with CUDA's message. Each exercise
# runs it in its part slot (tests/exercise_<exercise>.slot.sh), beside its other tests;
# there slot_args (words) may add options to the tables' runs and slot_fault_n set the
# faulting run's size (default 1000).
expect_learner_slot() {
    local ex=$1 peer=$2 wrong=$3 fault=$4 message=${5:-"yours: wrong result: first bad index"}
    local -a extra
    read -r -a extra <<<"${slot_args:-}"
    local ref="Ref = the faster of $peer and " total
    [ -z "${slot_ref_is_peer:-}" ] || ref="Ref = $peer"
    run "bin/$ex" --check -k yours -i 1 "${extra[@]}"
    total=$(sed -n 's/.*Total score: *| *\([0-9.]*\)\/\([0-9.]*\) .*/\1 \2/p' "$tmp/out")
    gpu_verdict "$ex --check -k yours${total:+ (the untouched yours: ${total/ //})}" 0 "bin/$ex --check -k yours -i 1 ${extra[*]}"
    if [ "$rc" -eq 0 ] && ! { grep -qF "Your = yours" "$tmp/out" && grep -qF "$ref" "$tmp/out"; }; then
        fail "$ex --check -k yours names yours and '$ref'"; fi
    if [ "$rc" -eq 0 ] && [ -z "${slot_at_the_roof:-}" ] && { [ -z "$total" ] || [ "${total% *}" = "${total#* }" ]; }; then
        fail "$ex --check -k yours: the untouched yours leaves room (scored ${total/ //})"; fi
    expect_yours "$ex: a wrong yours scores 0 (F), exit 1" "$ex" 1 '[|] 0 [(]F[)]' "$wrong" --check -k yours -i 1 "${extra[@]}"
    if [ "$rc" -eq 1 ] && ! grep -qF "$message" "$tmp/out"; then
        fail "$ex: a wrong yours prints '$message'"; fi
    expect_yours "$ex: a faulting yours exits 3" "$ex" 3 'CUDA error.*illegal memory access' "$fault" -k yours -n "${slot_fault_n:-1000}" -i 2
}

# expect_make_line NAME LINE MAKE-ARGS...: `make -n` prints LINE (no GPU needed).
expect_make_line() {
    local name=$1 line=$2; shift 2
    run make -n "$@"
    if [ "$rc" -eq 0 ] && grep -qxF -- "$line" "$tmp/out"; then pass "$name"
    else echo "    wanted the line '$line' from make -n $*" >>"$tmp/out"; fail "$name"; fi
}

# --- the groups and jobs ---------------------------------------------------------

make_tests() {
    # `make ARCH=sm_80` is remembered by the plain makes after it, and `make ARCH=auto`
    # forgets it (a scratch ARCH file and flags stamp: the tree's own build is untouched).
    arch_state=(ARCH_FILE="$tmp/arch" FLAGS_STAMP="$tmp/flags.stamp")
    run make "${arch_state[@]}" ARCH=sm_80 arch
    run make -n "${arch_state[@]}" build/common/scan.o
    if [ "$rc" -eq 0 ] && grep -q -- "-arch=sm_80" "$tmp/out" && grep -q "building for ARCH=sm_80" "$tmp/out"; then
        pass "make remembers ARCH=sm_80"; else fail "make remembers ARCH=sm_80"; fi
    run make "${arch_state[@]}" ARCH=auto arch
    if [ "$rc" -eq 0 ] && [ ! -e "$tmp/arch" ] && ! grep -q -- "-arch=sm_80" "$tmp/out"; then
        pass "make ARCH=auto forgets it"; else fail "make ARCH=auto forgets it"; fi

    # A mistyped ARCH (the sm_ left off) is refused with the accepted forms, not remembered.
    rm -f "$tmp/arch"
    run make -n "${arch_state[@]}" ARCH=90 build/common/scan.o
    if [ "$rc" -ne 0 ] && grep -q "make ARCH=90: not a GPU target" "$tmp/out" && grep -q "sm_90" "$tmp/out" &&
        [ ! -e "$tmp/arch" ]; then pass "make ARCH=90 is refused and not remembered"
    else fail "make ARCH=90 is refused and not remembered"; fi

    # A dry run writes nothing: neither the remembered ARCH nor the flags stamp (else the
    # next real build rebuilds everything).
    rm -f "$tmp/arch" "$tmp/flags.stamp"
    run make -n -B "${arch_state[@]}" ARCH=sm_86 build/common/scan.o
    if [ "$rc" -eq 0 ] && grep -q -- "-arch=sm_86" "$tmp/out" && [ ! -e "$tmp/arch" ] && [ ! -e "$tmp/flags.stamp" ]; then
        pass "make -n ARCH=sm_86 remembers nothing, stamps nothing"
    else fail "make -n ARCH=sm_86 remembers nothing, stamps nothing"; fi

    expect_make_line "make -C scan clean removes scan's build only" "rm -rf ../build/scan ../bin/scan" -C scan clean

    # make format / make lint without their tool: one line naming it, exit 2.
    run make format CLANG_FORMAT=no-such-formatter
    if [ "$rc" -eq 2 ] && grep -q "needs no-such-formatter, which is not installed" "$tmp/out"; then
        pass "make format names a missing clang-format"; else fail "make format names a missing clang-format"; fi
    # (A stand-in clang-format 14 that finds every file formatted, for lint's format check.)
    printf '#!/bin/sh\necho "Debian clang-format version 14.0.6"\n' >"$tmp/clang-format-14"
    printf '#!/bin/sh\necho "Ubuntu clang-format version 12.0.1"\n' >"$tmp/clang-format-12"
    chmod +x "$tmp/clang-format-14" "$tmp/clang-format-12"
    run make lint CPPCHECK=no-such-checker CLANG_FORMAT="$tmp/clang-format-14"
    if [ "$rc" -eq 2 ] && grep -q "needs no-such-checker, which is not installed" "$tmp/out"; then
        pass "make lint names a missing cppcheck"; else fail "make lint names a missing cppcheck"; fi
    # The tree is formatted by clang-format 14: an older one is refused (it would rewrap
    # files), the tree is as 14 formats it, and a file it would change fails the check.
    run make format CLANG_FORMAT="$tmp/clang-format-12"
    if [ "$rc" -eq 2 ] && grep -q "version 12; the tree is formatted with clang-format 14" "$tmp/out"; then
        pass "make format refuses clang-format 12"; else fail "make format refuses clang-format 12"; fi
    if [ "$(clang-format --version 2>/dev/null | sed -n 's/.*clang-format version \([0-9]*\).*/\1/p')" = 14 ]; then
        run make format-check
        if [ "$rc" -eq 0 ]; then pass "make format-check: the tree as clang-format 14 formats it"
        else fail "make format-check: the tree as clang-format 14 formats it"; fi
        printf 'int  f( void ) {return 1 ;}\n' >"$tmp/unformatted.c"
        run make format-check FORMAT_FILES="$tmp/unformatted.c"
        if [ "$rc" -ne 0 ]; then pass "make format-check fails on a file it would change"
        else fail "make format-check fails on a file it would change"; fi
    else
        skip "make format-check" "clang-format 14 is not installed"
    fi

    # One group alone: `make test_<exercise>`, `make test EX=...`, one job of a group, the
    # runner's own refusal and its closing line (common/'s unit tests: a second or less).
    expect_make_line "make test_scan runs scan's tests only" "bash tests/run.sh scan" test_scan
    expect_make_line "make test EX=scan runs scan's tests only" "bash tests/run.sh scan" test EX=scan
    expect_usage "tests/run.sh: an unknown group" "no test group named 'nope'" bash tests/run.sh nope
    expect_usage "tests/run.sh: TEST_JOBS=0" "TEST_JOBS=0" env TEST_JOBS=0 bash tests/run.sh common
    run env CUDA_VISIBLE_DEVICES=-1 V=1 bash tests/run.sh radix_sort.gpus
    if [ "$rc" -eq 0 ] && [ "$(grep -c '^--- ' "$tmp/out")" -eq 1 ] && grep -q '^--- radix_sort.gpus: ' "$tmp/out"; then
        pass "tests/run.sh radix_sort.gpus: that job alone"
    else fail "tests/run.sh radix_sort.gpus: that job alone"; fi
    run env TEST_JOBS=1 bash tests/run.sh common
    closing=$(tail -n 1 "$tmp/out")
    if [ "$rc" -eq 0 ] && grep -qE '^--- common: [1-9][0-9]* passed, 0 failed, [0-9]+ skipped \([0-9]+ s\)$' "$tmp/out" &&
        [ "${closing%% (*}" = "$(sed -n 's/^--- common: \(.*\) (.*/\1/p' "$tmp/out")" ]; then
        pass "tests/run.sh common: its group's line and the closing line agree"
    else fail "tests/run.sh common: its group's line and the closing line agree"; fi
    # The skips add up: the GPU tests the SKIP line sums and those with a reason of their own
    # (common without a GPU: test_launch, and the two-GPU --batch runs, skipped for want of two).
    run env CUDA_VISIBLE_DEVICES=-1 TEST_JOBS=1 bash tests/run.sh common
    gpu_skipped=$(sed -n 's/^SKIP \([0-9]*\) GPU tests:.*/\1/p' "$tmp/out")
    closing=$(tail -n 1 "$tmp/out")
    if [[ $closing =~ ([0-9]+)\ skipped\ \(([0-9]+)\ GPU\ tests,\ ([0-9]+)\ with\ their\ reasons\ above\)$ ]] &&
        [ "${BASH_REMATCH[2]}" = "$gpu_skipped" ] &&
        [ "${BASH_REMATCH[1]}" -eq $((BASH_REMATCH[2] + BASH_REMATCH[3])) ] &&
        [ "$(grep -c '^SKIP ' "$tmp/out")" -eq $((BASH_REMATCH[3] + 1)) ]; then
        pass "tests/run.sh: the skips add up (GPU tests + those with their own reason)"
    else fail "tests/run.sh: the skips add up (GPU tests + those with their own reason)"; fi

    # Without a GPU (hidden here): one line sums up the GPU tests skipped; V=1 lists each job's.
    run env CUDA_VISIBLE_DEVICES=-1 V= TEST_JOBS=2 bash tests/run.sh reduction
    if [ "$rc" -eq 0 ] && [ "$(grep -c '^SKIP' "$tmp/out")" -eq 1 ] &&
        grep -qE '^SKIP [1-9][0-9]* GPU tests: no usable CUDA device' "$tmp/out"; then
        pass "tests/run.sh without a GPU: one line for the skipped GPU tests"
    else fail "tests/run.sh without a GPU: one line for the skipped GPU tests"; fi
    run env CUDA_VISIBLE_DEVICES=-1 V=1 TEST_JOBS=2 bash tests/run.sh reduction
    if [ "$rc" -eq 0 ] && grep -qE '^SKIP reduction: [1-9][0-9]* GPU tests' "$tmp/out"; then
        pass "tests/run.sh V=1 without a GPU: each job's skipped GPU tests"
    else fail "tests/run.sh V=1 without a GPU: each job's skipped GPU tests"; fi

    # The build says a short line a file (the command itself silent); V=1 prints each
    # command whole (make -n shows what each would run, the tree untouched).
    run make -n -B build/common/rng.o
    if [ "$rc" -eq 0 ] && grep -qE "^printf '  %-5s %s.n' CC common/rng.c; *gcc " "$tmp/out"; then
        pass "make: a short line a file"; else fail "make: a short line a file"; fi
    run make -n -B V=1 build/common/rng.o
    if [ "$rc" -eq 0 ] && grep -qE "^gcc .*-c common/rng.c" "$tmp/out" && ! grep -q "^printf" "$tmp/out"; then
        pass "make V=1: each command whole"; else fail "make V=1: each command whole"; fi

    # make check without a usable GPU: the no-device line once, not once a table.
    run env CUDA_VISIBLE_DEVICES=-1 make check
    if [ "$rc" -ne 0 ] && [ "$(grep -c "no usable CUDA device" "$tmp/out")" -eq 1 ]; then
        pass "make check without a GPU: one no-device line"
    else fail "make check without a GPU: one no-device line"; fi

    # Batches, with a stand-in for a program's --batch: a line "R" returns R, "exit R"
    # exits R (ending the batch), as cl_main marks them. Counted in a subshell.
    cat >"$tmp/stand_in" <<'EOF'
#!/usr/bin/env bash
while read -r a b; do
    case $a in
    exit) echo "@@ cudalab batch: exit $b, the batch ends"; exit "$b" ;;
    *) echo "ran $a"; echo "@@ cudalab batch: exit $a" ;;
    esac
done <"$2"
EOF
    chmod +x "$tmp/stand_in"
    (
        passed=0 failed=0 skipped=0 gpu_skips=0 last_cpu_ds=0
        batch "$tmp/stand_in"
        batch_gpu right 0 0; batch_gpu wrong-expected 1 1; batch_gpu wrong 0 1; batch_gpu ends 0 exit 3; batch_gpu after 0 0
        batch_end
        batch "$tmp/stand_in"; batch_gpu no-device 0 exit 77; batch_gpu not-run 0 0; batch_end
        echo "counts $passed $failed $skipped"
    ) >"$tmp/batches.txt" 2>&1
    if grep -qx "counts 2 3 2" "$tmp/batches.txt" && grep -qE "^FAIL wrong( [(]|$)" "$tmp/batches.txt" &&
        grep -qF "not run: the batch ended at 'ends' (exit 3)" "$tmp/batches.txt"; then
        pass "tests/run.sh: a batch reports each run; an exit ends it, 77 skips the rest"
    else
        sed 's/^/    /' "$tmp/batches.txt" >"$tmp/out"; fail "tests/run.sh: a batch reports each run; an exit ends it, 77 skips the rest"
    fi

    # A rebuild with nothing changed does nothing.
    if make -q all >/dev/null 2>&1; then pass "make: up to date after a build"; else fail "make: up to date after a build"; fi
}

# run_job JOB: one job's tests; its counts and seconds into $root/JOB.counts. A job is a
# group, or a part of an exercise's tests (tests/exercise_<exercise>.<part>.sh, job
# <exercise>.<part>) split off to run beside the rest.
run_job() {
    local job=$1
    # The state the job's tests share (the job is a subshell: this is its own).
    passed=0 failed=0 skipped=0 gpu_skips=0 rc=0
    tmp=$root/$job yours_tree=$root/$job/tree last_result_us=${EPOCHREALTIME/./} last_cpu_ds=0
    mkdir -p "$tmp"
    local unit units=()
    [ -f "tests/test_$job.c" ] && units+=("bin/tests/test_$job")
    [ "$job" = common ] && units+=(bin/tests/test_launch) # common/'s launch cache, on the GPU
    for unit in "${units[@]}"; do
        if [ -x "$unit" ]; then unit_tests "$unit"
        else fail "$unit is not built (make builds it)"; fi
    done
    # Opening the GPU took a process 0.33 s on an H100, mostly in the driver, which
    # hardly does two at once (160 empty CUDA programs, 16 at a time: 32 s); with one
    # hardware work queue a process instead of the default 8, 12 s. Batches aside, the
    # suite starts hundreds of GPU processes, so the jobs ask for one queue, except those
    # whose programs overlap streams (saxpy's and mosaic's streamed jobs, laplace3d's
    # exchange): one queue runs streams one after another, which could hide a missing wait.
    case $job in
        saxpy | mosaic | laplace3d) ;;
        *) export CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-1} ;;
    esac
    # shellcheck source=/dev/null
    case $job in
        common) . tests/devices.sh ;;
        make) make_tests ;;
        scripts) . tests/scripts.sh ;;
        *) . "tests/exercise_$job.sh" ;;
    esac
    if [ "$gpu_skips" -gt 0 ] && [ -n "${V:-}" ]; then
        echo "SKIP $job: $gpu_skips GPU test$([ "$gpu_skips" -eq 1 ] || echo s) (no usable CUDA device)"
    fi
    echo "$passed $failed $skipped $SECONDS $gpu_skips" >"$root/$job.counts"
}

# The groups, and their jobs with the longest first (measured with TEST_TIMES=1 on an
# H100 with 16 cores; START.md, "How long things take").
parts=$(for f in tests/exercise_*.sh; do f=${f#tests/exercise_}; echo "${f%.sh}"; done)
exercises=$(grep -v '[.]' <<<"$parts")
longest_first="matmul.large make.arch laplace3d stencil1d.large renderer.slot renderer.micro renderer.micro2 radix_sort.large_v5 radix_sort.large
    tridiag.million laplace3d.slot pattern_match radix_sort.pairs laplace3d.tblock8 laplace3d.tblock4
    laplace3d.tblock heat.sizes saxpy tridiag.million_batch tridiag.million_batch_v8 radix_sort.slot
    montecarlo.slot renderer.million laplace3d.large"
all_groups=$(printf '%s\n' "$exercises" common scripts make)
if [ $# -eq 0 ]; then
    groups=$all_groups
else
    # A group, or one job of a group (radix_sort.gpus: that part alone, no unit tests).
    for g in "$@"; do
        if ! grep -qxF -- "$g" <<<"$all_groups" && ! grep -qxF -- "$g" <<<"$parts"; then
            echo "tests/run.sh: no test group named '$g' (the groups: $(paste -sd' ' <<<"$all_groups"); or a job: $(grep '[.]' <<<"$parts" | paste -sd' '))" >&2; exit 2
        fi
    done
    groups=$(printf '%s\n' "$@")
fi
jobs_of_groups=$(for g in $groups; do echo "$g"; grep "^${g}[.]" <<<"$parts"; done)
job_list=$(for j in $longest_first $jobs_of_groups; do grep -qxF -- "$j" <<<"$jobs_of_groups" && echo "$j"; done |
    awk '!seen[$0]++')

jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 4)}
if ! [ "$jobs" -ge 1 ] 2>/dev/null; then echo "tests/run.sh: TEST_JOBS=$jobs: want a whole number >= 1" >&2; exit 2; fi
# The CPU golds are OpenMP loops: with jobs side by side, waiting threads that spin
# take the cores the other jobs need; passive waiting sleeps instead.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
# Likewise a program waiting for the GPU (a one-block reference, a time slice of the GPU
# taken by another job) sleeps instead of spinning on a core (common/device.c).
export CUDALAB_BLOCKING_SYNC=${CUDALAB_BLOCKING_SYNC:-1}

# report JOB: a finished job's header and lines; its counts into the totals. Without a
# GPU, a job whose every test needed one prints nothing: one line at the end sums them
# up (V=1, as `make test V=1`, prints each job and its count).
total_passed=0 total_failed=0 total_skipped=0 total_gpu_skips=0 quiet_jobs=0
report() {
    local name=$1 p f s secs g
    if read -r p f s secs g 2>/dev/null <"$root/$name.counts"; then
        total_gpu_skips=$((total_gpu_skips + g))
        if [ -z "${V:-}" ] && [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq "$g" ]; then
            quiet_jobs=$((quiet_jobs + 1))
        else
            echo "--- $name: $p passed, $f failed, $s skipped ($secs s)"
            cat "$root/$name.log"
        fi
    else
        p=0 f=1 s=0
        echo "--- $name: FAIL (its tests ended before the last one; its lines so far below)"
        cat "$root/$name.log"
    fi
    total_passed=$((total_passed + p)) total_failed=$((total_failed + f)) total_skipped=$((total_skipped + s))
}

# A pool of $jobs jobs: start one whenever one ends, report each as it ends.
mapfile -t pending <<<"$job_list"
running=()
while [ ${#pending[@]} -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
    while [ ${#running[@]} -lt "$jobs" ] && [ ${#pending[@]} -gt 0 ]; do
        g=${pending[0]} pending=("${pending[@]:1}")
        { (SECONDS=0; run_job "$g") >"$root/$g.log" 2>&1; : >"$root/$g.done"; } &
        running+=("$g")
    done
    wait -n 2>/dev/null
    still=()
    for g in "${running[@]}"; do
        if [ -e "$root/$g.done" ]; then report "$g"; else still+=("$g"); fi
    done
    running=("${still[@]}")
done

if [ "$total_gpu_skips" -gt 0 ]; then
    # Why: no usable device at all, or (with one) tests that ask for more GPUs than there are.
    why=$(bin/saxpy -n 1 -i 1 2>&1 >/dev/null | sed -n 's/.*no usable CUDA device: \([^;]*\).*/\1/p' | head -n 1)
    echo
    if [ -n "$why" ]; then
        echo "SKIP $total_gpu_skips GPU tests: no usable CUDA device ($why)$([ "$quiet_jobs" -eq 0 ] ||
            echo "; $quiet_jobs jobs had only GPU tests and are not listed (\`make test V=1\` lists every job)")"
    else
        echo "SKIP $total_gpu_skips GPU tests: they ask for more GPUs than this machine has (\`make test V=1\` lists them by job)"
    fi
fi
# The skipped: the GPU tests summed up above, and those skipped for a reason of their
# own (a SKIP line each, above), so the two counts add up in the closing line.
other_skips=$((total_skipped - total_gpu_skips))
skip_parts=
if [ "$total_gpu_skips" -gt 0 ] && [ "$other_skips" -gt 0 ]; then
    skip_parts=" ($total_gpu_skips GPU tests, $other_skips with their reasons above)"
fi
echo
echo "$total_passed passed, $total_failed failed, $total_skipped skipped$skip_parts"
[ "$total_failed" -eq 0 ]
