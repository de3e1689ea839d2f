/**
 * SECTION:element-cudahalftone
 * @title: cudahalftone
 * @short_description: error-diffusion halftoning (Floyd–Steinberg and kin) of video
 *
 * Reduces every sample to `levels` output levels spread evenly over the
 * format's range (0..255; 0..1023 for 10-bit and 0..65535 for 16-bit
 * formats, written back in the same format; 2 levels: black and white) by
 * error diffusion — `kernel` picks Floyd–Steinberg
 * (default), Jarvis–Judice–Ninke, Stucki, Burkes, Sierra, Sierra Lite or
 * Atkinson — or by ordered dithering with an 8×8 Bayer matrix
 * (`method=ordered`, the fast alternative). For e-paper and thermal-printer
 * output, print preview, retro looks and bit-depth reduction without banding.
 *
 * `color=false` (default) halftones the luma and gives grey output: the Y
 * plane of YUV frames with the chroma set neutral (mid-range at the
 * format's depth), GRAY8/GRAY16_LE, or the BT.601 luma of RGB frames
 * written to R, G and B. `color=true` halftones every plane
 * (Y, U, V) or colour channel (R, G, B) on its own. Alpha and the padding
 * byte of RGB formats are copied.
 *
 * Error diffusion runs in one kernel launch per frame on the GPU (the
 * single-kernel soft synchronization of Funasaka, Nakano and Ito: strips of
 * rows claimed through a ticket, sheared rows advancing in lockstep, errors in
 * fixed point), bit-identical to the sequential raster-order CPU reference
 * and the same from run to run.
 *
 * Plain error diffusion flickers on video: every pixel's pattern moves with
 * sensor noise. `temporal-stability` (0..1, default 0) keeps a pixel's
 * previous output while its diffused value stays within a hysteresis band
 * that grows with the setting; 0.5 is recommended for live video (flicker
 * falls several hundred times on a noisy static scene for well under 1 dB of
 * low-pass error); a scene cut still updates at once. The previous output is
 * state that restarts on flush, new caps and a change of kernel, levels,
 * method or colour.
 *
 * Formats: NV12, I420, Y444, RGBA, BGRA, RGBx, BGRx, P010_10LE, P016_LE,
 * I420_10LE and Y444_16LE in CUDA or system memory, GRAY8 and GRAY16_LE in
 * system memory; output format = input format.
 *
 * ## Example launch lines
 * ```
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=GRAY8 ! cudahalftone ! videoconvert ! autovideosink
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=NV12 ! cudaupload ! cudahalftone kernel=atkinson temporal-stability=0.5 ! cudadownload ! videoconvert ! autovideosink
 * ```
 *
 * Since: 0.1
 */
#include "gstcudahalftone.h"

#include "cip/halftone.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_halftone_debug);
#define GST_CAT_DEFAULT gst_cuda_halftone_debug

#define DEFAULT_KERNEL cip::HalftoneKernel::floyd_steinberg
#define DEFAULT_METHOD cip::HalftoneMethod::error_diffusion
#define DEFAULT_LEVELS 2
#define DEFAULT_COLOR FALSE
#define DEFAULT_TEMPORAL_STABILITY 0.0

enum
{
  PROP_0,
  PROP_KERNEL,
  PROP_METHOD,
  PROP_LEVELS,
  PROP_COLOR,
  PROP_TEMPORAL_STABILITY,
};

struct _GstCudaHalftone
{
  GstCudaImgprocFilter parent;

  /* properties, object lock */
  cip::HalftoneKernel kernel;
  cip::HalftoneMethod method;
  guint levels;
  gboolean color;
  gdouble temporal_stability;
};

#define GST_TYPE_CUDA_HALFTONE_KERNEL (gst_cuda_halftone_kernel_get_type ())
static GType
gst_cuda_halftone_kernel_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {(gint) cip::HalftoneKernel::floyd_steinberg, "Floyd-Steinberg (1976)",
        "floyd-steinberg"},
    {(gint) cip::HalftoneKernel::jarvis_judice_ninke,
        "Jarvis, Judice and Ninke (1976): 12 neighbours, smoother",
        "jarvis-judice-ninke"},
    {(gint) cip::HalftoneKernel::stucki, "Stucki (1981): 12 neighbours",
        "stucki"},
    {(gint) cip::HalftoneKernel::burkes, "Burkes: 7 neighbours", "burkes"},
    {(gint) cip::HalftoneKernel::sierra, "Sierra (three rows)", "sierra"},
    {(gint) cip::HalftoneKernel::sierra_lite, "Sierra Lite: 3 neighbours",
        "sierra-lite"},
    {(gint) cip::HalftoneKernel::atkinson,
        "Atkinson: 6/8 of the error diffused, crisper", "atkinson"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaHalftoneKernel", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CUDA_HALFTONE_METHOD (gst_cuda_halftone_method_get_type ())
static GType
gst_cuda_halftone_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {(gint) cip::HalftoneMethod::error_diffusion, "Error diffusion",
        "error-diffusion"},
    {(gint) cip::HalftoneMethod::ordered, "Ordered dithering (Bayer 8x8)",
        "ordered"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaHalftoneMethod", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_cuda_halftone_parent_class parent_class
G_DEFINE_TYPE (GstCudaHalftone, gst_cuda_halftone,
    GST_TYPE_CUDA_IMGPROC_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudahalftone, "cudahalftone", GST_RANK_NONE,
    GST_TYPE_CUDA_HALFTONE);

static void gst_cuda_halftone_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_halftone_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static GstFlowReturn gst_cuda_halftone_process (GstCudaImgprocFilter * filter,
    GstBuffer * inbuf, const GstCudaImgprocFrame * in,
    GstCudaImgprocFrame * out, const GstCudaImgprocRun * run);

static void
gst_cuda_halftone_class_init (GstCudaHalftoneClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaImgprocFilterClass *filter_class = GST_CUDA_IMGPROC_FILTER_CLASS (klass);
  GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      GST_PARAM_MUTABLE_PLAYING | G_PARAM_STATIC_STRINGS);

  gobject_class->set_property = gst_cuda_halftone_set_property;
  gobject_class->get_property = gst_cuda_halftone_get_property;

  /**
   * GstCudaHalftone:kernel:
   *
   * Error-diffusion kernel (method=error-diffusion).
   */
  g_object_class_install_property (gobject_class, PROP_KERNEL,
      g_param_spec_enum ("kernel", "Kernel", "Error-diffusion kernel",
          GST_TYPE_CUDA_HALFTONE_KERNEL, (gint) DEFAULT_KERNEL, flags));
  /**
   * GstCudaHalftone:method:
   *
   * Error diffusion, or ordered dithering with an 8×8 Bayer matrix.
   */
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method",
          "Error diffusion, or ordered dithering (Bayer 8x8, faster)",
          GST_TYPE_CUDA_HALFTONE_METHOD, (gint) DEFAULT_METHOD, flags));
  /**
   * GstCudaHalftone:levels:
   *
   * Output levels per channel, spread evenly over the format's range 0..M
   * (M = 255, 1023 or 65535 for 8-, 10- and 16-bit formats; level k of L is
   * round(k × M / (L − 1))).
   */
  g_object_class_install_property (gobject_class, PROP_LEVELS,
      g_param_spec_uint ("levels", "Levels",
          "Output levels per channel, evenly over the format's range (2 = "
          "black and white)", cip::halftone_min_levels, cip::halftone_max_levels,
          DEFAULT_LEVELS, flags));
  /**
   * GstCudaHalftone:color:
   *
   * FALSE: the luma is halftoned, grey output (YUV chroma set neutral, RGB
   * frames' BT.601 luma written to R, G and B); TRUE: every plane or colour
   * channel on its own.
   */
  g_object_class_install_property (gobject_class, PROP_COLOR,
      g_param_spec_boolean ("color", "Color",
          "Halftone every plane or colour channel (false: the luma only, grey "
          "output)", DEFAULT_COLOR, flags));
  /**
   * GstCudaHalftone:temporal-stability:
   *
   * Keeps a pixel's previous output while its diffused value stays within
   * a hysteresis band that grows with this value: 0 = plain diffusion,
   * 0.5 recommended for live video.
   */
  g_object_class_install_property (gobject_class, PROP_TEMPORAL_STABILITY,
      g_param_spec_double ("temporal-stability", "Temporal stability",
          "Steadier patterns on video: 0 = plain diffusion, 0.5 recommended, "
          "1 = steadiest", 0.0, 1.0, DEFAULT_TEMPORAL_STABILITY, flags));

  gst_cuda_imgproc_filter_class_set_formats (element_class,
      GST_CUDA_IMGPROC_SYSTEM_FORMATS, GST_CUDA_IMGPROC_CUDA_FORMATS);
  gst_element_class_set_static_metadata (element_class,
      "CUDA halftone", "Filter/Effect/Video",
      "Error-diffusion halftoning (Floyd-Steinberg and kin) or ordered "
      "dithering, in one kernel launch per frame", "cudaimgproc developers");

  filter_class->in_place = FALSE;
  filter_class->writes_frame = TRUE;
  filter_class->process = GST_DEBUG_FUNCPTR (gst_cuda_halftone_process);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_HALFTONE_KERNEL,
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_HALFTONE_METHOD,
      (GstPluginAPIFlags) 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_halftone_debug, "cudahalftone", 0,
      "cudahalftone");
}

static void
gst_cuda_halftone_init (GstCudaHalftone * self)
{
  self->kernel = DEFAULT_KERNEL;
  self->method = DEFAULT_METHOD;
  self->levels = DEFAULT_LEVELS;
  self->color = DEFAULT_COLOR;
  self->temporal_stability = DEFAULT_TEMPORAL_STABILITY;
}

static void
gst_cuda_halftone_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaHalftone *self = GST_CUDA_HALFTONE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL:
      self->kernel = (cip::HalftoneKernel) g_value_get_enum (value);
      break;
    case PROP_METHOD:
      self->method = (cip::HalftoneMethod) g_value_get_enum (value);
      break;
    case PROP_LEVELS:
      self->levels = g_value_get_uint (value);
      break;
    case PROP_COLOR:
      self->color = g_value_get_boolean (value);
      break;
    case PROP_TEMPORAL_STABILITY:
      self->temporal_stability = g_value_get_double (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_halftone_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaHalftone *self = GST_CUDA_HALFTONE (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL:
      g_value_set_enum (value, (gint) self->kernel);
      break;
    case PROP_METHOD:
      g_value_set_enum (value, (gint) self->method);
      break;
    case PROP_LEVELS:
      g_value_set_uint (value, self->levels);
      break;
    case PROP_COLOR:
      g_value_set_boolean (value, self->color);
      break;
    case PROP_TEMPORAL_STABILITY:
      g_value_set_double (value, self->temporal_stability);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static GstFlowReturn
gst_cuda_halftone_process (GstCudaImgprocFilter * filter, GstBuffer * inbuf,
    const GstCudaImgprocFrame * in, GstCudaImgprocFrame * out,
    const GstCudaImgprocRun * run)
{
  GstCudaHalftone *self = GST_CUDA_HALFTONE (filter);
  const GstVideoInfo *info = in->info;
  cip::HalftoneOptions params;
  gboolean color;
  cip::HalftonePlane planes[cip::halftone_max_planes];
  int n = 0;

  GST_OBJECT_LOCK (self);
  params.kernel = self->kernel;
  params.method = self->method;
  params.levels = (int) self->levels;
  params.temporal_stability = (float) self->temporal_stability;
  color = self->color;
  GST_OBJECT_UNLOCK (self);

  const bool rgb = GST_VIDEO_INFO_IS_RGB (info);
  /* what is halftoned: the luma (of RGB: one plane of pixels that the
   * kernel library turns to grey), or every colour component */
  const guint n_comp = color ? MIN (gst_cuda_imgproc_n_components (info),
      rgb ? 3u : 4u) : 1u;
  GstFlowReturn ret = GST_FLOW_OK;
  if (rgb) {
    /* alpha and the padding byte of RGBx pass through */
    ret = gst_cuda_imgproc_filter_copy_plane (filter, run, in, out, 0);
  } else if (!color && GST_VIDEO_INFO_N_PLANES (info) > 1) {
    /* neutral chroma: mid-range at the format's depth and shift */
    const cip::ImageView cv = in->component (1);
    const guint16 neutral = (guint16) ((1u << (cv.depth - 1)) << cv.shift);
    for (guint p = 1; ret == GST_FLOW_OK && p < GST_VIDEO_INFO_N_PLANES (info);
        p++)
      ret = gst_cuda_imgproc_filter_fill_plane (filter, run, out, p, neutral);
  }
  if (ret != GST_FLOW_OK)
    return ret;

  /* the previous outputs, one state buffer per halftoned component; other
   * settings make them meaningless */
  const bool temporal = params.method == cip::HalftoneMethod::error_diffusion
      && params.temporal_stability > 0.f;
  const guint64 kind = (guint64) params.kernel | (guint64) params.method << 8 |
      (guint64) params.levels << 16 | (guint64) color << 32;
  bool valid = true;
  for (guint c = 0; c < n_comp; c++) {
    cip::HalftonePlane & p = planes[n++];
    p.src = in->component (c);
    p.dst = out->component_data (c);
    p.dst_pitch = (size_t) out->stride[GST_VIDEO_FORMAT_INFO_PLANE (info->finfo,
            c)];
    p.dst_step = p.src.step;
    if (rgb && !color) {
      /* the pixels from their first colour byte, as every luma-of-RGB
       * input of the kernel library takes them */
      bool bgr;
      p.src = in->rgb_pixels (&bgr);
      p.dst = out->component_data (bgr ? 2 : 0);
      p.dst_step = p.src.step;
      p.rgb_luma = true;
      p.rgb_offset[0] = bgr ? 2 : 0;
      p.rgb_offset[1] = 1;
      p.rgb_offset[2] = bgr ? 0 : 2;
    }
    if (temporal) {
      gboolean fresh;
      /* planar samples of the source's size */
      p.history_pitch = (size_t) MAX (p.src.width, 1) * (size_t) p.src.bytes;
      p.history = (uint8_t *) gst_cuda_imgproc_filter_state (filter, c,
          "previous output", p.history_pitch * (gsize) MAX (p.src.height, 1),
          kind, run, &fresh);
      if (!p.history)
        return GST_FLOW_ERROR;
      valid = valid && !fresh;
    }
  }
  params.history_valid = temporal && valid;

  return gst_cuda_imgproc_filter_run (filter, run, "halftone",
      cip::halftone_workspace_bytes (planes, n), cip::halftone_workspace_init,
      [&] (void *ws, size_t bytes, cip::Stream stream) {
        return cip::halftone (planes, n, params, ws, bytes, stream);
      },
      [&] { return cip::ref::halftone (planes, n, params); });
}
