/* cudahistogram element tests: the counts of the meta and of the bus message
 * equal a naive count over the frame's components (read through
 * GstVideoFrame, not the plugin's helpers; luma of RGB from the documented
 * BT.709 weights) for every format and mode, bins 2..256, every content,
 * regions at edges and corners, 1x1 and odd sizes, padded strides; every
 * histogram sums to the region's pixel count; message fields, types and
 * statistics; interval aggregation, EOS (with a partial and with an empty
 * interval), flushes, a frame of unknown duration, the reset on a change of
 * bins, mode, region or caps; renegotiation on every path; compute=auto;
 * refused caps; properties. CPU path always; GPU path (system and CUDA memory) when
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
  std::vector<std::vector<uint8_t>> values;
  /* the clipped region, luma pixels */
  guint x = 0, y = 0, w = 0, h = 0;
};

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

static Expected
naive (GstBuffer * buf, const GstVideoInfo * info, const std::string & mode,
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
    std::vector<uint8_t> px = read_component (buf, info, c);
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

static std::vector<guint64>
counts_of (const std::vector<uint8_t> & values, guint bins)
{
  std::vector<guint64> c (bins, 0);
  for (uint8_t v : values)
    c[v * bins / 256]++;
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
  fail_unless (m->names[e.names.size ()] == NULL);
  for (size_t i = 0; i < e.names.size (); i++) {
    fail_unless_equals_string (m->names[i], e.names[i].c_str ());
    fail_unless (gst_histogram_meta_get_counts (m, e.names[i].c_str ()) ==
        m->counts + i * bins);
    std::vector<guint64> want = counts_of (e.values[i], bins);
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
    if (n != "luma" && n != "red" && n != "green" && n != "blue" &&
        n != "plane0")
      continue;
    guint64 total = 0;
    for (guint b = 0; b < bins; b++)
      total += m->counts[i * bins + b];
    fail_unless_equals_uint64 (total, (guint64) m->roi_width * m->roi_height);
  }
  fail_unless (gst_histogram_meta_get_counts (m, "nope") == NULL);
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
  fail_unless_equals_int (gst_structure_n_fields (s),
      6 + 5 * e.names.size ());

  const guint w = 256 / bins;
  for (size_t i = 0; i < e.names.size (); i++) {
    const std::string & n = e.names[i];
    const GValue *arr = field (s, n, GST_TYPE_ARRAY);
    std::vector<guint64> want = counts_of (e.values[i], bins);
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

    std::vector<uint8_t> sorted = e.values[i];
    std::sort (sorted.begin (), sorted.end ());
    double mean = 0;
    guint min = 0, max = 0, median = 0;
    if (!sorted.empty ()) {
      for (uint8_t v : sorted)
        mean += (v / w) * w + (w - 1) / 2.0;
      mean /= sorted.size ();
      min = sorted.front () / w * w;
      max = sorted.back () / w * w;
      /* the ceil(N/2)-th smallest value's bin */
      median = sorted[(sorted.size () + 1) / 2 - 1] / w * w;
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
    guint bins, Roi roi, Content c, int pad)
{
  GstVideoInfo info = video_info (fmt, w, h);
  std::string p = props (mode, bins, roi);
  std::string what = p + " " + GST_VIDEO_INFO_NAME (&info) + " " +
      std::to_string (w) + "x" + std::to_string (h) + " " + content_name (c) +
      " pad " + std::to_string (pad) + " " + compute_mode;
  Run run (p, &info);

  GstBuffer *in = make_video_buffer (&info, c, (uint32_t) (w * 31 + h), pad);
  std::vector<uint8_t> bytes = buffer_bytes (in);
  Expected e = naive (in, &info, mode, roi);
  GstBuffer *out = run.push (in);
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
  fail_unless_equals_int (bins, 256);
  fail_unless_equals_int (mode, 0);
  fail_unless (x == 0 && y == 0 && w == 0 && h == 0);
  fail_unless (post);
  fail_unless_equals_uint64 (interval, 0);

  GParamSpecUInt *ps = G_PARAM_SPEC_UINT (g_object_class_find_property
      (G_OBJECT_GET_CLASS (e), "bins"));
  fail_unless_equals_int (ps->minimum, 2);
  fail_unless_equals_int (ps->maximum, 256);

  /* powers of two are kept; others are rounded down (a debug-log warning:
   * a g_warning would abort programs run with G_DEBUG=fatal-warnings) */
  for (guint b = 2; b <= 256; b *= 2) {
    g_object_set (e, "bins", b, NULL);
    g_object_get (e, "bins", &bins, NULL);
    fail_unless_equals_int (bins, b);
  }
  g_object_set (e, "bins", 100, NULL);
  g_object_get (e, "bins", &bins, NULL);
  fail_unless_equals_int (bins, 64);
  g_object_set (e, "bins", 255, NULL);
  g_object_get (e, "bins", &bins, NULL);
  fail_unless_equals_int (bins, 128);
  g_object_set (e, "bins", 3, NULL);
  g_object_get (e, "bins", &bins, NULL);
  fail_unless_equals_int (bins, 2);
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
    "duration", "frames", "bins", "red", "red-mean", "red-min", "red-max",
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
    check_meta (out, frames.back (), bins, "timed frame");
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
  check_message (msg, sum, bins, (guint) n, "interval");
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

#ifdef HAVE_GST_CUDA
/* compute=gpu on system memory: equal to the naive count and to the CPU path. */
GST_START_TEST (test_gpu_system_memory)
{
  struct {
    GstVideoFormat fmt;
    int w, h;
    guint bins;
    Roi roi;
    Content c;
    int pad;
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
  };
  for (const auto & c : cases) {
    if (too_large_for_small (c.w, c.h))
      continue;
    for (const std::string & mode : modes_for (c.fmt)) {
      compute_mode = "cpu";
      std::vector<guint64> cpu = run_case (c.fmt, c.w, c.h, mode, c.bins,
          c.roi, c.c, c.pad);
      compute_mode = "gpu";
      std::vector<guint64> gpu = run_case (c.fmt, c.w, c.h, mode, c.bins,
          c.roi, c.c, c.pad);
      fail_unless (cpu == gpu, "GPU and CPU counts differ");
    }
  }
  for (guint bins = 2; bins <= 256; bins *= 2)
    run_case (GST_VIDEO_FORMAT_BGRA, 97, 31, "rgb", bins, full_frame,
        Content::random, 0);
  compute_mode = "cpu";
}
GST_END_TEST;

/* CUDA memory from our own context and pool, messages and interval sums on
 * the GPU path. */
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
  tcase_add_test (es.cpu, test_interval_resets_mode_roi);
  tcase_add_test (es.cpu, test_interval_unknown_duration);
  tcase_add_test (es.cpu, test_eos_empty_interval);
  tcase_add_test (es.cpu, test_renegotiation);
  tcase_add_test (es.cpu, test_compute_auto);
  tcase_add_test (es.cpu, test_rgb_refused);
#ifdef HAVE_GST_CUDA
  tcase_add_test (es.gpu, test_gpu_system_memory);
  tcase_add_test (es.gpu, test_gpu_cuda_memory);
#endif
  return es.finish ();
}

int
main (int argc, char **argv)
{
  return cip_check_run (cudahistogram_suite, argc, argv);
}
