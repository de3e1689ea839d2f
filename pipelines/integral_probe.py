#!/usr/bin/env python3
"""Python example: reads the metas of cudaintegral and cudahistogram through
GObject introspection (PyGObject, namespace GstCudaImgproc) and checks them
against numbers computed here from the frame's own pixels.

    python3 pipelines/integral_probe.py [--frames N] [--width W] [--height H]
        [--format GRAY8|NV12|I420] [--bins B] [--compute auto|gpu|cpu] [--probe]

The pipeline (videotestsrc ! cudaintegral squared=true ! cudahistogram !
appsink, scrolling SMPTE bars) runs on the GPU when a CUDA device works, else on the CPU. Frames
are read from an appsink, or with --probe from a buffer probe on a fakesink's
sink pad (the other usual place). For every frame it prints rectangle sums,
the mean and standard deviation of the rectangles (from the sum and squared
tables) and statistics of the luma histogram; it exits 1 if any number differs
from the one computed in Python.

From a build directory (here build/):
    GI_TYPELIB_PATH=build/gst-libs LD_LIBRARY_PATH=build/gst-libs \\
    GST_PLUGIN_PATH=build/plugins python3 pipelines/integral_probe.py
Installed (meson install), the typelib and the plugin are found as they are.
"""
import argparse
import random
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import Gst, GstApp, GstVideo  # noqa: E402

try:
    gi.require_version("GstCudaImgproc", "1.0")
    from gi.repository import GstCudaImgproc as Cip  # noqa: E402
except (ValueError, ImportError) as e:
    sys.exit(f"GstCudaImgproc-1.0 not found ({e}): set GI_TYPELIB_PATH and "
             "LD_LIBRARY_PATH to the build's gst-libs directory")


def luma_plane(buf, info):
    """Plane 0 (Y, or GRAY8) of a frame as a list of rows of bytes."""
    data = buf.extract_dup(0, buf.get_size())
    offset, stride = info.offset[0], info.stride[0]
    vmeta = GstVideo.buffer_get_video_meta(buf)
    if vmeta:  # the producer's own layout (padded rows)
        offset, stride = vmeta.offset[0], vmeta.stride[0]
    w, h = info.width, info.height
    return [data[offset + y * stride:offset + y * stride + w] for y in range(h)]


def rect_sums(rows, x, y, w, h):
    s = sq = 0
    for row in rows[y:y + h]:
        part = row[x:x + w]
        s += sum(part)
        sq += sum(v * v for v in part)
    return s, sq


class Checker:
    def __init__(self, bins, seed=1):
        self.bins = bins
        self.frames = 0
        self.errors = 0
        self.rng = random.Random(seed)

    def fail(self, what):
        print(f"  MISMATCH: {what}")
        self.errors += 1

    def frame(self, buf, info):
        rows = luma_plane(buf, info)
        w, h = info.width, info.height
        print(f"frame {self.frames} ({w}x{h} {info.finfo.name}):")
        self.frames += 1

        sat = Cip.buffer_get_integral_image_meta(buf)
        if sat is None:
            return self.fail("no GstIntegralImageMeta on the buffer")
        if (sat.width, sat.height, sat.plane) != (w + 1, h + 1, 0):
            self.fail(f"table {sat.width}x{sat.height} plane {sat.plane}")
        # the centre half, the whole frame, a corner pixel, random rectangles
        rects = [(w // 4, h // 4, w // 2, h // 2), (0, 0, w, h),
                 (w - 1, h - 1, 1, 1)]
        for _ in range(3):
            rx, ry = self.rng.randrange(w), self.rng.randrange(h)
            rects.append((rx, ry, self.rng.randint(1, w - rx),
                          self.rng.randint(1, h - ry)))
        wrap = sat.type == Cip.IntegralImageType.U32
        for (x, y, rw, rh) in rects:
            ok, s = sat.rect_sum(x, y, rw, rh)
            ok2, sq = sat.rect_sqsum(x, y, rw, rh)
            want, want_sq = rect_sums(rows, x, y, rw, rh)
            if wrap:  # u32 tables: exact below 2^32, modulo 2^32 above
                want %= 1 << 32
            n = rw * rh
            mean = s / n
            std = max(sq / n - mean * mean, 0.0) ** 0.5
            print(f"  rect ({x},{y}) {rw}x{rh}: sum {s} sqsum {sq} "
                  f"mean {mean:.2f} std {std:.2f}")
            if not (ok and ok2) or (s, sq) != (want, want_sq):
                self.fail(f"rect ({x},{y}) {rw}x{rh}: meta {ok} {s} {ok2} "
                          f"{sq}, python {want} {want_sq}")
        # outside the plane: refused, not garbage
        if sat.rect_sum(0, 0, w + 1, h)[0]:
            self.fail("a rectangle wider than the frame was accepted")

        hist = Cip.buffer_get_histogram_meta(buf)
        if hist is None:
            return self.fail("no GstHistogramMeta on the buffer")
        names = hist.get_names()
        counts = hist.get_counts("luma")
        want = [0] * self.bins
        for row in rows:
            for v in row:
                want[v * self.bins // 256] += 1
        total = sum(counts)
        # statistics from the bins (values at bin centres)
        width = 256 / hist.bins
        mean = sum((b + 0.5) * width * c for b, c in enumerate(counts)) / total
        acc, median = 0, 0
        for b, c in enumerate(counts):
            acc += c
            if 2 * acc >= total:
                median = b
                break
        used = [b for b, c in enumerate(counts) if c]
        print(f"  histogram {names} {hist.bins} bins over "
              f"({hist.roi_x},{hist.roi_y}) {hist.roi_width}x{hist.roi_height}: "
              f"{total} pixels, mean ~{mean:.1f} (exact {rect_sums(rows, 0, 0, w, h)[0] / (w * h):.1f}), "
              f"median bin {median}, fullest bin {counts.index(max(counts))}, "
              f"bins used {used[0]}..{used[-1]}")
        if hist.bins <= 32:
            print(f"    counts {list(counts)}")
        if names != ["luma"] or hist.bins != self.bins or list(counts) != want:
            self.fail(f"histogram {names} {hist.bins} bins {list(counts)}, "
                      f"python {want}")
        if (hist.roi_x, hist.roi_y, hist.roi_width, hist.roi_height) != (0, 0, w, h):
            self.fail("histogram region is not the frame")
        if len(hist.get_counts("nope")) != 0:
            self.fail("a histogram that does not exist has counts")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=3)
    ap.add_argument("--width", type=int, default=320)
    ap.add_argument("--height", type=int, default=240)
    ap.add_argument("--format", default="NV12", choices=["GRAY8", "NV12", "I420"])
    ap.add_argument("--bins", type=int, default=16)
    ap.add_argument("--compute", default="auto", choices=["auto", "gpu", "cpu"])
    ap.add_argument("--probe", action="store_true",
                    help="read frames in a pad probe instead of an appsink")
    args = ap.parse_args()

    Gst.init(None)
    sink = ("fakesink name=sink" if args.probe else
            "appsink name=sink sync=false")
    # SMPTE bars scrolling 8 pixels a frame: every frame differs
    desc = (f"videotestsrc num-buffers={args.frames} pattern=smpte "
            f"horizontal-speed=8 ! "
            f"video/x-raw,format={args.format},width={args.width},"
            f"height={args.height} ! "
            f"cudaintegral compute={args.compute} squared=true ! "
            f"cudahistogram compute={args.compute} bins={args.bins} ! {sink}")
    print(f"pipeline: {desc}")
    pipeline = Gst.parse_launch(desc)
    sink = pipeline.get_by_name("sink")
    check = Checker(args.bins)
    info = None

    if args.probe:
        pad = sink.get_static_pad("sink")

        def on_buffer(pad, probe_info):
            caps = pad.get_current_caps()
            check.frame(probe_info.get_buffer(),
                        GstVideo.VideoInfo.new_from_caps(caps))
            return Gst.PadProbeReturn.OK

        pad.add_probe(Gst.PadProbeType.BUFFER, on_buffer)
        pipeline.set_state(Gst.State.PLAYING)
    else:
        pipeline.set_state(Gst.State.PLAYING)
        while True:
            sample = sink.pull_sample()
            if sample is None:
                break
            if info is None:
                info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
            check.frame(sample.get_buffer(), info)

    msg = pipeline.get_bus().timed_pop_filtered(
        10 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if msg is None or msg.type == Gst.MessageType.ERROR:
        err = msg.parse_error()[0].message if msg else "no EOS within 10 s"
        sys.exit(f"pipeline failed: {err}")
    if check.frames != args.frames:
        sys.exit(f"{check.frames} frames seen, {args.frames} expected")
    print(f"{check.frames} frames, {check.errors} mismatches")
    return 1 if check.errors else 0


if __name__ == "__main__":
    sys.exit(main())
