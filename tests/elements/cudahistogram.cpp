/* cudahistogram element tests: the counts of the meta and of the bus message
 * equal a naive count over the frame's components (read through
 * GstVideoFrame, not the plugin's helpers; luma of RGB from the documented
 * BT.709 weights) for every format and mode, bins 2..256, every content,
 * regions at edges and corners, 1x1 and odd sizes, padded strides; every
 * histogram sums to the region's pixel count; message fields, types and
 * statistics; interval aggregation, EOS (with a partial and with an empty
 * interval), flushes, a frame of unknown duration, the reset on a change of
 * bins, mode, region or caps; renegotiation on every path; compute=auto;
 * refused caps; properties; draw=true (the chart against the kernel
 * library's reference, on every format, mode and path; toggled while
 * playing). CPU path always; GPU path (system and CUDA memory) when
 * a device works, where it must also equal the CPU path. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cudaimgproc/gsthistogrammeta.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "elementcheck.h"
#include "cip/histogram.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudamemory.h>
#endif

using namespace testutil;

/* Region properties as set on the element (0 = to the edge). */
struct Roi {
  guint x, y, w, h;
};
static const Roi full_frame = { 0, 0, 0, 0 };

/* ---- the naive model ------------------------------------------------------ */

/* histogram.h's documented luma: Y = (13933 R + 46871 G + 4732 B + 32768) >> 16 */
static_assert (cip::kLuma709R == 13933 && cip::kLuma709G == 46871 &&
    cip::kLuma709B == 4732, "documented BT.709 weights");
static uint8_t
naive_luma (uint8_t r, uint8_t g, uint8_t b)
{
  return (uint8_t) ((13933u * r + 46871u * g + 4732u * b + 32768u) >> 16);
}

/* What the histograms of some frames are made of: the sample values each
 * histogram counted. */
struct Expected {
  std::vector<std::string> names;
  std::vector<std::vector<uint32_t>> values;    /* those inside lo..hi */
  /* the clipped region, luma pixels */
  guint x = 0, y = 0, w = 0, h = 0;
  /* the counted values (the format's values, inclusive); full: the
   * format's whole range */
  guint lo = 0, hi = 255;
  bool full = true;
  guint depth = 8;              /* of the format */
};

/* The bins the element uses: `bins`, or by the format's depth when 0. */
static guint
bins_for (guint depth, guint bins)
{
  return bins ? bins : depth == 8 ? 256 : depth == 10 ? 1024 : 4096;
}

/* The region clipped to the frame, as the element documents it. */
static void
clip_region (const GstVideoInfo * info, Roi r, Expected & e)
{
  guint fw = GST_VIDEO_INFO_WIDTH (info), fh = GST_VIDEO_INFO_HEIGHT (info);
  e.x = std::min (r.x, fw);
  e.y = std::min (r.y, fh);
  e.w = std::min (r.w ? r.w : G_MAXUINT, fw - e.x);
  e.h = std::min (r.h ? r.h : G_MAXUINT, fh - e.y);
}

/* Samples [lo, hi) of a component subsampled by `div` that cover the luma
 * samples [start, start + len). */
static void
covering (guint start, guint len, guint div, guint size, guint & lo,
    guint & hi)
{
  if (len == 0) {
    lo = hi = 0;
    return;
  }
  lo = start / div;
  hi = std::min ((start + len + div - 1) / div, size);
}

static Expected naive_all (GstBuffer * buf, const GstVideoInfo * info,
    const std::string & mode, Roi roi);

/* The values of `mode` in the region; range-min / range-max as set on the
 * element (range-max clipped to the format's largest value). */
static Expected
naive (GstBuffer * buf, const GstVideoInfo * info, const std::string & mode,
    Roi roi, guint range_min = 0, guint range_max = 65535)
{
  Expected e = naive_all (buf, info, mode, roi);
  e.depth = GST_VIDEO_INFO_COMP_DEPTH (info, 0);
  const guint vmax = (1u << e.depth) - 1;
  e.lo = range_min;
  e.hi = std::min (range_max, vmax);
  e.full = e.lo == 0 && e.hi == vmax;
  for (auto & vals : e.values)
    vals.erase (std::remove_if (vals.begin (), vals.end (), [&] (uint32_t v) {
              return v < e.lo || v > e.hi;}), vals.end ());
  return e;
}

static Expected
naive_all (GstBuffer * buf, const GstVideoInfo * info, const std::string & mode,
    Roi roi)
{
  Expected e;
  const bool rgb = GST_VIDEO_INFO_IS_RGB (info);
  clip_region (info, roi, e);

  if (mode == "luma" && rgb) {
    std::vector<uint8_t> r = read_component (buf, info, 0);
    std::vector<uint8_t> g = read_component (buf, info, 1);
    std::vector<uint8_t> b = read_component (buf, info, 2);
    size_t fw = GST_VIDEO_INFO_WIDTH (info);
    e.names.push_back ("luma");
    e.values.emplace_back ();
    for (guint y = e.y; y < e.y + e.h; y++)
      for (guint x = e.x; x < e.x + e.w; x++) {
        size_t i = y * fw + x;
        e.values[0].push_back (naive_luma (r[i], g[i], b[i]));
      }
    return e;
  }

  std::vector<guint> comps;
  if (mode == "luma") {
    comps = { 0 };
    e.names = { "luma" };
  } else if (mode == "rgb") {
    comps = { 0, 1, 2 };
    e.names = { "red", "green", "blue" };
  } else {
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
      comps.push_back (c);
      e.names.push_back ("plane" + std::to_string (c));
    }
  }
  for (guint c : comps) {
    std::vector<uint32_t> px = read_values (buf, info, c);
    guint cw = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    guint ch = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
    guint x0, x1, y0, y1;
    /* an empty region is empty in every component */
    covering (e.x, e.h ? e.w : 0, 1u << GST_VIDEO_FORMAT_INFO_W_SUB
        (info->finfo, c), cw, x0, x1);
    covering (e.y, e.w ? e.h : 0, 1u << GST_VIDEO_FORMAT_INFO_H_SUB
        (info->finfo, c), ch, y0, y1);
    e.values.emplace_back ();
    for (guint y = y0; y < y1; y++)
      for (guint x = x0; x < x1; x++)
        e.values.back ().push_back (px[(size_t) y * cw + x]);
  }
  return e;
}

/* Adds the values of another frame with the same histograms. */
static void
append (Expected & sum, const Expected & frame)
{
  if (sum.names.empty ()) {
    sum = frame;
    return;
  }
  for (size_t i = 0; i < sum.values.size (); i++)
    sum.values[i].insert (sum.values[i].end (), frame.values[i].begin (),
        frame.values[i].end ());
}

/* The documented bins: bin = (v - lo) * bins / span, span = hi - lo + 1;
 * bin b starts at lo + ceil(b * span / bins). */
static guint
bin_of (const Expected & e, uint32_t v, guint bins)
{
  return (guint) ((guint64) (v - e.lo) * bins / ((guint64) e.hi - e.lo + 1));
}

static guint
bin_start (const Expected & e, guint b, guint bins)
{
  const guint64 span = (guint64) e.hi - e.lo + 1;
  return e.lo + (guint) (((guint64) b * span + bins - 1) / bins);
}

static std::vector<guint64>
counts_of (const Expected & e, size_t i, guint bins)
{
  std::vector<guint64> c (bins, 0);
  for (uint32_t v : e.values[i])
    c[bin_of (e, v, bins)]++;
  return c;
}

/* ---- checks --------------------------------------------------------------- */

static void
check_meta (GstBuffer * out, const Expected & e, guint bins,
    const std::string & what)
{
  GstHistogramMeta *m = gst_buffer_get_histogram_meta (out);
  fail_unless (m != NULL, "%s: no histogram meta", what.c_str ());
  fail_unless_equals_int (m->bins, bins);
  fail_unless_equals_int (m->n_histograms, e.names.size ());
  fail_unless_equals_int (m->roi_x, e.x);
  fail_unless_equals_int (m->roi_y, e.y);
  fail_unless_equals_int (m->roi_width, e.w);
  fail_unless_equals_int (m->roi_height, e.h);
  fail_unless_equals_int (m->range_min, e.lo);
  fail_unless_equals_int (m->range_max, e.hi);
  fail_unless (m->names[e.names.size ()] == NULL);
  for (size_t i = 0; i < e.names.size (); i++) {
    fail_unless_equals_string (m->names[i], e.names[i].c_str ());
    fail_unless (gst_histogram_meta_get_counts (m, e.names[i].c_str ()) ==
        m->counts + i * bins);
    std::vector<guint64> want = counts_of (e, i, bins);
    guint64 total = 0;
    for (guint b = 0; b < bins; b++) {
      if (m->counts[i * bins + b] != want[b])
        fail ("%s: meta %s bin %u: %" G_GUINT64_FORMAT " != %"
            G_GUINT64_FORMAT, what.c_str (), e.names[i].c_str (), b,
            m->counts[i * bins + b], want[b]);
      total += m->counts[i * bins + b];
    }
    fail_unless_equals_uint64 (total, e.values[i].size ());
  }
  /* luma and colour histograms (and plane0) count exactly the region the
   * meta reports, which is the clipped region */
  fail_unless_equals_uint64 ((guint64) m->roi_width * m->roi_height,
      (guint64) e.w * e.h);
  for (size_t i = 0; i < e.names.size (); i++) {
    const std::string & n = e.names[i];
    if (!e.full || (n != "luma" && n != "red" && n != "green" && n != "blue" &&
            n != "plane0"))
      continue;
    guint64 total = 0;
    for (guint b = 0; b < bins; b++)
      total += m->counts[i * bins + b];
    fail_unless_equals_uint64 (total, (guint64) m->roi_width * m->roi_height);
  }
  fail_unless (gst_histogram_meta_get_counts (m, "nope") == NULL);
  /* the accessors of bindings */
  const gchar *const *names = gst_histogram_meta_get_names (m);
  for (size_t i = 0; i < e.names.size (); i++) {
    fail_unless_equals_string (names[i], e.names[i].c_str ());
    guint n = 0;
    fail_unless (gst_histogram_meta_get_counts_full (m, names[i], &n) ==
        m->counts + i * bins);
    fail_unless_equals_int (n, bins);
  }
  fail_unless (names[e.names.size ()] == NULL);
  guint n = 1;
  fail_unless (gst_histogram_meta_get_counts_full (m, "nope", &n) == NULL);
  fail_unless_equals_int (n, 0);
}

static const GValue *
field (const GstStructure * s, const std::string & name, GType type)
{
  const GValue *v = gst_structure_get_value (s, name.c_str ());
  fail_unless (v != NULL, "message has no field %s", name.c_str ());
  fail_unless (G_VALUE_TYPE (v) == type, "field %s is a %s, not a %s",
      name.c_str (), G_VALUE_TYPE_NAME (v), g_type_name (type));
  return v;
}

/* Checks a `histogram` message: names, GTypes, counts and statistics, the
 * latter derived from the sorted sample values (not from the counts). */
static void
check_message (GstMessage * msg, const Expected & e, guint bins, guint frames,
    const std::string & what)
{
  fail_unless (msg != NULL, "%s: no message", what.c_str ());
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ELEMENT);
  const GstStructure *s = gst_message_get_structure (msg);
  fail_unless (gst_structure_has_name (s, "histogram"));
  for (const char *t : { "timestamp", "stream-time", "running-time",
          "duration" })
    field (s, t, G_TYPE_UINT64);
  fail_unless_equals_int (g_value_get_uint (field (s, "frames", G_TYPE_UINT)),
      frames);
  fail_unless_equals_int (g_value_get_uint (field (s, "bins", G_TYPE_UINT)),
      bins);
  fail_unless_equals_int (g_value_get_uint (field (s, "range-min",
              G_TYPE_UINT)), e.lo);
  fail_unless_equals_int (g_value_get_uint (field (s, "range-max",
              G_TYPE_UINT)), e.hi);
  fail_unless_equals_int (gst_structure_n_fields (s),
      8 + 5 * e.names.size ());

  for (size_t i = 0; i < e.names.size (); i++) {
    const std::string & n = e.names[i];
    const GValue *arr = field (s, n, GST_TYPE_ARRAY);
    std::vector<guint64> want = counts_of (e, i, bins);
    fail_unless_equals_int (gst_value_array_get_size (arr), bins);
    for (guint b = 0; b < bins; b++) {
      const GValue *v = gst_value_array_get_value (arr, b);
      fail_unless (G_VALUE_TYPE (v) == G_TYPE_UINT64, "%s[%u] is a %s",
          n.c_str (), b, G_VALUE_TYPE_NAME (v));
      if (g_value_get_uint64 (v) != want[b])
        fail ("%s: message %s bin %u: %" G_GUINT64_FORMAT " != %"
            G_GUINT64_FORMAT, what.c_str (), n.c_str (), b,
            g_value_get_uint64 (v), want[b]);
    }

    std::vector<uint32_t> sorted = e.values[i];
    std::sort (sorted.begin (), sorted.end ());
    double mean = 0;
    guint min = 0, max = 0, median = 0;
    /* the first value of a value's bin */
    auto edge = [&] (uint32_t v) { return bin_start (e, bin_of (e, v, bins), bins); };
    if (!sorted.empty ()) {
      for (uint32_t v : sorted) {
        const guint b = bin_of (e, v, bins);
        mean += (bin_start (e, b, bins) + bin_start (e, b + 1, bins) - 1) / 2.0;
      }
      mean /= sorted.size ();
      min = edge (sorted.front ());
      max = edge (sorted.back ());
      /* the ceil(N/2)-th smallest value's bin */
      median = edge (sorted[(sorted.size () + 1) / 2 - 1]);
    }
    double got_mean = g_value_get_double (field (s, n + "-mean",
            G_TYPE_DOUBLE));
    fail_unless (std::abs (got_mean - mean) <= 1e-9 * (1 + mean),
        "%s: %s-mean %f != %f", what.c_str (), n.c_str (), got_mean, mean);
    fail_unless_equals_int (g_value_get_uint (field (s, n + "-min",
                G_TYPE_UINT)), min);
    fail_unless_equals_int (g_value_get_uint (field (s, n + "-max",
                G_TYPE_UINT)), max);
    fail_unless_equals_int (g_value_get_uint (field (s, n + "-median",
                G_TYPE_UINT)), median);
  }
}

static guint64
uint64_field (GstMessage * msg, const char *name)
{
  return g_value_get_uint64 (field (gst_message_get_structure (msg), name,
          G_TYPE_UINT64));
}

/* ---- a harness with a bus ------------------------------------------------- */

/* cudahistogram (compute=compute_mode) in a harness with a bus. */
struct Run : ElementHarness {
  GstElement *element;          /* cudahistogram, owned by the harness */

  Run (const std::string & props, const GstVideoInfo * info, bool cuda = false)
      : ElementHarness (std::string ("cudahistogram compute=") + compute_mode +
      " " + props, info, cuda)
  {
    element = find ("cudahistogram");
  }
};

static std::string
props (const std::string & mode, guint bins, Roi r)
{
  return "mode=" + mode + " bins=" + std::to_string (bins) + " roi-x=" +
      std::to_string (r.x) + " roi-y=" + std::to_string (r.y) +
      " roi-width=" + std::to_string (r.w) + " roi-height=" +
      std::to_string (r.h);
}

/* One frame through cudahistogram: meta, message and unchanged video are
 * checked; returns the meta's counts. */
static std::vector<guint64>
run_case (GstVideoFormat fmt, int w, int h, const std::string & mode,
    guint bins, Roi roi, Content c, int pad, guint range_min = 0,
    guint range_max = 65535)
{
  GstVideoInfo info = video_info (fmt, w, h);
  std::string p = props (mode, bins, roi) + " range-min=" +
      std::to_string (range_min) + " range-max=" + std::to_string (range_max);
  std::string what = p + " " + GST_VIDEO_INFO_NAME (&info) + " " +
      std::to_string (w) + "x" + std::to_string (h) + " " + content_name (c) +
      " pad " + std::to_string (pad) + " " + compute_mode;
  Run run (p, &info);

  GstBuffer *in = make_video_buffer (&info, c, (uint32_t) (w * 31 + h), pad);
  std::vector<uint8_t> bytes = buffer_bytes (in);
  Expected e = naive (in, &info, mode, roi, range_min, range_max);
  GstBuffer *out = run.push (in);
  bins = bins_for (e.depth, bins);
  check_meta (out, e, bins, what);
  GstMessage *msg = run.pop ();
  check_message (msg, e, bins, 1, what);
  gst_message_unref (msg);
  run.expect_no_message ();
  fail_unless (buffer_bytes (out) == bytes, "%s: video changed",
      what.c_str ());

  GstHistogramMeta *m = gst_buffer_get_histogram_meta (out);
  std::vector<guint64> counts (m->counts, m->counts +
      (size_t) m->n_histograms * m->bins);
  gst_buffer_unref (out);
  return counts;
}

static std::vector<std::string>
modes_for (GstVideoFormat fmt)
{
  if (GST_VIDEO_FORMAT_INFO_IS_RGB (gst_video_format_get_info (fmt)))
    return { "luma", "rgb", "planes" };
  return { "luma", "planes" };
}

/* ---- draw=true ------------------------------------------------------------- */

/* Every component of `in` (tight arrays, read through GstVideoFrame) with
 * the chart of the histograms `e` painted on as the element documents it:
 * bottom-left, W/3 wide, from row (H - H/4) rounded down to even to the
 * bottom; per colour component (alpha untouched) over its covering samples;
 * RGB black background and white or (mode=rgb) channel-coloured bars, YUV
 * the same in grey at the range's levels with neutral chroma; background
 * alpha 128. The drawing itself is the kernel library's reference (the
 * chart's geometry inside the rectangle is tested in test_histogram). */
static std::vector<std::vector<uint8_t>>
drawn (GstBuffer * in, const GstVideoInfo * info, const std::string & mode,
    const Expected & e, guint bins)
{
  const guint W = GST_VIDEO_INFO_WIDTH (info), H = GST_VIDEO_INFO_HEIGHT (info);
  const bool rgb = GST_VIDEO_INFO_IS_RGB (info);
  const bool limited = !rgb &&
      GST_VIDEO_INFO_COLORIMETRY (info).range == GST_VIDEO_COLOR_RANGE_16_235;
  const guint cw = W / 3, y0 = (H - H / 4) & ~1u, ch = cw ? H - y0 : 0;
  std::vector<uint32_t> counts;
  for (size_t i = 0; i < e.values.size (); i++)
    for (guint64 c : counts_of (e, i, bins))
      counts.push_back ((uint32_t) c);

  std::vector<std::vector<uint8_t>> comps;
  cip::HistDrawPlane planes[3];
  guint np = 0;
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++)
    comps.push_back (read_component (in, info, c));
  for (guint c = 0; c < std::min (GST_VIDEO_INFO_N_COMPONENTS (info), 3u); c++) {
    const guint w = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    const guint h = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
    guint x0, x1, r0, r1;
    covering (0, ch ? cw : 0, 1u << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo,
            c), w, x0, x1);
    covering (y0, cw ? ch : 0, 1u << GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo,
            c), h, r0, r1);
    cip::HistDrawPlane &p = planes[np++];
    p.data = comps[c].data () + (size_t) r0 * w + x0;
    p.pitch = w;
    p.width = (int) (x1 - x0);
    p.height = (int) (r1 - r0);
    p.background = c > 0 && !rgb ? 128 : limited ? 16 : 0;
    for (guint i = 0; i < e.names.size (); i++)
      p.bar[i] = c > 0 && !rgb ? 128 : (mode == "rgb" && i != c) ? 0 :
          limited ? 235 : 255;
  }
  fail_unless (cip::ref::histogram_draw (counts.data (),
          (int) e.names.size (), (int) bins, planes, (int) np, 128) ==
      cip::Status::ok);
  return comps;
}

/* The components of `out` equal `want`, exactly. */
static void
check_frame (GstBuffer * out, const GstVideoInfo * info,
    const std::vector<std::vector<uint8_t>> & want, const std::string & what)
{
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    std::vector<uint8_t> got = read_component (out, info, c);
    const guint w = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    for (size_t i = 0; i < got.size (); i++)
      if (got[i] != want[c][i])
        fail ("%s: component %u (%zu, %zu): %u != %u", what.c_str (), c,
            i % w, i / w, got[i], want[c][i]);
  }
}

/* One frame through cudahistogram draw=true on path p: the frame carries the
 * chart of its own histograms, the meta and the message still hold the
 * input's counts, and the meta names no producer (the pixels changed). The
 * input is kept referenced (not writable): the element must not write into
 * it. */
static void
draw_case (const Path & p, GstVideoFormat fmt, int w, int h,
    const std::string & mode, guint bins, Roi roi, Content c, int pad)
{
  /* 1.22's GstCudaMemory moves odd-height I420 chroma wrongly between its
   * CPU staging copy and the device (the frames here are written through a
   * CPU map): CUDA-memory cases use even heights */
  if (p.cuda () && fmt == GST_VIDEO_FORMAT_I420 && h % 2)
    h++;
  GstVideoInfo info = video_info (fmt, w, h);
  std::string props_ = props (mode, bins, roi) + " draw=true";
  std::string what = props_ + " " + GST_VIDEO_INFO_NAME (&info) + " " +
      std::to_string (w) + "x" + std::to_string (h) + " " + content_name (c) +
      " " + p.name ();
  ElementHarness run (std::string ("cudahistogram compute=") + p.compute +
      " " + props_, &info, p.cuda ());
  FrameSource src (&info, p.memory);
  GstBuffer *in = src.make (c, (uint32_t) (w * 17 + h), pad);
  std::vector<uint8_t> bytes = buffer_bytes (in);
  Expected e = naive (in, &info, mode, roi);
  std::vector<std::vector<uint8_t>> want = drawn (in, &info, mode, e, bins);

  GstBuffer *keep = gst_buffer_ref (in);
  GstBuffer *out = run.push (in);
  check_frame (out, &info, want, what);
  check_meta (out, e, bins, what);
  fail_unless (gst_buffer_get_histogram_meta (out)->producer == NULL, "%s",
      what.c_str ());
  GstMessage *msg = run.pop ();
  check_message (msg, e, bins, 1, what);
  gst_message_unref (msg);
  fail_unless (buffer_bytes (keep) == bytes, "%s: the input was written",
      what.c_str ());
#ifdef HAVE_GST_CUDA
  fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)) ==
      p.cuda ());
#endif
  gst_buffer_unref (keep);
  gst_buffer_unref (out);
}

/* ---- tests ---------------------------------------------------------------- */

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("cudahistogram", NULL);
  guint bins, x, y, w, h;
  gint mode;
  gboolean post;
  guint64 interval;

  fail_unless (e != NULL);
  g_object_get (e, "bins", &bins, "mode", &mode, "roi-x", &x, "roi-y", &y,
      "roi-width", &w, "roi-height", &h, "post-messages", &post, "interval",
      &interval, NULL);
  fail_unless_equals_int (bins, 0);
  fail_unless_equals_int (mode, 0);
  fail_unless (x == 0 && y == 0 && w == 0 && h == 0);
  fail_unless (post);
  fail_unless_equals_uint64 (interval, 0);
  gboolean draw = TRUE;
  g_object_get (e, "draw", &draw, NULL);
  fail_if (draw);
  guint rmin, rmax;
  g_object_get (e, "range-min", &rmin, "range-max", &rmax, NULL);
  fail_unless (rmin == 0 && rmax == 65535);

  GParamSpecUInt *ps = G_PARAM_SPEC_UINT (g_object_class_find_property
      (G_OBJECT_GET_CLASS (e), "bins"));
  fail_unless_equals_int (ps->minimum, 0);
  fail_unless_equals_int (ps->maximum, 65536);

  /* any count is kept (1 is taken as 2) */
  for (guint b : { 0u, 2u, 3u, 100u, 255u, 256u, 1000u, 65536u }) {
    g_object_set (e, "bins", b, NULL);
    g_object_get (e, "bins", &bins, NULL);
    fail_unless_equals_int (bins, b);
  }
  g_object_set (e, "bins", 1, NULL);
  g_object_get (e, "bins", &bins, NULL);
  fail_unless_equals_int (bins, 2);
  g_object_set (e, "range-min", 64, "range-max", 940, NULL);
  g_object_get (e, "range-min", &rmin, "range-max", &rmax, NULL);
  fail_unless (rmin == 64 && rmax == 940);
  gst_object_unref (e);
}
GST_END_TEST;

GST_START_TEST (test_every_format_and_mode)
{
  for (GstVideoFormat fmt : all_formats) {
    for (const std::string & mode : modes_for (fmt)) {
      run_case (fmt, 33, 17, mode, 256, full_frame, Content::random, 0);
      run_case (fmt, 31, 9, mode, 16, Roi { 3, 2, 20, 5 }, Content::natural,
          13);
    }
  }
}
GST_END_TEST;

GST_START_TEST (test_contents)
{
  for (Content c : all_contents) {
    run_case (GST_VIDEO_FORMAT_GRAY8, 64, 48, "luma", 256, full_frame, c, 0);
    run_case (GST_VIDEO_FORMAT_NV12, 62, 34, "planes", 64, full_frame, c, 5);
    run_case (GST_VIDEO_FORMAT_BGRx, 35, 21, "luma", 256, full_frame, c, 3);
    run_case (GST_VIDEO_FORMAT_RGBA, 35, 21, "rgb", 32, full_frame, c, 0);
    run_case (GST_VIDEO_FORMAT_I420, 37, 23, "planes", 256, Roi { 5, 3, 0,
            0 }, c, 0);
  }
}
GST_END_TEST;

GST_START_TEST (test_every_bins)
{
  for (guint bins = 2; bins <= 256; bins *= 2) {
    run_case (GST_VIDEO_FORMAT_GRAY8, 37, 23, "luma", bins, full_frame,
        Content::random, 0);
    run_case (GST_VIDEO_FORMAT_RGBx, 37, 23, "rgb", bins, full_frame,
        Content::gradient, 7);
    run_case (GST_VIDEO_FORMAT_BGRA, 29, 13, "luma", bins, Roi { 1, 1, 27,
            11 }, Content::random, 0);
    run_case (GST_VIDEO_FORMAT_NV12, 38, 24, "planes", bins, full_frame,
        Content::checkerboard, 0);
    run_case (GST_VIDEO_FORMAT_Y444, 17, 9, "planes", bins, Roi { 2, 2, 0,
            0 }, Content::all255, 0);
  }
}
GST_END_TEST;

/* Regions at the edges and corners, extending to the edge, clipped, and
 * outside the frame; odd offsets on subsampled chroma. */
GST_START_TEST (test_regions)
{
  const guint W = 37, H = 29;
  const Roi rois[] = {
    {0, 0, 1, 1}, {W - 1, 0, 1, 1}, {0, H - 1, 1, 1}, {W - 1, H - 1, 0, 0},
    {0, 0, W, 1}, {0, H - 1, 0, 0}, {W - 1, 0, 0, 0}, {0, 0, 1, 0},
    {5, 7, 0, 0}, {3, 5, 4, 3}, {1, 1, 2, 2}, {W - 3, H - 2, 100, 100},
    {W - 7, 4, 1000, 3}, {0, 0, W, H}, {0, 0, G_MAXINT, G_MAXINT},
    {W, 0, 0, 0}, {0, H + 5, 3, 3}, {1000, 1000, 5, 5},
  };
  const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_GRAY8 };
  for (const Roi & r : rois) {
    for (GstVideoFormat fmt : fmts) {
      const std::string mode = fmt == GST_VIDEO_FORMAT_BGRx ? "rgb" :
          fmt == GST_VIDEO_FORMAT_RGBA ? "luma" : "planes";
      run_case (fmt, W, H, mode, 256, r, Content::random, fmt ==
          GST_VIDEO_FORMAT_I420 ? 9 : 0);
    }
    run_case (GST_VIDEO_FORMAT_BGRA, W, H, "planes", 8, r, Content::natural,
        0);
  }
}
GST_END_TEST;

GST_START_TEST (test_sizes_and_strides)
{
  for (int i = 0; i < n_edge_sizes; i++) {
    const Size & s = edge_sizes[i];
    for (int pad : { 0, 7 }) {
      run_case (GST_VIDEO_FORMAT_GRAY8, s.w, s.h, "luma", 256, full_frame,
          Content::random, pad);
      run_case (GST_VIDEO_FORMAT_NV12, s.w, s.h, "planes", 128, full_frame,
          Content::natural, pad);
      run_case (GST_VIDEO_FORMAT_RGBx, s.w, s.h, "luma", 64, full_frame,
          Content::random, pad);
    }
  }
  if (!too_large_for_small (1920, 1080))
    run_case (GST_VIDEO_FORMAT_I420, 1920, 1080, "planes", 256, full_frame,
        Content::natural, 0);
}
GST_END_TEST;

/* A GRAY8 frame of one row holding exactly `px`. */
static GstBuffer *
gray_row (const std::vector<uint8_t> & px)
{
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_GRAY8, (int) px.size (), 1);
  GstBuffer *buf = make_video_buffer (&info, Content::zeros, 0);
  GstVideoFrame f;
  fail_unless (gst_video_frame_map (&f, &info, buf, GST_MAP_WRITE));
  std::copy (px.begin (), px.end (), (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f,
          0));
  gst_video_frame_unmap (&f);
  return buf;
}

/* The statistics of hand-made frames, spelled out. */
GST_START_TEST (test_statistics)
{
  struct {
    std::vector<uint8_t> px;
    guint bins;
    Roi roi;
    double mean;
    guint min, max, median;
  } cases[] = {
    /* 256 bins: exact values; the median is the lower median */
    { {10, 20, 30, 40}, 256, full_frame, 25.0, 10, 40, 20},
    { {40, 30, 20}, 256, full_frame, 30.0, 20, 40, 30},
    { {0, 255}, 256, full_frame, 127.5, 0, 255, 0},
    { {7}, 256, full_frame, 7.0, 7, 7, 7},
    /* 16 bins of width 16, centres 7.5, 23.5, 39.5: bins 0, 1, 1, 2 */
    { {10, 20, 30, 40}, 16, full_frame, 23.5, 0, 32, 16},
    /* 2 bins: [0, 127] and [128, 255], centres 63.5 and 191.5 */
    { {0, 127, 128, 255, 255}, 2, full_frame, 140.3, 0, 128, 128},
    /* an empty region: zero counts and statistics */
    { {1, 2, 3}, 256, {3, 0, 0, 0}, 0.0, 0, 0, 0},
  };
  for (const auto & c : cases) {
    GstVideoInfo info = video_info (GST_VIDEO_FORMAT_GRAY8, (int) c.px.size (),
        1);
    Run run (props ("luma", c.bins, c.roi), &info);
    gst_buffer_unref (run.push (gray_row (c.px)));
    GstMessage *msg = run.pop ();
    fail_unless (msg != NULL);
    const GstStructure *s = gst_message_get_structure (msg);
    double mean;
    guint min, max, median;
    fail_unless (gst_structure_get (s, "luma-mean", G_TYPE_DOUBLE, &mean,
            "luma-min", G_TYPE_UINT, &min, "luma-max", G_TYPE_UINT, &max,
            "luma-median", G_TYPE_UINT, &median, NULL));
    fail_unless (std::abs (mean - c.mean) < 1e-9, "mean %f != %f", mean,
        c.mean);
    fail_unless_equals_int (min, c.min);
    fail_unless_equals_int (max, c.max);
    fail_unless_equals_int (median, c.median);
    gst_message_unref (msg);
  }
}
GST_END_TEST;

/* Field names and types, and the times of a frame in a non-trivial segment. */
GST_START_TEST (test_message_fields)
{
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_RGBA, 16, 8);
  Run run ("mode=rgb bins=4", &info);
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = GST_SECOND;
  seg.time = 5 * GST_SECOND;
  seg.base = 10 * GST_SECOND;
  fail_unless (gst_harness_push_event (run.h, gst_event_new_segment (&seg)));

  GstBuffer *in = make_video_buffer (&info, Content::random, 3);
  GST_BUFFER_PTS (in) = 3 * GST_SECOND;
  GST_BUFFER_DURATION (in) = 40 * GST_MSECOND;
  Expected e = naive (in, &info, "rgb", full_frame);
  gst_buffer_unref (run.push (in));
  GstMessage *msg = run.pop ();
  check_message (msg, e, 4, 1, "fields");
  const GstStructure *s = gst_message_get_structure (msg);
  const char *const names[] = { "timestamp", "stream-time", "running-time",
    "duration", "frames", "bins", "range-min", "range-max", "red", "red-mean", "red-min", "red-max",
    "red-median", "green", "green-mean", "green-min", "green-max",
    "green-median", "blue", "blue-mean", "blue-min", "blue-max",
    "blue-median"
  };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    fail_unless_equals_string (gst_structure_nth_field_name (s, i), names[i]);
  fail_unless_equals_uint64 (uint64_field (msg, "timestamp"), 3 * GST_SECOND);
  fail_unless_equals_uint64 (uint64_field (msg, "running-time"),
      12 * GST_SECOND);
  fail_unless_equals_uint64 (uint64_field (msg, "stream-time"),
      7 * GST_SECOND);
  fail_unless_equals_uint64 (uint64_field (msg, "duration"),
      40 * GST_MSECOND);
  fail_unless (GST_MESSAGE_SRC (msg) != NULL &&
      g_str_has_prefix (GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
          "cudahistogram"));
  gst_message_unref (msg);

  /* unknown times are GST_CLOCK_TIME_NONE */
  in = make_video_buffer (&info, Content::random, 4);
  gst_buffer_unref (run.push (in));
  msg = run.pop ();
  fail_unless_equals_uint64 (uint64_field (msg, "timestamp"),
      GST_CLOCK_TIME_NONE);
  fail_unless_equals_uint64 (uint64_field (msg, "running-time"),
      GST_CLOCK_TIME_NONE);
  fail_unless_equals_uint64 (uint64_field (msg, "stream-time"),
      GST_CLOCK_TIME_NONE);
  /* no buffer duration: the frame rate's (30/1) */
  fail_unless_equals_uint64 (uint64_field (msg, "duration"),
      gst_util_uint64_scale_int (GST_SECOND, 1, 30));
  gst_message_unref (msg);
}
GST_END_TEST;

/* Pushes `n` timed frames with distinct content (frame i at i * dur, or
 * without duration when dur is NONE) and returns what each contains. */
static std::vector<Expected>
push_timed (Run & run, const GstVideoInfo * info, const std::string & mode,
    int first, int n, GstClockTime dur, Roi roi = full_frame)
{
  std::vector<Expected> frames;
  guint bins;
  g_object_get (run.element, "bins", &bins, NULL);
  for (int i = first; i < first + n; i++) {
    GstBuffer *in = make_video_buffer (info, Content::random, 100 + i);
    GstClockTime step = GST_CLOCK_TIME_IS_VALID (dur) ? dur :
        gst_util_uint64_scale_int (GST_SECOND, 1, 30);
    GST_BUFFER_PTS (in) = i * step;
    GST_BUFFER_DURATION (in) = dur;
    frames.push_back (naive (in, info, mode, roi));
    GstBuffer *out = run.push (in);
    /* the meta holds the frame's own counts, not the sums */
    check_meta (out, frames.back (), bins_for (frames.back ().depth, bins),
        "timed frame");
    gst_buffer_unref (out);
  }
  return frames;
}

/* Checks the message of an interval made of `frames` (first one at pts). */
static void
check_interval (Run & run, const std::vector<Expected> & frames, size_t from,
    size_t n, GstClockTime pts, GstClockTime duration)
{
  Expected sum;
  guint bins;
  g_object_get (run.element, "bins", &bins, NULL);
  for (size_t i = from; i < from + n; i++)
    append (sum, frames[i]);
  GstMessage *msg = run.pop ();
  check_message (msg, sum, bins_for (sum.depth, bins), (guint) n, "interval");
  fail_unless_equals_uint64 (uint64_field (msg, "timestamp"), pts);
  fail_unless_equals_uint64 (uint64_field (msg, "running-time"), pts);
  fail_unless_equals_uint64 (uint64_field (msg, "stream-time"), pts);
  fail_unless_equals_uint64 (uint64_field (msg, "duration"), duration);
  gst_message_unref (msg);
}

/* interval = 3 frames: one message per 3 frames with their summed counts;
 * EOS posts the partial interval. */
GST_START_TEST (test_interval)
{
  const GstClockTime d = 40 * GST_MSECOND;
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, 30, 20);
  Run run ("mode=planes interval=" + std::to_string (3 * d), &info);

  std::vector<Expected> f = push_timed (run, &info, "planes", 0, 2, d);
  run.expect_no_message ();
  std::vector<Expected> more = push_timed (run, &info, "planes", 2, 5, d);
  f.insert (f.end (), more.begin (), more.end ());
  check_interval (run, f, 0, 3, 0, 3 * d);
  check_interval (run, f, 3, 3, 3 * d, 3 * d);
  run.expect_no_message ();
  fail_unless (gst_harness_push_event (run.h, gst_event_new_eos ()));
  check_interval (run, f, 6, 1, 6 * d, d);
  run.expect_no_message ();
}
GST_END_TEST;

/* Durations that do not add up to the interval exactly: it closes with the
 * frame nearest to it (within half a frame); 30 fps from the caps when
 * buffers have no duration. */
GST_START_TEST (test_interval_rounding)
{
  const GstClockTime fps30 = gst_util_uint64_scale_int (GST_SECOND, 1, 30);
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_GRAY8, 8, 8);
  struct {
    GstClockTime interval, dur;
    int per_message;
  } cases[] = {
    { 100 * GST_MSECOND, fps30, 3 },    /* 3 x 33.333333 ms < 100 ms */
    { 100 * GST_MSECOND, GST_CLOCK_TIME_NONE, 3 },      /* from the caps */
    { 34 * GST_MSECOND, 10 * GST_MSECOND, 3 },  /* 3.4 frames */
    { 36 * GST_MSECOND, 10 * GST_MSECOND, 4 },  /* 3.6 frames */
    { 1, 10 * GST_MSECOND, 1 },
  };
  for (const auto & c : cases) {
    Run run ("interval=" + std::to_string (c.interval), &info);
    std::vector<Expected> f = push_timed (run, &info, "luma", 0,
        2 * c.per_message, c.dur);
    GstClockTime d = GST_CLOCK_TIME_IS_VALID (c.dur) ? c.dur : fps30;
    for (int k = 0; k < 2; k++)
      check_interval (run, f, k * c.per_message, c.per_message,
          k * c.per_message * d, c.per_message * d);
    run.expect_no_message ();
  }
}
GST_END_TEST;

GST_START_TEST (test_post_messages_false)
{
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_I420, 32, 16);
  Run run ("post-messages=false", &info);
  push_timed (run, &info, "luma", 0, 3, 10 * GST_MSECOND);
  fail_unless (gst_harness_push_event (run.h, gst_event_new_eos ()));
  run.expect_no_message ();
}
GST_END_TEST;

/* A flush, new caps, or a new bins value discard the partial interval. */
GST_START_TEST (test_interval_resets)
{
  const GstClockTime d = 10 * GST_MSECOND;
  GstVideoInfo a = video_info (GST_VIDEO_FORMAT_NV12, 64, 48);
  /* same size: the region and histograms are alike, only the caps differ */
  GstVideoInfo b = video_info (GST_VIDEO_FORMAT_RGBA, 64, 48);

  {
    Run run ("interval=" + std::to_string (3 * d), &a);
    push_timed (run, &a, "luma", 0, 2, d);
    fail_unless (gst_harness_push_event (run.h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (run.h,
            gst_event_new_flush_stop (TRUE)));
    GstSegment seg;
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (run.h, gst_event_new_segment (&seg)));
    std::vector<Expected> f = push_timed (run, &a, "luma", 0, 3, d);
    check_interval (run, f, 0, 3, 0, 3 * d);
    run.expect_no_message ();
  }
  {
    /* renegotiation mid-stream, mid-interval */
    Run run ("interval=" + std::to_string (2 * d), &a);
    push_timed (run, &a, "luma", 0, 1, d);
    run.caps (&b);
    std::vector<Expected> f = push_timed (run, &b, "luma", 1, 2, d);
    check_interval (run, f, 0, 2, d, 2 * d);
    run.expect_no_message ();
  }
  {
    Run run ("interval=" + std::to_string (3 * d), &a);
    push_timed (run, &a, "luma", 0, 2, d);
    g_object_set (run.element, "bins", 16, NULL);
    Expected sum;
    for (int i = 0; i < 3; i++) {
      GstBuffer *in = make_video_buffer (&a, Content::natural, 7 + i);
      GST_BUFFER_DURATION (in) = d;
      append (sum, naive (in, &a, "luma", full_frame));
      gst_buffer_unref (run.push (in));
    }
    GstMessage *msg = run.pop ();
    check_message (msg, sum, 16, 3, "bins changed");
    gst_message_unref (msg);
  }
}
GST_END_TEST;

/* Counts the element's "message arrays from the spare set" log lines. */
static gint spare_takes;
static void
count_spare_takes (GstDebugCategory * category, GstDebugLevel level,
    const gchar *, const gchar *, gint, GObject *, GstDebugMessage * message,
    gpointer)
{
  if (level == GST_LEVEL_LOG && g_str_equal (gst_debug_category_get_name
          (category), "cudahistogram") && strstr (gst_debug_message_get
          (message), "from the spare set"))
    g_atomic_int_inc (&spare_takes);
}

/* A message every frame: its arrays are built ahead between frames, on
 * the element's own thread (the spare set). Frames spaced out so that the
 * next frame's set is ready, and taken (the element logs each take);
 * `bins` changed between frames, as a live property, without a reset: a
 * set of the old size must not be taken; then `mode` (the number of
 * histograms, with a renegotiation), and flushes (a reset) with a build
 * just asked for. */
GST_START_TEST (test_spare_arrays_follow_bins)
{
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, 62, 34);
  Run run ("mode=planes bins=256", &info);
  const struct {
    const char *mode;
    guint bins;
  } steps[] = { {"planes", 256}, {"planes", 256}, {"planes", 256},
  {"planes", 16}, {"planes", 16}, {"planes", 64}, {"planes", 256},
  {"luma", 256}, {"luma", 256}, {"planes", 32} };
  guint seed = 3;
  g_atomic_int_set (&spare_takes, 0);
  gst_debug_set_threshold_for_name ("cudahistogram", GST_LEVEL_LOG);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (count_spare_takes, NULL, NULL);
  for (const auto & step : steps) {
    g_object_set (run.element, "bins", step.bins, NULL);
    gst_util_set_object_arg (G_OBJECT (run.element), "mode", step.mode);
    for (int k = 0; k < 3; k++) {
      GstBuffer *in = make_video_buffer (&info, Content::random, seed++);
      Expected e = naive (in, &info, step.mode, full_frame);
      gst_buffer_unref (run.push (in));
      GstMessage *msg = run.pop ();
      check_message (msg, e, step.bins, 1, std::string (step.mode) + " bins "
          + std::to_string (step.bins) + ", frame " + std::to_string (k));
      gst_message_unref (msg);
      if (k == 1) {
        /* a reset while the next set is being built */
        fail_unless (gst_harness_push_event (run.h,
                gst_event_new_flush_start ()));
        fail_unless (gst_harness_push_event (run.h,
                gst_event_new_flush_stop (TRUE)));
        GstSegment seg;
        gst_segment_init (&seg, GST_FORMAT_TIME);
        fail_unless (gst_harness_push_event (run.h,
                gst_event_new_segment (&seg)));
      } else {
        g_usleep (20000);       /* the next set is built meanwhile */
      }
    }
  }
  gst_debug_remove_log_function (count_spare_takes);
  gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
  gst_debug_set_threshold_for_name ("cudahistogram", GST_LEVEL_NONE);
  run.expect_no_message ();
  /* 30 frames: the first, the one after each flush and the first after
   * each change of layout (16 in all) build their own; the other 14 find
   * the set built during the sleep */
  fail_unless (g_atomic_int_get (&spare_takes) >= 8,
      "%d frames took a spare set", g_atomic_int_get (&spare_takes));
}
GST_END_TEST;

/* A change of `mode` or of the region between frames discards the partial
 * interval: the next message holds only the frames after the change. */
GST_START_TEST (test_interval_resets_mode_roi)
{
  const GstClockTime d = 10 * GST_MSECOND;
  GstVideoInfo a = video_info (GST_VIDEO_FORMAT_NV12, 64, 48);
  GstVideoInfo g = video_info (GST_VIDEO_FORMAT_GRAY8, 40, 30);
  const Roi roi = { 5, 3, 20, 11 };

  {
    /* luma -> planes: one histogram -> three */
    Run run ("bins=64 interval=" + std::to_string (3 * d), &a);
    push_timed (run, &a, "luma", 0, 2, d);
    g_object_set (run.element, "mode", 2 /* planes */, NULL);
    std::vector<Expected> f = push_timed (run, &a, "planes", 2, 3, d);
    check_interval (run, f, 0, 3, 2 * d, 3 * d);
    run.expect_no_message ();
  }
  {
    /* luma -> planes on GRAY8: one histogram either way, another name */
    Run run ("interval=" + std::to_string (3 * d), &g);
    push_timed (run, &g, "luma", 0, 1, d);
    g_object_set (run.element, "mode", 2 /* planes */, NULL);
    std::vector<Expected> f = push_timed (run, &g, "planes", 1, 3, d);
    check_interval (run, f, 0, 3, d, 3 * d);
    run.expect_no_message ();
  }
  {
    /* full frame -> a region, then the region -> back to the full frame */
    Run run ("mode=planes interval=" + std::to_string (3 * d), &a);
    push_timed (run, &a, "planes", 0, 2, d);
    g_object_set (run.element, "roi-x", roi.x, "roi-y", roi.y, "roi-width",
        roi.w, "roi-height", roi.h, NULL);
    std::vector<Expected> f = push_timed (run, &a, "planes", 2, 4, d, roi);
    check_interval (run, f, 0, 3, 2 * d, 3 * d);
    g_object_set (run.element, "roi-x", 0, "roi-y", 0, "roi-width", 0,
        "roi-height", 0, NULL);
    std::vector<Expected> h = push_timed (run, &a, "planes", 6, 3, d);
    check_interval (run, h, 0, 3, 6 * d, 3 * d);
    run.expect_no_message ();
  }
  {
    /* only the width changes */
    Run run ("interval=" + std::to_string (2 * d), &g);
    push_timed (run, &g, "luma", 0, 1, d);
    g_object_set (run.element, "roi-width", 7, NULL);
    std::vector<Expected> f = push_timed (run, &g, "luma", 1, 2, d,
        Roi { 0, 0, 7, 0 });
    check_interval (run, f, 0, 2, d, 2 * d);
    run.expect_no_message ();
  }
}
GST_END_TEST;

/* A frame whose duration is unknown (no buffer duration, no frame rate)
 * closes the interval, whatever it holds. */
GST_START_TEST (test_interval_unknown_duration)
{
  const GstClockTime d = 10 * GST_MSECOND;
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_GRAY8, 16, 8);
  GST_VIDEO_INFO_FPS_N (&info) = 0;
  GST_VIDEO_INFO_FPS_D (&info) = 1;
  Run run ("interval=" + std::to_string (GST_SECOND), &info);

  /* alone: one message per frame */
  std::vector<Expected> f = push_timed (run, &info, "luma", 0, 2,
      GST_CLOCK_TIME_NONE);
  for (int i = 0; i < 2; i++) {
    GstMessage *msg = run.pop ();
    check_message (msg, f[i], 256, 1, "unknown duration");
    fail_unless_equals_uint64 (uint64_field (msg, "duration"), 0);
    gst_message_unref (msg);
  }
  run.expect_no_message ();
  /* after two known ones: closes the three, duration of the known ones */
  std::vector<Expected> k = push_timed (run, &info, "luma", 2, 2, d);
  run.expect_no_message ();
  std::vector<Expected> u = push_timed (run, &info, "luma", 4, 1,
      GST_CLOCK_TIME_NONE);
  k.push_back (u[0]);
  Expected sum;
  for (const Expected & e : k)
    append (sum, e);
  GstMessage *msg = run.pop ();
  check_message (msg, sum, 256, 3, "known then unknown");
  fail_unless_equals_uint64 (uint64_field (msg, "duration"), 2 * d);
  gst_message_unref (msg);
  run.expect_no_message ();
}
GST_END_TEST;

/* EOS posts nothing when no frame is waiting: right after an interval
 * closed, after a flush, and before any frame. */
GST_START_TEST (test_eos_empty_interval)
{
  const GstClockTime d = 10 * GST_MSECOND;
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_I420, 32, 16);
  {
    Run run ("interval=" + std::to_string (3 * d), &info);
    std::vector<Expected> f = push_timed (run, &info, "luma", 0, 3, d);
    check_interval (run, f, 0, 3, 0, 3 * d);
    fail_unless (gst_harness_push_event (run.h, gst_event_new_eos ()));
    run.expect_no_message ();
  }
  {
    Run run ("interval=" + std::to_string (3 * d), &info);
    push_timed (run, &info, "luma", 0, 2, d);
    fail_unless (gst_harness_push_event (run.h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (run.h,
            gst_event_new_flush_stop (TRUE)));
    fail_unless (gst_harness_push_event (run.h, gst_event_new_eos ()));
    run.expect_no_message ();
  }
  {
    Run run ("interval=" + std::to_string (3 * d), &info);
    fail_unless (gst_harness_push_event (run.h, gst_event_new_eos ()));
    run.expect_no_message ();
  }
  {
    /* interval=0: every frame posted at once, nothing left for EOS */
    Run run ("", &info);
    std::vector<Expected> f = push_timed (run, &info, "luma", 0, 2, d);
    for (int i = 0; i < 2; i++)
      check_interval (run, f, i, 1, i * d, d);
    fail_unless (gst_harness_push_event (run.h, gst_event_new_eos ()));
    run.expect_no_message ();
  }
}
GST_END_TEST;

/* compute=auto, and no compute= at all (the default): the GPU when one
 * works, else the CPU; the counts are right either way. */
GST_START_TEST (test_compute_auto)
{
  compute_mode = "auto";
  run_case (GST_VIDEO_FORMAT_NV12, 66, 34, "planes", 64, Roi { 3, 3, 0, 0 },
      Content::random, 5);
  run_case (GST_VIDEO_FORMAT_BGRA, 33, 17, "rgb", 256, full_frame,
      Content::natural, 0);
  run_case (GST_VIDEO_FORMAT_RGBx, 35, 21, "luma", 16, full_frame,
      Content::random, 3);
  compute_mode = "cpu";
  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_Y444, 45, 31);
  for_each_path ([&info] (const Path & p) {
    FrameSource src (&info, p.memory);
    ElementHarness run ("cudahistogram mode=planes bins=32", &info, p.cuda ());
    for (uint32_t seed = 1; seed <= 2; seed++) {
      GstBuffer *in = src.make (Content::random, seed);
      Expected e = naive (in, &info, "planes", full_frame);
      GstBuffer *out = run.push (in);
      check_meta (out, e, 32, "default compute " + p.name ());
      gst_buffer_unref (out);
      GstMessage *msg = run.pop ();
      check_message (msg, e, 32, 1, "default compute " + p.name ());
      gst_message_unref (msg);
    }
  });
}
GST_END_TEST;

/* odd_i420_note: GStreamer 1.22's GstCudaMemory moves odd-height I420 chroma wrongly
 * between its CPU staging copy and the device (frames written through a CPU
 * map, as FrameSource does); cudaupload/cudadownload round trips are right
 * and so are the elements on them (checked on the GPU machine), so CUDA
 * memory cases here use even heights. */
/* Renegotiation: each caps' frames are counted with their own layout, on
 * every path (GPU: scratch frames and count buffers rebuilt), two frames per
 * caps. */
GST_START_TEST (test_renegotiation)
{
  GstVideoInfo a = video_info (GST_VIDEO_FORMAT_NV12, 64, 48);
  GstVideoInfo b = video_info (GST_VIDEO_FORMAT_RGBA, 33, 21);
  GstVideoInfo c = video_info (GST_VIDEO_FORMAT_GRAY8, 5, 3);
  GstVideoInfo d = video_info (GST_VIDEO_FORMAT_I420, 1283, 723);
  GstVideoInfo d_even = video_info (GST_VIDEO_FORMAT_I420, 1283, 724);
  for_each_path ([&] (const Path & p) {
    compute_mode = p.compute;
    Run run ("mode=planes bins=32", nullptr);
    compute_mode = "cpu";
    int seed = 0;
    for (GstVideoInfo * info : { &a, &b, &c, &a, &d, &b }) {
      if (p.cuda () && info == &c)
        continue;               /* GRAY8 is system memory only */
      if (p.cuda () && info == &d)
        info = &d_even;         /* see odd_i420_note */
      FrameSource src (info, p.memory);
      run.caps (info, p.cuda ());
      for (int i = 0; i < 2; i++) {
        GstBuffer *in = src.make (Content::random, seed++);
        Expected e = naive (in, info, "planes", full_frame);
        GstBuffer *out = run.push (in);
        check_meta (out, e, 32, "renegotiation " + p.name ());
        gst_buffer_unref (out);
        GstMessage *msg = run.pop ();
        check_message (msg, e, 32, 1, "renegotiation " + p.name ());
        gst_message_unref (msg);
      }
    }
  });
}
GST_END_TEST;

/* mode=rgb needs RGB: the caps are refused at negotiation with a warning
 * saying why; a switch to rgb on YUV caps asks upstream to renegotiate, and
 * while it does not, the previous mode stays (the message names it). */
GST_START_TEST (test_rgb_refused)
{
  for (GstVideoFormat fmt : { GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_GRAY8 }) {
    GstVideoInfo info = video_info (fmt, 32, 32);
    Run run ("mode=rgb", &info);
    GstFlowReturn r = gst_harness_push (run.h, make_video_buffer (&info,
            Content::random, 1));
    fail_unless (r == GST_FLOW_NOT_NEGOTIATED,
        "mode=rgb on %s must be refused, got %s", GST_VIDEO_INFO_NAME (&info),
        gst_flow_get_name (r));
    GstMessage *m = gst_bus_timed_pop_filtered (run.bus, GST_SECOND,
        GST_MESSAGE_WARNING);
    fail_unless (m != NULL, "no warning message");
    GError *err = NULL;
    gst_message_parse_warning (m, &err, NULL);
    fail_unless (strstr (err->message, "mode=rgb") != NULL, "%s",
        err->message);
    g_error_free (err);
    gst_message_unref (m);
  }

  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_NV12, 32, 32);
  Run run ("mode=luma", &info);
  gst_buffer_unref (run.push (make_video_buffer (&info, Content::random, 1)));
  gst_message_unref (run.pop ());
  /* upstream (the harness) cannot renegotiate: the previous mode stays */
  g_object_set (run.element, "mode", 1, NULL);
  GstBuffer *in = make_video_buffer (&info, Content::random, 2);
  Expected e = naive (in, &info, "luma", full_frame);
  GstBuffer *out = run.push (in);
  check_meta (out, e, 256, "mode=rgb on NV12 keeps luma");
  gst_buffer_unref (out);
  GstMessage *msg = run.pop ();
  check_message (msg, e, 256, 1, "mode=rgb on NV12 keeps luma");
  gst_message_unref (msg);
}
GST_END_TEST;


/* 10- and 16-bit formats (garbage in the bits outside each value, which the
 * element must ignore): default bins by depth, any bins, sub-ranges,
 * regions and padded strides, every mode. */
GST_START_TEST (test_high_bit_depth)
{
  const Content contents[] = { Content::random, Content::natural,
    Content::gradient, Content::constant, Content::all255 };
  for (GstVideoFormat fmt : hbd_formats) {
    const guint vmax = (1u << GST_VIDEO_FORMAT_INFO_DEPTH
        (gst_video_format_get_info (fmt), 0)) - 1;
    for (const std::string & mode : modes_for (fmt)) {
      for (Content c : contents) {
        run_case (fmt, 33, 17, mode, 0, full_frame, c, 0);
        run_case (fmt, 31, 9, mode, 3, Roi { 3, 2, 20, 5 }, c, 6);
        run_case (fmt, 36, 20, mode, 1000, full_frame, c, 2, 64, 940);
      }
      run_case (fmt, 64, 8, mode, 65536, full_frame, Content::random, 0);
      run_case (fmt, 16, 16, mode, 4096, full_frame, Content::random, 0,
          vmax / 3, vmax / 3 + 7);
    }
    /* the chart is 8-bit only: draw=true refuses the caps */
    GstVideoInfo info = video_info (fmt, 16, 8);
    ElementHarness hrn ("cudahistogram compute=cpu draw=true", &info);
    fail_unless_equals_int (gst_harness_push (hrn.h, make_video_buffer (&info,
                Content::random, 1)), GST_FLOW_NOT_NEGOTIATED);
  }
}
GST_END_TEST;

/* range-min / range-max on 8-bit formats; range-max above the format's
 * largest value means that value; range-min above range-max is an error. */
GST_START_TEST (test_range)
{
  run_case (GST_VIDEO_FORMAT_GRAY8, 37, 23, "luma", 3, full_frame,
      Content::random, 0, 16, 235);
  run_case (GST_VIDEO_FORMAT_RGBA, 37, 23, "rgb", 100, full_frame,
      Content::natural, 0, 100, 1000);
  run_case (GST_VIDEO_FORMAT_NV12, 38, 24, "planes", 1024, full_frame,
      Content::random, 3, 0, 300);
  run_case (GST_VIDEO_FORMAT_GRAY8, 37, 23, "luma", 7, full_frame,
      Content::constant, 0, 255, 255);

  GstVideoInfo info = video_info (GST_VIDEO_FORMAT_GRAY8, 16, 8);
  Run run ("range-min=300", &info);
  fail_unless_equals_int (gst_harness_push (run.h,
          make_video_buffer (&info, Content::random, 1)), GST_FLOW_ERROR);
  GstMessage *err = gst_bus_pop_filtered (run.bus, GST_MESSAGE_ERROR);
  fail_unless (err != NULL);
  gst_message_unref (err);
}
GST_END_TEST;

#ifdef HAVE_GST_CUDA
/* compute=gpu on system memory: equal to the naive count and to the CPU path
 * (10/16-bit formats, GRAY16_LE included, at video sizes and large bins). */
GST_START_TEST (test_gpu_system_memory)
{
  struct {
    GstVideoFormat fmt;
    int w, h;
    guint bins;
    Roi roi;
    Content c;
    int pad;
    guint lo = 0, hi = 65535;
  } cases[] = {
    { GST_VIDEO_FORMAT_GRAY8, 1, 1, 256, full_frame, Content::all255, 0 },
    { GST_VIDEO_FORMAT_NV12, 641, 361, 256, full_frame, Content::random, 13 },
    { GST_VIDEO_FORMAT_I420, 1920, 1080, 64, full_frame, Content::natural, 0 },
    { GST_VIDEO_FORMAT_Y444, 257, 3, 2, {1, 1, 0, 0}, Content::random, 0 },
    { GST_VIDEO_FORMAT_RGBA, 640, 480, 256, {3, 5, 301, 207},
        Content::random, 0 },
    { GST_VIDEO_FORMAT_BGRA, 1001, 67, 16, full_frame, Content::constant, 3 },
    { GST_VIDEO_FORMAT_RGBx, 33, 33, 128, {32, 32, 0, 0},
        Content::checkerboard, 0 },
    { GST_VIDEO_FORMAT_BGRx, 3840, 2160, 256, full_frame, Content::zeros, 0 },
    { GST_VIDEO_FORMAT_GRAY8, 129, 32, 8, {100, 0, 100, 100},
        Content::gradient, 5 },
    { GST_VIDEO_FORMAT_P010_10LE, 1920, 1080, 0, full_frame, Content::natural, 0 },
    { GST_VIDEO_FORMAT_P016_LE, 3840, 2160, 4096, full_frame, Content::random, 0 },
    { GST_VIDEO_FORMAT_Y444_16LE, 641, 361, 65536, {3, 5, 301, 207},
        Content::random, 0 },
    { GST_VIDEO_FORMAT_I420_10LE, 1001, 67, 1000, full_frame, Content::gradient,
        0, 64, 940 },
    { GST_VIDEO_FORMAT_GRAY16_LE, 1920, 1080, 0, full_frame, Content::constant, 6 },
    { GST_VIDEO_FORMAT_GRAY16_LE, 257, 3, 3, {1, 1, 0, 0}, Content::all255, 0 },
  };
  for (const auto & c : cases) {
    if (too_large_for_small (c.w, c.h))
      continue;
    for (const std::string & mode : modes_for (c.fmt)) {
      compute_mode = "cpu";
      std::vector<guint64> cpu = run_case (c.fmt, c.w, c.h, mode, c.bins,
          c.roi, c.c, c.pad, c.lo, c.hi);
      compute_mode = "gpu";
      std::vector<guint64> gpu = run_case (c.fmt, c.w, c.h, mode, c.bins,
          c.roi, c.c, c.pad, c.lo, c.hi);
      fail_unless (cpu == gpu, "GPU and CPU counts differ");
    }
  }
  for (guint bins = 2; bins <= 256; bins *= 2)
    run_case (GST_VIDEO_FORMAT_BGRA, 97, 31, "rgb", bins, full_frame,
        Content::random, 0);
  compute_mode = "cpu";
}
GST_END_TEST;

/* CUDA memory from our own context and pool (set on the element by
 * ElementHarness), messages and interval sums on the GPU path. */
GST_START_TEST (test_gpu_cuda_memory)
{
  static const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRx };
  static const Size sizes[] = { {2, 2}, {34, 18}, {1920, 1080} };
  const Roi rois[] = { full_frame, {1, 1, 0, 0}, {7, 3, 100, 50} };
  compute_mode = "gpu";

  for (GstVideoFormat fmt : fmts) {
    for (const Size & s : sizes) {
      if (too_large_for_small (s.w, s.h))
        continue;
      GstVideoInfo info = video_info (fmt, s.w, s.h);
      FrameSource src (&info, Memory::cuda);
      for (const std::string & mode : modes_for (fmt)) {
        for (const Roi & r : rois) {
          std::string what = props (mode, 64, r) + " CUDA " +
              GST_VIDEO_INFO_NAME (&info) + " " + std::to_string (s.w);
          /* two frames summed into one message */
          Run run (props (mode, 64, r) + " interval=" +
              std::to_string (2 * GST_MSECOND), &info, true);
          Expected sum;
          for (int i = 0; i < 2; i++) {
            GstBuffer *in = src.make (Content::random, s.w + i);
            GST_BUFFER_PTS (in) = i * GST_MSECOND;
            GST_BUFFER_DURATION (in) = GST_MSECOND;
            Expected e = naive (in, &info, mode, r);
            append (sum, e);
            GstBuffer *out = run.push (in);
            fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)));
            check_meta (out, e, 64, what);
            gst_buffer_unref (out);
          }
          GstMessage *msg = run.pop ();
          check_message (msg, sum, 64, 2, what);
          gst_message_unref (msg);
        }
      }
    }
  }
  compute_mode = "cpu";
}
GST_END_TEST;

/* 10- and 16-bit formats in CUDA memory, at video sizes and large bins. */
GST_START_TEST (test_gpu_high_bit_depth)
{
  compute_mode = "gpu";
  static const GstVideoFormat fmts[] = { GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_P016_LE, GST_VIDEO_FORMAT_I420_10LE,
    GST_VIDEO_FORMAT_Y444_16LE };
  for (GstVideoFormat fmt : fmts) {
    for (const Size & s : { Size { 34, 18 }, Size { 1920, 1080 } }) {
      GstVideoInfo info = video_info (fmt, s.w, s.h);
      FrameSource src (&info, Memory::cuda);
      for (guint bins : { 0u, 1000u, 65536u }) {
        std::string p = props ("planes", bins, Roi { 1, 1, 0, 0 });
        Run run (p, &info, true);
        GstBuffer *in = src.make (Content::random, s.w + bins);
        Expected e = naive (in, &info, "planes", Roi { 1, 1, 0, 0 });
        GstBuffer *out = run.push (in);
        fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (out, 0)));
        check_meta (out, e, bins_for (e.depth, bins), p + " CUDA");
        gst_buffer_unref (out);
        GstMessage *msg = run.pop ();
        check_message (msg, e, bins_for (e.depth, bins), 1, p + " CUDA");
        gst_message_unref (msg);
      }
    }
  }
  compute_mode = "cpu";
}
GST_END_TEST;
#endif

/* draw=true on every format and mode, bins, sizes down to a frame too small
 * for a chart, odd sizes (chroma rectangles), padded strides, a region; on
 * every path (the GPU ones when a device works). */
GST_START_TEST (test_draw)
{
  for_each_path ([] (const Path & p) {
    for (GstVideoFormat fmt : all_formats) {
      if (p.cuda () && fmt == GST_VIDEO_FORMAT_GRAY8)
        continue;
      for (const std::string & mode : modes_for (fmt)) {
        draw_case (p, fmt, 97, 61, mode, 16, full_frame, Content::natural, 3);
        draw_case (p, fmt, 64, 49, mode, 256, Roi { 5, 3, 40, 30 },
            Content::random, 0);
      }
      draw_case (p, fmt, 2, 2, "luma", 8, full_frame, Content::random, 0);
      draw_case (p, fmt, 3, 1, "luma", 8, full_frame, Content::gradient, 0);
    }
    for (Content c : all_contents)
      draw_case (p, GST_VIDEO_FORMAT_NV12, 640, 360, "luma", 64, full_frame, c,
          0);
  });
}
GST_END_TEST;

/* draw changed while PLAYING: frames pass unchanged (producer set), then
 * carry the chart, then pass unchanged again. */
GST_START_TEST (test_draw_toggle)
{
  for_each_path ([] (const Path & p) {
    GstVideoInfo info = video_info (GST_VIDEO_FORMAT_I420, 320, 240);
    ElementHarness run (std::string ("cudahistogram post-messages=false "
            "bins=32 compute=") + p.compute, &info, p.cuda ());
    GstElement *el = run.find ("cudahistogram");
    FrameSource src (&info, p.memory);
    for (int i = 0; i < 4; i++) {
      const bool draw = i == 1 || i == 2;
      g_object_set (el, "draw", draw, NULL);
      GstBuffer *in = src.make (Content::natural, i + 1);
      Expected e = naive (in, &info, "luma", full_frame);
      std::vector<std::vector<uint8_t>> want;
      if (draw)
        want = drawn (in, &info, "luma", e, 32);
      else
        for (guint c = 0; c < 3; c++)
          want.push_back (read_component (in, &info, c));
      GstBuffer *out = run.push (in);
      std::string what = p.name () + " frame " + std::to_string (i);
      check_frame (out, &info, want, what);
      check_meta (out, e, 32, what);
      GstHistogramMeta *m = gst_buffer_get_histogram_meta (out);
      fail_unless ((m->producer == NULL) == draw, "%s", what.c_str ());
      gst_buffer_unref (out);
    }
    gboolean d;
    g_object_get (el, "draw", &d, NULL);
    fail_if (d);
  });
}
GST_END_TEST;

#ifdef HAVE_GST_CUDA
/* Video sizes on the GPU paths, against the CPU reference's chart. */
GST_START_TEST (test_gpu_draw_video_sizes)
{
  for (Memory m : { Memory::system, Memory::cuda }) {
    Path p { m, "gpu" };
    draw_case (p, GST_VIDEO_FORMAT_NV12, 1920, 1080, "luma", 256, full_frame,
        Content::natural, 0);
    draw_case (p, GST_VIDEO_FORMAT_BGRA, 1920, 1080, "rgb", 64, full_frame,
        Content::random, 0);
    draw_case (p, GST_VIDEO_FORMAT_I420, 3840, 2160, "planes", 128, full_frame,
        Content::natural, 0);
  }
}
GST_END_TEST;
#endif

static Suite *
cudahistogram_suite (void)
{
  ElementSuite es ("cudahistogram");

  tcase_add_test (es.cpu, test_properties);
  tcase_add_test (es.cpu, test_every_format_and_mode);
  tcase_add_test (es.cpu, test_contents);
  tcase_add_test (es.cpu, test_every_bins);
  tcase_add_test (es.cpu, test_regions);
  tcase_add_test (es.cpu, test_sizes_and_strides);
  tcase_add_test (es.cpu, test_statistics);
  tcase_add_test (es.cpu, test_message_fields);
  tcase_add_test (es.cpu, test_interval);
  tcase_add_test (es.cpu, test_interval_rounding);
  tcase_add_test (es.cpu, test_post_messages_false);
  tcase_add_test (es.cpu, test_interval_resets);
  tcase_add_test (es.cpu, test_spare_arrays_follow_bins);
  tcase_add_test (es.cpu, test_interval_resets_mode_roi);
  tcase_add_test (es.cpu, test_interval_unknown_duration);
  tcase_add_test (es.cpu, test_eos_empty_interval);
  tcase_add_test (es.cpu, test_renegotiation);
  tcase_add_test (es.cpu, test_compute_auto);
  tcase_add_test (es.cpu, test_rgb_refused);
  tcase_add_test (es.cpu, test_draw);
  tcase_add_test (es.cpu, test_draw_toggle);
  tcase_add_test (es.cpu, test_high_bit_depth);
  tcase_add_test (es.cpu, test_range);
#ifdef HAVE_GST_CUDA
  tcase_add_test (es.gpu, test_gpu_system_memory);
  tcase_add_test (es.gpu, test_gpu_cuda_memory);
  tcase_add_test (es.gpu, test_gpu_draw_video_sizes);
  tcase_add_test (es.gpu, test_gpu_high_bit_depth);
#endif
  return es.finish ();
}

int
main (int argc, char **argv)
{
  return cip_check_run (cudahistogram_suite, argc, argv);
}
