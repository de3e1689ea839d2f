/**
 * SECTION:element-cudaboxfilter
 * @title: cudaboxfilter
 * @short_description: box (mean) filter of any radius in constant time
 *
 * Replaces every sample by the mean of the (2·radius-x+1)×(2·radius-y+1)
 * window around it, rounded to nearest. The cost per pixel does not depend on
 * the radius: the window sums come from a summed area table (4 reads per
 * pixel), computed by the element, or taken from a #GstIntegralImageMeta that
 * an upstream `cudaintegral` attached (same luma plane, u32, and memory the
 * element can read: `cudaintegral ! cudaboxfilter` then costs one table, not
 * two). Small radii may use a direct separable kernel with identical output.
 *
 * `border=clip` averages the part of the window inside the frame;
 * `border=replicate` repeats the edge samples (OpenCV BORDER_REPLICATE).
 * With `planes=all` chroma planes of subsampled formats (NV12, I420) use the
 * radii divided by the subsampling, rounded to nearest; `planes=luma` filters
 * only Y (or, for RGB formats, all colour channels: they are all "luma") and
 * copies the rest. Alpha is filtered like colour; the padding byte of
 * RGBx/BGRx is copied.
 *
 * 10- and 16-bit formats (P010_10LE, I420_10LE, P016_LE, Y444_16LE,
 * GRAY16_LE) are filtered in their own values with the same rounding and
 * written in the same format (P010's low six bits as zero). Their window sums
 * need 64-bit tables, so an upstream (u32) table is not reused for them and
 * the SAT path is taken at every radius.
 *
 * ## Example launch line
 * ```
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12,width=1920,height=1080 ! cudaboxfilter radius-x=15 radius-y=15 ! videoconvert ! autovideosink
 * gst-launch-1.0 videotestsrc ! cudaupload ! cudaintegral ! cudaboxfilter radius-x=50 radius-y=50 border=replicate ! cudadownload ! fakesink
 * ```
 *
 * Since: 0.1
 */
#include "gstcudaboxfilter.h"

#include <gst/cudaimgproc/gstintegralmeta.h>

#include "cip/boxfilter.h"


GST_DEBUG_CATEGORY_STATIC (gst_cuda_box_filter_debug);
#define GST_CAT_DEFAULT gst_cuda_box_filter_debug

typedef enum {
  GST_CUDA_BOX_FILTER_PLANES_ALL,
  GST_CUDA_BOX_FILTER_PLANES_LUMA,
} GstCudaBoxFilterPlanes;

#define DEFAULT_RADIUS 1
#define DEFAULT_BORDER cip::BoxBorder::clip
#define DEFAULT_PLANES GST_CUDA_BOX_FILTER_PLANES_ALL

enum
{
  PROP_0,
  PROP_RADIUS_X,
  PROP_RADIUS_Y,
  PROP_BORDER,
  PROP_PLANES,
};

struct _GstCudaBoxFilter
{
  GstCudaImgprocFilter parent;

  /* properties, object lock */
  guint radius_x, radius_y;
  cip::BoxBorder border;
  GstCudaBoxFilterPlanes planes;
};

#define GST_TYPE_CUDA_BOX_FILTER_BORDER (gst_cuda_box_filter_border_get_type ())
static GType
gst_cuda_box_filter_border_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {(gint) cip::BoxBorder::clip,
        "Mean of the part of the window inside the frame", "clip"},
    {(gint) cip::BoxBorder::replicate,
        "Edge samples repeated (OpenCV BORDER_REPLICATE)", "replicate"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaBoxFilterBorder", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define GST_TYPE_CUDA_BOX_FILTER_PLANES (gst_cuda_box_filter_planes_get_type ())
static GType
gst_cuda_box_filter_planes_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_BOX_FILTER_PLANES_ALL,
        "Every plane (chroma radii scaled by the subsampling)", "all"},
    {GST_CUDA_BOX_FILTER_PLANES_LUMA,
        "Luma only (all colour channels of RGB formats); the rest is copied",
        "luma"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaBoxFilterPlanes", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define gst_cuda_box_filter_parent_class parent_class
G_DEFINE_TYPE (GstCudaBoxFilter, gst_cuda_box_filter,
    GST_TYPE_CUDA_IMGPROC_FILTER);
GST_ELEMENT_REGISTER_DEFINE (cudaboxfilter, "cudaboxfilter", GST_RANK_NONE,
    GST_TYPE_CUDA_BOX_FILTER);

static void gst_cuda_box_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_box_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static GstFlowReturn gst_cuda_box_filter_process (GstCudaImgprocFilter *
    filter, GstBuffer * inbuf, const GstCudaImgprocFrame * in,
    GstCudaImgprocFrame * out, const GstCudaImgprocRun * run);

static void
gst_cuda_box_filter_class_init (GstCudaBoxFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaImgprocFilterClass *filter_class = GST_CUDA_IMGPROC_FILTER_CLASS (klass);
  GParamFlags flags = (GParamFlags) (G_PARAM_READWRITE |
      GST_PARAM_MUTABLE_PLAYING | G_PARAM_STATIC_STRINGS);

  gobject_class->set_property = gst_cuda_box_filter_set_property;
  gobject_class->get_property = gst_cuda_box_filter_get_property;

  /**
   * GstCudaBoxFilter:radius-x:
   *
   * Horizontal radius in pixels: the window is 2·radius-x+1 wide; 0 leaves
   * the horizontal direction untouched.
   */
  g_object_class_install_property (gobject_class, PROP_RADIUS_X,
      g_param_spec_uint ("radius-x", "Radius X",
          "Horizontal radius in pixels (window 2*r+1 wide; 0 = no horizontal "
          "filtering)", 0, cip::boxfilter_max_radius, DEFAULT_RADIUS, flags));
  /**
   * GstCudaBoxFilter:radius-y:
   *
   * Vertical radius in pixels: the window is 2·radius-y+1 high; 0 leaves the
   * vertical direction untouched.
   */
  g_object_class_install_property (gobject_class, PROP_RADIUS_Y,
      g_param_spec_uint ("radius-y", "Radius Y",
          "Vertical radius in pixels (window 2*r+1 high; 0 = no vertical "
          "filtering)", 0, cip::boxfilter_max_radius, DEFAULT_RADIUS, flags));
  /**
   * GstCudaBoxFilter:border:
   *
   * How windows that cross the frame edge are averaged.
   */
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border",
          "How windows crossing the frame edge are averaged",
          GST_TYPE_CUDA_BOX_FILTER_BORDER, (gint) DEFAULT_BORDER, flags));
  /**
   * GstCudaBoxFilter:planes:
   *
   * Which planes are filtered.
   */
  g_object_class_install_property (gobject_class, PROP_PLANES,
      g_param_spec_enum ("planes", "Planes", "Which planes are filtered",
          GST_TYPE_CUDA_BOX_FILTER_PLANES, DEFAULT_PLANES, flags));

  gst_element_class_set_static_metadata (element_class,
      "CUDA box filter", "Filter/Effect/Video",
      "Mean filter of any radius in constant time per pixel, on the summed "
      "area table", "cudaimgproc developers");

  filter_class->in_place = FALSE;
  filter_class->writes_frame = TRUE;
  filter_class->process = GST_DEBUG_FUNCPTR (gst_cuda_box_filter_process);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_BOX_FILTER_BORDER,
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_BOX_FILTER_PLANES,
      (GstPluginAPIFlags) 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_box_filter_debug, "cudaboxfilter", 0,
      "cudaboxfilter");
}

static void
gst_cuda_box_filter_init (GstCudaBoxFilter * self)
{
  self->radius_x = self->radius_y = DEFAULT_RADIUS;
  self->border = DEFAULT_BORDER;
  self->planes = DEFAULT_PLANES;
}

static void
gst_cuda_box_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaBoxFilter *self = GST_CUDA_BOX_FILTER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_RADIUS_X:
      self->radius_x = g_value_get_uint (value);
      break;
    case PROP_RADIUS_Y:
      self->radius_y = g_value_get_uint (value);
      break;
    case PROP_BORDER:
      self->border = (cip::BoxBorder) g_value_get_enum (value);
      break;
    case PROP_PLANES:
      self->planes = (GstCudaBoxFilterPlanes) g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_box_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaBoxFilter *self = GST_CUDA_BOX_FILTER (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_RADIUS_X:
      g_value_set_uint (value, self->radius_x);
      break;
    case PROP_RADIUS_Y:
      g_value_set_uint (value, self->radius_y);
      break;
    case PROP_BORDER:
      g_value_set_enum (value, (gint) self->border);
      break;
    case PROP_PLANES:
      g_value_set_enum (value, self->planes);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* The upstream SAT of component 0, when it describes these pixels and this
 * path can read it: u32, the plane's size, computed by the element upstream
 * with nothing that may write pixels in between, CUDA memory of our context
 * on the GPU path with CUDA input, host-readable memory on the CPU path.
 * Maps it into *map. */
static GstBuffer *
upstream_sat (GstCudaBoxFilter * self, GstBuffer * inbuf,
    const cip::ImageView & v, const GstCudaImgprocRun * run, GstMapInfo * map,
    size_t * pitch)
{
  GstIntegralImageMeta *m = gst_buffer_get_integral_image_meta (inbuf);

  /* a u32 table of 16-bit values does not hold every window sum */
  if (!m || m->plane != 0 || m->type != GST_INTEGRAL_IMAGE_TYPE_U32 ||
      !v.is_8bit () || m->width != (guint) v.width + 1 ||
      m->height != (guint) v.height + 1)
    return NULL;
  if (!gst_integral_image_meta_describes_input (m,
          GST_BASE_TRANSFORM_SINK_PAD (self))) {
    GST_LOG_OBJECT (self, "upstream integral image may be stale: not reused");
    return NULL;
  }
  if (!gst_cuda_imgproc_filter_map_table (GST_CUDA_IMGPROC_FILTER (self), run,
          gst_buffer_peek_memory (m->sum, 0), map))
    return NULL;
  *pitch = m->stride;
  GST_LOG_OBJECT (self, "reusing the upstream integral image");
  return m->sum;
}

static GstFlowReturn
gst_cuda_box_filter_process (GstCudaImgprocFilter * filter, GstBuffer * inbuf,
    const GstCudaImgprocFrame * in, GstCudaImgprocFrame * out,
    const GstCudaImgprocRun * run)
{
  GstCudaBoxFilter *self = GST_CUDA_BOX_FILTER (filter);
  const GstVideoInfo *info = in->info;
  const GstVideoFormatInfo *f = info->finfo;
  guint rx, ry;
  cip::BoxBorder border;
  GstCudaBoxFilterPlanes which;
  cip::BoxPlane planes[cip::boxfilter_max_planes];
  int n = 0;

  GST_OBJECT_LOCK (self);
  rx = self->radius_x;
  ry = self->radius_y;
  border = self->border;
  which = self->planes;
  GST_OBJECT_UNLOCK (self);

  const bool rgb = GST_VIDEO_INFO_IS_RGB (info);
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    cip::BoxPlane & p = planes[n++];
    p.src = in->component (c);
    p.dst = out->component_data (c);
    p.dst_pitch = (size_t) out->stride[GST_VIDEO_FORMAT_INFO_PLANE (f, c)];
    p.dst_step = p.src.step;
    bool filtered = which == GST_CUDA_BOX_FILTER_PLANES_ALL || c == 0 ||
        (rgb && c < 3);
    /* a radius of 0 both ways is a plain copy */
    p.rx = filtered ? gst_cuda_imgproc_scale_radius (rx,
        GST_VIDEO_FORMAT_INFO_W_SUB (f, c)) : 0;
    p.ry = filtered ? gst_cuda_imgproc_scale_radius (ry,
        GST_VIDEO_FORMAT_INFO_H_SUB (f, c)) : 0;
  }
  /* the padding byte of RGBx / BGRx: copied */
  if (GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_RGBx ||
      GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_BGRx) {
    cip::BoxPlane & p = planes[n++];
    p.src = in->component (0);
    p.src.data = in->data[0] + 3;
    p.dst = out->data[0] + 3;
    p.dst_pitch = (size_t) out->stride[0];
    p.dst_step = 4;
  }

  GstMapInfo sat_map;
  size_t sat_pitch = 0;
  GstBuffer *sat = upstream_sat (self, inbuf, planes[0].src, run, &sat_map,
      &sat_pitch);
  /* sized as if no plane had a SAT: an upper bound for both cases, so the
   * workspace does not flip between sizes when the meta comes and goes */
  gsize bytes = cip::boxfilter_workspace_bytes (planes, n);
  if (sat) {
    planes[0].sat = (const uint32_t *) sat_map.data;
    planes[0].sat_pitch = sat_pitch;
  }
  GstFlowReturn ret = gst_cuda_imgproc_filter_run (filter, run, "box filter",
      bytes, cip::boxfilter_workspace_init,
      [&] (void *ws, size_t ws_bytes, cip::Stream stream) {
        return cip::boxfilter (planes, n, border, ws, ws_bytes, stream);
      },
      [&] { return cip::ref::boxfilter (planes, n, border); });
  /* the table stays alive with inbuf's meta until the frame is done */
  if (sat)
    gst_memory_unmap (gst_buffer_peek_memory (sat, 0), &sat_map);
  return ret;
}
