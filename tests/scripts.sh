# shellcheck shell=bash disable=SC2154 # rc and tmp come from tests/run.sh
# scripts/: the newest committed results file with score tables (runs across GPUs have
# none): its summary and plots; the READMEs' reference tables in step with each
# exercise's newest results file; the scripts' usage errors. No GPU needed.

results_files=(results/*.jsonl)
results=$(grep -l '"table":"score"' "${results_files[@]}" | tail -n 1)
if [ ! -f "$results" ]; then
    fail "scripts: a results file under results/"
else
    exercises_in_results=$(grep -o '"exercise":"[a-z_0-9]*"' "$results" | sort -u | wc -l)
    run scripts/bench-all --summary "$results"
    if [ "$rc" -eq 0 ] && [ "$(grep -cE '^[a-z_0-9]+ +[^ ]+ +[0-9.]+/[0-9.]+ ' "$tmp/out")" -eq "$exercises_in_results" ]; then
        pass "bench-all --summary: a scored line for each of the $exercises_in_results exercises"
    else fail "bench-all --summary: a scored line for each of the $exercises_in_results exercises"; fi

    # Two score tables of one exercise (radix_sort's --check, then --check --pairs):
    # the summary scores the first.
    printf '%s\n' '{"exercise":"x","args":"--check","table":"score","your":"v1","size":"10","your_ms":1,"ref_ms":2,"correct":true}' \
        '{"exercise":"x","args":"--check","table":"score_total","score":5,"max":5}' \
        '{"exercise":"x","args":"--check --pairs","table":"score","your":"v1","size":"20","your_ms":3,"ref_ms":1,"correct":true}' \
        '{"exercise":"x","args":"--check --pairs","table":"score_total","score":1,"max":5}' >"$tmp/two.jsonl"
    run scripts/bench-all --summary "$tmp/two.jsonl"
    if [ "$rc" -eq 0 ] && grep -qE '^x +v1 +5/5 +10 +0\.500 +0$' "$tmp/out"; then
        pass "bench-all --summary: an exercise's first score table"
    else fail "bench-all --summary: an exercise's first score table"; fi

    sed '0,/"correct":true/s//"correct":false/' "$results" >"$tmp/wrong.jsonl"
    run scripts/bench-all --summary "$tmp/wrong.jsonl"
    if [ "$rc" -eq 1 ] && grep -q "^1 results wrong" "$tmp/out"; then pass "bench-all --summary: a wrong result exits 1"
    else fail "bench-all --summary: a wrong result exits 1"; fi

    if ! command -v python3 >/dev/null; then
        skipped=$((skipped + 1)); echo "SKIP scripts/tables and scripts/plot (python3 not installed)"
    else
        run scripts/tables "${results_files[@]}" --check
        if [ "$rc" -eq 0 ]; then pass "READMEs' reference tables match each exercise's newest results file"
        else fail "READMEs' reference tables match each exercise's newest results file"; fi

        # The front table: a copy of the READMEs checks clean, and fails once a
        # generated cell is edited by hand.
        mkdir -p "$tmp/root"
        cp --parents README.md ./*/README.md "${results_files[@]}" "$tmp/root"
        run scripts/tables "${results_files[@]/#/$tmp/root/}" --check --root "$tmp/root"
        rc_clean=$rc
        sed -i '/front table: begin/,/front table: end/s/| \([0-9]\.[0-9][0-9]\)[0-9] |/| \19 |/' "$tmp/root/README.md"
        run scripts/tables "${results_files[@]/#/$tmp/root/}" --check --root "$tmp/root"
        if [ "$rc_clean" -eq 0 ] && [ "$rc" -eq 1 ] && grep -q "front table differs" "$tmp/out"; then
            pass "tables --check: the front table's cells come from the results files"
        else fail "tables --check: the front table's cells come from the results files"; fi

        # Two GPUs' files: a column each, the size once, a further score table after "; ".
        mkdir -p "$tmp/two/x"
        printf '%s\n' '<!-- reference tables: begin -->' '<!-- reference tables: end -->' \
            '<!-- reference tables (GPU B): begin -->' '<!-- reference tables (GPU B): end -->' >"$tmp/two/x/README.md"
        printf '%s\n' '<!-- front table: begin -->' '| exercise | a | b | peer | old |' '|---|---|---|---|---|' \
            '| [x](x/README.md) | a | b | lib | 0.1 |' '<!-- front table: end -->' >"$tmp/two/README.md"
        for g in A:2 B:4; do
            printf '%s\n' "{\"gpu\":\"GPU ${g%:*}\",\"exercise\":\"x\",\"args\":\"--check\",\"table\":\"score\",\"your\":\"v1\",\"ref\":\"lib\",\"size\":\"268435456\",\"your_ms\":1,\"ref_ms\":${g#*:},\"correct\":true,\"score\":1}" \
                "{\"gpu\":\"GPU ${g%:*}\",\"exercise\":\"x\",\"args\":\"--check\",\"table\":\"score_total\",\"score\":1,\"max\":1}" \
                "{\"gpu\":\"GPU ${g%:*}\",\"exercise\":\"x\",\"args\":\"--check --pairs\",\"table\":\"score\",\"your\":\"v1\",\"ref\":\"lib\",\"size\":\"20\",\"your_ms\":3,\"ref_ms\":1,\"correct\":true}" \
                >"$tmp/two/${g%:*}.jsonl"
        done
        run scripts/tables "$tmp/two/A.jsonl" "$tmp/two/B.jsonl" --write --root "$tmp/two"
        if [ "$rc" -eq 0 ] && grep -qxF '| exercise | a | b | peer | largest size | best / peer, GPU A | best / peer, GPU B |' "$tmp/two/README.md" &&
            grep -qxF '| [x](x/README.md) | a | b | lib | 256Mi | 0.500; pairs 3.000 | 0.250; pairs 3.000 |' "$tmp/two/README.md"; then
            pass "tables --write: the front table, a column a GPU"
        else sed 's/^/    | /' "$tmp/two/README.md" >>"$tmp/out"; fail "tables --write: the front table, a column a GPU"; fi
    fi

    if python3 -c 'import matplotlib' 2>/dev/null; then
        run scripts/plot "$results" -o "$tmp/plots"
        missing=""
        for ex in $(grep -o '"exercise":"[a-z_0-9]*"' "$results" | sort -u | cut -d'"' -f4) summary; do
            [ "$(head -c 4 "$tmp/plots/$ex.png" 2>/dev/null | od -An -c | tr -d ' ')" = "211PNG" ] || missing+=" $ex"
        done
        if [ "$rc" -eq 0 ] && [ -z "$missing" ]; then pass "scripts/plot: a PNG for each exercise and the summary"
        else echo "    missing or not PNG:$missing" >>"$tmp/out"; fail "scripts/plot: a PNG for each exercise and the summary"; fi
        run scripts/plot "$results" "$results" -o "$tmp/plots"
        if [ "$rc" -eq 0 ] && grep -q "geometric mean of the ratios 1.000" "$tmp/out" && [ -s "$tmp/plots/compare.png" ]; then
            pass "scripts/plot: a file against itself, every ratio 1"
        else fail "scripts/plot: a file against itself, every ratio 1"; fi
    else
        skipped=$((skipped + 1)); echo "SKIP scripts/plot (matplotlib not installed)"
    fi
fi

# Without matplotlib, one clear line.
if command -v python3 >/dev/null; then
    mkdir -p "$tmp/nomatplotlib/matplotlib"
    echo 'raise ImportError("hidden")' >"$tmp/nomatplotlib/matplotlib/__init__.py"
    PYTHONPATH="$tmp/nomatplotlib" scripts/plot "$results" >"$tmp/out" 2>&1; rc=$?
    if [ "$rc" -eq 1 ] && grep -q "scripts/plot needs matplotlib" "$tmp/out" && [ "$(wc -l <"$tmp/out")" -eq 1 ]; then
        pass "scripts/plot without matplotlib: one line, exit 1"
    else fail "scripts/plot without matplotlib: one line, exit 1"; fi
fi

# gallery_drawn DIR N: DIR/index.html shows N pictures and every one was drawn (not
# empty); sets `absent` to those missing.
# The ladder's size column: scripts/tables heads it as each binary does (main.c's n_column).
size_columns_differ=
for mk in */exercise.mk; do
    ex=${mk%/exercise.mk}
    in_c=$(sed -n 's/.*[.]n_column = "\([^"]*\)".*/\1/p' "$ex/main.c")
    in_py=$(python3 -c "import re; print(dict(re.findall(r'\"(\w+)\": \"([^\"]+)\"', open('scripts/tables').read().split('SIZE_COLUMNS = ')[1].split('}')[0])).get('$ex', 'n'))" 2>/dev/null)
    [ "${in_c:-n}" = "$in_py" ] || size_columns_differ+=" $ex (main.c '${in_c:-n}', tables '$in_py')"
done
if [ -z "$size_columns_differ" ]; then pass "the ladder's size column: the same header in each binary and in scripts/tables"
else echo "    differ:$size_columns_differ" >"$tmp/out"; fail "the ladder's size column: the same header in each binary and in scripts/tables"; fi

# Every relative link in a tracked Markdown file leads to a tracked file or folder (a file
# that .gitignore hid once: the top README linked results/README.md, which no clone had).
if command -v python3 >/dev/null && git rev-parse --git-dir >/dev/null 2>&1; then
    run python3 - <<'PY'
import os, re, subprocess, sys
tracked = set(subprocess.run(["git", "ls-files"], capture_output=True, text=True).stdout.split("\n"))
folders = {os.path.dirname(t) for t in tracked}
bad = []
for readme in sorted(t for t in tracked if t.endswith(".md")):
    for link in re.findall(r"\]\(([^)\s]+)\)", open(readme).read()):
        if re.match(r"[a-z]+:", link) or link.startswith("#"):
            continue
        path = os.path.normpath(os.path.join(os.path.dirname(readme), link.split("#")[0]))
        if path not in tracked and not any(f == path or f.startswith(path + "/") for f in folders):
            bad.append(f"{readme}: {link}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
    if [ "$rc" -eq 0 ]; then pass "Markdown links lead to tracked files"; else fail "Markdown links lead to tracked files"; fi
fi
# Each exercise's README in the order a learner needs: "Write your own" before the first
# table of measurements (the reference tables' markers), and its own picture shown.
readme_order_wrong=
for mk in */exercise.mk; do
    ex=${mk%/exercise.mk}
    own=$(grep -n '^## Write your own' "$ex/README.md" | head -n 1 | cut -d: -f1)
    tables=$(grep -n '^<!-- reference tables' "$ex/README.md" | head -n 1 | cut -d: -f1)
    if [ -z "$own" ] || { [ -n "$tables" ] && [ "$own" -gt "$tables" ]; }; then readme_order_wrong+=" $ex (order)"; fi
    if [ -f "results/plots/$ex.png" ] && ! grep -qF "](../results/plots/$ex.png)" "$ex/README.md"; then
        readme_order_wrong+=" $ex (picture)"
    fi
done
if [ -z "$readme_order_wrong" ]; then pass "READMEs: Write your own before the tables, and each its picture"
else echo "    not so in:$readme_order_wrong" >"$tmp/out"; fail "READMEs: Write your own before the tables, and each its picture"; fi

gallery_drawn() {
    local pictures
    pictures=$(grep -o '<img src="[^"]*"' "$1/index.html" 2>/dev/null | cut -d'"' -f2)
    absent=""
    for f in $pictures; do [ -s "$1/$f" ] || absent+=" $f"; done
    [ "$(echo "$pictures" | wc -l)" -eq "$2" ] && [ -z "$absent" ]
}

# Without a GPU (hidden here) the gallery draws what the CPU can: 17 pictures, no heat.
CUDA_VISIBLE_DEVICES=-1 scripts/gallery "$tmp/gallery_cpu" >"$tmp/out" 2>&1; rc=$?
if [ "$rc" -eq 0 ] && gallery_drawn "$tmp/gallery_cpu" 17 &&
    grep -q "heat left out" "$tmp/out" && grep -q "drawn on the CPU" "$tmp/gallery_cpu/index.html"; then
    pass "scripts/gallery without a GPU: 17 pictures (cpuref, CPU mosaic), heat left out"
else echo "    exit $rc; pictures missing:$absent" >>"$tmp/out"; fail "scripts/gallery without a GPU: 17 pictures (cpuref, CPU mosaic), heat left out"; fi

# On a GPU (the gallery's own probe: the smallest renderer run): the gallery draws every
# picture its index shows; the profiler reports a kernel.
expect_gpu "the renderer on the GPU (the gallery's probe)" 0 bin/renderer -s 16 -i 1 rgb
if [ "$rc" -eq 0 ]; then
    expect_gpu "scripts/gallery" 0 scripts/gallery "$tmp/gallery"
fi
if [ "$rc" -eq 0 ]; then
    if gallery_drawn "$tmp/gallery" 18; then pass "scripts/gallery: index.html shows 18 pictures, all drawn"
    else echo "    pictures missing:$absent" >>"$tmp/out"; fail "scripts/gallery: index.html shows 18 pictures, all drawn"; fi
fi
if command -v ncu >/dev/null || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/ncu" ]; then
    # On the last GPU where there are several: the other jobs' runs crowd device 0 (on
    # 4 H200s with 64 jobs at once, ncu failed there: "Failed to prepare kernel").
    gpus=$(usable_gpus)
    PROFILE_DIR="$tmp/profile" PROFILE_LAUNCHES=2 expect_gpu "scripts/profile scan -k v5" 0 scripts/profile scan -k v5 -n 1M -i 1 -d $((gpus > 1 ? gpus - 1 : 0))
    if [ "$rc" -eq 0 ]; then
        if grep -qE '^void DeviceScan|lookback' "$tmp/out" && grep -q "report: $tmp/profile/scan-" "$tmp/out" &&
            ls "$tmp"/profile/scan-*.ncu-rep >/dev/null 2>&1; then pass "scripts/profile: a line a kernel and the report"
        else fail "scripts/profile: a line a kernel and the report"; fi
    fi
fi

expect_usage "bench-all: unknown exercise" "no exercise named nope" scripts/bench-all nope
expect_usage "sweep: an exercise without one" "no sweep for 'scan' (fft and matmul have one)" scripts/sweep scan
expect_usage "sweep matmul: a bad option" "scripts/sweep matmul [--precision LIST]" scripts/sweep matmul --lengths 2
# prose-numbers: a README's numbers that no results file holds (a derived one is listed).
if command -v python3 >/dev/null; then
    run scripts/prose-numbers stencil1d
    if [ "$rc" -eq 0 ] && grep -qE '^stencil1d: [0-9]+ numbers in prose not in a results file$' "$tmp/out" &&
        grep -qE '^stencil1d/README.md:[0-9]+: ' "$tmp/out"; then pass "scripts/prose-numbers: a line a number, a count"
    else fail "scripts/prose-numbers: a line a number, a count"; fi
    # the CUDA files' comments too (yours.cu, a kernel header), not their code: in a copy of
    # the script's tree, a comment's number no results file holds is listed, one in the code
    # is not, one a file holds is not, nor one in a sweep block scripts/tables wrote; a
    # sweep's row only beside its size.
    mkdir -p "$tmp/prose/scripts" "$tmp/prose/ex" "$tmp/prose/results"
    cp scripts/prose-numbers "$tmp/prose/scripts/"
    touch "$tmp/prose/ex/exercise.mk"
    printf '%s\n' "Prose: 1.25 and 3.5." "<!-- sweep (A): begin -->" "| all | 1.83 |" "<!-- sweep (A): end -->" >"$tmp/prose/ex/README.md"
    printf '%s\n' '// v2: 0.55 ms, v3 7.75 ms' 'const double scale = 0.125; // 3.5' >"$tmp/prose/ex/yours.cu"
    printf '%s\n' 'int x; // a kernel measured at 6.25 ms' >"$tmp/prose/ex/kernels.cuh"
    echo '{"exercise": "ex", "time_ms": 3.5}' >"$tmp/prose/results/bench-20260101-A.jsonl"
    # A sweep's row counts only beside its size: 60's 0.0123 ms in line 2, not alone in line 4.
    echo '{"exercise": "ex", "table": "sweep", "length": 60, "time_ms": 0.0123}' >"$tmp/prose/results/sweep-20260101-A.ex.jsonl"
    printf '%s\n' "Length 60 takes" "0.0123 ms." "" "Alone: 0.0123." >>"$tmp/prose/ex/README.md"
    run "$tmp/prose/scripts/prose-numbers"
    if [ "$rc" -eq 0 ] && grep -qxF "ex/README.md:1: 1.25" "$tmp/out" && grep -qxF "ex/yours.cu:1: 0.55" "$tmp/out" &&
        grep -qxF "ex/yours.cu:1: 7.75" "$tmp/out" && grep -qxF "ex/kernels.cuh:1: 6.25" "$tmp/out" &&
        grep -qxF "ex/README.md:8: 0.0123" "$tmp/out" && ! grep -q "README.md:6: \|3.5$\|0.125\|1.83" "$tmp/out"; then
        pass "scripts/prose-numbers: the CUDA files' comments, not their code"
    else fail "scripts/prose-numbers: the CUDA files' comments, not their code"; fi
fi
expect_usage "sweep: a bad --max" "usage: scripts/sweep" scripts/sweep fft --max 0
expect_usage "sweep --resume without -o" "--resume needs -o FILE" scripts/sweep fft --resume
# --resume leaves out the lengths the file holds, and drops a last line cut short.
if command -v python3 >/dev/null; then
    printf '%s\n' '{"table":"sweep","length":2,"ratio":1}' '{"table":"sweep","length":3,"ratio":1}' \
        '{"table":"sweep","len' >"$tmp/resumed.jsonl"
    run scripts/sweep fft --lengths 2..3 --resume -o "$tmp/resumed.jsonl"
    if [ "$rc" -eq 0 ] && grep -q "every length is already in" "$tmp/out" && [ "$(wc -l <"$tmp/resumed.jsonl")" -eq 2 ]; then
        pass "sweep --resume: nothing left to measure, the cut line dropped"
    else fail "sweep --resume: nothing left to measure, the cut line dropped"; fi
fi
# A sweep's results file: scripts/plot draws it, scripts/tables leaves it out of the tables
# (its device line too, which would otherwise stand for the exercise's newest run).
if command -v python3 >/dev/null; then
    {
        echo '{"gpu":"GPU A","date":"2026-11-28","exercise":"fft","table":"device","device":"GPU A","sm_count":1}'
        for n in 2 3 5 7 11 1009 4096; do
            echo "{\"gpu\":\"GPU A\",\"date\":\"2026-11-28\",\"exercise\":\"fft\",\"table\":\"sweep\",\"kernel\":\"v7-any\",\"length\":$n,\"largest_prime\":$n,\"time_ms\":1.1,\"peer_ms\":1,\"ratio\":1.1}"
        done
    } >"$tmp/sweep-20991231-GPU_A.fft.jsonl"
    run scripts/tables "${results_files[@]}" "$tmp/sweep-20991231-GPU_A.fft.jsonl" --check
    if [ "$rc" -eq 0 ]; then pass "scripts/tables: a sweep's file is not a table"; else fail "scripts/tables: a sweep's file is not a table"; fi
    # ... but its summary, where a README holds that GPU's sweep markers: written, checked,
    # and a number changed by hand is caught.
    mkdir -p "$tmp/sweep_root/fft"
    printf '# fft\n<!-- sweep (GPU A): begin -->\n<!-- sweep (GPU A): end -->\nmore\n' >"$tmp/sweep_root/fft/README.md"
    run scripts/tables "$tmp/sweep-20991231-GPU_A.fft.jsonl" --write --root "$tmp/sweep_root"
    summary_ok=$rc
    grep -q "^| 3, 5, 7 | 3 | 1.10 | 0 | 3 (1.10) |" "$tmp/sweep_root/fft/README.md" || summary_ok=1
    grep -q "^more" "$tmp/sweep_root/fft/README.md" || summary_ok=1
    run scripts/tables "$tmp/sweep-20991231-GPU_A.fft.jsonl" --check --root "$tmp/sweep_root"
    [ "$rc" -eq 0 ] || summary_ok=1
    sed -i 's/| 3, 5, 7 | 3 | 1.10/| 3, 5, 7 | 3 | 1.00/' "$tmp/sweep_root/fft/README.md"
    run scripts/tables "$tmp/sweep-20991231-GPU_A.fft.jsonl" --check --root "$tmp/sweep_root"
    if [ "$summary_ok" -eq 0 ] && [ "$rc" -eq 1 ] && grep -q "the sweep's summary differs" "$tmp/out"; then
        pass "scripts/tables: a sweep's summary, written and checked"
    else fail "scripts/tables: a sweep's summary, written and checked"; fi
    # Two sweeps compared (no matplotlib needed): a line a class with the shared sizes'
    # geometric means before and after, and the sizes that moved most.
    sed 's/"time_ms":1.1,"peer_ms":1,"ratio":1.1/"time_ms":0.9,"peer_ms":1,"ratio":0.9/; /"length":1009,/d' \
        "$tmp/sweep-20991231-GPU_A.fft.jsonl" >"$tmp/sweep-after.fft.jsonl"
    run scripts/plot "$tmp/sweep-20991231-GPU_A.fft.jsonl" "$tmp/sweep-after.fft.jsonl"
    if [ "$rc" -eq 0 ] && grep -qE '^5, 7 +2 +1.100 +0.900 +0.818 +0 -> 0$' "$tmp/out" &&
        grep -qE '^all +6 +1.100 +0.900 +0.818 +0 -> 0$' "$tmp/out" && grep -q "faster most: 2 1.10 -> 0.90" "$tmp/out" &&
        grep -q "^slower most: none" "$tmp/out" &&
        grep -q "^6 sizes; geometric mean of after / before 0.818" "$tmp/out"; then
        pass "scripts/plot: two sweeps, a line a class of the sizes they share"
    else fail "scripts/plot: two sweeps, a line a class of the sizes they share"; fi
    if python3 -c 'import matplotlib' 2>/dev/null; then
        run scripts/plot "$tmp/sweep-20991231-GPU_A.fft.jsonl" -o "$tmp/sweep_plots"
        if [ "$rc" -eq 0 ] && [ -s "$tmp/sweep_plots/fft-sweep.png" ] && [ ! -e "$tmp/sweep_plots/summary.png" ]; then
            pass "scripts/plot: a sweep's picture"; else fail "scripts/plot: a sweep's picture"; fi
    fi
fi
expect_usage "profile: unknown exercise" "no exercise named nope" scripts/profile nope
expect_usage "profile: ncu missing" "ncu (Nsight Compute) not found" env NCU=/nonexistent scripts/profile scan
# shellcheck disable=SC2012 # the newest by modification time, as the Makefile picks it
expect_make_line "make plots draws each exercise's newest results into plots/ (not tracked)" "scripts/plot --newest -o plots" plots
# Which file each exercise comes from: the date in the name, not the file's time (a fresh
# clone gives every file the same), one GPU (the newest file's, or --gpu's).
if command -v python3 >/dev/null; then
    mkdir -p "$tmp/dated"
    echo '{"exercise": "scan", "gpu": "GPU A", "table": "ladder"}' >"$tmp/dated/bench-20260102-A.jsonl"
    echo '{"exercise": "scan", "gpu": "GPU A", "table": "ladder"}' >"$tmp/dated/bench-20260101-A.jsonl"
    echo '{"exercise": "heat", "gpu": "GPU A", "table": "ladder"}' >>"$tmp/dated/bench-20260101-A.jsonl"
    echo '{"exercise": "scan", "gpu": "GPU B", "table": "ladder"}' >"$tmp/dated/bench-20251231-B.jsonl"
    echo '{"exercise": "scan", "gpu": "2 x GPU A", "table": "ladder"}' >"$tmp/dated/bench-20260103-2_x_A.jsonl"
    touch -d '2026-01-05 00:00' "$tmp"/dated/*.jsonl
    touch -d '2026-01-06 00:00' "$tmp/dated/bench-20260101-A.jsonl" # the newest by time, not by date
    run scripts/plot --newest --from "$tmp/dated" --dry-run
    if [ "$rc" -eq 0 ] && grep -q "^drawing GPU A (" "$tmp/out" && grep -q "scan <- .*bench-20260102-A.jsonl" "$tmp/out" &&
        grep -q "heat <- .*bench-20260101-A.jsonl" "$tmp/out" && ! grep -q "GPU B\|2_x" "$tmp/out"; then
        pass "scripts/plot --newest: each exercise from its newest file by date, one GPU"
    else fail "scripts/plot --newest: each exercise from its newest file by date, one GPU"; fi
    # The pictures' titles carry the dates of the records they draw (here two files' days).
    sed -i 's/"table"/"date": "2026-01-02", "table"/' "$tmp/dated/bench-20260102-A.jsonl"
    sed -i 's/"table"/"date": "2026-01-01", "table"/' "$tmp/dated/bench-20260101-A.jsonl"
    run scripts/plot --newest --from "$tmp/dated" --dry-run
    if [ "$rc" -eq 0 ] && grep -qx "titled: GPU A, 2026-01-01 .. 2026-01-02" "$tmp/out"; then
        pass "scripts/plot --newest: the title's dates span the files drawn"
    else fail "scripts/plot --newest: the title's dates span the files drawn"; fi
    run scripts/plot --newest --from "$tmp/dated" --gpu "GPU B" --dry-run
    if [ "$rc" -eq 0 ] && grep -q "scan <- .*bench-20251231-B.jsonl" "$tmp/out"; then pass "scripts/plot --newest --gpu"
    else fail "scripts/plot --newest --gpu"; fi
fi

# --dump names an output like -o: a directory that cannot be written is refused before
# any work, by every binary (exit 2, one line, nothing on stdout).
for b in bin/*; do
    if [ ! -f "$b" ] || [ ! -x "$b" ]; then continue; fi
    expect_usage "$(basename "$b") --dump into a missing directory" "--dump $tmp/missing/x: directory" "$b" --dump "$tmp/missing/x"
done
