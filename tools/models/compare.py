#!/usr/bin/env python3
"""Compares berth's outputs with onnxruntime's for one real model (tests/cli/real_models.sh).

    compare.py NAME REF_DIR GOT_DIR ATOL RTOL

REF_DIR holds out<K>.npy (tools/models/reference.js), GOT_DIR call1_out<K>.npy (berth run
--out-dir). Every element must satisfy |got - ref| <= ATOL + RTOL * |ref|, with the same
shape and dtype. Prints one line: NAME, pass or FAIL, the max abs difference and the max
|ref| per output. Exits 1 on a mismatch or a missing output."""
import sys
import os
import numpy as np


def main():
    name, ref_dir, got_dir, atol, rtol = sys.argv[1:6]
    atol, rtol = float(atol), float(rtol)
    k, ok, parts = 0, True, []
    while os.path.exists(os.path.join(ref_dir, f"out{k}.npy")):
        ref = np.load(os.path.join(ref_dir, f"out{k}.npy"))
        path = os.path.join(got_dir, f"call1_out{k}.npy")
        if not os.path.exists(path):
            print(f"{name}: FAIL: berth wrote no output {k}")
            return 1
        got = np.load(path)
        if got.shape != ref.shape or got.dtype != ref.dtype:
            print(f"{name}: FAIL: output {k} is {got.dtype}{list(got.shape)}, onnxruntime's {ref.dtype}{list(ref.shape)}")
            return 1
        d = np.abs(got.astype(np.float64) - ref.astype(np.float64))
        bad = d > atol + rtol * np.abs(ref.astype(np.float64))
        if np.isnan(got).any() != np.isnan(ref).any() if got.dtype.kind == "f" else False:
            bad = bad | (np.isnan(got) != np.isnan(ref))
        maxd = float(np.nanmax(d)) if d.size else 0.0
        maxr = float(np.nanmax(np.abs(ref))) if ref.size else 0.0
        parts.append(f"out{k} max|diff| {maxd:.3g} (max|ref| {maxr:.3g})")
        if bad.any():
            i = np.unravel_index(int(np.argmax(bad)), bad.shape)
            parts.append(f"FAIL at {list(i)}: {got[i]} vs {ref[i]}")
            ok = False
        k += 1
    if k == 0:
        print(f"{name}: FAIL: no reference outputs in {ref_dir}")
        return 1
    print(f"{name}: {'pass' if ok else 'FAIL'}: " + ", ".join(parts))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
