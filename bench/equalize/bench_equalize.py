#!/usr/bin/env python3
"""Equalize baselines in the JSON shape of bench_equalize: PyTorch on the GPU
(histc + cumsum + gather, cv::equalizeHist's LUT formula) and OpenCV on the
CPU (cv2.equalizeHist, cv2.createCLAHE 8x8 clip 40, all threads).
Usage: bench_equalize.py [--runs N] [--json PATH]"""
import argparse
import json
import statistics
import time

import numpy as np


def natural(w, h):
    fx, fy = np.meshgrid(np.arange(w) / 97.0, np.arange(h) / 71.0)
    b = 90 + 50 * np.sin(fx) * np.cos(fy * 0.7) + 30 * np.sin((fx + fy) * 0.3)
    b += np.random.default_rng(7).integers(0, 16, b.shape) - 7.5
    return np.clip(np.rint(b), 0, 255).astype(np.uint8)


def emit(out, device, variant, w, h, times_ms):
    med = statistics.median(times_ms)
    rec = {"bench": "equalize", "device": device, "variant": variant, "width": w,
           "height": h, "median_ms": med, "min_ms": min(times_ms),
           "gbs": 2 * w * h / (med * 1e6)}
    line = json.dumps(rec)
    print(line)
    if out:
        out.write(line + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--json")
    a = ap.parse_args()
    out = open(a.json, "a") if a.json else None
    sizes = [(1920, 1080), (3840, 2160)]
    try:
        import torch
        if torch.cuda.is_available():
            dev = torch.cuda.get_device_name()
            for w, h in sizes:
                x = torch.from_numpy(natural(w, h)).cuda()

                def eq(x):
                    hist = torch.histc(x.float(), bins=256, min=0, max=255).to(torch.int64)
                    cdf = torch.cumsum(hist, 0)
                    i0 = torch.nonzero(hist)[0, 0]
                    lo = hist[i0]
                    scale = 255.0 / torch.clamp(x.numel() - lo, min=1).float()
                    lut = torch.clamp(torch.round((cdf - lo).float() * scale), 0, 255).to(torch.uint8)
                    return torch.gather(lut, 0, x.flatten().long()).view_as(x)
                for _ in range(10):
                    eq(x)
                torch.cuda.synchronize()
                ts = []
                for _ in range(a.runs):
                    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    s.record()
                    eq(x)
                    e.record()
                    e.synchronize()
                    ts.append(s.elapsed_time(e))
                emit(out, dev, "torch_histc_cumsum_gather", w, h, ts)
    except ImportError:
        print("# torch not available")
    try:
        import cv2
        cv2.setNumThreads(0)
        dev = "cpu (opencv %s, %d threads)" % (cv2.__version__, cv2.getNumThreads())
        for w, h in sizes:
            img = natural(w, h)
            clahe = cv2.createCLAHE(clipLimit=40.0, tileGridSize=(8, 8))
            for name, fn in [("opencv_equalizeHist", lambda: cv2.equalizeHist(img)),
                             ("opencv_clahe_8x8", lambda: clahe.apply(img))]:
                for _ in range(5):
                    fn()
                ts = []
                for _ in range(max(10, a.runs // 4)):
                    t = time.perf_counter()
                    fn()
                    ts.append((time.perf_counter() - t) * 1e3)
                emit(out, dev, name, w, h, ts)
    except ImportError:
        print("# cv2 not available")


if __name__ == "__main__":
    main()
