#!/usr/bin/env python3
"""Fit the simulator's `fit` constants to the published measurements.

    scripts/sim-fit.py build/src/cli/servebench [--points data/sim/published_points.yaml]

How the constants marked `fit` in data/sim/hardware.yaml and data/sim/engines.yaml were
chosen (docs/simulator.md, "Fidelity"). The script copies data/sim to a scratch folder,
changes one constant at a time by a factor (coordinate descent from the catalogue's
current values, within physical bounds), runs `servebench sim --fidelity
--catalogue-dir ...` on the published points and keeps a change when the loss falls.

The loss is what the fidelity targets judge — the median |error| of median TPOT, output
tokens/s per GPU and median TTFT, each above a margin under its target (11 %, 11 %,
24 %) — plus the mean |log(predicted / measured)| over every point and metric, so that
no point is given up to win the medians. The fit moves only the serving stack's costs
and efficiencies (the list below); the hardware's peaks, the models' shapes and the
kernels' published ceilings stay as their sources say.

Prints every accepted step and, at the end, the values to write into the catalogue
(the script changes nothing in the repository). Standard library only.
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

# (file, entry, field): (lower bound, upper bound)
PARAMETERS = {
    ("engines.yaml", "vllm", "request_overhead_ms"): (0, 600),
    ("engines.yaml", "vllm", "tokenize_us_per_token"): (0, 300),
    ("engines.yaml", "vllm", "per_seq_step_us"): (0, 400),
    ("engines.yaml", "vllm", "eager_moe_layer_overhead_us"): (0, 4000),
    ("engines.yaml", "vllm", "long_prefill_token_threshold"): (256, 8192),
    ("hardware.yaml", "h200", "step_overhead_us"): (200, 6000),
    ("hardware.yaml", "h200", "layer_overhead_us"): (3, 80),
    ("hardware.yaml", "h200", "moe_layer_overhead_us"): (5, 400),
    ("hardware.yaml", "h200", "hbm_efficiency"): (0.3, 0.92),
    ("hardware.yaml", "h200", "attention_efficiency"): (0.05, 0.8),
    ("hardware.yaml", "b200", "attention_efficiency"): (0.05, 0.8),
}
FACTORS = [0.5, 0.7, 0.85, 0.95, 1.05, 1.18, 1.4, 2.0]
TARGET_MARGIN = (0.11, 0.11, 0.24)  # TPOT, output tok/s/GPU, TTFT


def entry_block(text, entry):
    m = re.search(r"^  " + re.escape(entry) + r":\n((?:    .*\n|\n)*?)(?=^  \S|\Z)", text, re.M)
    if not m:
        sys.exit(f"no entry {entry}")
    return m.group(0)


def read_value(catalogue, key):
    f, entry, field = key
    block = entry_block(open(os.path.join(catalogue, f)).read(), entry)
    m = re.search(r"^    " + re.escape(field) + r": (\S+)", block, re.M)
    if not m:
        sys.exit(f"no field {entry}.{field} in {f}")
    v = m.group(1)
    return int(v) if re.fullmatch(r"-?\d+", v) else float(v)


def write_catalogue(src, dst, values):
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    for (f, entry, field), v in values.items():
        path = os.path.join(dst, f)
        text = open(path).read()
        block = entry_block(text, entry)
        new = re.sub(r"^(    " + re.escape(field) + r":) .*$", lambda m: f"{m.group(1)} {v}", block,
                     flags=re.M)
        open(path, "w").write(text.replace(block, new))


def fidelity(servebench, catalogue, points):
    out = subprocess.run([servebench, "sim", "--fidelity", "--catalogue-dir", catalogue,
                          "--published-points", points], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    rows = []
    for line in out.stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("Point", "---"):
            continue
        errs = []
        for c in cells[1:]:
            m = re.search(r"\(([+-]\d+)%\)", c)
            errs.append(int(m.group(1)) / 100 if m else None)
        rows.append(errs)
    return rows


def median_abs(xs):
    xs = sorted(abs(x) for x in xs if x is not None)
    n = len(xs)
    if n == 0:
        return 0
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def loss(rows):
    if not rows:
        return float("inf")
    hinge = sum(max(0.0, median_abs([r[i] for r in rows]) - TARGET_MARGIN[i]) for i in range(3))
    errs = [e for r in rows for e in r if e is not None]
    return 10 * hinge + sum(abs(math.log(1 + e)) for e in errs) / len(errs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("servebench")
    ap.add_argument("--catalogue", default="data/sim")
    ap.add_argument("--points", default="data/sim/published_points.yaml")
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="sim-fit-")
    cat = os.path.join(scratch, "catalogue")
    current = {k: read_value(args.catalogue, k) for k in PARAMETERS}

    def evaluate(values):
        write_catalogue(args.catalogue, cat, values)
        return loss(fidelity(args.servebench, cat, args.points))

    best = evaluate(current)
    print(f"start: loss {best:.4f}", flush=True)
    for rnd in range(args.rounds):
        improved = False
        for key, (lo, hi) in PARAMETERS.items():
            for f in FACTORS:
                v = min(hi, max(lo, current[key] * f))
                v = int(round(v)) if isinstance(current[key], int) else round(v, 4)
                if v == current[key]:
                    continue
                trial = dict(current, **{key: v})
                s = evaluate(trial)
                if s < best - 1e-6:
                    best, current, improved = s, trial, True
                    print(f"round {rnd}: {key[1]}.{key[2]} = {v}: loss {best:.4f}", flush=True)
        if not improved:
            break
    print("\nfitted values:")
    for (f, entry, field), v in current.items():
        print(f"  {f}: {entry}.{field}: {v}")
    write_catalogue(args.catalogue, cat, current)
    print(subprocess.run([args.servebench, "sim", "--fidelity", "--catalogue-dir", cat,
                          "--published-points", args.points], capture_output=True,
                         text=True).stdout)
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
