/**
 * SECTION:element-cudahistogram
 * @title: cudahistogram
 * @short_description: per-frame histograms posted on the bus and attached as metas
 *
 * Computes histograms of every frame (or of a region of interest) and
 * reports them; the video passes through unchanged. 8-bit formats, 10-bit
 * (P010_10LE, I420_10LE) and 16-bit ones (P016_LE, Y444_16LE, GRAY16_LE)
 * are counted in their own values: 0..255, 0..1023 and 0..65535 (P010's
 * low six bits are ignored).
 *
 * `mode=luma` (default) counts the Y plane of YUV and GRAY formats, and the
 * full-range BT.709 luma of RGB formats computed on the fly,
 * Y = (13933 R + 46871 G + 4732 B + 32768) >> 16 (grey R = G = B = v gives
 * Y = v). `mode=rgb` gives one histogram per R, G and B channel (RGB formats
 * only: other caps are refused). `mode=planes` gives one histogram per
 * component as stored, without conversion, numbered like cudaintegral's
 * `plane`: plane0 = Y or R, plane1 = U or G, plane2 = V or B, plane3 = A
 * (RGBx/BGRx have three).
 *
 * `bins` (2 to 65536; by default 256 for 8-bit formats, 1024 for 10-bit and
 * 4096 for 16-bit ones) spread evenly over the values `range-min` ..
 * `range-max` (by default the format's whole range; `range-max` above the
 * format's largest value means that value). With span = max − min + 1:
 * bin = ⌊(value − min) × bins / span⌋, so bin b holds the values
 * min + ⌈b·span / bins⌉ .. min + ⌈(b + 1)·span / bins⌉ − 1 (all bins hold
 * span / bins values when bins divides span); values outside the range are
 * not counted. For 8-bit formats over 0..255: bin = value × bins / 256.
 *
 * The region of interest (`roi-x`, `roi-y`, `roi-width`, `roi-height`) is in
 * luma pixels; a width or height of 0 extends it to the frame edge, and it is
 * clipped to the frame (a region entirely outside the frame is empty: its
 * histograms are all zero). Chroma histograms of subsampled formats (NV12,
 * I420) count the chroma samples that cover the region: columns
 * ⌊x / 2⌋ .. ⌈(x + width) / 2⌉ − 1, rows likewise. Every luma or colour
 * histogram of a frame sums to the region's pixel count.
 *
 * Every frame gets a #GstHistogramMeta (library gstreamer-cudaimgproc-1.0,
 * header gst/cudaimgproc/gsthistogrammeta.h) with that frame's counts. With
 * `post-messages=true` (default) an element message is posted once per
 * `interval`, with the counts summed over the interval's frames, as `level`
 * does: `interval=0` (default) posts every frame; otherwise an interval
 * closes with the frame that brings the summed frame durations to `interval`
 * to within half a frame (at a constant frame rate: every
 * round(interval / frame duration) frames, at least one). A frame's duration
 * is its buffer duration, else that of the negotiated frame rate; a frame
 * whose duration is unknown closes the interval. EOS posts a partial
 * interval; a flush, new caps, or a change of `bins`, `mode`, the range or
 * the region between frames discards it.
 *
 * With `draw=true` the histograms are also painted onto the frame, as a bar
 * chart in its bottom-left corner: a third of the frame's width and a
 * quarter of its height (luma pixels; the top edge on an even row), over a
 * background that darkens the picture to half its level. The histograms are
 * stacked in bands (one for luma; red, green and blue bars for mode=rgb; one
 * band per plane for mode=planes); each bar is as high as its count relative
 * to the fullest bin of its histogram (which fills the band), a non-empty
 * bin showing at least one row; bars are white, or the colour of their
 * channel, and solid. On YUV formats the chart is grey (neutral chroma; white
 * and black at the levels of the frame's colour range); the alpha of RGBA
 * and BGRA is left as it is. The frame is then written (in place) and the
 * histograms, meta and messages alike, still describe the frame as it came
 * in; the meta does not offer them to downstream elements as a description
 * of the pixels they receive (cudahistequalize computes its own). The
 * chart is drawn on 8-bit formats only (with `draw=true` 10/16-bit caps are
 * refused) and for up to 256 bins (more are counted, not drawn). With
 * `draw=false` (default) the element only reads frames.
 *
 * On the GPU one kernel launch computes all histograms of a frame with
 * per-block shared-memory histograms (packed 16-bit counters beyond 256 bins;
 * global-memory atomics where even those do not fit on chip); only the
 * counts are downloaded; the chart is a second launch that reads the counts
 * on the device.
 *
 * ## Example launch line
 * ```
 * gst-launch-1.0 -m videotestsrc is-live=true num-buffers=30 ! cudahistogram bins=16 interval=500000000 ! fakesink
 * gst-launch-1.0 -m videotestsrc num-buffers=10 ! video/x-raw,format=RGBA ! cudahistogram mode=rgb bins=8 roi-x=80 roi-y=60 roi-width=160 roi-height=120 ! fakesink
 * gst-launch-1.0 videotestsrc ! cudahistogram draw=true post-messages=false ! videoconvert ! autovideosink
 * ```
 *
 * ## Messages
 *
 * An element message whose structure is named `histogram`, with the fields:
 *
 * * #guint64 `timestamp`: the timestamp (PTS) of the interval's first frame.
 * * #guint64 `stream-time`: the stream time of `timestamp`.
 * * #guint64 `running-time`: the running time of `timestamp`.
 * * #guint64 `duration`: the summed durations of the interval's frames.
 * * #guint `frames`: the number of frames summed.
 * * #guint `bins`: the number of bins of each histogram.
 * * #guint `range-min`, `range-max`: the values the bins cover, inclusive.
 *
 * and, for each histogram, named `luma`; `red`, `green`, `blue` (mode=rgb);
 * or `plane0`, `plane1`, ... (mode=planes):
 *
 * * #GstValueArray of #guint64 `<name>`: the `bins` counts, summed over the
 *   interval.
 * * #gdouble `<name>-mean`: the mean value, from the bin centres
 *   ((first + last value of the bin) / 2; the exact mean when every bin
 *   holds one value, e.g. 256 bins of an 8-bit format).
 * * #guint `<name>-min`: the lower edge (first value) of the lowest non-empty
 *   bin.
 * * #guint `<name>-max`: the lower edge of the highest non-empty bin.
 * * #guint `<name>-median`: the lower edge of the first bin b whose
 *   cumulative count reaches half the total: 2 × (count₀ + … + count_b) ≥
 *   total (with one value per bin the ⌈N/2⌉-th smallest of the N values).
 *
 * Times are #GST_CLOCK_TIME_NONE when unknown. An empty region gives zero
 * counts and statistics.
 *
 * Since: 0.1
 */
#include "gstcudahistogram.h"

#include <gst/cudaimgproc/gsthistogrammeta.h>

#include "cip/histogram.h"

#include <cstring>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_histogram_debug);
#define GST_CAT_DEFAULT gst_cuda_histogram_debug

typedef enum {
  GST_CUDA_HISTOGRAM_MODE_LUMA,
  GST_CUDA_HISTOGRAM_MODE_RGB,
  GST_CUDA_HISTOGRAM_MODE_PLANES,
} GstCudaHistogramMode;

#define DEFAULT_BINS 0           /* by the format's depth */
#define DEFAULT_RANGE_MIN 0
#define DEFAULT_RANGE_MAX 65535     /* the format's largest value */
#define DEFAULT_MODE GST_CUDA_HISTOGRAM_MODE_LUMA
#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_INTERVAL 0
/* message values built ahead at most (see GstCudaHistogram::pre) */
#define PREBUILD_MAX_VALUES 4096
#define DEFAULT_DRAW FALSE

/* the chart: background blended at half weight (of 256) */
#define DRAW_BACKGROUND_ALPHA 128

#define MAX_HISTOGRAMS cip::kHistogramMaxInputs
#define MAX_BINS cip::kHistogramMaxBins

enum
{
  PROP_0,
  PROP_BINS,
  PROP_MODE,
  PROP_ROI_X,
  PROP_ROI_Y,
  PROP_ROI_WIDTH,
  PROP_ROI_HEIGHT,
  PROP_POST_MESSAGES,
  PROP_INTERVAL,
  PROP_DRAW,
  PROP_RANGE_MIN,
  PROP_RANGE_MAX,
};

/* A histogram's name and its message fields as quarks, made once in
 * class_init: a field named by a string costs a lookup in GLib's global
 * quark table, under its lock, every time. */
struct HistFields
{
  const gchar *name;
  GQuark counts = 0, mean = 0, min = 0, max = 0, median = 0;
};

/* mode=luma takes the first, rgb the next three, planes the last four */
static HistFields hist_fields[] = {
  {"luma"}, {"red"}, {"green"}, {"blue"},
  {"plane0"}, {"plane1"}, {"plane2"}, {"plane3"},
};

#define FIELDS_LUMA (&hist_fields[0])
#define FIELDS_RGB (&hist_fields[1])
#define FIELDS_PLANES (&hist_fields[4])

/* the message's own fields */
static struct
{
  GQuark histogram, timestamp, stream_time, running_time, duration, frames,
      bins, range_min, range_max;
} msg_quarks;

static void
init_quarks (void)
{
  for (HistFields & f : hist_fields) {
    f.counts = g_quark_from_static_string (f.name);
    const gchar *const suffix[] = { "-mean", "-min", "-max", "-median" };
    GQuark *const q[] = { &f.mean, &f.min, &f.max, &f.median };
    for (guint i = 0; i < G_N_ELEMENTS (q); i++) {
      gchar *key = g_strconcat (f.name, suffix[i], NULL);
      *q[i] = g_quark_from_string (key);
      g_free (key);
    }
  }
  msg_quarks.histogram = g_quark_from_static_string ("histogram");
  msg_quarks.timestamp = g_quark_from_static_string ("timestamp");
  msg_quarks.stream_time = g_quark_from_static_string ("stream-time");
  msg_quarks.running_time = g_quark_from_static_string ("running-time");
  msg_quarks.duration = g_quark_from_static_string ("duration");
  msg_quarks.frames = g_quark_from_static_string ("frames");
  msg_quarks.bins = g_quark_from_static_string ("bins");
  msg_quarks.range_min = g_quark_from_static_string ("range-min");
  msg_quarks.range_max = g_quark_from_static_string ("range-max");
}

/* What a set of counts holds: compared between frames so that an interval
 * never sums unlike histograms. Plain data (zero-filled in the instance). */
struct HistLayout
{
  guint bins;
  guint range_min, range_max;   /* the format's values counted, inclusive */
  guint n;
  const HistFields *fields[MAX_HISTOGRAMS];     /* in hist_fields */
  guint x, y, width, height;    /* clipped region, luma pixels */
};

static bool
layout_equal (const HistLayout & a, const HistLayout & b)
{
  if (a.bins != b.bins || a.range_min != b.range_min ||
      a.range_max != b.range_max || a.n != b.n || a.x != b.x || a.y != b.y ||
      a.width != b.width || a.height != b.height)
    return false;
  for (guint i = 0; i < a.n; i++)
    if (a.fields[i] != b.fields[i])
      return false;
  return true;
}

struct _GstCudaHistogram
{
  GstCudaImgprocFilter parent;

  /* properties, object lock */
  guint bins;                   /* 0: by the format's depth */
  guint range_min, range_max;
  GstCudaHistogramMode mode;
  GstCudaImgprocRoi roi;
  gboolean post_messages;
  guint64 interval;
  gboolean draw;

  /* streaming thread: the mode in effect. A mode set while playing that the
   * negotiated format cannot serve (rgb on YUV) waits for the renegotiation
   * it asked for; until then the last mode that fitted stays. */
  GstCudaHistogramMode active_mode;

  /* the frame between process() and finish(), streaming thread */
  GstBuffer *counts;            /* aux buffer: frame.n * frame.bins guint32 */
  HistLayout frame;
  gboolean drawn;               /* the chart was painted onto the frame */
  /* interval 0 (a message every frame): the message's arrays, built with
   * zeros while the GPU counts (while_running) and filled in finish(), so
   * that the frame does not wait for them (about 40 ns a value); pre_n
   * arrays of pre_bins values, streaming thread */
  gboolean prebuild;            /* process(): build them for this frame */
  GValue pre[MAX_HISTOGRAMS];
  guint pre_n, pre_bins;
  /* ... and the next frame's, built with zeros on a thread of the element's
   * own (spare_pool, one thread) between frames, so that a frame whose
   * arrays are ready takes them instead of building them: 13 us for one
   * 256-bin histogram on the GPU machine's host, longer than a 4K frame's
   * kernel (RESULTS.md round 26). spare_lock guards spare, spare_n,
   * spare_bins and spare_pending; spare_pool is the streaming thread's,
   * and reset (which stops it) never runs beside while_running() */
  GThreadPool *spare_pool;
  GMutex spare_lock;
  GValue spare[MAX_HISTOGRAMS];
  guint spare_n, spare_bins;
  gboolean spare_pending;       /* a build is queued or running */

  /* the interval being summed, object lock */
  HistLayout layout;
  guint frames;                 /* 0: no interval open */
  GstClockTime start;           /* PTS of its first frame */
  GstClockTime duration;        /* summed known frame durations */
  guint64 *sums;                /* layout.n * layout.bins, g_malloc'd */
  gsize sums_len;
};

#define GST_TYPE_CUDA_HISTOGRAM_MODE (gst_cuda_histogram_mode_get_type ())
static GType
gst_cuda_histogram_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_HISTOGRAM_MODE_LUMA,
        "Luma: Y of YUV and GRAY, BT.709 luma of RGB", "luma"},
    {GST_CUDA_HISTOGRAM_MODE_RGB,
        "One histogram per R, G and B channel (RGB formats only)", "rgb"},
    {GST_CUDA_HISTOGRAM_MODE_PLANES,
        "One histogram per component as stored (Y, U, V or R, G, B, A)",
        "planes"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaHistogramMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_cuda_histogram_parent_class parent_class
G_DEFINE_TYPE (GstCudaHistogram, gst_cuda_histogram,
    GST_TYPE_CUDA_IMGPROC_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudahistogram, "cudahistogram", GST_RANK_NONE,
    GST_TYPE_CUDA_HISTOGRAM);

static void gst_cuda_histogram_finalize (GObject * object);
static void gst_cuda_histogram_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_histogram_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_cuda_histogram_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_cuda_histogram_format_supported (GstCudaImgprocFilter *
    filter, GstVideoFormat format, const gchar ** why);
static void gst_cuda_histogram_reset (GstCudaImgprocFilter * filter);
static GstFlowReturn gst_cuda_histogram_process (GstCudaImgprocFilter *
    filter, GstBuffer * inbuf, const GstCudaImgprocFrame * in,
    GstCudaImgprocFrame * out, const GstCudaImgprocRun * run);
static void gst_cuda_histogram_while_running (GstCudaImgprocFilter * filter);
static GstFlowReturn gst_cuda_histogram_finish (GstCudaImgprocFilter * filter,
    GstBuffer * outbuf);

static void
gst_cuda_histogram_class_init (GstCudaHistogramClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaImgprocFilterClass *filter_class = GST_CUDA_IMGPROC_FILTER_CLASS (klass);
  GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      GST_PARAM_MUTABLE_PLAYING | G_PARAM_STATIC_STRINGS);

  gobject_class->finalize = gst_cuda_histogram_finalize;
  gobject_class->set_property = gst_cuda_histogram_set_property;
  gobject_class->get_property = gst_cuda_histogram_get_property;

  /**
   * GstCudaHistogram:bins:
   *
   * Bins per histogram, 2 to 65536, spread evenly over range-min ..
   * range-max (bin = (value - min) * bins / (max - min + 1)); 0 (default):
   * 256 for 8-bit formats, 1024 for 10-bit, 4096 for 16-bit. 1 is taken as 2.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_BINS,
      g_param_spec_uint ("bins", "Bins",
          "Bins per histogram, 2 to 65536, spread evenly over range-min .. "
          "range-max (0 = by the format: 256 for 8-bit, 1024 for 10-bit, "
          "4096 for 16-bit)", 0, MAX_BINS, DEFAULT_BINS, flags));
  /**
   * GstCudaHistogram:range-min:
   *
   * The lowest value counted, in the format's own values (0..255, 0..1023
   * or 0..65535); lower values are not counted. Above range-max: an error.
   */
  g_object_class_install_property (gobject_class, PROP_RANGE_MIN,
      g_param_spec_uint ("range-min", "Range minimum",
          "Lowest value counted, in the format's values (lower ones are not "
          "counted)", 0, 65535, DEFAULT_RANGE_MIN, flags));
  /**
   * GstCudaHistogram:range-max:
   *
   * The highest value counted, in the format's own values; higher values
   * are not counted. Above the format's largest value (e.g. the default
   * 65535 on an 8-bit format) it means that value.
   */
  g_object_class_install_property (gobject_class, PROP_RANGE_MAX,
      g_param_spec_uint ("range-max", "Range maximum",
          "Highest value counted, in the format's values (higher ones are "
          "not counted; clipped to the format's largest value)", 0, 65535,
          DEFAULT_RANGE_MAX, flags));
  /**
   * GstCudaHistogram:mode:
   *
   * Which histograms are computed. `rgb` refuses non-RGB caps.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "Which histograms are computed (rgb: RGB formats only)",
          GST_TYPE_CUDA_HISTOGRAM_MODE, DEFAULT_MODE, flags));
  gst_cuda_imgproc_roi_install (gobject_class, PROP_ROI_X,
      "the region the histograms count");
  /**
   * GstCudaHistogram:post-messages:
   *
   * Post a `histogram` element message on the bus once per interval.
   * The #GstHistogramMeta is attached either way.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a 'histogram' element message on the bus once per interval",
          DEFAULT_POST_MESSAGES, flags));
  /**
   * GstCudaHistogram:interval:
   *
   * Time over which counts are summed between messages, in nanoseconds;
   * 0 posts every frame.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Interval of time between message posts in nanoseconds; counts are "
          "summed over it (0 = every frame)", 0, G_MAXUINT64, DEFAULT_INTERVAL,
          flags));
  /**
   * GstCudaHistogram:draw:
   *
   * Paint the frame's histograms onto it as a bar chart in the bottom-left
   * corner (a third of the width, a quarter of the height, solid bars over
   * a half-transparent dark background). The element then writes frames;
   * with `false` it only reads them. 8-bit formats only (10/16-bit caps are
   * refused), up to 256 bins.
   *
   * Since: 0.1
   */
  g_object_class_install_property (gobject_class, PROP_DRAW,
      g_param_spec_boolean ("draw", "Draw",
          "Paint the histograms onto the frame as a bar chart in its "
          "bottom-left corner (a third of the width, a quarter of the height; "
          "8-bit formats, up to 256 bins)", DEFAULT_DRAW, flags));

  gst_element_class_set_static_metadata (element_class,
      "CUDA histogram", "Filter/Analyzer/Video",
      "Posts per-frame or per-interval histograms of luma, colour channels "
      "or planes and attaches them to every frame (GstHistogramMeta)",
      "cudaimgproc developers");

  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_histogram_sink_event);

  filter_class->in_place = TRUE;
  filter_class->writes_frame = FALSE;
  filter_class->format_supported =
      GST_DEBUG_FUNCPTR (gst_cuda_histogram_format_supported);
  filter_class->reset = GST_DEBUG_FUNCPTR (gst_cuda_histogram_reset);
  filter_class->process = GST_DEBUG_FUNCPTR (gst_cuda_histogram_process);
  filter_class->while_running =
      GST_DEBUG_FUNCPTR (gst_cuda_histogram_while_running);
  filter_class->finish = GST_DEBUG_FUNCPTR (gst_cuda_histogram_finish);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_HISTOGRAM_MODE,
      (GstPluginAPIFlags) 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_histogram_debug, "cudahistogram", 0,
      "cudahistogram");
  init_quarks ();
}

/* Drops the message arrays process() built and no message took. */
static void
clear_prebuilt (GstCudaHistogram * self)
{
  for (guint i = 0; i < self->pre_n; i++)
    if (G_IS_VALUE (&self->pre[i]))
      g_value_unset (&self->pre[i]);
  self->pre_n = 0;
}

/* Initializes `array` (G_VALUE_INIT) to a GstValueArray of `bins` zeros
 * (guint64). */
static void
uint64_array_init (GValue * array, guint bins)
{
  gst_value_array_init (array, bins);
  for (guint b = 0; b < bins; b++) {
    GValue v = G_VALUE_INIT;
    g_value_init (&v, G_TYPE_UINT64);
    gst_value_array_append_and_take_value (array, &v);
  }
}

/* Builds pre_n = n arrays of `bins` zeros (see GstCudaHistogram::pre). */
static void
prebuild_arrays (GstCudaHistogram * self, guint n, guint bins)
{
  clear_prebuilt (self);
  for (guint i = 0; i < n; i++)
    uint64_array_init (&self->pre[i], bins);
  self->pre_n = n;
  self->pre_bins = bins;
}

/* spare_pool's job: a spare set of n arrays of `bins` zeros, data = n << 24
 * | bins (bins <= 65536, n >= 1, so never NULL). */
static void
build_spares (gpointer data, gpointer user)
{
  GstCudaHistogram *self = GST_CUDA_HISTOGRAM (user);
  const guint n = GPOINTER_TO_UINT (data) >> 24;
  const guint bins = GPOINTER_TO_UINT (data) & 0xFFFFFFu;
  GValue v[MAX_HISTOGRAMS] = { };

  for (guint i = 0; i < n; i++)
    uint64_array_init (&v[i], bins);
  g_mutex_lock (&self->spare_lock);
  /* one build is asked for at a time, after a take: the slots are free */
  const gboolean free_slots = self->spare_n == 0;
  if (free_slots) {
    memcpy (self->spare, v, sizeof (v));
    self->spare_n = n;
    self->spare_bins = bins;
  }
  self->spare_pending = FALSE;
  g_mutex_unlock (&self->spare_lock);
  for (guint i = 0; !free_slots && i < n; i++)
    g_value_unset (&v[i]);
}

/* Frees the spare arrays; with spare_lock. */
static void
clear_spares_locked (GstCudaHistogram * self)
{
  for (guint i = 0; i < self->spare_n; i++)
    g_value_unset (&self->spare[i]);
  self->spare_n = 0;
}

/* This frame's arrays (pre): the spare set when it fits, else built here;
 * then the next frame's set is asked of spare_pool. */
static void
take_or_build_arrays (GstCudaHistogram * self, guint n, guint bins)
{
  gboolean taken = FALSE, ask;

  clear_prebuilt (self);
  g_mutex_lock (&self->spare_lock);
  if (self->spare_n == n && self->spare_bins == bins) {
    /* GValues move bitwise: the spare slots are forgotten, not unset */
    memcpy (self->pre, self->spare, n * sizeof (GValue));
    memset (self->spare, 0, n * sizeof (GValue));
    self->spare_n = 0;
    taken = TRUE;
  } else if (!self->spare_pending) {
    clear_spares_locked (self);         /* of another layout */
  }
  ask = !self->spare_pending && self->spare_n == 0;
  if (ask)
    self->spare_pending = TRUE;
  g_mutex_unlock (&self->spare_lock);
  if (taken) {
    GST_LOG_OBJECT (self, "message arrays from the spare set");
    self->pre_n = n;
    self->pre_bins = bins;
  } else {
    prebuild_arrays (self, n, bins);
  }
  if (ask) {
    if (!self->spare_pool)
      self->spare_pool = g_thread_pool_new (build_spares, self, 1, FALSE,
          NULL);
    if (!g_thread_pool_push (self->spare_pool, GUINT_TO_POINTER (n << 24 |
                bins), NULL)) {
      /* no thread could be made: the job would wait in the queue, and the
       * next frames' behind it; dropped, and the next frame tries again
       * (meanwhile frames build their own arrays) */
      GST_DEBUG_OBJECT (self, "no thread to build message arrays on");
      g_thread_pool_free (self->spare_pool, TRUE, TRUE);
      self->spare_pool = NULL;
      g_mutex_lock (&self->spare_lock);
      self->spare_pending = FALSE;
      g_mutex_unlock (&self->spare_lock);
    }
  }
}

/* Stops spare_pool (after the build it runs) and frees the spares: state
 * reset, finalize. */
static void
stop_spares (GstCudaHistogram * self)
{
  if (self->spare_pool)
    g_thread_pool_free (self->spare_pool, TRUE, TRUE);
  self->spare_pool = NULL;
  g_mutex_lock (&self->spare_lock);
  clear_spares_locked (self);
  self->spare_pending = FALSE;
  g_mutex_unlock (&self->spare_lock);
}

/* Forgets the interval being summed. Called with the object lock. */
static void
reset_interval (GstCudaHistogram * self)
{
  self->frames = 0;
  self->start = GST_CLOCK_TIME_NONE;
  self->duration = 0;
}

static void
gst_cuda_histogram_init (GstCudaHistogram * self)
{
  self->bins = DEFAULT_BINS;
  self->range_min = DEFAULT_RANGE_MIN;
  self->range_max = DEFAULT_RANGE_MAX;
  self->mode = DEFAULT_MODE;
  self->active_mode = DEFAULT_MODE;
  self->post_messages = DEFAULT_POST_MESSAGES;
  self->interval = DEFAULT_INTERVAL;
  self->draw = DEFAULT_DRAW;
  reset_interval (self);
  g_mutex_init (&self->spare_lock);
}

static void
gst_cuda_histogram_finalize (GObject * object)
{
  GstCudaHistogram *self = GST_CUDA_HISTOGRAM (object);

  gst_clear_buffer (&self->counts);
  clear_prebuilt (self);
  stop_spares (self);
  g_mutex_clear (&self->spare_lock);
  g_free (self->sums);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_histogram_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaHistogram *self = GST_CUDA_HISTOGRAM (object);

  gboolean renegotiate = FALSE;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BINS:
      self->bins = g_value_get_uint (value);
      if (self->bins == 1)
        self->bins = 2;
      break;
    case PROP_RANGE_MIN:
      self->range_min = g_value_get_uint (value);
      break;
    case PROP_RANGE_MAX:
      self->range_max = g_value_get_uint (value);
      break;
    case PROP_MODE:
      renegotiate = self->mode != g_value_get_enum (value);
      self->mode = (GstCudaHistogramMode) g_value_get_enum (value);
      break;
    case PROP_POST_MESSAGES:
      self->post_messages = g_value_get_boolean (value);
      break;
    case PROP_INTERVAL:
      self->interval = g_value_get_uint64 (value);
      break;
    case PROP_DRAW:
      /* draw=true narrows the formats to 8-bit ones */
      renegotiate = self->draw != g_value_get_boolean (value);
      self->draw = g_value_get_boolean (value);
      /* only a chart writes pixels */
      gst_cuda_imgproc_filter_set_writes_frame (GST_CUDA_IMGPROC_FILTER (self),
          self->draw);
      break;
    default:
      if (!gst_cuda_imgproc_roi_set (&self->roi, prop_id - PROP_ROI_X, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  /* mode=rgb narrows the formats */
  if (renegotiate)
    gst_cuda_imgproc_filter_renegotiate (GST_CUDA_IMGPROC_FILTER (self));
}

static void
gst_cuda_histogram_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaHistogram *self = GST_CUDA_HISTOGRAM (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BINS:
      g_value_set_uint (value, self->bins);
      break;
    case PROP_RANGE_MIN:
      g_value_set_uint (value, self->range_min);
      break;
    case PROP_RANGE_MAX:
      g_value_set_uint (value, self->range_max);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, self->post_messages);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, self->interval);
      break;
    case PROP_DRAW:
      g_value_set_boolean (value, self->draw);
      break;
    default:
      if (!gst_cuda_imgproc_roi_get (&self->roi, prop_id - PROP_ROI_X, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* ---- statistics and messages ---------------------------------------------- */

/* First value of bin b of l (b = bins: one past the range), as
 * cip/histogram.h defines the bins: min + ceil(b * span / bins). */
static guint
bin_edge (const HistLayout & l, guint b)
{
  const guint64 span = (guint64) l.range_max - l.range_min + 1;
  return l.range_min + (guint) (((guint64) b * span + l.bins - 1) / l.bins);
}

/* Statistics of one histogram in pixel values (see the Messages section).
 * All zero when empty. */
static void
histogram_stats (const guint64 * c, const HistLayout & l, gdouble * mean,
    guint * min, guint * max, guint * median)
{
  const guint bins = l.bins;
  guint64 total = 0;
  gdouble sum = 0;

  *mean = 0;
  *min = *max = *median = 0;
  guint lo_edge = bin_edge (l, 0);
  for (guint b = 0; b < bins; b++) {
    const guint hi_edge = bin_edge (l, b + 1);
    total += c[b];
    /* a non-empty bin holds at least one value */
    if (c[b])
      sum += (gdouble) c[b] * ((lo_edge + hi_edge - 1) / 2.0);
    lo_edge = hi_edge;
  }
  if (total == 0)
    return;
  *mean = sum / (gdouble) total;
  guint lo = 0, hi = bins - 1;
  while (c[lo] == 0)
    lo++;
  while (c[hi] == 0)
    hi--;
  *min = bin_edge (l, lo);
  *max = bin_edge (l, hi);
  guint64 cum = 0;
  for (guint b = 0; b < bins; b++) {
    cum += c[b];
    /* 2 * cum >= total without overflow: cum >= total - cum */
    if (cum >= total - cum) {
      *median = bin_edge (l, b);
      break;
    }
  }
}

/* Sets the values of `array`, a GstValueArray of `bins` guint64 that is
 * still ours, to c[0 .. bins - 1]. */
static void
set_uint64_array (GValue * array, const guint64 * c, guint bins)
{
  /* the values are G_TYPE_UINT64 (uint64_array_init): written as
   * g_value_set_uint64() does, without its type check, which cost as much
   * as the rest (about 2.5 ns a value) */
  for (guint b = 0; b < bins; b++)
    ((GValue *) gst_value_array_get_value (array, b))->data[0].v_uint64 = c[b];
}

/* Adds the histogram of fields `f` (GstValueArray of guint64) and its
 * statistics to s: into pre, an array of l.bins values built ahead
 * (prebuild_arrays), when given, which s takes. */
static void
add_histogram (GstStructure * s, const HistFields * f, const guint64 * c,
    const HistLayout & l, GValue * pre)
{
  const guint bins = l.bins;
  GValue array = G_VALUE_INIT;
  gdouble mean;
  guint min, max, median;

  if (!pre) {
    uint64_array_init (&array, bins);
    pre = &array;
  }
  /* ours until the structure takes it: its values may still be set */
  set_uint64_array (pre, c, bins);
  gst_structure_id_take_value (s, f->counts, pre);

  histogram_stats (c, l, &mean, &min, &max, &median);
  gst_structure_id_set (s, f->mean, G_TYPE_DOUBLE, mean,
      f->min, G_TYPE_UINT, min, f->max, G_TYPE_UINT, max,
      f->median, G_TYPE_UINT, median, NULL);
}

/* The message of the interval being summed, into the arrays built ahead
 * where they fit. Called with the object lock, from the streaming thread
 * (reads the segment). */
static GstMessage *
interval_message (GstCudaHistogram * self)
{
  GstSegment *segment = &GST_BASE_TRANSFORM (self)->segment;
  GstClockTime running = GST_CLOCK_TIME_NONE, stream = GST_CLOCK_TIME_NONE;
  const HistLayout & l = self->layout;

  if (segment->format == GST_FORMAT_TIME) {
    running = gst_segment_to_running_time (segment, GST_FORMAT_TIME,
        self->start);
    stream = gst_segment_to_stream_time (segment, GST_FORMAT_TIME,
        self->start);
  }
  GstStructure *s = gst_structure_new_id (msg_quarks.histogram,
      msg_quarks.timestamp, G_TYPE_UINT64, self->start,
      msg_quarks.stream_time, G_TYPE_UINT64, stream,
      msg_quarks.running_time, G_TYPE_UINT64, running,
      msg_quarks.duration, G_TYPE_UINT64, self->duration,
      msg_quarks.frames, G_TYPE_UINT, self->frames,
      msg_quarks.bins, G_TYPE_UINT, l.bins,
      msg_quarks.range_min, G_TYPE_UINT, l.range_min,
      msg_quarks.range_max, G_TYPE_UINT, l.range_max, NULL);
  const bool pre = self->pre_n == l.n && self->pre_bins == l.bins;
  for (guint i = 0; i < l.n; i++)
    add_histogram (s, l.fields[i], self->sums + (gsize) i * l.bins, l,
        pre ? &self->pre[i] : NULL);
  if (pre)
    self->pre_n = 0;
  return gst_message_new_element (GST_OBJECT (self), s);
}

/* ---- GstBaseTransform vfuncs ---------------------------------------------- */

static gboolean
gst_cuda_histogram_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaHistogram *self = GST_CUDA_HISTOGRAM (trans);
  GstMessage *msg = NULL;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      /* a partial interval is posted, as level does */
      GST_OBJECT_LOCK (self);
      if (self->frames > 0 && self->post_messages)
        msg = interval_message (self);
      reset_interval (self);
      GST_OBJECT_UNLOCK (self);
      if (msg)
        gst_element_post_message (GST_ELEMENT (self), msg);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* ---- GstCudaImgprocFilter vfuncs ------------------------------------------ */

static gboolean
gst_cuda_histogram_format_supported (GstCudaImgprocFilter * filter,
    GstVideoFormat format, const gchar ** why)
{
  GstCudaHistogram *self = GST_CUDA_HISTOGRAM (filter);
  GstCudaHistogramMode mode;
  gboolean draw;

  GST_OBJECT_LOCK (self);
  mode = self->mode;
  draw = self->draw;
  GST_OBJECT_UNLOCK (self);
  /* the chart is painted in 8-bit samples */
  if (draw && gst_cuda_imgproc_format_depth (format) != 8) {
    if (why)
      *why = "draw=true needs an 8-bit format";
    return FALSE;
  }
  if (why)
    *why = "mode=rgb needs an RGB format (RGBA, BGRA, RGBx, BGRx)";
  return mode != GST_CUDA_HISTOGRAM_MODE_RGB ||
      GST_VIDEO_FORMAT_INFO_IS_RGB (gst_video_format_get_info (format));
}

/* Flush, new caps, stop: the open interval and the pending counts go. */
static void
gst_cuda_histogram_reset (GstCudaImgprocFilter * filter)
{
  GstCudaHistogram *self = GST_CUDA_HISTOGRAM (filter);

  gst_clear_buffer (&self->counts);
  clear_prebuilt (self);
  stop_spares (self);
  GST_OBJECT_LOCK (self);
  if (self->frames > 0)
    GST_DEBUG_OBJECT (self, "discarding %u summed frames", self->frames);
  reset_interval (self);
  GST_OBJECT_UNLOCK (self);
}

/* Builds the inputs for `mode` on frame `in`, cropped to the region. */
static void
build_inputs (const GstCudaImgprocFrame * in, GstCudaHistogramMode mode,
    guint bins, guint range_min, guint range_max,
    const GstCudaImgprocRoi & roi, cip::HistInput * inputs, HistLayout * l)
{
  const GstVideoInfo *info = in->info;
  const HistFields *fields;
  const GstCudaImgprocRect r = gst_cuda_imgproc_clip_roi (info, roi);

  l->bins = bins;
  l->range_min = range_min;
  l->range_max = range_max;
  l->x = r.x;
  l->y = r.y;
  l->width = r.width;
  l->height = r.height;
  switch (mode) {
    case GST_CUDA_HISTOGRAM_MODE_LUMA:
      fields = FIELDS_LUMA;
      l->n = 1;
      break;
    case GST_CUDA_HISTOGRAM_MODE_RGB:
      fields = FIELDS_RGB;
      l->n = 3;
      break;
    case GST_CUDA_HISTOGRAM_MODE_PLANES:
    default:
      fields = FIELDS_PLANES;
      l->n = MIN (gst_cuda_imgproc_n_components (info), (guint) MAX_HISTOGRAMS);
      break;
  }
  for (guint i = 0; i < l->n; i++) {
    l->fields[i] = &fields[i];
    inputs[i].view = in->component_rect (i, r);
    inputs[i].source = cip::HistSource::plane;
    inputs[i].range_min = (int32_t) range_min;
    inputs[i].range_max = (int32_t) range_max;
  }
  if (mode == GST_CUDA_HISTOGRAM_MODE_LUMA && GST_VIDEO_INFO_IS_RGB (info)) {
    /* luma of the colour bytes, computed on the fly */
    bool bgr;
    in->rgb_pixels (&bgr);
    inputs[0].view = in->component_rect (bgr ? 2 : 0, r);
    inputs[0].source = bgr ? cip::HistSource::luma_bgr :
        cip::HistSource::luma_rgb;
  }
}

/* The chart of `l` (see draw) on frame `out`: one plane per colour
 * component (alpha is left alone), the histograms' bar colours per band. */
static guint
chart_planes (const GstCudaImgprocFrame * out, GstCudaHistogramMode mode,
    const HistLayout & l, cip::HistDrawPlane * planes)
{
  const GstVideoInfo *info = out->info;
  const bool rgb = GST_VIDEO_INFO_IS_RGB (info);
  const bool limited = !rgb &&
      GST_VIDEO_INFO_COLORIMETRY (info).range == GST_VIDEO_COLOR_RANGE_16_235;
  const guint n = MIN (gst_cuda_imgproc_n_components (info), 3u);
  GstCudaImgprocRect r;

  /* bottom-left, a third by a quarter, the top edge on an even row */
  r.width = GST_VIDEO_INFO_WIDTH (info) / 3;
  r.y = (GST_VIDEO_INFO_HEIGHT (info) - GST_VIDEO_INFO_HEIGHT (info) / 4) & ~1u;
  r.height = r.width > 0 ? GST_VIDEO_INFO_HEIGHT (info) - r.y : 0;
  for (guint c = 0; c < n; c++) {
    const cip::ImageView v = out->component_rect (c, r);
    cip::HistDrawPlane &p = planes[c];
    p.data = const_cast < guint8 * >(v.data);
    p.pitch = v.pitch;
    p.width = v.width;
    p.height = v.height;
    p.step = v.step;
    /* RGB: black background, white bars or (mode=rgb) the channel's colour;
     * YUV: the same in grey, chroma neutral */
    p.background = c > 0 && !rgb ? 128 : limited ? 16 : 0;
    for (guint i = 0; i < l.n; i++) {
      const bool lit = mode != GST_CUDA_HISTOGRAM_MODE_RGB || i == c;
      p.bar[i] = c > 0 && !rgb ? 128 : !lit ? 0 : limited ? 235 : 255;
    }
  }
  return n;
}

static GstFlowReturn
gst_cuda_histogram_process (GstCudaImgprocFilter * filter, GstBuffer * inbuf,
    const GstCudaImgprocFrame * in, GstCudaImgprocFrame * out,
    const GstCudaImgprocRun * run)
{
  GstCudaHistogram *self = GST_CUDA_HISTOGRAM (filter);
  GstCudaHistogramMode mode;
  guint bins, range_min, range_max;
  GstCudaImgprocRoi roi;
  cip::HistInput inputs[MAX_HISTOGRAMS];
  HistLayout layout = { };
  GstCudaImgprocAux aux;
  gboolean every_frame;

  gst_clear_buffer (&self->counts);
  GST_OBJECT_LOCK (self);
  mode = self->mode;
  bins = self->bins;
  range_min = self->range_min;
  range_max = self->range_max;
  roi = self->roi;
  every_frame = self->post_messages && self->interval == 0;
  GST_OBJECT_UNLOCK (self);

  /* bins and range in the format's values */
  const guint depth = GST_VIDEO_INFO_COMP_DEPTH (in->info, 0);
  const guint vmax = (1u << depth) - 1;
  if (bins == 0)
    bins = depth <= 8 ? 256 : depth <= 10 ? 1024 : 4096;
  range_max = MIN (range_max, vmax);
  if (range_min > range_max) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("range-min (%u) is above range-max (%u, or the format's largest "
            "value)", range_min, range_max), (NULL));
    return GST_FLOW_ERROR;
  }

  if (mode == GST_CUDA_HISTOGRAM_MODE_RGB && !GST_VIDEO_INFO_IS_RGB (in->info)) {
    if (self->active_mode != mode)
      GST_WARNING_OBJECT (self, "mode=rgb on %s: keeping the previous mode "
          "until upstream renegotiates", GST_VIDEO_INFO_NAME (in->info));
    mode = self->active_mode == GST_CUDA_HISTOGRAM_MODE_RGB ?
        GST_CUDA_HISTOGRAM_MODE_LUMA : self->active_mode;
  } else {
    self->active_mode = mode;
  }
  build_inputs (in, mode, bins, range_min, range_max, roi, inputs, &layout);

  if (!gst_cuda_imgproc_filter_acquire_aux (filter, 0,
          (gsize) layout.n * bins * sizeof (uint32_t), 1,
          GST_CUDA_IMGPROC_AUX_SYSTEM, run, &aux))
    return GST_FLOW_ERROR;

  /* the workspace is sized for the largest request so it never changes */
  GstFlowReturn ret = gst_cuda_imgproc_filter_run (filter, run, "histogram",
      cip::histogram_workspace_bytes (MAX_HISTOGRAMS, MAX_BINS),
      cip::histogram_workspace_init,
      [&] (void *ws, size_t bytes, cip::Stream stream) {
        return cip::histogram (inputs, (int) layout.n, (int) bins,
            (uint32_t *) aux.data, false, ws, bytes, stream);
      },
      [&] {
        return cip::ref::histogram (inputs, (int) layout.n, (int) bins,
            (uint32_t *) aux.data, false);
      });
  /* draw=true: the base hands the frame over writable (`out`, in place);
   * 10/16-bit frames (draw set while playing, before upstream renegotiated)
   * are left as they are */
  if (out && GST_VIDEO_INFO_COMP_DEPTH (out->info, 0) != 8) {
    GST_WARNING_OBJECT (self, "draw=true on %s: not drawn until upstream "
        "renegotiates", GST_VIDEO_INFO_NAME (out->info));
    out = NULL;
  }
  if (out && bins > (guint) cip::kHistDrawMaxBins) {
    GST_WARNING_OBJECT (self, "draw=true with %u bins: the chart shows at "
        "most %d, not drawn", bins, cip::kHistDrawMaxBins);
    out = NULL;
  }
  if (ret == GST_FLOW_OK && out) {
    cip::HistDrawPlane planes[cip::kHistDrawMaxPlanes];
    const guint np = chart_planes (out, mode, layout, planes);
    ret = gst_cuda_imgproc_filter_run (filter, run, "histogram chart",
        cip::histogram_workspace_bytes (MAX_HISTOGRAMS, MAX_BINS),
        cip::histogram_workspace_init,
        [&] (void *, size_t, cip::Stream stream) {
          return cip::histogram_draw ((const uint32_t *) aux.data,
              (int) layout.n, (int) bins, planes, (int) np,
              DRAW_BACKGROUND_ALPHA, stream);
        },
        [&] {
          return cip::ref::histogram_draw ((const uint32_t *) aux.data,
              (int) layout.n, (int) bins, planes, (int) np,
              DRAW_BACKGROUND_ALPHA);
        });
  }
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (aux.buffer);
    return ret;
  }
  /* read in finish(), once the counts are downloaded */
  self->counts = aux.buffer;
  self->frame = layout;
  self->drawn = out != NULL;
  /* not for very wide histograms: their build outlasts the kernels by far,
   * and filling in a second pass costs more than the overlap saves */
  self->prebuild = every_frame &&
      (gsize) layout.n * bins <= PREBUILD_MAX_VALUES;
  return GST_FLOW_OK;
}

/* The kernels are queued (the counts' download comes next): this frame's
 * message arrays meanwhile. */
static void
gst_cuda_histogram_while_running (GstCudaImgprocFilter * filter)
{
  GstCudaHistogram *self = GST_CUDA_HISTOGRAM (filter);

  if (self->prebuild && self->counts)
    take_or_build_arrays (self, self->frame.n, self->frame.bins);
}

/* The duration of frame `buf`: its own, else the frame rate's, else NONE. */
static GstClockTime
frame_duration (const GstVideoInfo * info, GstBuffer * buf)
{
  if (GST_BUFFER_DURATION_IS_VALID (buf))
    return GST_BUFFER_DURATION (buf);
  if (GST_VIDEO_INFO_FPS_N (info) > 0)
    return gst_util_uint64_scale_int (GST_SECOND, GST_VIDEO_INFO_FPS_D (info),
        GST_VIDEO_INFO_FPS_N (info));
  return GST_CLOCK_TIME_NONE;
}

static GstFlowReturn
gst_cuda_histogram_finish (GstCudaImgprocFilter * filter, GstBuffer * outbuf)
{
  GstCudaHistogram *self = GST_CUDA_HISTOGRAM (filter);
  const HistLayout & l = self->frame;
  const gsize n = (gsize) l.n * l.bins;
  GstMessage *msg = NULL;
  GstMapInfo map;

  if (!self->counts)
    return GST_FLOW_OK;
  if (!gst_buffer_map (self->counts, &map, GST_MAP_READ)) {
    gst_clear_buffer (&self->counts);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not map the histogram counts"), (NULL));
    return GST_FLOW_ERROR;
  }
  const guint32 *c32 = (const guint32 *) map.data;
  guint64 *counts = g_new (guint64, n);
  for (gsize i = 0; i < n; i++)
    counts[i] = c32[i];
  gst_buffer_unmap (self->counts, &map);
  gst_clear_buffer (&self->counts);

  const gchar *names[MAX_HISTOGRAMS];
  for (guint i = 0; i < l.n; i++)
    names[i] = l.fields[i]->name;
  GstHistogramMeta *meta = gst_buffer_add_histogram_meta (outbuf, l.bins,
      l.n, names, counts, l.x, l.y, l.width, l.height);
  /* a drawn frame no longer holds the pixels the counts describe: no
   * producer, so no element reuses them for it */
  if (meta) {
    meta->producer = self->drawn ? NULL : self;
    gst_histogram_meta_set_range (meta, l.range_min, l.range_max);
  }

  GST_OBJECT_LOCK (self);
  if (self->frames > 0 && !layout_equal (self->layout, l)) {
    GST_DEBUG_OBJECT (self, "bins, mode or region changed: discarding %u "
        "summed frames", self->frames);
    reset_interval (self);
  }
  if (self->frames == 0) {
    self->layout = l;
    self->start = GST_BUFFER_PTS (outbuf);
    if (self->sums_len < n) {
      g_free (self->sums);
      self->sums = g_new (guint64, n);
      self->sums_len = n;
    }
    memset (self->sums, 0, n * sizeof (guint64));
  }
  for (gsize i = 0; i < n; i++)
    self->sums[i] += counts[i];
  g_free (counts);
  self->frames++;

  GstClockTime dur = frame_duration (gst_cuda_imgproc_filter_get_info (filter),
      outbuf);
  if (GST_CLOCK_TIME_IS_VALID (dur))
    self->duration += dur;
  /* closes with the frame that brings the interval to within half a frame */
  if (self->interval == 0 || !GST_CLOCK_TIME_IS_VALID (dur) ||
      self->duration + dur / 2 >= self->interval) {
    if (self->post_messages)
      msg = interval_message (self);
    reset_interval (self);
  }
  GST_OBJECT_UNLOCK (self);
  clear_prebuilt (self);        /* those no message took */

  if (msg)
    gst_element_post_message (GST_ELEMENT (self), msg);
  return GST_FLOW_OK;
}
