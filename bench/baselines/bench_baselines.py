#!/usr/bin/env python3
"""Baselines users would otherwise pick, at the sizes of the kernel benches:
PyTorch on the GPU and OpenCV on the CPU, for every family.

  integral   torch.cumsum twice (uint8 -> int32 / int64), cv2.integral
  histogram  torch.histc (on float), torch.bincount, cv2.calcHist;
             one plane and R, G, B of RGBA (three calls each)
  boxfilter  torch avg_pool2d after replicate padding (k x k, and 1 x k then
             k x 1), a cumsum SAT and a 4-tap gather (integer, rounded like
             ours), cv2.blur with BORDER_REPLICATE
  equalize   torch histc + cumsum + gather (cv::equalizeHist's LUT),
             cv2.equalizeHist, cv2.createCLAHE 8x8 clip 40

GPU times: CUDA events around one call on the current stream after warm-up,
one event sync per run (as bench/common does), median; input warm in L2 like
the kernel benches'. CPU times: perf_counter, median. Every result is checked
against a NumPy reference first ("correct" 1/0; box filters that round
differently give "pct_equal" and "max_diff"). JSON lines as bench/common's
(bench, device, variant, width, height, median_ms, ...) plus "library".

Usage: bench_baselines.py [--runs N] [--quick] [--json PATH]
                          [--families integral,histogram,boxfilter,equalize]
Without NumPy, PyTorch (CUDA) or OpenCV the parts that need them are skipped
with a line that says so (exit status 0)."""
import argparse
import json
import statistics
import sys
import time

FAMILIES = ("integral", "histogram", "boxfilter", "equalize")


def sizes_for(family, quick):
    """The kernel benches' sizes (bench/<family>/bench_<family>.cu)."""
    full = {
        "integral": [(1920, 1080), (3840, 2160), (7680, 4320), (16384, 16384)],
        "histogram": [(1920, 1080), (3840, 2160), (7680, 4320), (16384, 16384)],
        "boxfilter": [(1920, 1080), (3840, 2160), (7680, 4320)],
        "equalize": [(1920, 1080), (3840, 2160)],
    }[family]
    if quick:
        return [s for s in full if s[0] <= 3840]
    return full


class Out:
    """JSON lines (appended to --json, as bench/common's JsonLines) and the
    rows of the closing table."""

    def __init__(self, path):
        self.f = open(path, "a") if path else None
        self.rows = []

    def emit(self, rec):
        line = json.dumps(rec)
        if self.f:
            self.f.write(line + "\n")
            self.f.flush()
        self.rows.append(rec)
        extra = "".join(" %s=%s" % (k, rec[k]) for k in
                        ("content", "case", "radius", "pct_equal") if k in rec)
        ok = "" if rec.get("correct", 1) else "  WRONG"
        print("  %-9s %-30s %5dx%-5d %10.4f ms (runs %d)%s%s" % (
            rec["bench"], rec["variant"], rec["width"], rec["height"],
            rec["median_ms"], rec["runs"], extra, ok), flush=True)

    def emitter(self, base):
        """emit(bench, variant, w, h, timing, **fields) for one library
        (base: its device and library fields)."""
        def emit(bench, variant, w, h, t, **kw):
            self.emit({"bench": bench, **base, "variant": variant,
                       "width": w, "height": h, **t, **kw})
        return emit

    def table(self):
        if not self.rows:
            return
        print("\n%-9s %-9s %-30s %-11s %-16s %11s %11s" % (
            "family", "library", "variant", "size", "case", "median ms",
            "min ms"))
        for r in self.rows:
            case = " ".join(str(r[k]) for k in ("case", "content", "input")
                            if k in r)
            if "radius" in r:
                case = "r=%d" % r["radius"]
            print("%-9s %-9s %-30s %-11s %-16s %11.4f %11.4f%s" % (
                r["bench"], r["library"], r["variant"],
                "%dx%d" % (r["width"], r["height"]), case, r["median_ms"],
                r["min_ms"], "" if r.get("correct", 1) else "  WRONG"))


_said = set()


def say(line):
    """Prints a line once (the parts run once per family)."""
    if line not in _said:
        _said.add(line)
        print(line, flush=True)


def timed_runs(once, runs, budget_s):
    """Warm-up, then up to `runs` timings (at least 5) within about
    budget_s seconds: slow baselines (a 201 x 201 average pool, CPU SATs of
    16384^2) would otherwise take minutes."""
    once()
    once()
    first = once()
    n = max(5, min(runs, int(budget_s * 1e3 / max(first, 1e-3))))
    ts = sorted(once() for _ in range(n))
    return ts


def stats(ts):
    return {"median_ms": statistics.median(ts), "min_ms": ts[0],
            "max_ms": ts[-1], "runs": len(ts)}


# ---- inputs (NumPy) ----------------------------------------------------------

def make_input(np, w, h, content, seed=7):
    """random / constant / natural as bench_histogram's fill_kernel (natural:
    smooth waves plus 4-bit noise), built in row chunks (16384^2 fits)."""
    if content == "constant":
        return np.full((h, w), 117, np.uint8)
    rng = np.random.default_rng(seed)
    if content == "random":
        return rng.integers(0, 256, (h, w), dtype=np.uint8)
    out = np.empty((h, w), np.uint8)
    fx = (np.arange(w, dtype=np.float32) / 97.0)[None, :]
    for y0 in range(0, h, 1024):
        fy = (np.arange(y0, min(h, y0 + 1024), dtype=np.float32) / 71.0)[:, None]
        b = 110 + 60 * np.sin(fx) * np.cos(fy * 0.7) + 40 * np.sin((fx + fy) * 0.3)
        b += rng.integers(0, 16, b.shape).astype(np.float32) - 7.5
        out[y0:y0 + b.shape[0]] = np.clip(np.rint(b), 0, 255).astype(np.uint8)
    return out


def rgba_cases(np, w, h):
    """(content, RGBA frame, R/G/B counts) as bench_histogram's rgba cases:
    none above 7680 wide (1 GB of RGBA)."""
    if w > 7680:
        return
    for content in ("random", "constant", "natural"):
        rgba = np.stack([make_input(np, w, h, content, seed=7 + c)
                         for c in range(4)], axis=-1)
        yield content, rgba, [np.bincount(rgba[..., c].ravel(), minlength=256)
                              for c in range(3)]


def ref_sat(np, img):
    """(H+1) x (W+1) int64, zero first row and column (OpenCV's layout)."""
    s = np.zeros((img.shape[0] + 1, img.shape[1] + 1), np.int64)
    np.cumsum(img, axis=0, dtype=np.int64, out=s[1:, 1:])
    np.cumsum(s[1:, 1:], axis=1, out=s[1:, 1:])
    return s


def ref_box(np, img, r):
    """Mean of the (2r+1)^2 box, border replicate, (sum + area/2) / area as
    the kernel library's box_round_div."""
    h, w = img.shape
    p = np.pad(img, r, mode="edge")
    s = ref_sat(np, p)
    k = 2 * r + 1
    tot = s[k:k + h, k:k + w] - s[0:h, k:k + w] - s[k:k + h, 0:w] + s[0:h, 0:w]
    area = k * k
    return ((tot + area // 2) // area).astype(np.uint8)


def ref_equalize_lut(np, img):
    """cv::equalizeHist's LUT."""
    hist = np.bincount(img.ravel(), minlength=256)
    i0 = int(np.nonzero(hist)[0][0])
    total = img.size
    if hist[i0] == total:
        return np.full(256, i0, np.uint8)
    # float32 throughout, as OpenCV's (255.f / n) * sum and its cvRound
    scale = np.float32(255.0) / np.float32(total - hist[i0])
    cdf = np.cumsum(hist)
    lut = np.clip(np.rint((cdf - hist[i0]).astype(np.float32) * scale), 0, 255)
    lut[:i0] = 0
    return lut.astype(np.uint8)


def box_agreement(np, got, want):
    d = np.abs(got.astype(np.int16) - want.astype(np.int16))
    return {"pct_equal": round(100.0 * float((d == 0).mean()), 3),
            "max_diff": int(d.max())}


# ---- PyTorch on the GPU ------------------------------------------------------

def torch_part(np, a, out, families):
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        say("# skip: PyTorch not available (PyTorch baselines)")
        return
    if not torch.cuda.is_available():
        say("# skip: PyTorch has no CUDA device (PyTorch baselines)")
        return
    dev = torch.cuda.get_device_name()
    base = {"device": dev, "library": "torch %s" % torch.__version__}
    say("== PyTorch %s on %s" % (torch.__version__, dev))

    def gpu_time(fn):
        def once():
            s = torch.cuda.Event(enable_timing=True)
            e = torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            e.synchronize()
            return s.elapsed_time(e)
        torch.cuda.synchronize()
        return stats(timed_runs(once, a.runs, 1.0))

    emit = out.emitter(base)

    if "integral" in families:
        for w, h in sizes_for("integral", a.quick):
            img = make_input(np, w, h, "random")
            want = ref_sat(np, img)[1:, 1:]
            x = torch.from_numpy(img).cuda()
            for name, dt, mask in (("torch cumsum int32", torch.int32, 0xffffffff),
                                   ("torch cumsum int64", torch.int64, None)):
                def f(x=x, dt=dt):
                    return torch.cumsum(torch.cumsum(x, 0, dtype=dt), 1)
                got = f().cpu().numpy().astype(np.int64)
                ok = np.array_equal(got & mask, want & mask) if mask else \
                    np.array_equal(got, want)
                del got
                t = gpu_time(f)
                es = 4 if dt == torch.int32 else 8
                gbs = (w * h + w * h * es) / (t["median_ms"] * 1e6)
                emit("integral", name, w, h, t, size="%dx%d" % (w, h),
                     input="random", gbs=gbs, correct=int(ok))
            del x, want
            torch.cuda.empty_cache()

    if "histogram" in families:
        for w, h in sizes_for("histogram", a.quick):
            for content in ("random", "constant", "natural"):
                img = make_input(np, w, h, content)
                want = np.bincount(img.ravel(), minlength=256)
                x = torch.from_numpy(img).cuda()
                variants = [
                    ("torch histc", lambda x=x: torch.histc(
                        x.float(), bins=256, min=0, max=255)),
                    ("torch bincount", lambda x=x: torch.bincount(
                        x.view(-1), minlength=256)),
                ]
                for name, f in variants:
                    try:
                        got = f().cpu().numpy().astype(np.int64)
                    except RuntimeError as e:   # bincount of uint8 refused
                        print("# %s: %s" % (name, e))
                        continue
                    t = gpu_time(f)
                    emit("histogram", name, w, h, t, case="plane",
                         content=content, bins=256,
                         input_gbs=w * h / (t["median_ms"] * 1e6),
                         correct=int(np.array_equal(got, want)))
                del x
            # R, G, B of RGBA: one call per channel, as a user would
            for content, rgba, want in rgba_cases(np, w, h):
                x = torch.from_numpy(rgba).cuda()

                def f(x=x):
                    return [torch.histc(x[..., c].float(), bins=256, min=0,
                                        max=255) for c in range(3)]
                got = [g.cpu().numpy().astype(np.int64) for g in f()]
                t = gpu_time(f)
                emit("histogram", "torch histc x3", w, h, t, case="rgba",
                     content=content, bins=256,
                     input_gbs=4 * w * h / (t["median_ms"] * 1e6),
                     correct=int(all(np.array_equal(g, ww)
                                     for g, ww in zip(got, want))))
                del x

    if "boxfilter" in families:
        for w, h in sizes_for("boxfilter", a.quick):
            img = make_input(np, w, h, "random")
            x = torch.from_numpy(img).cuda()
            for r in (1, 15, 100):
                want = ref_box(np, img, r)
                k = 2 * r + 1

                def pool(x=x, r=r, k=k):
                    p = F.pad(x.float()[None, None], (r, r, r, r),
                              mode="replicate")
                    return torch.round(F.avg_pool2d(p, k, stride=1))[0, 0] \
                        .to(torch.uint8)

                def pool_sep(x=x, r=r, k=k):
                    p = F.pad(x.float()[None, None], (r, r, r, r),
                              mode="replicate")
                    p = F.avg_pool2d(p, (1, k), stride=1)
                    return torch.round(F.avg_pool2d(p, (k, 1), stride=1))[0, 0] \
                        .to(torch.uint8)

                def sat(x=x, r=r, k=k):
                    p = F.pad(x[None, None].float(), (r + 1, r, r + 1, r),
                              mode="replicate")[0, 0].to(torch.int32)
                    p[0, :] = 0
                    p[:, 0] = 0
                    s = torch.cumsum(torch.cumsum(p, 0), 1)
                    tot = s[k:, k:] - s[:-k, k:] - s[k:, :-k] + s[:-k, :-k]
                    return torch.div(tot + k * k // 2, k * k,
                                     rounding_mode="floor").to(torch.uint8)

                for name, f in (("torch avg_pool2d kxk", pool),
                                ("torch avg_pool2d 1xk+kx1", pool_sep),
                                ("torch cumsum SAT gather", sat)):
                    got = f().cpu().numpy()
                    agree = box_agreement(np, got, want)
                    t = gpu_time(f)
                    emit("boxfilter", name, w, h, t, border="replicate",
                         radius=r, verified="yes" if agree["max_diff"] == 0
                         else "no", correct=int(agree["max_diff"] <= 1),
                         **agree)
            del x
            torch.cuda.empty_cache()

    if "equalize" in families:
        for w, h in sizes_for("equalize", a.quick):
            img = make_input(np, w, h, "natural")
            want = ref_equalize_lut(np, img)[img]
            x = torch.from_numpy(img).cuda()

            def eq(x=x):
                hist = torch.histc(x.float(), bins=256, min=0, max=255) \
                    .to(torch.int64)
                cdf = torch.cumsum(hist, 0)
                i0 = torch.nonzero(hist)[0, 0]
                lo = hist[i0]
                scale = 255.0 / torch.clamp(x.numel() - lo, min=1).float()
                lut = torch.clamp(torch.round((cdf - lo).float() * scale), 0,
                                  255).to(torch.uint8)
                return torch.gather(lut, 0, x.flatten().long()).view_as(x)
            got = eq().cpu().numpy()
            t = gpu_time(eq)
            # the variant name of the earlier runs (RESULTS.md, round 2)
            emit("equalize", "torch_histc_cumsum_gather", w, h, t,
                 gbs=2 * w * h / (t["median_ms"] * 1e6),
                 correct=int(np.array_equal(got, want)))
            del x


# ---- OpenCV on the CPU -------------------------------------------------------

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "cpu"


def opencv_part(np, a, out, families):
    try:
        import cv2
    except ImportError:
        say("# skip: OpenCV (cv2) not available (OpenCV baselines)")
        return
    if a.cv_threads is not None:
        cv2.setNumThreads(a.cv_threads)
    dev = "%s, %d threads" % (cpu_model(), cv2.getNumThreads())
    base = {"device": dev, "library": "opencv %s" % cv2.__version__}
    say("== OpenCV %s on the CPU (%s)" % (cv2.__version__, dev))

    def cpu_time(fn):
        def once():
            t = time.perf_counter()
            fn()
            return (time.perf_counter() - t) * 1e3
        return stats(timed_runs(once, a.runs, 2.0))

    emit = out.emitter(base)

    if "integral" in families:
        for w, h in sizes_for("integral", a.quick):
            img = make_input(np, w, h, "random")
            want = ref_sat(np, img)
            got = cv2.integral(img)        # int32, wraps past 2^31
            ok = np.array_equal(got.astype(np.int64) & 0xffffffff,
                                want & 0xffffffff)
            del got, want
            t = cpu_time(lambda img=img: cv2.integral(img))
            emit("integral", "opencv integral 8u32s", w, h, t,
                 size="%dx%d" % (w, h), input="random",
                 gbs=(w * h + (w + 1) * (h + 1) * 4) / (t["median_ms"] * 1e6),
                 correct=int(ok))

    if "histogram" in families:
        for w, h in sizes_for("histogram", a.quick):
            for content in ("random", "constant", "natural"):
                img = make_input(np, w, h, content)
                want = np.bincount(img.ravel(), minlength=256)

                def f(img=img):
                    return cv2.calcHist([img], [0], None, [256], [0, 256])
                ok = np.array_equal(f().ravel().astype(np.int64), want)
                t = cpu_time(f)
                emit("histogram", "opencv calcHist", w, h, t, case="plane",
                     content=content, bins=256,
                     input_gbs=w * h / (t["median_ms"] * 1e6), correct=int(ok))
            for content, rgba, want in rgba_cases(np, w, h):

                def f(rgba=rgba):
                    return [cv2.calcHist([rgba], [c], None, [256], [0, 256])
                            for c in range(3)]
                ok = all(np.array_equal(g.ravel().astype(np.int64), ww)
                         for g, ww in zip(f(), want))
                t = cpu_time(f)
                emit("histogram", "opencv calcHist x3", w, h, t, case="rgba",
                     content=content, bins=256,
                     input_gbs=4 * w * h / (t["median_ms"] * 1e6),
                     correct=int(ok))

    if "boxfilter" in families:
        for w, h in sizes_for("boxfilter", a.quick):
            img = make_input(np, w, h, "random")
            for r in (1, 15, 100):
                want = ref_box(np, img, r)
                k = 2 * r + 1

                def f(img=img, k=k):
                    return cv2.blur(img, (k, k),
                                    borderType=cv2.BORDER_REPLICATE)
                agree = box_agreement(np, f(), want)
                t = cpu_time(f)
                emit("boxfilter", "opencv blur", w, h, t, border="replicate",
                     radius=r, verified="yes" if agree["max_diff"] == 0
                     else "no", correct=int(agree["max_diff"] <= 1), **agree)

    if "equalize" in families:
        for w, h in sizes_for("equalize", a.quick):
            img = make_input(np, w, h, "natural")
            want = ref_equalize_lut(np, img)[img]
            clahe = cv2.createCLAHE(clipLimit=40.0, tileGridSize=(8, 8))
            for name, fn, check in (
                    ("opencv_equalizeHist", lambda img=img: cv2.equalizeHist(img),
                     True),
                    ("opencv_clahe_8x8", lambda img=img: clahe.apply(img), False)):
                # (CLAHE: no NumPy reference; compare_opencv.py checks ours)
                ok = {"correct": int(np.array_equal(fn(), want))} if check \
                    else {}
                t = cpu_time(fn)
                emit("equalize", name, w, h, t,
                     gbs=2 * w * h / (t["median_ms"] * 1e6), **ok)


def self_test(np):
    """The NumPy references against plain loops on small frames (a CPU test:
    tests/meson.build runs it); returns the number of failures."""
    fails = 0

    def check(what, ok):
        nonlocal fails
        if not ok:
            fails += 1
            print("FAIL: " + what)

    rng = np.random.default_rng(1)
    for w, h in ((1, 1), (37, 23), (5, 64)):
        img = rng.integers(0, 256, (h, w), dtype=np.uint8)
        s = ref_sat(np, img)
        naive = np.zeros((h + 1, w + 1), np.int64)
        for y in range(h):
            for x in range(w):
                naive[y + 1, x + 1] = int(img[:y + 1, :x + 1].sum())
        check("sat %dx%d" % (w, h), np.array_equal(s, naive))
        for r in (0, 1, 2, 7, 40):
            box = ref_box(np, img, r)
            want = np.zeros_like(img)
            area = (2 * r + 1) ** 2
            for y in range(h):
                for x in range(w):
                    t = 0
                    for dy in range(-r, r + 1):
                        for dx in range(-r, r + 1):
                            t += int(img[min(max(y + dy, 0), h - 1),
                                         min(max(x + dx, 0), w - 1)])
                    want[y, x] = (t + area // 2) // area
            check("box %dx%d r=%d" % (w, h, r), np.array_equal(box, want))
    for img in (make_input(np, 64, 48, "natural"),
                np.array([[3, 3, 200, 3]], np.uint8),
                np.array([[0, 255, 255, 17, 17, 17]], np.uint8),
                np.full((4, 4), 9, np.uint8)):
        hist = [0] * 256
        for v in img.ravel():
            hist[int(v)] += 1
        i0 = next(i for i in range(256) if hist[i])
        lut = [0] * 256
        if hist[i0] == img.size:
            lut = [i0] * 256
        else:   # cv::equalizeHist
            scale = np.float32(255.0) / np.float32(img.size - hist[i0])
            acc = 0
            for i in range(i0 + 1, 256):
                acc += hist[i]
                lut[i] = int(min(255, np.rint(np.float32(acc) * scale)))
        check("equalize lut %s" % (img.shape,),
              list(ref_equalize_lut(np, img)[img.ravel()]) ==
              [lut[int(v)] for v in img.ravel()])
    for content in ("random", "constant", "natural"):
        im = make_input(np, 33, 2050, content)
        check("input %s" % content, im.shape == (2050, 33) and
              im.dtype == np.uint8 and (content != "constant" or
                                        int(im.min()) == int(im.max()) == 117))
    agree = box_agreement(np, np.array([[1, 2]], np.uint8),
                          np.array([[1, 4]], np.uint8))
    check("box agreement", agree == {"pct_equal": 50.0, "max_diff": 2})
    ts = timed_runs(lambda: 1.0, 7, 1.0)
    check("timed runs", len(ts) == 7 and stats(ts)["median_ms"] == 1.0)
    print("self-test: %s" % ("%d failures" % fails if fails else "passed"))
    return fails


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=100,
                    help="timed runs per case, at most (default 100)")
    ap.add_argument("--quick", action="store_true",
                    help="sizes up to 3840x2160 only")
    ap.add_argument("--json", help="append JSON lines to this file")
    ap.add_argument("--families", default=",".join(FAMILIES),
                    help="comma-separated subset of " + ",".join(FAMILIES))
    ap.add_argument("--cv-threads", type=int, default=None,
                    help="cv2.setNumThreads (default: OpenCV's, all cores)")
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--no-opencv", action="store_true")
    ap.add_argument("--self-test", action="store_true",
                    help="check the NumPy references (no GPU; exit 77 "
                    "without NumPy)")
    a = ap.parse_args()
    families = [f for f in a.families.split(",") if f]
    bad = [f for f in families if f not in FAMILIES]
    if bad:
        ap.error("unknown families: " + ",".join(bad))
    try:
        import numpy as np
    except ImportError:
        print("# skip: NumPy not available: no baselines (python %s)"
              % sys.version.split()[0])
        return 77 if a.self_test else 0
    if a.self_test:
        return 1 if self_test(np) else 0
    out = Out(a.json)
    parts = ([] if a.no_torch else [torch_part]) + \
        ([] if a.no_opencv else [opencv_part])
    for part in parts:
        for family in families:
            # one family's failure (an API a library version lacks) loses
            # only that family's lines
            try:
                part(np, a, out, [family])
            except Exception as e:
                print("# FAILED: %s %s: %s: %s" % (part.__name__, family,
                                                   type(e).__name__, e))
    out.table()
    if any(not r.get("correct", 1) for r in out.rows):
        print("# some baselines disagree with the NumPy reference (WRONG)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
