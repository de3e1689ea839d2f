/**
 * SECTION:element-cudahistequalize
 * @title: cudahistequalize
 * @short_description: histogram equalization of live video (global, CLAHE, flicker-free)
 *
 * Stretches the contrast of every frame by histogram equalization of its
 * luma: YUV formats change the Y plane only (chroma untouched); RGB formats
 * equalize the BT.709 luma and keep the colour (`rgb-mode=luma`: every colour
 * byte moves by the luma change, so Cb/Cr stay unless a byte clips), or each
 * of R, G and B on its own (`rgb-mode=per-channel`); GRAY8 is one plane.
 * 10- and 16-bit formats (P010_10LE, I420_10LE, P016_LE, Y444_16LE,
 * GRAY16_LE) are equalized in their own values with tables of 2^depth
 * entries (equalizeHist, and OpenCV's 16-bit CLAHE, with 1024 or 65536
 * bins; P010's low six bits are ignored and written as zero), in both modes.
 *
 * `mode=global` gives exactly OpenCV's cv::equalizeHist on an 8-bit plane
 * (a constant frame stays as it is). `mode=clahe` is contrast-limited
 * adaptive equalization on a `tiles-x` × `tiles-y` grid with OpenCV's
 * cv::createCLAHE meaning of `clip-limit`, bilinear interpolation between the
 * tiles' tables, frames that are not a multiple of the grid padded as OpenCV
 * does.
 *
 * For live video: `smoothing` makes the histogram an exponential moving
 * average over frames (0 = each frame on its own; 0.9 = slow, steady
 * adaptation), so that a camera's exposure does not flicker; it restarts on
 * flush, new caps and a change of mode, grid or rgb-mode. `strength` blends
 * the equalized frame with the input (folded into the tables: free).
 * Every property can change while PLAYING and applies from the next frame.
 *
 * In global mode the region of interest (`roi-x`, `roi-y`, `roi-width`,
 * `roi-height`, in luma pixels, 0 = to the edge, clipped to the frame) is the
 * part whose histogram drives the table applied to the whole frame (a face,
 * a licence plate); a region outside the frame leaves frames unchanged.
 * CLAHE ignores the region.
 *
 * When an upstream `cudahistogram` (one bin per value over the whole range:
 * 256 bins for 8-bit formats, 2^depth above; `mode=luma`, or `mode=rgb` for
 * per-channel) attached a #GstHistogramMeta for the same region, with nothing
 * between the two elements that may change pixels, its counts are used and
 * no histogram pass runs. Every frame gets a #GstEqualizationMeta with the
 * tables that were applied (library gstreamer-cudaimgproc-1.0, header
 * gst/cudaimgproc/gstequalizationmeta.h) unless `lut-meta=false`.
 *
 * The element works in place. On the GPU one call is two kernel launches on
 * 8-bit formats (histograms and tables, then the apply), three or four above
 * (CLAHE: tile histograms, tables, apply), with no host round trip.
 *
 * ## Example launch lines
 * ```
 * gst-launch-1.0 v4l2src ! videoconvert ! cudahistequalize smoothing=0.9 ! videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12 ! cudaupload ! cudahistequalize mode=clahe clip-limit=2 ! cudadownload ! fakesink
 * ```
 *
 * Since: 0.1
 */
#include "gstcudahistequalize.h"

#include <cstring>
#include <vector>

#include <gst/cudaimgproc/gstequalizationmeta.h>
#include <gst/cudaimgproc/gsthistogrammeta.h>

#include "cip/equalize.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_hist_equalize_debug);
#define GST_CAT_DEFAULT gst_cuda_hist_equalize_debug

#define DEFAULT_MODE cip::EqMode::global
#define DEFAULT_RGB_MODE cip::EqRgbMode::luma
#define DEFAULT_TILES 8
#define DEFAULT_CLIP_LIMIT 40.0
#define DEFAULT_SMOOTHING 0.0
#define DEFAULT_STRENGTH 1.0
#define DEFAULT_LUT_META TRUE

enum
{
  PROP_0,
  PROP_MODE,
  PROP_RGB_MODE,
  PROP_TILES_X,
  PROP_TILES_Y,
  PROP_CLIP_LIMIT,
  PROP_SMOOTHING,
  PROP_STRENGTH,
  PROP_ROI_X,
  PROP_ROI_Y,
  PROP_ROI_WIDTH,
  PROP_ROI_HEIGHT,
  PROP_LUT_META,
};

/* named state of the base element */
enum { STATE_HISTOGRAM_AVERAGE = 0 };

struct _GstCudaHistEqualize
{
  GstCudaImgprocFilter parent;

  /* properties, object lock */
  cip::EqMode mode;
  cip::EqRgbMode rgb_mode;
  guint tiles_x, tiles_y;
  gdouble clip_limit, smoothing, strength;
  GstCudaImgprocRoi roi;
  gboolean lut_meta;
};

#define GST_TYPE_CUDA_HIST_EQUALIZE_MODE (gst_cuda_hist_equalize_mode_get_type ())
static GType
gst_cuda_hist_equalize_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {(gint) cip::EqMode::global,
        "One table for the whole frame (OpenCV equalizeHist)", "global"},
    {(gint) cip::EqMode::clahe,
        "Contrast-limited adaptive, per tile (OpenCV CLAHE)", "clahe"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaHistEqualizeMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CUDA_HIST_EQUALIZE_RGB_MODE (gst_cuda_hist_equalize_rgb_mode_get_type ())
static GType
gst_cuda_hist_equalize_rgb_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {(gint) cip::EqRgbMode::luma,
        "Equalize the luma, keep the colour", "luma"},
    {(gint) cip::EqRgbMode::per_channel,
        "Equalize R, G and B each on its own (hues shift)", "per-channel"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaHistEqualizeRgbMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_cuda_hist_equalize_parent_class parent_class
G_DEFINE_TYPE (GstCudaHistEqualize, gst_cuda_hist_equalize,
    GST_TYPE_CUDA_IMGPROC_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudahistequalize, "cudahistequalize",
    GST_RANK_NONE, GST_TYPE_CUDA_HIST_EQUALIZE);

static void gst_cuda_hist_equalize_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_cuda_hist_equalize_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static GstFlowReturn gst_cuda_hist_equalize_process (GstCudaImgprocFilter *
    filter, GstBuffer * inbuf, const GstCudaImgprocFrame * in,
    GstCudaImgprocFrame * out, const GstCudaImgprocRun * run);

static void
gst_cuda_hist_equalize_class_init (GstCudaHistEqualizeClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaImgprocFilterClass *filter_class = GST_CUDA_IMGPROC_FILTER_CLASS (klass);
  GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      GST_PARAM_MUTABLE_PLAYING | G_PARAM_STATIC_STRINGS);

  gobject_class->set_property = gst_cuda_hist_equalize_set_property;
  gobject_class->get_property = gst_cuda_hist_equalize_get_property;

  /**
   * GstCudaHistEqualize:mode:
   *
   * Global (one table per frame) or CLAHE (per tile, contrast-limited).
   */
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "global: one table per frame (OpenCV equalizeHist); clahe: per "
          "tile, contrast-limited (OpenCV CLAHE)",
          GST_TYPE_CUDA_HIST_EQUALIZE_MODE, (gint) DEFAULT_MODE, flags));
  /**
   * GstCudaHistEqualize:rgb-mode:
   *
   * What is equalized in RGB formats (YUV and GRAY8: always the luma plane).
   */
  g_object_class_install_property (gobject_class, PROP_RGB_MODE,
      g_param_spec_enum ("rgb-mode", "RGB mode",
          "RGB formats: equalize the luma and keep the colour, or each "
          "channel on its own", GST_TYPE_CUDA_HIST_EQUALIZE_RGB_MODE,
          (gint) DEFAULT_RGB_MODE, flags));
  /**
   * GstCudaHistEqualize:tiles-x:
   *
   * CLAHE: tiles per row.
   */
  g_object_class_install_property (gobject_class, PROP_TILES_X,
      g_param_spec_uint ("tiles-x", "Tiles X", "CLAHE: tiles per row", 1,
          cip::kEqMaxTiles, DEFAULT_TILES, flags));
  /**
   * GstCudaHistEqualize:tiles-y:
   *
   * CLAHE: tiles per column.
   */
  g_object_class_install_property (gobject_class, PROP_TILES_Y,
      g_param_spec_uint ("tiles-y", "Tiles Y", "CLAHE: tiles per column", 1,
          cip::kEqMaxTiles, DEFAULT_TILES, flags));
  /**
   * GstCudaHistEqualize:clip-limit:
   *
   * CLAHE: contrast limit, as cv::createCLAHE's clipLimit (a bin holds at
   * most clip-limit × tile pixels / bins, bins = 256 for 8-bit formats, 2^depth
   * above, at least 1); 0 disables clipping.
   */
  g_object_class_install_property (gobject_class, PROP_CLIP_LIMIT,
      g_param_spec_double ("clip-limit", "Clip limit",
          "CLAHE: contrast limit as OpenCV's clipLimit (0 = no clipping)",
          0.0, 65536.0, DEFAULT_CLIP_LIMIT, flags));
  /**
   * GstCudaHistEqualize:smoothing:
   *
   * Weight of the past in the histogram's moving average over frames: 0
   * uses each frame's own histogram; closer to 1 adapts more slowly and
   * steadily (no flicker on live cameras).
   */
  g_object_class_install_property (gobject_class, PROP_SMOOTHING,
      g_param_spec_double ("smoothing", "Smoothing",
          "Temporal smoothing of the histogram (0 = per frame, towards 1 = "
          "slower, steadier)", 0.0, 1.0, DEFAULT_SMOOTHING, flags));
  /**
   * GstCudaHistEqualize:strength:
   *
   * Blend between the input (0) and the equalized frame (1).
   */
  g_object_class_install_property (gobject_class, PROP_STRENGTH,
      g_param_spec_double ("strength", "Strength",
          "Blend between input (0) and equalized output (1)", 0.0, 1.0,
          DEFAULT_STRENGTH, flags));
  gst_cuda_imgproc_roi_install (gobject_class, PROP_ROI_X,
      "global mode: the region whose histogram drives the table");
  /**
   * GstCudaHistEqualize:lut-meta:
   *
   * Attach the applied tables to every frame as a #GstEqualizationMeta
   * (in CUDA memory when the frame is, so no host wait is added).
   */
  g_object_class_install_property (gobject_class, PROP_LUT_META,
      g_param_spec_boolean ("lut-meta", "LUT meta",
          "Attach the applied tables to every frame (GstEqualizationMeta)",
          DEFAULT_LUT_META, flags));

  gst_element_class_set_static_metadata (element_class,
      "CUDA histogram equalization", "Filter/Effect/Video",
      "Equalizes the luma histogram of live video: global, CLAHE, "
      "temporally smoothed", "cudaimgproc developers");

  filter_class->in_place = TRUE;
  filter_class->writes_frame = TRUE;
  filter_class->process = GST_DEBUG_FUNCPTR (gst_cuda_hist_equalize_process);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_HIST_EQUALIZE_MODE,
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_HIST_EQUALIZE_RGB_MODE,
      (GstPluginAPIFlags) 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_hist_equalize_debug, "cudahistequalize",
      0, "cudahistequalize");
}

static void
gst_cuda_hist_equalize_init (GstCudaHistEqualize * self)
{
  self->mode = DEFAULT_MODE;
  self->rgb_mode = DEFAULT_RGB_MODE;
  self->tiles_x = self->tiles_y = DEFAULT_TILES;
  self->clip_limit = DEFAULT_CLIP_LIMIT;
  self->smoothing = DEFAULT_SMOOTHING;
  self->strength = DEFAULT_STRENGTH;
  self->lut_meta = DEFAULT_LUT_META;
}

static void
gst_cuda_hist_equalize_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaHistEqualize *self = GST_CUDA_HIST_EQUALIZE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      self->mode = (cip::EqMode) g_value_get_enum (value);
      break;
    case PROP_RGB_MODE:
      self->rgb_mode = (cip::EqRgbMode) g_value_get_enum (value);
      break;
    case PROP_TILES_X:
      self->tiles_x = g_value_get_uint (value);
      break;
    case PROP_TILES_Y:
      self->tiles_y = g_value_get_uint (value);
      break;
    case PROP_CLIP_LIMIT:
      self->clip_limit = g_value_get_double (value);
      break;
    case PROP_SMOOTHING:
      self->smoothing = g_value_get_double (value);
      break;
    case PROP_STRENGTH:
      self->strength = g_value_get_double (value);
      break;
    case PROP_LUT_META:
      self->lut_meta = g_value_get_boolean (value);
      break;
    default:
      if (!gst_cuda_imgproc_roi_set (&self->roi, prop_id - PROP_ROI_X, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_hist_equalize_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaHistEqualize *self = GST_CUDA_HIST_EQUALIZE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      g_value_set_enum (value, (gint) self->mode);
      break;
    case PROP_RGB_MODE:
      g_value_set_enum (value, (gint) self->rgb_mode);
      break;
    case PROP_TILES_X:
      g_value_set_uint (value, self->tiles_x);
      break;
    case PROP_TILES_Y:
      g_value_set_uint (value, self->tiles_y);
      break;
    case PROP_CLIP_LIMIT:
      g_value_set_double (value, self->clip_limit);
      break;
    case PROP_SMOOTHING:
      g_value_set_double (value, self->smoothing);
      break;
    case PROP_STRENGTH:
      g_value_set_double (value, self->strength);
      break;
    case PROP_LUT_META:
      g_value_set_boolean (value, self->lut_meta);
      break;
    default:
      if (!gst_cuda_imgproc_roi_get (&self->roi, prop_id - PROP_ROI_X, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* The pixel layout of `info` for the kernels. */
static cip::EqLayout
layout_of (const GstVideoInfo * info)
{
  if (!GST_VIDEO_INFO_IS_RGB (info))
    return cip::EqLayout::gray;
  return gst_cuda_imgproc_is_bgr (info) ? cip::EqLayout::bgrx :
      cip::EqLayout::rgbx;
}

/* Counts of an upstream cudahistogram that fit `cfg` and the region `r`,
 * as bins (or 3 × bins) uint32 counts in *hist; FALSE when there are none. */
static gboolean
upstream_histogram (GstCudaHistEqualize * self, GstBuffer * buf,
    const cip::EqConfig & cfg, const GstCudaImgprocRect & r,
    std::vector < uint32_t > &hist)
{
  GstHistogramMeta *m = gst_buffer_get_histogram_meta (buf);
  static const gchar *const luma[] = { "luma" };
  static const gchar *const rgb[] = { "red", "green", "blue" };
  const bool per_channel = cfg.layout != cip::EqLayout::gray &&
      cfg.rgb_mode == cip::EqRgbMode::per_channel;
  const gchar *const *names = per_channel ? rgb : luma;
  const guint n = per_channel ? 3 : 1;
  /* one bin per value of the whole range */
  const guint bins = (guint) cip::equalize_bins (cfg);

  if (!m || cfg.mode != cip::EqMode::global || m->bins != bins ||
      m->range_min != 0 || m->range_max != bins - 1 ||
      m->roi_x != r.x || m->roi_y != r.y || m->roi_width != r.width ||
      m->roi_height != r.height)
    return FALSE;
  hist.assign ((size_t) n * bins, 0);
  for (guint c = 0; c < n; c++) {
    const guint64 *counts = gst_histogram_meta_get_counts (m, names[c]);
    if (!counts)
      return FALSE;
    for (guint b = 0; b < bins; b++) {
      if (counts[b] > G_MAXUINT32)
        return FALSE;
      hist[(size_t) c * bins + b] = (uint32_t) counts[b];
    }
  }
  if (!gst_histogram_meta_describes_input (m,
          GST_BASE_TRANSFORM_SINK_PAD (self))) {
    GST_LOG_OBJECT (self, "upstream histogram may be stale: not reused");
    return FALSE;
  }
  return TRUE;
}

static GstFlowReturn
gst_cuda_hist_equalize_process (GstCudaImgprocFilter * filter,
    GstBuffer * inbuf, const GstCudaImgprocFrame * in,
    GstCudaImgprocFrame * out, const GstCudaImgprocRun * run)
{
  GstCudaHistEqualize *self = GST_CUDA_HIST_EQUALIZE (filter);
  cip::EqConfig cfg;
  GstCudaImgprocRoi roi;
  gboolean lut_meta;

  GST_OBJECT_LOCK (self);
  cfg.mode = self->mode;
  cfg.rgb_mode = self->rgb_mode;
  cfg.tiles_x = (int) self->tiles_x;
  cfg.tiles_y = (int) self->tiles_y;
  cfg.clip_limit = self->clip_limit;
  cfg.smoothing = self->smoothing;
  cfg.strength = self->strength;
  roi = self->roi;
  lut_meta = self->lut_meta;
  GST_OBJECT_UNLOCK (self);

  const GstVideoInfo *info = in->info;
  cfg.layout = layout_of (info);
  /* luma is component 0 of every format; RGB is processed as whole pixels */
  bool bgr;
  const cip::ImageView src = cfg.layout == cip::EqLayout::gray ?
      in->component (0) : in->rgb_pixels (&bgr);
  cfg.depth = src.depth;
  cfg.shift = src.shift;
  /* the histogram region; an empty one (outside the frame) changes nothing */
  const GstCudaImgprocRect r = gst_cuda_imgproc_clip_roi (info, roi);
  if (cfg.mode == cip::EqMode::global) {
    cfg.roi_x = (int) r.x;
    cfg.roi_y = (int) r.y;
    cfg.roi_width = (int) r.width;
    cfg.roi_height = (int) r.height;
    if (r.width == 0 || r.height == 0) {
      cfg.roi_x = cfg.roi_y = cfg.roi_width = cfg.roi_height = 0;
      cfg.strength = 0.0;
    }
  }

  /* the running average restarts when it would mix unlike histograms */
  const guint64 kind = (guint64) cfg.mode | (guint64) cfg.layout << 8 |
      (guint64) cfg.rgb_mode << 16 | (guint64) cfg.tiles_x << 24 |
      (guint64) cfg.tiles_y << 32 | (guint64) cfg.depth << 40;
  gboolean fresh;
  void *state_data = gst_cuda_imgproc_filter_state (filter,
      STATE_HISTOGRAM_AVERAGE, "histogram average",
      cip::equalize_state_bytes (cfg), kind, run, &fresh);
  if (!state_data)
    return GST_FLOW_ERROR;
  cip::EqState state;
  state.data = state_data;
  state.valid = !fresh;

  GstCudaImgprocAux luts;
  if (lut_meta && !gst_cuda_imgproc_filter_acquire_aux (filter, 0,
          cip::equalize_lut_bytes (cfg), 1, GST_CUDA_IMGPROC_AUX_LIKE_INPUT,
          run, &luts))
    return GST_FLOW_ERROR;
  uint8_t *lut_out = lut_meta ? luts.data : nullptr;

  cip::EqFrame f;
  f.src = src.data;
  f.src_pitch = src.pitch;
  f.dst = out->data[0];
  f.dst_pitch = (size_t) out->stride[0];
  f.width = src.width;
  f.height = src.height;
  if (cfg.layout != cip::EqLayout::gray)
    f.src = in->data[0];

  std::vector < uint32_t > hist;
  const bool reuse = upstream_histogram (self, inbuf, cfg, r, hist);
  if (reuse)
    GST_LOG_OBJECT (self, "using the upstream histogram");
  GstFlowReturn ret = gst_cuda_imgproc_filter_run (filter, run,
      "histogram equalization", cip::equalize_workspace_bytes (cfg),
      cip::equalize_workspace_init,
      [&] (void *ws, size_t bytes, cip::Stream stream) {
        return reuse ? cip::equalize_from_histogram (f, cfg, hist.data (),
            false, &state, lut_out, ws, bytes, stream) :
            cip::equalize (f, cfg, &state, lut_out, ws, bytes, stream);
      },
      [&] {
        return reuse ? cip::ref::equalize_from_histogram (f, cfg, hist.data (),
            &state, lut_out) : cip::ref::equalize (f, cfg, &state, lut_out);
      });

  if (lut_meta) {
    if (ret == GST_FLOW_OK) {
      const gboolean clahe = cfg.mode == cip::EqMode::clahe;
      GstEqualizationMeta *m = gst_buffer_add_equalization_meta (inbuf,
          luts.buffer, clahe ? cfg.tiles_x : 1, clahe ? cfg.tiles_y : 1,
          (guint) cip::equalize_channels (cfg));
      if (m)
        gst_equalization_meta_set_depth (m, (guint) cfg.depth);
    }
    gst_buffer_unref (luts.buffer);
  }
  return ret;
}
