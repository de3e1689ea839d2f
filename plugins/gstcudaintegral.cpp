/**
 * SECTION:element-cudaintegral
 * @title: cudaintegral
 * @short_description: per-frame summed area table (integral image)
 *
 * Computes the summed area table (integral image) of one plane or channel of
 * every frame and attaches it to the buffer as a #GstIntegralImageMeta
 * (library gstreamer-cudaimgproc-1.0, header gst/cudaimgproc/gstintegralmeta.h).
 * The video passes through unchanged. 10- and 16-bit formats (P010_10LE,
 * I420_10LE, P016_LE, Y444_16LE, GRAY16_LE) are summed in their own values
 * (0..1023, 0..65535: P010's low six bits are ignored).
 *
 * The table has OpenCV's cv::integral layout: exclusive, (W+1) x (H+1)
 * elements, first row and column zero. With `sat-type=u32` (default) elements
 * wrap modulo 2^32, which keeps every rectangle sum below 2^32 exact at any
 * frame size when evaluated in 32-bit unsigned arithmetic (any rectangle of up
 * to 16,843,009 pixels of 8-bit values, 65,537 of 16-bit ones);
 * `sat-type=u64` gives exact absolute values. With
 * `squared=true` a second, 64-bit table of squared pixels is attached too
 * (variance, normalized cross-correlation).
 *
 * On CUDA memory the tables are CUDA memory of the element's context (map them
 * with GST_MAP_CUDA, or normally to read them on the CPU); on system memory
 * they are system memory. On the GPU one kernel computes the table with one
 * read per pixel and one write per element.
 *
 * ## Example launch line
 * ```
 * gst-launch-1.0 videotestsrc num-buffers=100 ! video/x-raw,format=NV12 ! cudaupload ! cudaintegral ! fakesink
 * gst-launch-1.0 videotestsrc num-buffers=100 ! video/x-raw,format=GRAY8,width=640,height=480 ! cudaintegral sat-type=u64 squared=true ! fakesink
 * ```
 *
 * Since: 0.1
 */
#include "gstcudaintegral.h"

#include <gst/cudaimgproc/gstintegralmeta.h>

#include "cip/integral.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_integral_debug);
#define GST_CAT_DEFAULT gst_cuda_integral_debug

#define DEFAULT_PLANE 0
#define DEFAULT_SAT_TYPE GST_INTEGRAL_IMAGE_TYPE_U32
#define DEFAULT_SQUARED FALSE

enum
{
  PROP_0,
  PROP_PLANE,
  PROP_SAT_TYPE,
  PROP_SQUARED,
};

struct _GstCudaIntegral
{
  GstCudaImgprocFilter parent;

  /* properties, object lock */
  guint plane;
  GstIntegralImageType sat_type;
  gboolean squared;

  /* streaming thread: the plane in effect (see process()) */
  guint active_plane;
};

#define GST_TYPE_CUDA_INTEGRAL_SAT_TYPE (gst_cuda_integral_sat_type_get_type ())
static GType
gst_cuda_integral_sat_type_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_INTEGRAL_IMAGE_TYPE_U32,
        "32-bit, wraps modulo 2^32 (rectangle sums below 2^32 stay exact)",
        "u32"},
    {GST_INTEGRAL_IMAGE_TYPE_U64, "64-bit, exact absolute sums", "u64"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaIntegralSatType", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_cuda_integral_parent_class parent_class
G_DEFINE_TYPE (GstCudaIntegral, gst_cuda_integral, GST_TYPE_CUDA_IMGPROC_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudaintegral, "cudaintegral", GST_RANK_NONE,
    GST_TYPE_CUDA_INTEGRAL);

static void gst_cuda_integral_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_integral_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static gboolean gst_cuda_integral_format_supported (GstCudaImgprocFilter *
    filter, GstVideoFormat format, const gchar ** why);
static GstFlowReturn gst_cuda_integral_process (GstCudaImgprocFilter * filter,
    GstBuffer * inbuf, const GstCudaImgprocFrame * in,
    GstCudaImgprocFrame * out, const GstCudaImgprocRun * run);

static void
gst_cuda_integral_class_init (GstCudaIntegralClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaImgprocFilterClass *filter_class = GST_CUDA_IMGPROC_FILTER_CLASS (klass);

  gobject_class->set_property = gst_cuda_integral_set_property;
  gobject_class->get_property = gst_cuda_integral_get_property;

  /**
   * GstCudaIntegral:plane:
   *
   * Component the table is computed on: 0 = luma (Y; R for RGB formats),
   * 1 = U or G, 2 = V or B, 3 = A. Only formats that have it are
   * negotiated (plane=3: RGBA or BGRA); a change while playing renegotiates.
   */
  g_object_class_install_property (gobject_class, PROP_PLANE,
      g_param_spec_uint ("plane", "Plane",
          "Component to integrate: 0 = luma (Y; R for RGB formats), "
          "1 = U or G, 2 = V or B, 3 = A (only formats with it negotiate)",
          0, 3, DEFAULT_PLANE,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstCudaIntegral:sat-type:
   *
   * Element type of the table: u32 wraps modulo 2^32 (every rectangle sum
   * below 2^32 stays exact at any frame size), u64 is exact.
   */
  g_object_class_install_property (gobject_class, PROP_SAT_TYPE,
      g_param_spec_enum ("sat-type", "SAT type",
          "Element type of the table (u32 wraps modulo 2^32: rectangle sums "
          "below 2^32 stay exact at any size; u64 is exact)",
          GST_TYPE_CUDA_INTEGRAL_SAT_TYPE, DEFAULT_SAT_TYPE,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstCudaIntegral:squared:
   *
   * Also attach the 64-bit table of squared pixel values.
   */
  g_object_class_install_property (gobject_class, PROP_SQUARED,
      g_param_spec_boolean ("squared", "Squared",
          "Also compute the 64-bit table of squared pixels (variance, NCC)",
          DEFAULT_SQUARED,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
              G_PARAM_STATIC_STRINGS)));

  gst_element_class_set_static_metadata (element_class,
      "CUDA integral image", "Filter/Analyzer/Video",
      "Attaches the summed area table of a plane to every frame "
      "(GstIntegralImageMeta)", "cudaimgproc developers");

  filter_class->in_place = TRUE;
  filter_class->writes_frame = FALSE;
  filter_class->format_supported =
      GST_DEBUG_FUNCPTR (gst_cuda_integral_format_supported);
  filter_class->process = GST_DEBUG_FUNCPTR (gst_cuda_integral_process);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_INTEGRAL_SAT_TYPE,
      (GstPluginAPIFlags) 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_integral_debug, "cudaintegral", 0,
      "cudaintegral");
}

static void
gst_cuda_integral_init (GstCudaIntegral * self)
{
  self->plane = DEFAULT_PLANE;
  self->sat_type = DEFAULT_SAT_TYPE;
  self->squared = DEFAULT_SQUARED;
}

static void
gst_cuda_integral_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaIntegral *self = GST_CUDA_INTEGRAL (object);

  gboolean renegotiate = FALSE;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PLANE:
      renegotiate = self->plane != g_value_get_uint (value);
      self->plane = g_value_get_uint (value);
      break;
    case PROP_SAT_TYPE:
      self->sat_type = (GstIntegralImageType) g_value_get_enum (value);
      break;
    case PROP_SQUARED:
      self->squared = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (renegotiate)
    gst_cuda_imgproc_filter_renegotiate (GST_CUDA_IMGPROC_FILTER (self));
}

static void
gst_cuda_integral_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaIntegral *self = GST_CUDA_INTEGRAL (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PLANE:
      g_value_set_uint (value, self->plane);
      break;
    case PROP_SAT_TYPE:
      g_value_set_enum (value, self->sat_type);
      break;
    case PROP_SQUARED:
      g_value_set_boolean (value, self->squared);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_cuda_integral_format_supported (GstCudaImgprocFilter * filter,
    GstVideoFormat format, const gchar ** why)
{
  GstCudaIntegral *self = GST_CUDA_INTEGRAL (filter);
  guint plane;

  GST_OBJECT_LOCK (self);
  plane = self->plane;
  GST_OBJECT_UNLOCK (self);
  if (why)
    *why = "the format has no such plane (plane=3 needs alpha: RGBA, BGRA)";
  return plane < gst_cuda_imgproc_format_n_components (format);
}

static GstFlowReturn
gst_cuda_integral_process (GstCudaImgprocFilter * filter, GstBuffer * inbuf,
    const GstCudaImgprocFrame * in, GstCudaImgprocFrame * out,
    const GstCudaImgprocRun * run)
{
  GstCudaIntegral *self = GST_CUDA_INTEGRAL (filter);
  guint plane;
  GstIntegralImageType type;
  gboolean squared;
  GstCudaImgprocAux sum, sq;
  cip::SatDest dst;

  GST_OBJECT_LOCK (self);
  plane = self->plane;
  type = self->sat_type;
  squared = self->squared;
  GST_OBJECT_UNLOCK (self);

  if (plane >= gst_cuda_imgproc_n_components (in->info)) {
    /* set while playing: the last plane that fitted stays until upstream
     * renegotiates (the meta says which plane it is) */
    GST_WARNING_OBJECT (self, "plane=%u not in %s: keeping plane %u until "
        "upstream renegotiates", plane, GST_VIDEO_INFO_NAME (in->info),
        self->active_plane);
    plane = MIN (self->active_plane,
        gst_cuda_imgproc_n_components (in->info) - 1);
  }
  self->active_plane = plane;
  const cip::ImageView view = in->component (plane);
  const cip::SatType ctype = type == GST_INTEGRAL_IMAGE_TYPE_U64 ?
      cip::SatType::u64 : cip::SatType::u32;
  const gsize elem = ctype == cip::SatType::u64 ? 8 : 4;
  const guint tw = (guint) view.width + 1, th = (guint) view.height + 1;

  if (!gst_cuda_imgproc_filter_acquire_aux (filter, 0, (gsize) tw * elem, th,
          GST_CUDA_IMGPROC_AUX_LIKE_INPUT, run, &sum))
    return GST_FLOW_ERROR;
  if (squared && !gst_cuda_imgproc_filter_acquire_aux (filter, 1,
          (gsize) tw * 8, th, GST_CUDA_IMGPROC_AUX_LIKE_INPUT, run, &sq)) {
    gst_buffer_unref (sum.buffer);
    return GST_FLOW_ERROR;
  }
  dst.sum = sum.data;
  dst.sum_pitch = sum.pitch;
  if (squared) {
    dst.sqsum = (uint64_t *) sq.data;
    dst.sqsum_pitch = sq.pitch;
  }

  GstFlowReturn ret = gst_cuda_imgproc_filter_run (filter, run,
      "integral image",
      cip::integral_workspace_bytes (view.width, view.height, ctype, squared),
      cip::integral_workspace_init,
      [&] (void *ws, size_t bytes, cip::Stream stream) {
        return cip::integral (view, ctype, dst, ws, bytes, stream);
      },
      [&] { return cip::ref::integral (view, ctype, dst); });

  if (ret == GST_FLOW_OK) {
    GstIntegralImageMeta *meta = gst_buffer_add_integral_image_meta (inbuf,
        sum.buffer, squared ? sq.buffer : NULL, type, tw, th, sum.pitch,
        squared ? sq.pitch : 0, plane);
    if (meta)
      meta->producer = self;
  }
  gst_buffer_unref (sum.buffer);
  if (squared)
    gst_buffer_unref (sq.buffer);
  return ret;
}
