/* cudahistequalize element tests. Global mode is checked bit-exactly against
 * OpenCV's equalizeHist formula restated here (histograms counted from
 * GstVideoFrame-independent byte reads, RGB luma from the documented BT.709
 * weights, the documented smoothing and strength arithmetic), CLAHE against
 * cip::ref::equalize (whose agreement with OpenCV the kernel test proves).
 * Whole output buffers are compared (chroma, alpha, the x byte of RGBx and
 * row padding must stay as they were), and the GstEqualizationMeta tables.
 * Covered: every format (GRAY8 in system memory only), sizes 1x1, 1xN, Nx1,
 * odd, padded strides, every content; rgb-mode luma and per-channel;
 * strength; CLAHE grids, clip limits, sizes not a multiple of the grid;
 * smoothing (convergence, gradual adaptation, restart on flush, new caps and
 * a change of mode, grid or rgb-mode); the histogram region; reuse of an
 * upstream GstHistogramMeta (and refusal of unfit or stale ones); property
 * changes while PLAYING; renegotiation; compute=auto; properties.
 * CPU path always; GPU path (system and CUDA memory) when a device works
 * (tests/common/elementcheck.h runs the cases on every path). The element
 * works in place: expected frames are computed from the input's bytes before
 * it is pushed. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <gst/cudaimgproc/gstequalizationmeta.h>
#include <gst/cudaimgproc/gsthistogrammeta.h>

#include <algorithm>
#include <cmath>
#include <dlfcn.h>
#include <cstring>
#include <string>
#include <vector>

#include "elementcheck.h"
#include "cip/equalize.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudamemory.h>
#endif

using namespace testutil;

/* ---- settings --------------------------------------------------------------- */

/* The element's properties as a test sets them. */
struct Eq {
  bool clahe = false;
  bool per_channel = false;
  guint tx = 8, ty = 8;
  double clip = 40.0;
  double smoothing = 0.0;
  double strength = 1.0;
  guint roi[4] = { 0, 0, 0, 0 };

  std::string launch (const char *compute) const
  {
    char buf[512];
    g_snprintf (buf, sizeof buf, "cudahistequalize compute=%s mode=%s "
        "rgb-mode=%s tiles-x=%u tiles-y=%u clip-limit=%g smoothing=%.17g "
        "strength=%.17g roi-x=%u roi-y=%u roi-width=%u roi-height=%u",
        compute, clahe ? "clahe" : "global",
        per_channel ? "per-channel" : "luma", tx, ty, clip, smoothing,
        strength, roi[0], roi[1], roi[2], roi[3]);
    return buf;
  }
  std::string name () const { return launch ("x").substr (27); }
  /* what restarts the running average (documented) */
  bool same_kind (const Eq & o) const
  {
    return clahe == o.clahe && per_channel == o.per_channel && tx == o.tx &&
        ty == o.ty;
  }
};

static void
apply_props (GstElement * e, const Eq & q)
{
  g_object_set (e, "mode", q.clahe ? 1 : 0, "rgb-mode", q.per_channel ? 1 : 0,
      "tiles-x", q.tx, "tiles-y", q.ty, "clip-limit", q.clip, "smoothing",
      q.smoothing, "strength", q.strength, "roi-x", q.roi[0], "roi-y",
      q.roi[1], "roi-width", q.roi[2], "roi-height", q.roi[3], NULL);
}

/* ---- frames as bytes -------------------------------------------------------- */

/* A frame's bytes and where each component lies in them (strides and
 * offsets from its video meta: padded rows, CUDA pool pitches). */
struct Snap {
  GstVideoInfo li;
  std::vector<uint8_t> bytes;

  int w () const { return GST_VIDEO_INFO_WIDTH (&li); }
  int h () const { return GST_VIDEO_INFO_HEIGHT (&li); }
  size_t at (guint c, int x, int y) const
  {
    return GST_VIDEO_INFO_COMP_OFFSET (&li, c) +
        (size_t) y * GST_VIDEO_INFO_COMP_STRIDE (&li, c) +
        (size_t) x * GST_VIDEO_INFO_COMP_PSTRIDE (&li, c);
  }
  uint8_t &px (guint c, int x, int y) { return bytes[at (c, x, y)]; }
  uint8_t px (guint c, int x, int y) const { return bytes[at (c, x, y)]; }
};

static Snap
snap (GstBuffer * buf, const GstVideoInfo * info)
{
  Snap s;
  s.li = *info;
  GstVideoMeta *m = gst_buffer_get_video_meta (buf);
  if (m) {
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
      s.li.offset[p] = m->offset[p];
      s.li.stride[p] = m->stride[p];
    }
  }
  s.bytes = buffer_bytes (buf);
  return s;
}

static bool
is_rgb (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_IS_RGB (info);
}

static bool
is_bgr (const GstVideoInfo * info)
{
  GstVideoFormat f = GST_VIDEO_INFO_FORMAT (info);
  return f == GST_VIDEO_FORMAT_BGRA || f == GST_VIDEO_FORMAT_BGRx;
}

/* Row padding of a test frame: packed RGB rows stay multiples of 4 bytes
 * (the kernels take 4-byte pixels; the element refuses other strides). */
static int
rgb_pad (const GstVideoInfo * info, int pad)
{
  return is_rgb (info) ? (pad + 3) & ~3 : pad;
}

/* ---- the model -------------------------------------------------------------- */

/* histogram.h's documented luma */
static uint8_t
luma (uint8_t r, uint8_t g, uint8_t b)
{
  return (uint8_t) ((13933u * r + 46871u * g + 4732u * b + 32768u) >> 16);
}

/* cv::equalizeHist's table for a 256-bin histogram (histogram.cpp:
 * EqualizeHistLut_Invoker; a constant or empty frame maps to itself). */
static std::vector<uint8_t>
opencv_lut (const uint64_t * h)
{
  std::vector<uint8_t> lut (256);
  uint64_t total = 0;
  for (int v = 0; v < 256; v++)
    total += h[v];
  int i0 = 0;
  while (i0 < 255 && h[i0] == 0)
    i0++;
  if (total == 0 || h[i0] == total) {
    for (int v = 0; v < 256; v++)
      lut[v] = (uint8_t) v;
    return lut;
  }
  const float scale = 255.f / (float) (total - h[i0]);
  uint64_t sum = 0;
  for (int v = 0; v < 256; v++) {
    if (v > i0)
      sum += h[v];
    volatile float x = (float) sum * scale;
    long r = lrintf (x);
    lut[v] = (uint8_t) (v <= i0 ? 0 : (r < 0 ? 0 : r > 255 ? 255 : r));
  }
  return lut;
}

/* The strength blend (equalize.h): s = round(strength * 256). */
static void
blend (std::vector<uint8_t> & lut, double strength)
{
  const int s = (int) std::lround (strength * 256.0);
  for (int v = 0; v < 256; v++)
    lut[v] = (uint8_t) ((v * (256 - s) + lut[v] * s + 128) >> 8);
}

/* The running average (equalize.h, "Smoothing"), per channel, 8 fraction
 * bits; restated from the documentation. */
struct Average {
  bool valid = false;
  std::vector<uint64_t> s;      /* nch * 256 */
  /* CLAHE: the reference's own state */
  std::vector<uint64_t> ref_state;
  bool ref_valid = false;

  void reset () { valid = ref_valid = false; }
  /* feeds the frame's counts h of channel ch, returns the smoothed counts */
  void update (int ch, const uint64_t * h, double smoothing, uint64_t * out)
  {
    if (s.size () < (size_t) (ch + 1) * 256)
      s.resize ((size_t) (ch + 1) * 256);
    long a = std::lround ((1.0 - smoothing) * 65536.0);
    a = std::max (1L, std::min (65536L, a));
    for (int v = 0; v < 256; v++) {
      uint64_t & S = s[(size_t) ch * 256 + v];
      const int64_t target = (int64_t) (h[v] << 8);
      if (!valid) {
        S = (uint64_t) target;
      } else {
        int64_t d = target - (int64_t) S;
        if (d != 0) {
          uint64_t step = ((uint64_t) std::llabs (d) * (uint64_t) a + 32768u)
              >> 16;
          step = std::max<uint64_t> (step, 1);
          S = d < 0 ? S - step : S + step;
        }
      }
      out[v] = (S + 128) >> 8;
    }
  }
};

/* The clipped region (histogram.h rules): 0 = to the edge. */
static void
clip_roi (const Eq & q, int W, int H, int & x, int & y, int & w, int & h)
{
  x = (int) std::min<guint> (q.roi[0], W);
  y = (int) std::min<guint> (q.roi[1], H);
  w = (int) std::min<guint> (q.roi[2] ? q.roi[2] : G_MAXUINT, W - x);
  h = (int) std::min<guint> (q.roi[3] ? q.roi[3] : G_MAXUINT, H - y);
}

/* What a frame should become. */
struct Want {
  Snap out;
  std::vector<uint8_t> luts;
  guint tiles_x = 1, tiles_y = 1, channels = 1;
};

/* Global mode: the histogram(s) of the region (or `given`, nch x 256, an
 * upstream histogram's counts), smoothed, OpenCV's table, the strength
 * blend, applied to the whole frame. */
static Want
model_global (const Snap & in, const Eq & q, Average & avg,
    const uint64_t * given = nullptr)
{
  Want w;
  w.out = in;
  const bool rgb = is_rgb (&in.li);
  const bool per_channel = rgb && q.per_channel;
  const int nch = per_channel ? 3 : 1;
  int rx, ry, rw, rh;
  clip_roi (q, in.w (), in.h (), rx, ry, rw, rh);
  const bool empty = rw == 0 || rh == 0;
  if (empty) {
    /* the element then takes the whole frame's histogram for the average
     * (and applies the identity) */
    rx = ry = 0;
    rw = in.w ();
    rh = in.h ();
  }
  auto value = [&](int ch, int x, int y) -> uint8_t {
    if (!rgb)
      return in.px (0, x, y);
    if (per_channel)
      return in.px (ch, x, y);
    return luma (in.px (0, x, y), in.px (1, x, y), in.px (2, x, y));
  };
  std::vector<std::vector<uint8_t>> luts (nch);
  for (int ch = 0; ch < nch; ch++) {
    uint64_t h[256] = { }, hs[256];
    if (given) {
      memcpy (h, given + ch * 256, sizeof h);
    } else {
      for (int y = ry; y < ry + rh; y++)
        for (int x = rx; x < rx + rw; x++)
          h[value (ch, x, y)]++;
    }
    avg.update (ch, h, q.smoothing, hs);
    luts[ch] = opencv_lut (hs);
    blend (luts[ch], empty ? 0.0 : q.strength);
    w.luts.insert (w.luts.end (), luts[ch].begin (), luts[ch].end ());
  }
  avg.valid = true;
  w.channels = nch;
  for (int y = 0; y < in.h (); y++) {
    for (int x = 0; x < in.w (); x++) {
      if (!rgb) {
        w.out.px (0, x, y) = luts[0][in.px (0, x, y)];
      } else if (per_channel) {
        for (int c = 0; c < 3; c++)
          w.out.px (c, x, y) = luts[c][in.px (c, x, y)];
      } else {
        const int Y = value (0, x, y);
        const int dy = luts[0][Y] - Y;
        for (int c = 0; c < 3; c++)
          w.out.px (c, x, y) = (uint8_t) std::min (255, std::max (0,
                  in.px (c, x, y) + dy));
      }
    }
  }
  return w;
}

/* CLAHE: cip::ref::equalize on the frame's bytes (luma plane, or the packed
 * RGB pixels), with its own running state. */
static Want
model_clahe (const Snap & in, const Eq & q, Average & avg)
{
  Want w;
  w.out = in;
  const bool rgb = is_rgb (&in.li);
  cip::EqConfig cfg;
  cfg.mode = cip::EqMode::clahe;
  cfg.layout = !rgb ? cip::EqLayout::gray : is_bgr (&in.li) ?
      cip::EqLayout::bgrx : cip::EqLayout::rgbx;
  cfg.rgb_mode = q.per_channel ? cip::EqRgbMode::per_channel :
      cip::EqRgbMode::luma;
  cfg.tiles_x = (int) q.tx;
  cfg.tiles_y = (int) q.ty;
  cfg.clip_limit = q.clip;
  cfg.smoothing = q.smoothing;
  cfg.strength = q.strength;
  const size_t off = rgb ? in.li.offset[0] : GST_VIDEO_INFO_COMP_OFFSET
      (&in.li, 0);
  const size_t pitch = rgb ? in.li.stride[0] : GST_VIDEO_INFO_COMP_STRIDE
      (&in.li, 0);
  cip::EqFrame f;
  f.src = in.bytes.data () + off;
  f.dst = w.out.bytes.data () + off;
  f.src_pitch = f.dst_pitch = pitch;
  f.width = in.w ();
  f.height = in.h ();
  avg.ref_state.resize ((cip::equalize_state_bytes (cfg) + 7) / 8);
  cip::EqState st;
  st.data = avg.ref_state.data ();
  st.valid = avg.ref_valid;
  w.luts.resize (cip::equalize_lut_bytes (cfg));
  fail_unless (cip::ref::equalize (f, cfg, &st, w.luts.data ()) ==
      cip::Status::ok, "reference refused the frame");
  avg.ref_valid = true;
  w.tiles_x = q.tx;
  w.tiles_y = q.ty;
  w.channels = (guint) cip::equalize_channels (cfg);
  return w;
}

static Want
model (const Snap & in, const Eq & q, Average & avg,
    const uint64_t * given = nullptr)
{
  return q.clahe ? model_clahe (in, q, avg) : model_global (in, q, avg,
      given);
}

/* ---- checks ----------------------------------------------------------------- */

/* The whole output buffer equals the expected bytes; its meta holds the
 * expected tables. */
static void
check (GstBuffer * out, const Want & w, const std::string & what,
    bool lut_meta = true)
{
  std::vector<uint8_t> got = buffer_bytes (out);
  fail_unless_equals_uint64 (got.size (), w.out.bytes.size ());
  for (size_t i = 0; i < got.size (); i++) {
    if (got[i] == w.out.bytes[i])
      continue;
    /* name the component and pixel when the byte is one */
    const GstVideoInfo *li = &w.out.li;
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (li); c++)
      for (int y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT (li, c); y++)
        for (int x = 0; x < GST_VIDEO_INFO_COMP_WIDTH (li, c); x++)
          if (w.out.at (c, x, y) == i)
            fail ("%s: component %u (%d, %d): %u != %u", what.c_str (), c, x,
                y, got[i], w.out.bytes[i]);
    fail ("%s: byte %zu (not a sample: padding, alpha or x) changed: %u != "
        "%u", what.c_str (), i, got[i], w.out.bytes[i]);
  }

  GstEqualizationMeta *m = gst_buffer_get_equalization_meta (out);
  if (!lut_meta) {
    fail_unless (m == NULL, "%s: lut-meta=false but a meta", what.c_str ());
    return;
  }
  fail_unless (m != NULL, "%s: no equalization meta", what.c_str ());
  fail_unless_equals_int (m->tiles_x, w.tiles_x);
  fail_unless_equals_int (m->tiles_y, w.tiles_y);
  fail_unless_equals_int (m->channels, w.channels);
  fail_unless_equals_uint64 (w.luts.size (),
      (guint64) w.tiles_x * w.tiles_y * w.channels * 256);
#ifdef HAVE_GST_CUDA
  /* the tables stay where the frame is: a frame in CUDA memory is handed
   * downstream without a host wait (1.24+), which a table the host must
   * download would cost */
  const bool cuda_frame = gst_is_cuda_memory (gst_buffer_peek_memory (out, 0));
  fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (m->luts, 0)) ==
      cuda_frame, "%s: tables not in %s memory", what.c_str (),
      cuda_frame ? "CUDA" : "system");
#endif
  GstMapInfo map;
  fail_unless (gst_buffer_map (m->luts, &map, GST_MAP_READ));
  /* exactly the tables (a CUDA pool's padding is not part of them) */
  fail_unless (map.size == w.luts.size (), "%s: LUT buffer of %zu bytes",
      what.c_str (), map.size);
  for (size_t i = 0; i < w.luts.size (); i++)
    if (map.data[i] != w.luts[i])
      fail ("%s: table %zu entry %zu: %u != %u", what.c_str (), i / 256,
          i % 256, map.data[i], w.luts[i]);
  gst_buffer_unmap (m->luts, &map);
  /* the per-table accessor of bindings, tile-major then channel */
  for (size_t t = 0; t < w.luts.size () / 256; t++) {
    guint ch = t % w.channels, tile = t / w.channels;
    GBytes *lut = gst_equalization_meta_get_lut (m, tile % w.tiles_x,
        tile / w.tiles_x, ch);
    fail_unless (lut != NULL && g_bytes_get_size (lut) == 256);
    fail_unless (memcmp (g_bytes_get_data (lut, NULL), &w.luts[t * 256],
            256) == 0, "%s: get_lut of table %zu", what.c_str (), t);
    g_bytes_unref (lut);
  }
  fail_unless (gst_equalization_meta_get_lut (m, w.tiles_x, 0, 0) == NULL);
  fail_unless (gst_equalization_meta_get_lut (m, 0, w.tiles_y, 0) == NULL);
  fail_unless (gst_equalization_meta_get_lut (m, 0, 0, w.channels) == NULL);
}

/* ---- a running element ------------------------------------------------------ */

/* One element on path p: frames pushed and checked against the model, whose
 * running average follows the element's documented restarts. */
struct Run {
  Path p;
  Eq q;
  GstVideoInfo info;
  ElementHarness hrn;
  FrameSource *src;
  Average avg;
  bool lut_meta = true;

  Run (const Path & path, const GstVideoInfo & vi, const Eq & eq,
      const std::string & extra = "")
      : p (path), q (eq), info (vi), hrn (eq.launch (path.compute) + extra,
          &vi, path.cuda ()), src (new FrameSource (&vi, path.memory)) { }
  ~Run () { delete src; }

  GstElement *element () { return hrn.find ("cudahistequalize"); }
  /* new settings between frames, as an application does while PLAYING */
  void set (const Eq & nq)
  {
    GstElement *e = element ();
    fail_unless_equals_int (GST_STATE (e), GST_STATE_PLAYING);
    apply_props (e, nq);
    if (!q.same_kind (nq))
      avg.reset ();
    q = nq;
  }
  void caps (const GstVideoInfo & vi)
  {
    info = vi;
    delete src;
    src = new FrameSource (&vi, p.memory);
    hrn.caps (&vi, p.cuda ());
    avg.reset ();
  }
  void flush ()
  {
    fail_unless (gst_harness_push_event (hrn.h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (hrn.h,
            gst_event_new_flush_stop (TRUE)));
    GstSegment seg;
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (hrn.h, gst_event_new_segment (&seg)));
    avg.reset ();
  }
  GstBuffer *make (Content c, uint32_t seed, int pad = 0)
  {
    return src->make (c, seed, p.cuda () ? 0 : rgb_pad (&info, pad));
  }
  /* Pushes `in` (taken) and checks the output; returns the expectation. */
  Want push (GstBuffer * in, const std::string & what,
      const uint64_t * given = nullptr)
  {
    Snap s = snap (in, &info);
    Want w = model (s, q, avg, given);
    GstBuffer *out = hrn.push (in);
    check (out, w, what + " " + p.name () + " " + GST_VIDEO_INFO_NAME (&info)
        + " " + std::to_string (info.width) + "x" +
        std::to_string (info.height) + " " + q.name (), lut_meta);
    gst_buffer_unref (out);
    return w;
  }
  Want push (Content c, uint32_t seed, int pad, const std::string & what)
  {
    return push (make (c, seed, pad), what + " " + content_name (c));
  }
};

/* The output the per-frame settings give on `in` (no history). */
static Want
per_frame (GstBuffer * in, const GstVideoInfo * info, Eq q)
{
  Average fresh;
  return model (snap (in, info), q, fresh);
}

/* The formats of path p: GRAY8 has no CUDA memory path. */
static std::vector<GstVideoFormat>
formats_of (const Path & p)
{
  std::vector<GstVideoFormat> v;
  for (GstVideoFormat f : all_formats)
    if (!(p.cuda () && f == GST_VIDEO_FORMAT_GRAY8))
      v.push_back (f);
  return v;
}

/* ---- global mode ------------------------------------------------------------ */

/* Every format, both RGB modes, every content, odd sizes, padded strides. */
GST_START_TEST (test_global_every_format)
{
  for_each_path ([] (const Path & p) {
    for (GstVideoFormat fmt : formats_of (p)) {
      for (bool pc : { false, true }) {
        GstVideoInfo info = video_info (fmt, 67, 41);
        if (pc && !is_rgb (&info))
          continue;
        Eq q;
        q.per_channel = pc;
        Run run (p, info, q);
        uint32_t seed = 3;
        for (Content c : all_contents)
          run.push (c, seed++, 13, "global");
      }
    }
  });
}
GST_END_TEST;

/* Edge sizes and OpenCV's special cases: a constant frame (no division by
 * zero, kept as it is), two values, gradients, a frame with one pixel off. */
GST_START_TEST (test_global_sizes_and_contents)
{
  static const Size sizes[] = { {1, 1}, {1, 23}, {23, 1}, {2, 2}, {31, 17},
    {33, 33}, {641, 479} };
  for_each_path ([] (const Path & p) {
    for (const Size & s : sizes) {
      if (too_large_for_small (s.w, s.h))
        continue;
      for (GstVideoFormat fmt : { GST_VIDEO_FORMAT_GRAY8,
              GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
              GST_VIDEO_FORMAT_BGRA }) {
        if (p.cuda () && fmt == GST_VIDEO_FORMAT_GRAY8)
          continue;
        GstVideoInfo info = video_info (fmt, s.w, s.h);
        Run run (p, info, Eq ());
        uint32_t seed = 1;
        for (Content c : all_contents) {
          if (s.w >= 640 && c != Content::natural && c != Content::random)
            continue;
          run.push (c, seed++, 5, "sizes");
        }
      }
    }
    /* a constant frame but for one pixel: i0's count is not the total */
    GstVideoInfo info = video_info (GST_VIDEO_FORMAT_Y444, 19, 7);
    Run run (p, info, Eq ());
    for (int v : { 0, 128, 255 }) {
      GstBuffer *in = run.make (Content::constant, 1);
      GstVideoFrame f;
      fail_unless (gst_video_frame_map (&f, &info, in, GST_MAP_WRITE));
      for (int y = 0; y < 7; y++)
        memset ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, 0) +
            y * GST_VIDEO_FRAME_COMP_STRIDE (&f, 0), v, 19);
      gst_video_frame_unmap (&f);
      Snap s = snap (in, &info);
      fail_unless (per_frame (in, &info, Eq ()).out.bytes == s.bytes);
      run.push (in, "constant " + std::to_string (v));
      in = run.make (Content::constant, 1);
      fail_unless (gst_video_frame_map (&f, &info, in, GST_MAP_WRITE));
      for (int y = 0; y < 7; y++)
        memset ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, 0) +
            y * GST_VIDEO_FRAME_COMP_STRIDE (&f, 0), v, 19);
      ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&f, 0))[3] = (guint8) (255 - v);
      gst_video_frame_unmap (&f);
      run.push (in, "constant but one " + std::to_string (v));
    }
  });
}
GST_END_TEST;

/* The model itself against values worked out by hand, so that a model bug
 * cannot hide an element bug. */
GST_START_TEST (test_model_by_hand)
{
  uint64_t h[256] = { };
  h[10] = 2;
  h[20] = 1;
  h[30] = 1;
  std::vector<uint8_t> lut = opencv_lut (h);
  /* total 4, h[i0] = 2: scale 255 / 2 */
  fail_unless_equals_int (lut[0], 0);
  fail_unless_equals_int (lut[10], 0);
  fail_unless_equals_int (lut[19], 0);
  fail_unless_equals_int (lut[20], 128);       /* 127.5 rounds to even */
  fail_unless_equals_int (lut[25], 128);
  fail_unless_equals_int (lut[30], 255);
  fail_unless_equals_int (lut[255], 255);
  blend (lut, 0.5);
  fail_unless_equals_int (lut[20], (20 * 128 + 128 * 128 + 128) >> 8);
  fail_unless_equals_int (lut[30], (30 * 128 + 255 * 128 + 128) >> 8);
  uint64_t c[256] = { };
  c[77] = 5;
  lut = opencv_lut (c);
  for (int v = 0; v < 256; v++)
    fail_unless_equals_int (lut[v], v);
  fail_unless_equals_int (luma (255, 255, 255), 255);
  fail_unless_equals_int (luma (255, 0, 0), 54);
}
GST_END_TEST;

/* strength 0 is the identity, 0.5 the documented half blend, any other
 * value too; on YUV and both RGB modes. */
GST_START_TEST (test_strength)
{
  for_each_path ([] (const Path & p) {
    for (GstVideoFormat fmt : { GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGBx,
            GST_VIDEO_FORMAT_BGRA }) {
      for (bool pc : { false, true }) {
        GstVideoInfo info = video_info (fmt, 45, 27);
        if (pc && !is_rgb (&info))
          continue;
        for (bool clahe : { false, true }) {
          for (double s : { 0.0, 0.5, 0.3, 1.0 }) {
            Eq q;
            q.per_channel = pc;
            q.clahe = clahe;
            q.tx = 3;
            q.ty = 2;
            q.strength = s;
            Run run (p, info, q);
            GstBuffer *in = run.make (Content::natural, 5, 3);
            Snap before = snap (in, &info);
            Want w = run.push (in, "strength");
            if (s == 0.0)
              fail_unless (w.out.bytes == before.bytes,
                  "strength 0 must be the identity");
            else
              fail_unless (w.out.bytes != before.bytes);
          }
        }
      }
    }
  });
}
GST_END_TEST;

/* ---- CLAHE ------------------------------------------------------------------ */

GST_START_TEST (test_clahe)
{
  struct { guint tx, ty; double clip; } grids[] = { {8, 8, 40.0}, {8, 8, 2.0},
    {1, 1, 1.0}, {3, 5, 0.0}, {7, 2, 4.5}, {16, 9, 0.01}, {64, 64, 3.0} };
  static const Size sizes[] = { {1, 1}, {67, 41}, {33, 17}, {640, 480} };
  for_each_path ([&grids] (const Path & p) {
    for (GstVideoFormat fmt : { GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_NV12,
            GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx }) {
      if (p.cuda () && fmt == GST_VIDEO_FORMAT_GRAY8)
        continue;
      for (const Size & s : sizes) {
        if (too_large_for_small (s.w, s.h))
          continue;
        for (const auto & g : grids) {
          if (s.w >= 640 && g.tx != 8 && g.tx != 64)
            continue;
          GstVideoInfo info = video_info (fmt, s.w, s.h);
          Eq q;
          q.clahe = true;
          q.tx = g.tx;
          q.ty = g.ty;
          q.clip = g.clip;
          q.per_channel = fmt == GST_VIDEO_FORMAT_RGBA;
          Run run (p, info, q);
          Want w = run.push (Content::natural, s.w + g.tx, 7, "clahe");
          fail_unless_equals_uint64 (w.luts.size (),
              (guint64) g.tx * g.ty * (q.per_channel ? 3 : 1) * 256);
          run.push (Content::random, s.h + g.ty, 7, "clahe");
          if (s.w < 640)
            run.push (Content::checkerboard, 1, 0, "clahe");
        }
      }
    }
    /* every format, the constant frames */
    for (GstVideoFormat fmt : formats_of (p)) {
      GstVideoInfo info = video_info (fmt, 35, 19);
      Eq q;
      q.clahe = true;
      q.tx = 4;
      q.ty = 3;
      q.clip = 2.0;
      Run run (p, info, q);
      for (Content c : all_contents)
        run.push (c, 9, 11, "clahe");
    }
  });
}
GST_END_TEST;

/* CLAHE ignores the region: the output is the whole frame's. */
GST_START_TEST (test_clahe_ignores_roi)
{
  for_each_path ([] (const Path & p) {
    GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, 66, 40);
    Eq q;
    q.clahe = true;
    q.tx = q.ty = 4;
    q.roi[0] = 10;
    q.roi[1] = 5;
    q.roi[2] = 20;
    q.roi[3] = 12;
    Run run (p, info, q);
    GstBuffer *in = run.make (Content::natural, 3);
    Eq noroi = q;
    noroi.roi[2] = noroi.roi[3] = noroi.roi[0] = noroi.roi[1] = 0;
    Want whole = per_frame (in, &info, noroi);
    Want w = run.push (in, "clahe roi");
    fail_unless (w.out.bytes == whole.out.bytes);
  });
}
GST_END_TEST;

/* ---- smoothing -------------------------------------------------------------- */

/* On a static input the output reaches the per-frame result (and stays);
 * after a scene change the first frames differ from it (gradual). */
GST_START_TEST (test_smoothing_converges)
{
  for_each_path ([] (const Path & p) {
    for (bool clahe : { false, true }) {
      for (GstVideoFormat fmt : { GST_VIDEO_FORMAT_NV12,
              GST_VIDEO_FORMAT_BGRx }) {
        GstVideoInfo info = video_info (fmt, 32, 24);
        Eq q;
        q.clahe = clahe;
        q.tx = q.ty = 2;
        q.smoothing = 0.9;
        q.per_channel = fmt == GST_VIDEO_FORMAT_BGRx && !clahe;
        Run run (p, info, q);
        /* the first frame is its own per-frame result */
        GstBuffer *a = run.make (Content::natural, 1);
        Want pa = per_frame (a, &info, q);
        Want w = run.push (a, "smoothing first frame");
        fail_unless (w.out.bytes == pa.out.bytes);
        /* a darker scene: gradual adaptation, then the per-frame result */
        int n = 0;
        bool reached = false, differed_first = false;
        for (; n < 400 && !reached; n++) {
          GstBuffer *b = run.make (Content::gradient, 2);
          Want pb = per_frame (b, &info, q);
          w = run.push (b, "smoothing frame " + std::to_string (n));
          if (n == 0)
            differed_first = w.out.bytes != pb.out.bytes;
          reached = w.out.bytes == pb.out.bytes && w.luts == pb.luts;
        }
        fail_unless (differed_first, "no gradual adaptation");
        fail_unless (reached, "did not converge in 400 frames");
        fail_unless (n > 3, "converged in %d frames", n);
        /* and stays there */
        for (int i = 0; i < 3; i++) {
          GstBuffer *b = run.make (Content::gradient, 2);
          Want pb = per_frame (b, &info, q);
          w = run.push (b, "smoothing settled");
          fail_unless (w.out.bytes == pb.out.bytes);
        }
      }
    }
  });
}
GST_END_TEST;

/* A flush, new caps, and a change of mode, grid or rgb-mode restart the
 * average: the next frame is the per-frame result. A change of strength,
 * smoothing or clip limit does not. */
GST_START_TEST (test_smoothing_restarts)
{
  for_each_path ([] (const Path & p) {
    GstVideoInfo a = video_info (GST_VIDEO_FORMAT_RGBA, 40, 30);
    GstVideoInfo b = video_info (GST_VIDEO_FORMAT_RGBA, 42, 30);
    Eq q;
    q.smoothing = 0.8;
    Run run (p, a, q);
    uint32_t seed = 1;
    auto warm = [&] () {
      for (int i = 0; i < 3; i++)
        run.push (Content::natural, seed++, 0, "warm");
    };
    auto expect_fresh = [&] (const std::string & what, bool fresh) {
      GstBuffer *in = run.make (Content::gradient, seed++);
      Want pf = per_frame (in, &run.info, run.q);
      Want w = run.push (in, what);
      fail_unless ((w.out.bytes == pf.out.bytes) == fresh,
          "%s: the average %s", what.c_str (), fresh ? "did not restart" :
          "restarted");
    };
    warm ();
    expect_fresh ("no restart", false);
    warm ();
    run.flush ();
    expect_fresh ("after flush", true);
    warm ();
    run.caps (b);
    expect_fresh ("after new caps", true);
    warm ();
    run.caps (a);
    expect_fresh ("after caps back", true);
    warm ();
    Eq n = run.q;
    /* the grid restarts even in global mode (documented), where the state
     * keeps its size */
    n.tx = 4;
    run.set (n);
    expect_fresh ("after tiles-x in global mode", true);
    warm ();
    /* a 1x1 CLAHE grid: a state of the same size as global mode's */
    n.tx = n.ty = 1;
    run.set (n);
    warm ();
    n.clahe = true;
    run.set (n);
    expect_fresh ("after mode=clahe, 1x1 grid", true);
    warm ();
    n.clahe = false;
    run.set (n);
    expect_fresh ("after mode=global, 1x1 grid", true);
    warm ();
    n.tx = n.ty = 8;
    n.clahe = true;
    run.set (n);
    expect_fresh ("after mode=clahe", true);
    warm ();
    n.tx = 3;
    run.set (n);
    expect_fresh ("after tiles-x", true);
    warm ();
    n.ty = 5;
    run.set (n);
    expect_fresh ("after tiles-y", true);
    warm ();
    /* as many tiles, another grid */
    n.tx = 5;
    n.ty = 3;
    run.set (n);
    expect_fresh ("after 3x5 -> 5x3", true);
    warm ();
    n.clahe = false;
    run.set (n);
    expect_fresh ("after mode=global", true);
    warm ();
    n.per_channel = true;
    run.set (n);
    expect_fresh ("after rgb-mode", true);
    warm ();
    n.strength = 0.9;
    n.smoothing = 0.7;
    n.clip = 3.0;
    run.set (n);
    expect_fresh ("after strength, smoothing, clip-limit", false);
  });
}
GST_END_TEST;

/* ---- region ----------------------------------------------------------------- */

/* The region's histogram drives the table applied to the whole frame;
 * regions at edges, clipped, outside the frame (unchanged frame). */
GST_START_TEST (test_roi)
{
  struct { guint x, y, w, h; bool outside; } rois[] = {
    {10, 5, 20, 12, false}, {0, 0, 1, 1, false}, {60, 30, 0, 0, false},
    {50, 20, 500, 500, false}, {0, 33, 0, 1, false}, {66, 0, 0, 0, true},
    {0, 40, 5, 5, true}, {1000, 1000, 10, 10, true} };
  for_each_path ([&rois] (const Path & p) {
    for (GstVideoFormat fmt : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_Y444,
            GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx }) {
      for (bool pc : { false, true }) {
        GstVideoInfo info = video_info (fmt, 66, 40);
        if (pc && !is_rgb (&info))
          continue;
        for (const auto & r : rois) {
          Eq q;
          q.per_channel = pc;
          q.roi[0] = r.x;
          q.roi[1] = r.y;
          q.roi[2] = r.w;
          q.roi[3] = r.h;
          Run run (p, info, q);
          GstBuffer *in = run.make (Content::natural, r.x + r.y, 9);
          Snap before = snap (in, &info);
          Want whole = per_frame (in, &info, Eq ());
          Want w = run.push (in, "roi");
          if (r.outside)
            fail_unless (w.out.bytes == before.bytes);
          else
            fail_unless (w.out.bytes != whole.out.bytes || pc,
                "the region makes no difference: a weak case");
        }
      }
    }
  });
}
GST_END_TEST;

/* ---- upstream histograms ---------------------------------------------------- */

/* A histogram meta as cudahistogram attaches it, counts of another frame. */
static void
attach_histogram (GstBuffer * buf, const std::vector<uint64_t> & counts,
    guint bins, const std::vector<const char *> &names, guint x, guint y,
    guint w, guint h)
{
  std::vector<const gchar *> n (names.begin (), names.end ());
  n.push_back (NULL);
  gst_buffer_add_histogram_meta (buf, bins, (guint) names.size (), n.data (),
      (const guint64 *) counts.data (), x, y, w, h);
}

/* The counts of a donor frame of other content (whole region). */
static std::vector<uint64_t>
donor_counts (const GstVideoInfo * info, bool per_channel, uint32_t seed)
{
  GstBuffer *d = make_video_buffer (info, Content::gradient, seed);
  Snap s = snap (d, info);
  gst_buffer_unref (d);
  const bool rgb = is_rgb (info);
  const int nch = rgb && per_channel ? 3 : 1;
  std::vector<uint64_t> c ((size_t) nch * 256, 0);
  for (int ch = 0; ch < nch; ch++)
    for (int y = 0; y < s.h (); y++)
      for (int x = 0; x < s.w (); x++) {
        uint8_t v = !rgb ? s.px (0, x, y) : nch == 3 ? s.px (ch, x, y) :
            luma (s.px (0, x, y), s.px (1, x, y), s.px (2, x, y));
        c[(size_t) ch * 256 + v]++;
      }
  return c;
}

/* A fitting meta (256 bins, "luma" or red/green/blue, same region) is used
 * instead of the frame's histogram: the output follows the meta's counts.
 * Unfit metas (bins, names, region, CLAHE) are ignored. */
GST_START_TEST (test_upstream_histogram_reuse)
{
  for_each_path ([] (const Path & p) {
    for (GstVideoFormat fmt : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
            GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx }) {
      for (bool pc : { false, true }) {
        GstVideoInfo info = video_info (fmt, 50, 30);
        if (pc && !is_rgb (&info))
          continue;
        std::vector<uint64_t> counts = donor_counts (&info, pc, 77);
        std::vector<const char *> names = pc ?
            std::vector<const char *> { "red", "green", "blue" } :
            std::vector<const char *> { "luma" };
        std::vector<const char *> wrong = pc ?
            std::vector<const char *> { "luma" } :
            std::vector<const char *> { "plane0" };
        /* fits: the meta's counts are used */
        for (bool smooth : { false, true }) {
          Eq q;
          q.per_channel = pc;
          q.smoothing = smooth ? 0.5 : 0.0;
          Run run (p, info, q);
          for (int i = 0; i < 2; i++) {
            GstBuffer *in = run.make (Content::natural, 5 + i);
            Want own = per_frame (in, &info, q);
            attach_histogram (in, counts, 256, names, 0, 0, 50, 30);
            Want w = run.push (in, "fitting meta", counts.data ());
            fail_unless (w.out.bytes != own.out.bytes, "weak case");
          }
        }
        {
          /* a region: the meta of the same region fits */
          Eq q;
          q.per_channel = pc;
          q.roi[0] = 4;
          q.roi[1] = 2;
          q.roi[2] = 10;
          q.roi[3] = 8;
          Run run (p, info, q);
          GstBuffer *in = run.make (Content::natural, 11);
          attach_histogram (in, counts, 256, names, 4, 2, 10, 8);
          run.push (in, "fitting meta, region", counts.data ());
        }
        /* unfit: the frame's own histogram */
        struct { guint bins; bool wrong_names; guint x, y, w, h;
          bool clahe; } unfit[] = {
          {128, false, 0, 0, 50, 30, false}, {256, true, 0, 0, 50, 30, false},
          {256, false, 1, 0, 49, 30, false}, {256, false, 0, 0, 50, 29, false},
          {256, false, 0, 0, 50, 30, true} };
        for (const auto & u : unfit) {
          Eq q;
          q.per_channel = pc;
          q.clahe = u.clahe;
          q.tx = q.ty = 2;
          Run run (p, info, q);
          GstBuffer *in = run.make (Content::natural, 13);
          std::vector<uint64_t> c = counts;
          if (u.bins != 256) {
            c.assign ((size_t) u.bins * (pc ? 3 : 1), 0);
            for (size_t i = 0; i < counts.size (); i++)
              c[(i / 256) * u.bins + (i % 256) * u.bins / 256] += counts[i];
          }
          attach_histogram (in, c, u.bins, u.wrong_names ? wrong : names,
              u.x, u.y, u.w, u.h);
          run.push (in, "unfit meta");
        }
      }
    }
  });
}
GST_END_TEST;

/* Runs `launch` on frames and returns the outputs' bytes. */
static std::vector<std::vector<uint8_t>>
run_chain (const std::string & launch, const Path & p,
    const GstVideoInfo * info, int frames)
{
  ElementHarness hrn (launch, info, p.cuda ());
  FrameSource src (info, p.memory);
  std::vector<std::vector<uint8_t>> outs;
  for (int i = 0; i < frames; i++) {
    GstBuffer *out = hrn.push (src.make (Content::natural, 40 + i,
            p.cuda () ? 0 : rgb_pad (info, 3)));
    outs.push_back (buffer_bytes (out));
    gst_buffer_unref (out);
  }
  return outs;
}

/* cudahistogram ! cudahistequalize equals cudahistequalize alone (the
 * reused counts are the frame's own), for luma and per-channel. */
GST_START_TEST (test_upstream_histogram_chain)
{
  for_each_path ([] (const Path & p) {
    for (GstVideoFormat fmt : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGBx,
            GST_VIDEO_FORMAT_BGRA }) {
      for (bool pc : { false, true }) {
        GstVideoInfo info = video_info (fmt, 70, 38);
        if (pc && !is_rgb (&info))
          continue;
        Eq q;
        q.per_channel = pc;
        q.smoothing = 0.5;
        q.roi[0] = 3;
        q.roi[2] = 40;
        std::string eq = q.launch (p.compute);
        std::string hist = std::string ("cudahistogram compute=") + p.compute
            + " bins=256 mode=" + (pc ? "rgb" : "luma") +
            " roi-x=3 roi-width=40 post-messages=false";
        auto alone = run_chain (eq, p, &info, 3);
        auto chain = run_chain (hist + " ! " + eq, p, &info, 3);
        for (int i = 0; i < 3; i++)
          fail_unless (alone[i] == chain[i], "%s: frame %d differs",
              (hist + " ! " + eq).c_str (), i);
      }
    }
  });
}
GST_END_TEST;

/* The tests run without the system plugin path (tests/meson.build); the
 * pipeline test loads the few it needs from beside libgstreamer. */
static bool
load_system_plugins ()
{
  Dl_info dl;
  if (!dladdr ((void *) &gst_init, &dl) || !dl.dli_fname)
    return false;
  gchar *libdir = g_path_get_dirname (dl.dli_fname);
  bool ok = true;
  for (const char *name : { "coreelements", "videotestsrc", "pango",
          "app" }) {
    gchar *file = g_strdup_printf ("%s/gstreamer-1.0/libgst%s.so", libdir,
        name);
    GError *err = NULL;
    GstPlugin *plugin = gst_plugin_load_file (file, &err);
    if (plugin) {
      gst_registry_add_plugin (gst_registry_get (), plugin);
      gst_object_unref (plugin);
    } else {
      g_printerr ("%s: %s\n", file, err ? err->message : "not loaded");
      g_clear_error (&err);
      ok = false;
    }
    g_free (file);
  }
  g_free (libdir);
  return ok;
}

/* Pulls `n` frames of a pipeline ending in appsink name=out. */
static std::vector<std::vector<uint8_t>>
pipeline_frames (const std::string & desc, int n)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc.c_str (), &err);
  fail_unless (pipe != NULL && err == NULL, "%s: %s", desc.c_str (),
      err ? err->message : "");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  fail_unless (sink != NULL);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  std::vector<std::vector<uint8_t>> frames;
  for (int i = 0; i < n; i++) {
    GstSample *s = NULL;
    g_signal_emit_by_name (sink, "pull-sample", &s);
    fail_unless (s != NULL, "%s: frame %d missing", desc.c_str (), i);
    frames.push_back (buffer_bytes (gst_sample_get_buffer (s)));
    gst_sample_unref (s);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  return frames;
}

/* timeoverlay writes into the frame between cudahistogram and
 * cudahistequalize and keeps the meta: the stale counts must not be used,
 * so the output equals the chain without cudahistogram. */
GST_START_TEST (test_upstream_histogram_stale)
{
  for_each_path ([] (const Path & p) {
    if (p.cuda ())
      return;
    if (!load_system_plugins ()) {
      g_printerr ("test_upstream_histogram_stale: videotestsrc, timeoverlay "
          "or appsink missing: skipped\n");
      return;
    }
    const std::string src = "videotestsrc num-buffers=3 pattern=ball ! "
        "video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! ";
    const std::string eq = std::string ("cudahistequalize compute=") +
        p.compute;
    const std::string sink = " ! appsink name=out sync=false";
    const std::string overlay = "timeoverlay font-desc=\"Sans 40\" "
        "shaded-background=true ! ";
    auto plain = pipeline_frames (src + overlay + eq + sink, 3);
    /* without a usable font timeoverlay draws garbage that differs from
     * run to run, and the comparison below would mean nothing */
    fail_unless (pipeline_frames (src + overlay + eq + sink, 3) == plain,
        "timeoverlay's output differs between two identical runs: no "
        "usable font here? (tests/gpu-bundle.sh gives the GPU bundles one)");
    auto chained = pipeline_frames (src + "cudahistogram bins=256 compute=" +
        p.compute + " post-messages=false ! " + overlay + eq + sink, 3);
    for (int i = 0; i < 3; i++)
      fail_unless (plain[i] == chained[i], "%s: frame %d used a stale "
          "histogram", p.name ().c_str (), i);
  });
}
GST_END_TEST;

/* ---- live changes, renegotiation, recycled buffers ------------------------- */

/* Every property changed between frames while PLAYING applies to the next
 * frame (and lut-meta); several frames per setting. */
GST_START_TEST (test_live_changes)
{
  for_each_path ([] (const Path & p) {
    for (GstVideoFormat fmt : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_BGRA }) {
      GstVideoInfo info = video_info (fmt, 66, 38);
      Run run (p, info, Eq ());
      std::vector<Eq> steps;
      Eq q;
      steps.push_back (q);
      q.strength = 0.4;
      steps.push_back (q);
      q.clahe = true;
      steps.push_back (q);
      q.tx = 5;
      steps.push_back (q);
      q.ty = 3;
      steps.push_back (q);
      q.clip = 1.5;
      steps.push_back (q);
      q.per_channel = true;
      steps.push_back (q);
      q.smoothing = 0.6;
      steps.push_back (q);
      q.clahe = false;
      steps.push_back (q);
      q.roi[0] = 7;
      steps.push_back (q);
      q.roi[1] = 3;
      steps.push_back (q);
      q.roi[2] = 20;
      steps.push_back (q);
      q.roi[3] = 9;
      steps.push_back (q);
      q.strength = 1.0;
      q.smoothing = 0.0;
      steps.push_back (q);
      q.per_channel = false;
      q.roi[0] = 100;
      steps.push_back (q);
      uint32_t seed = 20;
      for (const Eq & s : steps) {
        run.set (s);
        for (int i = 0; i < 2; i++)
          run.push (Content::natural, seed++, 0, "live");
      }
      g_object_set (run.element (), "lut-meta", FALSE, NULL);
      run.lut_meta = false;
      run.push (Content::random, seed++, 0, "lut-meta=false");
      g_object_set (run.element (), "lut-meta", TRUE, NULL);
      run.lut_meta = true;
      run.push (Content::random, seed++, 0, "lut-meta=true");
    }
  });
}
GST_END_TEST;

/* New caps mid-stream (format and size), two frames per caps. */
GST_START_TEST (test_renegotiation)
{
  for_each_path ([] (const Path & p) {
    const GstVideoInfo infos[3] = { video_info (GST_VIDEO_FORMAT_NV12, 64, 48),
      video_info (GST_VIDEO_FORMAT_RGBA, 33, 21),
      video_info (GST_VIDEO_FORMAT_I420, 643, 361) };
    for (bool clahe : { false, true }) {
      Eq q;
      q.clahe = clahe;
      q.smoothing = 0.5;
      Run run (p, infos[0], q);
      uint32_t seed = 5;
      for (int k : { 0, 1, 2, 0, 1 }) {
        run.caps (infos[k]);
        for (int i = 0; i < 2; i++)
          run.push (Content::natural, seed++, 0, "renegotiation");
      }
    }
  });
}
GST_END_TEST;

/* compute=auto, and no compute= (the default is auto). */
GST_START_TEST (test_compute_auto)
{
  for (const Path & p : { Path { Memory::system, "auto" },
          Path { Memory::cuda, "auto" } }) {
    if (p.cuda () && !gpu_works ())
      continue;
    for (bool clahe : { false, true }) {
      GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, 98, 54);
      Eq q;
      q.clahe = clahe;
      Run run (p, info, q);
      for (uint32_t seed = 1; seed <= 2; seed++)
        run.push (Content::natural, seed, 0, "compute=auto");
    }
    GstVideoInfo info = video_info (GST_VIDEO_FORMAT_RGBA, 45, 31);
    ElementHarness hrn ("cudahistequalize", &info, p.cuda ());
    FrameSource src (&info, p.memory);
    GstBuffer *in = src.make (Content::natural, 3);
    Want w = per_frame (in, &info, Eq ());
    GstBuffer *out = hrn.push (in);
    check (out, w, "default compute " + p.name ());
#ifdef HAVE_GST_CUDA
    fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)) ==
        p.cuda (), "%s: output memory", p.name ().c_str ());
#endif
    gst_buffer_unref (out);
  }
}
GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("cudahistequalize", NULL);
  fail_unless (e != NULL);
  gint mode, rgb_mode, compute;
  guint tx, ty, rx, ry, rw, rh;
  gdouble clip, smoothing, strength;
  gboolean lut_meta;
  g_object_get (e, "mode", &mode, "rgb-mode", &rgb_mode, "tiles-x", &tx,
      "tiles-y", &ty, "clip-limit", &clip, "smoothing", &smoothing,
      "strength", &strength, "roi-x", &rx, "roi-y", &ry, "roi-width", &rw,
      "roi-height", &rh, "lut-meta", &lut_meta, "compute", &compute, NULL);
  fail_unless_equals_int (mode, 0);
  fail_unless_equals_int (rgb_mode, 0);
  fail_unless_equals_int (tx, 8);
  fail_unless_equals_int (ty, 8);
  fail_unless_equals_float (clip, 40.0);
  fail_unless_equals_float (smoothing, 0.0);
  fail_unless_equals_float (strength, 1.0);
  fail_unless_equals_int (rx + ry + rw + rh, 0);
  fail_unless (lut_meta);
  fail_unless_equals_int (compute, 0);

  GObjectClass *k = G_OBJECT_GET_CLASS (e);
  for (const char *n : { "tiles-x", "tiles-y" }) {
    GParamSpecUInt *ps = G_PARAM_SPEC_UINT (g_object_class_find_property (k,
            n));
    fail_unless_equals_int (ps->minimum, 1);
    fail_unless_equals_int (ps->maximum, 64);
  }
  struct { const char *n; double lo, hi; } d[] = { {"clip-limit", 0, 65536},
    {"smoothing", 0, 1}, {"strength", 0, 1} };
  for (const auto & x : d) {
    GParamSpecDouble *ps = G_PARAM_SPEC_DOUBLE (g_object_class_find_property
        (k, x.n));
    fail_unless_equals_float (ps->minimum, x.lo);
    fail_unless_equals_float (ps->maximum, x.hi);
  }
  for (const char *n : { "mode", "rgb-mode", "tiles-x", "tiles-y",
          "clip-limit", "smoothing", "strength", "roi-x", "roi-y",
          "roi-width", "roi-height", "lut-meta" }) {
    GParamSpec *ps = g_object_class_find_property (k, n);
    fail_unless (ps != NULL, "no %s", n);
    fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING, "%s not mutable in "
        "PLAYING", n);
  }
  GEnumClass *ec = G_ENUM_CLASS (g_type_class_ref (G_PARAM_SPEC_VALUE_TYPE
          (g_object_class_find_property (k, "mode"))));
  fail_unless_equals_string (g_enum_get_value (ec, 1)->value_nick, "clahe");
  g_type_class_unref (ec);
  gst_object_unref (e);
}
GST_END_TEST;

#ifdef HAVE_GST_CUDA
/* The GPU on CUDA memory at video sizes equals the CPU element (CPU path of
 * the same settings on a copy in system memory), frames of different
 * content per element (recycled buffers, LUT and state reused). */
GST_START_TEST (test_gpu_large)
{
  static const Size sizes[] = { {1920, 1080}, {3840, 2160}, {1283, 723} };
  for (GstVideoFormat fmt : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
          GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx }) {
    for (const Size & s : sizes) {
      /* 4K on one YUV and one RGB layout: the CPU model of the others made
       * this the slowest test on the GPU machine (~6 min) */
      if (too_large_for_small (s.w, s.h) || (s.w > 2000 &&
              fmt != GST_VIDEO_FORMAT_NV12 && fmt != GST_VIDEO_FORMAT_RGBA))
        continue;
      for (int k = 0; k < 4; k++) {
        Eq q;
        q.clahe = k & 1;
        q.per_channel = k == 3;
        q.smoothing = k == 2 ? 0.75 : 0.0;
        q.strength = k == 1 ? 0.6 : 1.0;
        GstVideoInfo info = video_info (fmt, s.w, s.h);
        Run run (Path { Memory::cuda, "gpu" }, info, q);
        for (uint32_t i = 0; i < 3; i++)
          run.push (i == 1 ? Content::random : Content::natural,
              (uint32_t) s.w + i, 0, "gpu large");
      }
    }
  }
}
GST_END_TEST;
#endif


/* ---- high bit depth --------------------------------------------------------- */

/* One 10/16-bit frame through `launch` on path p: the luma words equal
 * cip::ref::equalize on a tight copy of the input's luma words (the kernel
 * test proves the reference against equalizeHist restated for 2^depth bins),
 * every other component's words are unchanged, and the meta holds the
 * 2^depth uint16 entries the reference applied. */
static void
check_hbd_frame (const Path & p, GstVideoFormat fmt, int w, int h, Content c,
    const cip::EqConfig & base, const std::string & props)
{
  GstVideoInfo info = video_info (fmt, w, h);
  FrameSource src (&info, p.memory);
  const std::string launch = std::string ("cudahistequalize compute=") +
      p.compute + " " + props;
  const std::string what = launch + " " + GST_VIDEO_INFO_NAME (&info) + " " +
      content_name (c) + " " + p.name ();
  ElementHarness hrn (launch, &info, p.cuda ());
  GstBuffer *in = src.make (c, (uint32_t) (w * 7 + h), 6);
  std::vector<std::vector<uint32_t>> before;
  for (guint k = 0; k < GST_VIDEO_INFO_N_COMPONENTS (&info); k++)
    before.push_back (read_values (in, &info, k, true));

  /* the model: the reference on the luma words */
  cip::EqConfig cfg = base;
  cfg.depth = (int) GST_VIDEO_INFO_COMP_DEPTH (&info, 0);
  cfg.shift = (int) GST_VIDEO_FORMAT_INFO_SHIFT (info.finfo, 0);
  std::vector<uint16_t> ysrc (before[0].begin (), before[0].end ());
  std::vector<uint16_t> ywant (ysrc.size (), 0);
  cip::EqFrame f;
  f.src = (const uint8_t *) ysrc.data ();
  f.dst = (uint8_t *) ywant.data ();
  f.src_pitch = f.dst_pitch = (size_t) w * 2;
  f.width = w;
  f.height = h;
  std::vector<uint8_t> luts (cip::equalize_lut_bytes (cfg));
  fail_unless (cip::ref::equalize (f, cfg, nullptr, luts.data ()) ==
      cip::Status::ok, "%s: reference", what.c_str ());

  GstBuffer *out = hrn.push (in);
  std::vector<uint32_t> y = read_values (out, &info, 0, true);
  for (size_t i = 0; i < y.size (); i++)
    if (y[i] != ywant[i])
      fail ("%s: luma word %zu: %u != %u", what.c_str (), i, y[i], ywant[i]);
  for (guint k = 1; k < GST_VIDEO_INFO_N_COMPONENTS (&info); k++)
    fail_unless (read_values (out, &info, k, true) == before[k],
        "%s: component %u changed", what.c_str (), k);
  GstEqualizationMeta *m = gst_buffer_get_equalization_meta (out);
  const guint tiles = (guint) cip::equalize_tiles (cfg);
  fail_unless (m != NULL && m->depth == (guint) cfg.depth &&
      m->tiles_x * m->tiles_y == tiles, "%s: meta", what.c_str ());
  GstMapInfo map;
  fail_unless (gst_buffer_map (m->luts, &map, GST_MAP_READ));
  fail_unless (map.size == luts.size () && memcmp (map.data, luts.data (),
          luts.size ()) == 0, "%s: meta tables", what.c_str ());
  gst_buffer_unmap (m->luts, &map);
  /* the bindings' accessor returns a whole uint16 table (the last tile's) */
  const size_t tb = luts.size () / tiles;
  GBytes *t = gst_equalization_meta_get_lut (m, m->tiles_x - 1,
      m->tiles_y - 1, 0);
  fail_unless (t != NULL && g_bytes_get_size (t) == tb &&
      memcmp (g_bytes_get_data (t, NULL), luts.data () + luts.size () - tb,
          tb) == 0, "%s: gst_equalization_meta_get_lut", what.c_str ());
  g_bytes_unref (t);
  gst_buffer_unref (out);
}

/* 10/16-bit formats (garbage in the unused bits): global mode (whole frame,
 * region, strength) and CLAHE (grids that do not divide the frame, clip
 * limits, strength, smoothing's first frame), sizes up to 4K. */
GST_START_TEST (test_high_bit_depth)
{
  for_each_path ([] (const Path & p) {
    for (GstVideoFormat fmt : hbd_formats) {
      if (p.cuda () && fmt == GST_VIDEO_FORMAT_GRAY16_LE)
        continue;
      for (Content c : { Content::random, Content::natural, Content::constant,
              Content::gradient }) {
        cip::EqConfig g;
        check_hbd_frame (p, fmt, 33, 17, c, g, "");
        cip::EqConfig r;
        r.roi_x = 3;
        r.roi_y = 2;
        r.roi_width = 20;
        r.roi_height = 9;
        r.strength = 0.5;
        check_hbd_frame (p, fmt, 34, 18, c, r,
            "roi-x=3 roi-y=2 roi-width=20 roi-height=9 strength=0.5");
        cip::EqConfig k;
        k.mode = cip::EqMode::clahe;
        check_hbd_frame (p, fmt, 34, 18, c, k, "mode=clahe");
        k.tiles_x = k.tiles_y = 2;
        k.clip_limit = 100.0;     /* clips at 75 (10-bit) or 1 (16-bit) */
        check_hbd_frame (p, fmt, 64, 48, c, k, "mode=clahe tiles-x=2 "
            "tiles-y=2 clip-limit=100");
        k.tiles_x = 3;
        k.tiles_y = 5;
        k.clip_limit = 2.5;
        k.strength = 0.75;
        /* the first frame of a running average is the frame's own result */
        check_hbd_frame (p, fmt, 33, 17, c, k, "mode=clahe tiles-x=3 "
            "tiles-y=5 clip-limit=2.5 strength=0.75 smoothing=0.9");
      }
      if (p.compute == std::string ("gpu")) {
        check_hbd_frame (p, fmt, 3840, 2160, Content::natural,
            cip::EqConfig (), "");
        cip::EqConfig k;
        k.mode = cip::EqMode::clahe;
        check_hbd_frame (p, fmt, 3840, 2160, Content::natural, k,
            "mode=clahe");
      }
    }
  });
}
GST_END_TEST;

static Suite *
cudahistequalize_suite (void)
{
  ElementSuite es ("cudahistequalize");

  tcase_add_test (es.cpu, test_properties);
  tcase_add_test (es.cpu, test_model_by_hand);
  tcase_add_test (es.cpu, test_global_every_format);
  tcase_add_test (es.cpu, test_global_sizes_and_contents);
  tcase_add_test (es.cpu, test_strength);
  tcase_add_test (es.cpu, test_clahe);
  tcase_add_test (es.cpu, test_clahe_ignores_roi);
  tcase_add_test (es.cpu, test_smoothing_converges);
  tcase_add_test (es.cpu, test_smoothing_restarts);
  tcase_add_test (es.cpu, test_roi);
  tcase_add_test (es.cpu, test_upstream_histogram_reuse);
  tcase_add_test (es.cpu, test_upstream_histogram_chain);
  tcase_add_test (es.cpu, test_upstream_histogram_stale);
  tcase_add_test (es.cpu, test_live_changes);
  tcase_add_test (es.cpu, test_renegotiation);
  tcase_add_test (es.cpu, test_compute_auto);
  tcase_add_test (es.cpu, test_high_bit_depth);
#ifdef HAVE_GST_CUDA
  tcase_add_test (es.gpu, test_gpu_large);
#endif
  return es.finish ();
}

int
main (int argc, char **argv)
{
  return cip_check_run (cudahistequalize_suite, argc, argv);
}
