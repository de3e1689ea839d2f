#!/usr/bin/env python3
"""Compares the cip CPU reference (global and CLAHE equalization) with OpenCV.

Makes test images (random, gradients, a synthetic natural-looking scene;
1920x1080, 641x479, 37x23, ...), runs equalize_dump on each and
cv2.equalizeHist / cv2.createCLAHE(clipLimit, tileGridSize), and prints the
share of pixels exactly equal and within +-1. Exits 1 below the targets:
global 100% equal, CLAHE >= 99% within +-1.

Usage: compare_opencv.py [PATH/TO/equalize_dump]
Without a path the tool is built with g++ from the sources (no CUDA needed).
"""
import os
import subprocess
import sys
import tempfile

import cv2
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))


def build_tool(tmp):
    exe = os.path.join(tmp, "equalize_dump")
    srcs = [os.path.join(HERE, "equalize_dump.cpp")]
    for d in ("host", "ref"):
        dd = os.path.join(TOP, "kernels", d)
        srcs += [os.path.join(dd, f) for f in sorted(os.listdir(dd)) if f.endswith(".cpp")]
    cmd = ["g++", "-O2", "-std=c++17", "-I" + os.path.join(TOP, "kernels", "include"),
           "-I" + os.path.join(TOP, "kernels"), "-o", exe] + srcs
    subprocess.check_call(cmd)
    return exe


def write_pgm(path, img):
    h, w = img.shape
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h))
        f.write(np.ascontiguousarray(img, dtype=np.uint8).tobytes())


def read_pgm(path):
    with open(path, "rb") as f:
        data = f.read()
    parts = data.split(maxsplit=4)
    w, h = int(parts[1]), int(parts[2])
    return np.frombuffer(parts[4][: w * h], dtype=np.uint8).reshape(h, w)


def images():
    rng = np.random.default_rng(1)
    for (w, h) in [(1920, 1080), (641, 479), (37, 23), (640, 480), (1, 1), (3, 200), (1000, 7)]:
        yield "random", rng.integers(0, 256, (h, w), dtype=np.uint8)
        x = np.linspace(0, 1, w)[None, :]
        y = np.linspace(0, 1, h)[:, None]
        yield "gradient", np.clip((x * 0.6 + y * 0.3) * 255 + 20, 0, 255).astype(np.uint8)
        fx, fy = np.meshgrid(np.arange(w) / 97.0, np.arange(h) / 71.0)
        scene = 100 + 50 * np.sin(fx) * np.cos(fy * 0.7) + 30 * np.sin((fx + fy) * 0.3)
        scene[h // 4: h // 2, w // 5: w // 3] *= 0.4     # a dark object
        scene += rng.normal(0, 3, scene.shape)
        yield "natural", np.clip(np.rint(scene), 0, 255).astype(np.uint8)
        yield "constant", np.full((h, w), 77, np.uint8)


def main():
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        tool = sys.argv[1] if len(sys.argv) > 1 else build_tool(tmp)
        for name, img in images():
            h, w = img.shape
            src = os.path.join(tmp, "in.pgm")
            write_pgm(src, img)
            want_g = cv2.equalizeHist(img)
            for clip, tx, ty in [(40.0, 8, 8), (2.0, 8, 8), (4.0, 3, 5), (0.0, 4, 4), (1.0, 16, 9)]:
                g, c = os.path.join(tmp, "g.pgm"), os.path.join(tmp, "c.pgm")
                subprocess.check_call([tool, src, g, c, str(clip), str(tx), str(ty)])
                if (clip, tx, ty) == (40.0, 8, 8):
                    got = read_pgm(g)
                    eq = np.mean(got == want_g) * 100
                    status = "ok" if eq == 100.0 else "FAIL"
                    ok &= eq == 100.0
                    print(f"global  {name:9s} {w}x{h}: {eq:.4f}% equal  {status}")
                want_c = cv2.createCLAHE(clipLimit=clip, tileGridSize=(tx, ty)).apply(img)
                got = read_pgm(c)
                d = np.abs(got.astype(int) - want_c.astype(int))
                eq, near = np.mean(d == 0) * 100, np.mean(d <= 1) * 100
                status = "ok" if near >= 99.0 else "FAIL"
                ok &= near >= 99.0
                print(f"clahe   {name:9s} {w}x{h} clip {clip} tiles {tx}x{ty}: "
                      f"{eq:.4f}% equal, {near:.4f}% within 1, max diff {d.max()}  {status}")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
