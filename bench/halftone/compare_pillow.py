#!/usr/bin/env python3
"""Quality of our Floyd-Steinberg halftone against Pillow's (Image.convert('1'),
a standard sequential implementation) on real photographs, by a low-pass error
measure: PSNR between the input and the output both blurred with a Gaussian of
sigma 1.5 px (the eye's low-pass at a normal viewing distance; higher is
better). Ours is the CPU reference (bench/halftone/halftone_dump.cpp), which the
GPU kernels equal bit for bit. Photographs: scikit-image's bundled samples.

    python3 bench/halftone/compare_pillow.py [--tool PATH]

Exits non-zero when ours is worse than Pillow's by more than 0.1 dB on any
photograph. Needs numpy, scipy, Pillow and scikit-image (the GPU machine has
them); builds the tool with g++ when no path is given.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image
from scipy.ndimage import gaussian_filter
from skimage import color, data

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))


def build_tool(tmp):
    exe = os.path.join(tmp, "halftone_dump")
    srcs = [os.path.join(HERE, "halftone_dump.cpp")]
    for d in ("host", "ref"):
        dd = os.path.join(TOP, "kernels", d)
        srcs += [os.path.join(dd, f) for f in sorted(os.listdir(dd)) if f.endswith(".cpp")]
    subprocess.check_call(["g++", "-O2", "-std=c++17",
                           "-I" + os.path.join(TOP, "kernels", "include"),
                           "-I" + os.path.join(TOP, "kernels"), "-o", exe] + srcs)
    return exe


def photos():
    for name in ("camera", "astronaut", "coffee", "chelsea", "moon", "rocket"):
        img = getattr(data, name)()
        if img.ndim == 3:
            img = (color.rgb2gray(img[..., :3]) * 255 + 0.5).astype(np.uint8)
        yield name, img.astype(np.uint8)


def lowpass_psnr(ref, out, sigma=1.5):
    a = gaussian_filter(ref.astype(np.float64), sigma)
    b = gaussian_filter(out.astype(np.float64), sigma)
    mse = np.mean((a - b) ** 2)
    return 10 * np.log10(255.0 ** 2 / mse)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool")
    args = ap.parse_args()
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        tool = args.tool or build_tool(tmp)
        for name, img in photos():
            src = os.path.join(tmp, name + ".pgm")
            dst = os.path.join(tmp, name + "-out.pgm")
            h, w = img.shape
            with open(src, "wb") as f:
                f.write(b"P5\n%d %d\n255\n" % (w, h) + img.tobytes())
            subprocess.check_call([tool, src, dst])
            with open(dst, "rb") as f:
                raw = f.read()
            ours = np.frombuffer(raw[-w * h:], dtype=np.uint8).reshape(h, w)
            pil = np.asarray(Image.fromarray(img).convert("1"), dtype=np.uint8) * 255
            p_ours, p_pil = lowpass_psnr(img, ours), lowpass_psnr(img, pil)
            worst = min(worst, p_ours - p_pil)
            print(f"{name:10s} {w}x{h}: ours {p_ours:6.2f} dB, Pillow {p_pil:6.2f} dB, "
                  f"difference {p_ours - p_pil:+.2f} dB, mean in {img.mean():.1f} "
                  f"ours {ours.mean():.1f} Pillow {pil.mean():.1f}")
    ok = worst >= -0.1
    print("PASS" if ok else "FAIL: ours is worse than Pillow's")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
