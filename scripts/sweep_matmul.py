#!/usr/bin/env python3
"""matmul's sweep (run by `scripts/sweep matmul`): the default version of each precision
and cuBLAS, in the same process, over a seeded set of shapes far wider than the score
table's four squares, one results record a shape:
  {"exercise": "matmul", "table": "sweep", "kernel", "shape": "MxNxK", "precision",
   "flops", "shape_class", "time_ms", "peer_ms", "ratio", "verified"}
stamped with the GPU, driver, CUDA version and date.

The shapes: squares from 128 to 16384, odd sides among them; skinny C (m or n of 1 to 512
against 4096, 8192 and 16384); short k (16 to 256) and long k (8192 to 65536) for small C;
transformer layers' shapes; and --random shapes with each side log-uniform in [1, 8192]
(seeded), m n k at most 2^37. Every result is verified as any run's is."""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile


def shapes(count, seed):
    chosen = []
    for s in (128, 256, 384, 500, 512, 768, 1000, 1024, 1536, 2000, 2048, 3000, 4095, 4096, 4097, 6144, 8192,
              12288, 16384):
        chosen.append((s, s, s))
    for thin in (1, 8, 16, 32, 64, 128, 256, 512):
        for big in (4096, 8192, 16384):
            chosen += [(thin, big, big), (big, thin, big)]
    for side in (4096, 8192):
        for k in (16, 64, 256):
            chosen.append((side, side, k))
    for side in (128, 256, 512):
        for k in (8192, 16384, 65536):
            chosen.append((side, side, k))
    chosen += [(16, 4096, 4096), (4096, 11008, 4096), (4096, 4096, 11008), (2048, 12288, 4096),
               (8192, 12288, 4096), (16384, 4096, 4096), (3000, 5000, 7000), (300, 7000, 2000)]
    rng = random.Random(seed)
    while count > 0:
        m, n, k = (int(math.exp(rng.uniform(0, math.log(8192)))) for _ in range(3))
        if m * n * k <= 1 << 37:
            chosen.append((m, n, k))
            count -= 1
    return list(dict.fromkeys(chosen))


def shape_class(m, n, k):
    """What a planner sees first: a C of few tiles (skinny), a short or a long k, or neither."""
    if min(m, n) <= 512 and max(m, n) >= 2048:
        return "skinny C"
    if k <= 256 and m * n >= 1 << 22:
        return "short k"
    if k >= 8192 and m * n <= 1 << 20:
        return "long k, small C"
    return "square-ish"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--random", type=int, default=60, metavar="N")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--precision", default="fp32,tf32,bf16,fp16", metavar="LIST")
    parser.add_argument("--shapes", metavar="MxNxK,...", help="just these")
    parser.add_argument("-i", "--iters", type=int, default=5)
    parser.add_argument("-o", "--out", required=True)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--stamp", required=True, help="the JSON fields every record starts with")
    args = parser.parse_args()
    if args.shapes:
        todo = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
    else:
        todo = shapes(args.random, args.seed)
    precisions = args.precision.split(",")
    done = set()
    if args.resume and os.path.exists(args.out):
        kept = []
        for line in open(args.out):
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line cut short when the run before was stopped
            kept.append(line if line.endswith("\n") else line + "\n")
            done.add((record.get("shape"), record.get("precision")))
        open(args.out, "w").writelines(kept)
    elif os.path.exists(args.out):
        os.remove(args.out)
    rc = 0
    for p in precisions:
        lines = [f"--m {m} -n {n} --k {k} --precision {p} -i {args.iters} --json\n"
                 for m, n, k in todo if (f"{m}x{n}x{k}", p) not in done]
        if not lines:
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".batch", delete=False) as batch:
            batch.writelines(lines)
        run = subprocess.Popen(["bin/matmul", "--batch", batch.name], stdout=subprocess.PIPE, text=True)
        mine = {}
        with open(args.out, "a") as out:
            for line in run.stdout:
                if not line.startswith("{"):
                    continue
                r = json.loads(line)
                if "kernel" not in r or "shape" not in r:
                    continue
                if not r["kernel"].startswith("cublas"):
                    mine[r["shape"]] = r
                    continue
                ours = mine.pop(r["shape"], None)
                if ours is None:
                    continue
                m, n, k = (int(x) for x in r["shape"].split("x"))
                record = {"exercise": "matmul", "table": "sweep", "kernel": ours["kernel"],
                          "shape": r["shape"], "precision": p, "flops": 2 * m * n * k,
                          "shape_class": shape_class(m, n, k), "time_ms": ours["time_ms"],
                          "peer_ms": r["time_ms"], "ratio": ours["time_ms"] / r["time_ms"],
                          "verified": bool(ours.get("verified")) and bool(r.get("verified"))}
                out.write("{" + args.stamp + json.dumps(record, separators=(",", ":"))[1:] + "\n")
                out.flush()
        rc = rc or run.wait()
        os.unlink(batch.name)
    rows = [json.loads(line) for line in open(args.out) if '"table":"sweep"' in line]
    print(f"scripts/sweep: {len(rows)} shapes into {args.out} (exit {rc})", file=sys.stderr)
    rows.sort(key=lambda r: -r["ratio"])
    print("the ten slowest against the peer (shape, precision, time / peer's):")
    for r in rows[:10]:
        print(f"  {r['shape']:>18}  {r['precision']}  {r['ratio']:.3f}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
