#!/usr/bin/env python3
"""Python example: the tracker of pipelines/track.c through GObject
introspection (PyGObject, namespace GstCudaImgproc): follows a bright target
(hot spot, laser spot, LED) from frame to frame using only the
GstIntegralImageMeta of cudaintegral sat-type=u64 squared=true.

    python3 pipelines/track.py [--frames N] [--width W] [--height H]
        [--format F] [--compute auto|gpu|cpu] [--camera [--device DEV] |
        --file PATH | --source DESC] [--upload] [--box WxH] [--margin M]
        [--radius R] [--noise-floor S] [--min-score S] [--strip-every N]
        [--strip-dir DIR] [--check-ball] [--tolerance PX] [--quiet]

Each frame, every box whose top-left corner lies within --radius pixels of
the last one is scored from the two tables with 16 reads, whatever the box
size, and the box moves to the best. The score, as in track.c (where its
choice is explained), is the window's signal-to-clutter ratio against the ring
of --margin pixels around it:

    (mean(box) - mean(ring)) / sqrt(var(ring) + noise_floor^2)

Only the table rows the search needs are read (Gst.Buffer.extract_dup), and
scored in plain Python: about 2 us a candidate in CPython 3.11, so keep
--radius small for real time (track.c does the same in C, ~30 ns a candidate).

Output: "frame x y score" per frame on stdout ("ball-error" appended with
--check-ball), printed from the "track" element messages the tracker posts on
the bus; other lines start with '#'. Every --strip-every'th frame is written
with the box as PNG into --strip-dir (default: a new temporary folder).
--check-ball compares the track with videotestsrc's ball (its centre is a
known function of the frame number) and exits 1 beyond --tolerance pixels.

From a build directory (here build/):
    GI_TYPELIB_PATH=build/gst-libs LD_LIBRARY_PATH=build/gst-libs \\
    GST_PLUGIN_PATH=build/plugins python3 pipelines/track.py --check-ball
"""
import argparse
import math
import os
import sys
import tempfile
import threading
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GLib, Gst, GstVideo  # noqa: E402

try:
    gi.require_version("GstCudaImgproc", "1.0")
    from gi.repository import GstCudaImgproc as Cip  # noqa: E402
except (ValueError, ImportError) as e:
    sys.exit(f"GstCudaImgproc-1.0 not found ({e}): set GI_TYPELIB_PATH and "
             "LD_LIBRARY_PATH to the build's gst-libs directory")


def ball_centre(n, w, h):
    """Centre of videotestsrc pattern=ball (wavy, frames) in frame n: the
    arithmetic of gst_video_test_src_ball() in gst-plugins-base 1.22/1.26."""
    rad = 2 * math.pi * (n / 200)
    return (20 + (0.5 + 0.5 * math.sin(rad)) * (w - 40),
            20 + (0.5 + 0.5 * math.sin(rad * math.sqrt(2))) * (h - 40))


def table_rows(table, stride, ty0, ty1, tx1):
    """Rows ty0..ty1 (columns 0..tx1) of a guint64 table as one flat view."""
    if stride % 8:
        raise ValueError(f"table stride {stride} is not a multiple of 8")
    data = table.extract_dup(ty0 * stride,
                             (ty1 - ty0) * stride + (tx1 + 1) * 8)
    return memoryview(data).cast("Q"), stride // 8


def draw_box(pixels, vinfo, bx, by, bw, bh):
    """A red frame around the box, drawn into RGBA pixels (a bytearray)."""
    t = max(2, vinfo.width // 320)
    stride, base = vinfo.stride[0], vinfo.offset[0]

    def fill(x0, y0, x1, y1):
        x0, x1 = max(x0, 0), min(x1, vinfo.width)
        for y in range(max(y0, 0), min(y1, vinfo.height)):
            if x1 > x0:
                o = base + y * stride + 4 * x0
                pixels[o:o + 4 * (x1 - x0)] = b"\xff\x20\x20\xff" * (x1 - x0)
    x1, y1 = bx + bw, by + bh
    fill(bx - t, by - t, x1 + t, by)
    fill(bx - t, y1, x1 + t, y1 + t)
    fill(bx - t, by, bx, y1)
    fill(x1, by, x1 + t, y1)


class Tracker:
    def __init__(self, a):
        self.bw, self.bh = a.box
        self.m, self.r = a.margin, a.radius
        self.nf2 = a.noise_floor * a.noise_floor
        self.min_score = a.min_score
        self.check, self.tolerance = a.check_ball, a.tolerance
        self.locked = False
        self.bx = self.by = 0
        self.frames = 0
        self.max_err, self.over = 0.0, 0
        self.lock = threading.Lock()
        self.recent = {}        # pts -> box, for the drawing probe
        self.failure = None
        self.eos_sent = False
        self.search_s = 0.0

    def search(self, S, ss, Q, qs, oy, W, H, xa, xb, ya, yb):
        """Best (score, x, y) over top-left corners [xa, xb] x [ya, yb]."""
        bw, bh, m, nf2 = self.bw, self.bh, self.m, self.nf2
        n_in = bw * bh
        best = (-math.inf, xa, ya)
        for y in range(ya, yb + 1):
            oy0, oy1 = max(y - m, 0), min(y + bh + m, H)
            i0, i1 = (y - oy) * ss, (y + bh - oy) * ss
            o0, o1 = (oy0 - oy) * ss, (oy1 - oy) * ss
            j0, j1 = (y - oy) * qs, (y + bh - oy) * qs
            p0, p1 = (oy0 - oy) * qs, (oy1 - oy) * qs
            for x in range(xa, xb + 1):
                ox0, ox1 = max(x - m, 0), min(x + bw + m, W)
                x1 = x + bw
                si = S[i1 + x1] - S[i1 + x] - S[i0 + x1] + S[i0 + x]
                qi = Q[j1 + x1] - Q[j1 + x] - Q[j0 + x1] + Q[j0 + x]
                so = S[o1 + ox1] - S[o1 + ox0] - S[o0 + ox1] + S[o0 + ox0]
                qo = Q[p1 + ox1] - Q[p1 + ox0] - Q[p0 + ox1] + Q[p0 + ox0]
                n_ring = (ox1 - ox0) * (oy1 - oy0) - n_in
                if n_ring < 1:
                    continue
                mean_ring = (so - si) / n_ring
                var_ring = max((qo - qi) / n_ring - mean_ring * mean_ring, 0)
                s = (si / n_in - mean_ring) / math.sqrt(var_ring + nf2)
                if s > best[0]:
                    best = (s, x, y)
        return best

    def frame(self, buf):
        meta = Cip.buffer_get_integral_image_meta(buf)
        if (meta is None or meta.type != Cip.IntegralImageType.U64
                or meta.sqsum is None):
            raise ValueError("frame without a u64 integral image meta with "
                             "its squared table (sat-type=u64 squared=true)")
        W, H = meta.width - 1, meta.height - 1
        bw, bh, m, r = self.bw, self.bh, self.m, self.r
        if bw > W or bh > H:
            raise ValueError(f"the {bw}x{bh} box does not fit a {W}x{H} frame")
        if self.locked:
            xa, xb = max(self.bx - r, 0), min(self.bx + r, W - bw)
            ya, yb = max(self.by - r, 0), min(self.by + r, H - bh)
        else:  # first frame or target lost: the whole frame
            xa, xb, ya, yb = 0, W - bw, 0, H - bh
        ty0, ty1 = max(ya - m, 0), min(yb + bh + m, H)
        tx1 = min(xb + bw + m, W)
        S, ss = table_rows(meta.sum, meta.stride, ty0, ty1, tx1)
        Q, qs = table_rows(meta.sqsum, meta.sq_stride, ty0, ty1, tx1)
        score, bx, by = self.search(S, ss, Q, qs, ty0, W, H, xa, xb, ya, yb)
        if not math.isfinite(score):
            raise ValueError("no box position has a surround ring")
        # sub-pixel: a parabola through the neighbouring scores
        def offset(inside, sx, sy):
            if not inside:
                return 0.0
            lo = self.search(S, ss, Q, qs, ty0, W, H, bx - sx, bx - sx,
                             by - sy, by - sy)[0]
            hi = self.search(S, ss, Q, qs, ty0, W, H, bx + sx, bx + sx,
                             by + sy, by + sy)[0]
            d = lo - 2 * score + hi
            return 0.0 if d >= 0 else max(-0.5, min(0.5, 0.5 * (lo - hi) / d))
        dx = offset(xa < bx < xb, 1, 0)
        dy = offset(ya < by < yb, 0, 1)
        self.bx, self.by = bx, by
        self.locked = score >= self.min_score
        cx, cy = bx + (bw - 1) / 2 + dx, by + (bh - 1) / 2 + dy
        return W, H, bx, by, cx, cy, score


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--frames", type=int, default=300,
                   help="frames to track, 0 = all (300)")
    p.add_argument("--width", type=int, default=1920)
    p.add_argument("--height", type=int, default=1080)
    p.add_argument("--format", default="NV12")
    p.add_argument("--compute", default="auto", choices=["auto", "gpu", "cpu"])
    p.add_argument("--camera", action="store_true",
                   help="track on a camera (v4l2src)")
    p.add_argument("--device", default="/dev/video0")
    p.add_argument("--file", help="track on a video file (decodebin)")
    p.add_argument("--source", help="any source fragment producing raw video")
    p.add_argument("--upload", action="store_true",
                   help="cudaupload before cudaintegral (CUDA memory)")
    p.add_argument("--box", default="32x32",
                   type=lambda s: tuple(int(v) for v in s.split("x")))
    p.add_argument("--margin", type=int, default=-1,
                   help="ring width (half the box's smaller side)")
    p.add_argument("--radius", type=int, default=64)
    p.add_argument("--noise-floor", type=float, default=1.0)
    p.add_argument("--min-score", type=float, default=0.0)
    p.add_argument("--strip-every", type=int, default=30,
                   help="write every Nth frame with the box as PNG, 0 = none")
    p.add_argument("--strip-dir")
    p.add_argument("--check-ball", action="store_true")
    p.add_argument("--tolerance", type=float, default=4.0)
    p.add_argument("--quiet", action="store_true",
                   help="no per-frame lines, only the summary")
    a = p.parse_args()
    if a.margin < 0:
        a.margin = min(a.box) // 2
    if a.margin < 1 or a.radius < 1 or min(a.box) < 1:
        p.error("--margin, --radius and the box must be >= 1")

    Gst.init(None)
    if a.source:
        src = a.source
    elif a.file:
        src = f'filesrc location="{a.file}" ! decodebin ! videoconvert'
    elif a.camera:
        src = f"v4l2src device={a.device} ! videoconvert"
    else:
        src = (f"videotestsrc pattern=ball num-buffers={a.frames or -1} ! "
               f"video/x-raw,format={a.format},width={a.width},"
               f"height={a.height},framerate=30/1")
    if a.file or a.camera:
        src += f" ! video/x-raw,format={a.format}"
    tail = "fakesink sync=false"
    writer = None
    if a.strip_every:
        # the strip: frames with the box drawn here, pushed to a PNG writer
        if a.strip_dir:
            os.makedirs(a.strip_dir, exist_ok=True)
        else:
            a.strip_dir = tempfile.mkdtemp(prefix="track-py-")
        has_dl = Gst.ElementFactory.find("cudadownload") is not None
        dl = "cudadownload ! " if has_dl else ""
        tail = (f"{dl}videoconvert ! video/x-raw,format=RGBA ! appsink "
                "name=strip emit-signals=true sync=false")
        writer = Gst.parse_launch(
            "appsrc name=frames format=time ! pngenc ! multifilesink "
            f'location="{a.strip_dir}/track-%05d.png"')
    desc = (f"{src} ! queue max-size-buffers=4 ! "
            f"{'cudaupload ! ' if a.upload else ''}cudaintegral plane=0 "
            f"sat-type=u64 squared=true compute={a.compute} ! "
            f"identity name=tracker ! {tail}")
    print(f"# pipeline: {desc}")
    try:
        pipeline = Gst.parse_launch(desc)
    except GLib.Error as e:
        print(f"could not build the pipeline: {e.message}", file=sys.stderr)
        return 2
    tr = Tracker(a)
    tracker = pipeline.get_by_name("tracker")
    loop = GLib.MainLoop()

    def send_eos():
        pipeline.send_event(Gst.Event.new_eos())
        return GLib.SOURCE_REMOVE

    def on_buffer(pad, info):
        if tr.failure or (a.frames and tr.frames >= a.frames):
            if not tr.eos_sent:
                tr.eos_sent = True
                GLib.idle_add(send_eos)
            return Gst.PadProbeReturn.DROP
        buf = info.get_buffer()
        t0 = time.perf_counter()
        try:
            W, H, bx, by, cx, cy, score = tr.frame(buf)
        except ValueError as e:
            tr.failure = str(e)
            return Gst.PadProbeReturn.DROP
        if tr.frames:  # the first frame is searched whole
            tr.search_s += time.perf_counter() - t0
        fields = (f"track, frame=(guint64){tr.frames}, x=(double){cx!r}, "
                  f"y=(double){cy!r}, score=(double){score!r}, "
                  f"box-x=(int){bx}, box-y=(int){by}, "
                  f"box-width=(int){tr.bw}, box-height=(int){tr.bh}")
        if tr.check:
            gx, gy = ball_centre(tr.frames, W, H)
            err = math.hypot(cx - gx, cy - gy)
            tr.max_err = max(tr.max_err, err)
            tr.over += err > tr.tolerance
            fields += f", ball-error=(double){err!r}"
        tracker.post_message(Gst.Message.new_element(
            tracker, Gst.Structure.new_from_string(fields)))
        keep = not a.strip_every or tr.frames % a.strip_every == 0
        if keep and a.strip_every:
            with tr.lock:
                tr.recent[buf.pts] = (bx, by, W, H)
        tr.frames += 1
        return Gst.PadProbeReturn.OK if keep else Gst.PadProbeReturn.DROP

    def on_strip_sample(sink):
        sample = sink.emit("pull-sample")
        buf, caps = sample.get_buffer(), sample.get_caps()
        with tr.lock:
            box = tr.recent.pop(buf.pts, None)
        vinfo = GstVideo.VideoInfo.new_from_caps(caps)
        pixels = bytearray(buf.extract_dup(0, buf.get_size()))
        if box:
            draw_box(pixels, vinfo, *box[:2], tr.bw, tr.bh)
        out = Gst.Buffer.new_wrapped(bytes(pixels))
        out.pts, out.duration = buf.pts, buf.duration
        src = writer.get_by_name("frames")
        src.set_property("caps", caps)
        src.emit("push-buffer", out)
        return Gst.FlowReturn.OK

    tracker.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, on_buffer)
    if writer:
        pipeline.get_by_name("strip").connect("new-sample", on_strip_sample)
        writer.set_state(Gst.State.PLAYING)

    rc = [0]

    def on_message(bus, msg):
        if msg.type == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s.get_name() == "track" and not a.quiet:
                line = (f"{s.get_value('frame')} {s.get_value('x'):.2f} "
                        f"{s.get_value('y'):.2f} {s.get_value('score'):.3f}")
                if s.has_field("ball-error"):
                    line += f" {s.get_value('ball-error'):.2f}"
                print(line)
        elif msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            print(f"error from {msg.src.get_name()}: {err.message}\n{dbg}",
                  file=sys.stderr)
            rc[0] = 1
            loop.quit()
        elif msg.type == Gst.MessageType.EOS:
            loop.quit()

    bus = pipeline.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    if a.strip_dir:
        print(f"# PNG strip (every {a.strip_every}th frame, with the box): "
              f"{a.strip_dir}")
    print("# frame x y score" + (" ball-error" if a.check_ball else ""))
    if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        print("the pipeline did not start", file=sys.stderr)
        rc[0] = 1
    else:
        loop.run()
    pipeline.set_state(Gst.State.NULL)
    bus.remove_signal_watch()
    if writer:
        writer.get_by_name("frames").emit("end-of-stream")
        msg = writer.get_bus().timed_pop_filtered(
            10 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if msg is None or msg.type == Gst.MessageType.ERROR:
            print("the PNG strip was not written" + (
                f": {msg.parse_error()[0].message}" if msg else ""),
                file=sys.stderr)
            rc[0] = 1
        writer.set_state(Gst.State.NULL)

    n = min(tr.frames, a.frames) if a.frames else tr.frames
    print(f"# {n} frames, box {tr.bw}x{tr.bh}, ring {tr.m}, radius {tr.r}")
    if n > 1:
        print(f"# search per frame: {tr.search_s / (n - 1) * 1e6:.0f} us mean")
    if tr.failure:
        print(f"tracking failed: {tr.failure}", file=sys.stderr)
        rc[0] = 1
    if a.check_ball:
        print(f"# ball check: largest error {tr.max_err:.2f} px, {tr.over} "
              f"frame(s) over {a.tolerance:.1f} px")
        rc[0] |= tr.over > 0
    if (a.frames and not (a.source or a.file or a.camera)
            and n != a.frames):
        print(f"expected {a.frames} frames, tracked {n}", file=sys.stderr)
        rc[0] = 1
    if a.strip_dir:
        print(f"# PNG strip: {a.strip_dir}")
    return rc[0]


if __name__ == "__main__":
    sys.exit(main())
