/* GstCudaImgprocFilter: negotiation, properties, events and the frame loop.
 * See gstcudaimgprocfilter.h; the GPU path is in gstcudaimgprocgpu.cpp and
 * the auxiliary and state buffers in gstcudaimgprocaux.cpp.
 *
 * Memory paths of one frame:
 *   GPU, CUDA memory in      map with GST_MAP_CUDA, kernels read it in place
 *   GPU, system memory in    2-D copies into device scratch frames, kernels,
 *                            copies back (output frame and auxiliary buffers)
 *   CPU                      map on the host, CPU references
 */
#include "gstcudaimgprocfilter.h"

#include <cstring>
#include <new>

#include "gstcudaimgprocfilterpriv.h"

GST_DEBUG_CATEGORY (gst_cuda_imgproc_filter_debug);
#define GST_CAT_DEFAULT gst_cuda_imgproc_filter_debug

#define DEFAULT_DEVICE_ID -1
#define DEFAULT_COMPUTE GST_CUDA_IMGPROC_COMPUTE_AUTO

enum
{
  PROP_0,
  PROP_DEVICE_ID,
  PROP_COMPUTE,
};

GType
gst_cuda_imgproc_compute_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_IMGPROC_COMPUTE_AUTO,
        "GPU when a CUDA device works, else CPU", "auto"},
    {GST_CUDA_IMGPROC_COMPUTE_GPU, "GPU (error without a CUDA device)", "gpu"},
    {GST_CUDA_IMGPROC_COMPUTE_CPU, "CPU reference implementation", "cpu"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaImgprocCompute", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

#define parent_class gst_cuda_imgproc_filter_parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaImgprocFilter,
    gst_cuda_imgproc_filter, GST_TYPE_BASE_TRANSFORM);

GstCudaImgprocFilterPrivate *
gst_cuda_imgproc_filter_priv (GstCudaImgprocFilter * self)
{
  return (GstCudaImgprocFilterPrivate *)
      gst_cuda_imgproc_filter_get_instance_private (self);
}

#define GET_PRIV(self) gst_cuda_imgproc_filter_priv (self)

static void gst_cuda_imgproc_filter_constructed (GObject * object);
static void gst_cuda_imgproc_filter_finalize (GObject * object);
static void gst_cuda_imgproc_filter_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_cuda_imgproc_filter_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_cuda_imgproc_filter_set_context (GstElement * element,
    GstContext * context);
static gboolean gst_cuda_imgproc_filter_start (GstBaseTransform * trans);
static gboolean gst_cuda_imgproc_filter_stop (GstBaseTransform * trans);
static GstCaps *gst_cuda_imgproc_filter_transform_caps (GstBaseTransform *
    trans, GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_cuda_imgproc_filter_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_cuda_imgproc_filter_transform_size (GstBaseTransform *
    trans, GstPadDirection direction, GstCaps * caps, gsize size,
    GstCaps * othercaps, gsize * othersize);
static gboolean gst_cuda_imgproc_filter_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps);
static gboolean gst_cuda_imgproc_filter_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_cuda_imgproc_filter_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static gboolean gst_cuda_imgproc_filter_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);
static gboolean gst_cuda_imgproc_filter_decide_allocation (GstBaseTransform *
    trans, GstQuery * query);
static void gst_cuda_imgproc_filter_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer);
static GstFlowReturn gst_cuda_imgproc_filter_transform (GstBaseTransform *
    trans, GstBuffer * inbuf, GstBuffer * outbuf);
static GstFlowReturn gst_cuda_imgproc_filter_transform_ip (GstBaseTransform *
    trans, GstBuffer * buf);

void
gst_cuda_imgproc_filter_class_set_formats (GstElementClass * klass,
    const gchar * system_formats, const gchar * cuda_formats)
{
  GstCaps *caps = gst_cuda_imgproc_template_caps (system_formats,
      cuda_formats);
  /* replaces the templates of the same names */
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

static void
gst_cuda_imgproc_filter_class_init (GstCudaImgprocFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->constructed = gst_cuda_imgproc_filter_constructed;
  gobject_class->finalize = gst_cuda_imgproc_filter_finalize;
  gobject_class->set_property = gst_cuda_imgproc_filter_set_property;
  gobject_class->get_property = gst_cuda_imgproc_filter_get_property;

  /**
   * GstCudaImgprocFilter:cuda-device-id:
   *
   * CUDA device to use; -1 picks the device of a context shared by
   * neighbouring elements (or of the incoming CUDA memory), else device 0.
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA Device ID",
          "CUDA device to use (-1 = auto: a shared context's device, else 0)",
          -1, G_MAXINT, DEFAULT_DEVICE_ID,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  /**
   * GstCudaImgprocFilter:compute:
   *
   * Where frames are processed: auto (GPU when a CUDA device works, else
   * the CPU), gpu (fails to start without a device) or cpu.
   */
  g_object_class_install_property (gobject_class, PROP_COMPUTE,
      g_param_spec_enum ("compute", "Compute",
          "Where frames are processed (auto = GPU when a CUDA device works, "
          "else CPU)", GST_TYPE_CUDA_IMGPROC_COMPUTE, DEFAULT_COMPUTE,
          (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
              G_PARAM_STATIC_STRINGS)));

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_set_context);

  gst_cuda_imgproc_filter_class_set_formats (element_class,
      GST_CUDA_IMGPROC_SYSTEM_FORMATS, GST_CUDA_IMGPROC_CUDA_FORMATS);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_set_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_transform_size);
  trans_class->accept_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_accept_caps);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_query);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_decide_allocation);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_before_transform);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_transform);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_transform_ip);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_IMGPROC_FILTER,
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_IMGPROC_COMPUTE,
      (GstPluginAPIFlags) 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_imgproc_filter_debug,
      "cudaimgprocfilter", 0, "cudaimgproc base filter");
}

static void
gst_cuda_imgproc_filter_init (GstCudaImgprocFilter * self)
{
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);

  new (priv) GstCudaImgprocFilterPrivate ();
  priv->device_id = DEFAULT_DEVICE_ID;
  priv->compute = DEFAULT_COMPUTE;
  gst_video_info_init (&priv->info);
  gst_video_info_init (&priv->out_info);
}

static void
gst_cuda_imgproc_filter_constructed (GObject * object)
{
  /* the leaf's class is known only now (instance_init runs with each
   * ancestor's class in turn) */
  GstCudaImgprocFilterClass *klass = GST_CUDA_IMGPROC_FILTER_GET_CLASS (object);

  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (object),
      klass->in_place);
  g_atomic_int_set (&GET_PRIV (GST_CUDA_IMGPROC_FILTER (object))->writes_frame,
      klass->writes_frame);
  G_OBJECT_CLASS (parent_class)->constructed (object);
}

void
gst_cuda_imgproc_filter_set_writes_frame (GstCudaImgprocFilter * self,
    gboolean writes_frame)
{
  g_atomic_int_set (&GET_PRIV (self)->writes_frame, writes_frame ? 1 : 0);
}

static void
gst_cuda_imgproc_filter_finalize (GObject * object)
{
  GstCudaImgprocFilterPrivate *priv =
      GET_PRIV (GST_CUDA_IMGPROC_FILTER (object));

  gst_clear_object (&priv->context);
  priv->~GstCudaImgprocFilterPrivate ();
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_imgproc_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaImgprocFilterPrivate *priv =
      GET_PRIV (GST_CUDA_IMGPROC_FILTER (object));

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      priv->device_id = g_value_get_int (value);
      break;
    case PROP_COMPUTE:
      priv->compute = (GstCudaImgprocCompute) g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_cuda_imgproc_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaImgprocFilterPrivate *priv =
      GET_PRIV (GST_CUDA_IMGPROC_FILTER (object));

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_DEVICE_ID:
      g_value_set_int (value, priv->device_id);
      break;
    case PROP_COMPUTE:
      g_value_set_enum (value, priv->compute);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

/* ---- state across frames -------------------------------------------------- */

/* The one place where state that lives across frames is forgotten. */
static void
reset_state (GstCudaImgprocFilter * self, const char *why)
{
  GstCudaImgprocFilterClass *klass = GST_CUDA_IMGPROC_FILTER_GET_CLASS (self);

  GST_DEBUG_OBJECT (self, "reset (%s)", why);
  cip_state_mark_fresh (GET_PRIV (self));
  if (klass->reset)
    klass->reset (self);
}

/* ---- GstElement / GstBaseTransform vfuncs --------------------------------- */

static void
gst_cuda_imgproc_filter_set_context (GstElement * element, GstContext * context)
{
  cip_gpu_set_context (GST_CUDA_IMGPROC_FILTER (element), context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_cuda_imgproc_filter_start (GstBaseTransform * trans)
{
  GstCudaImgprocFilter *self = GST_CUDA_IMGPROC_FILTER (trans);
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);
  GstCudaImgprocCompute compute;
  gint device_id;

  GST_OBJECT_LOCK (self);
  compute = priv->compute;
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);

  priv->have_info = FALSE;
  reset_state (self, "start");
  if (compute == GST_CUDA_IMGPROC_COMPUTE_CPU) {
    GST_INFO_OBJECT (self, "compute=cpu: CPU reference path");
    return TRUE;
  }
  if (!cip_gpu_open (self, device_id, compute == GST_CUDA_IMGPROC_COMPUTE_GPU))
    return FALSE;
  if (!priv->gpu)
    GST_INFO_OBJECT (self, "no usable CUDA device: CPU reference path");
  return TRUE;
}

static gboolean
gst_cuda_imgproc_filter_stop (GstBaseTransform * trans)
{
  GstCudaImgprocFilter *self = GST_CUDA_IMGPROC_FILTER (trans);
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);

  reset_state (self, "stop");
  /* device memory first, while the context is still held */
  cip_state_free (self);
  cip_aux_clear_pools (self);
  cip_gpu_close (self);
  priv->have_info = FALSE;
  return TRUE;
}

/* Caps of the formats the current properties can use (all when the leaf
 * has no format_supported). */
static GstCaps *
supported_caps (GstCudaImgprocFilter * self, GstPad * pad)
{
  GstCudaImgprocFilterClass *klass = GST_CUDA_IMGPROC_FILTER_GET_CLASS (self);
  GstCaps *templ = gst_pad_get_pad_template_caps (pad);

  if (!klass->format_supported)
    return templ;
  GstCaps *caps = gst_caps_make_writable (templ);
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstStructure *s = gst_caps_get_structure (caps, i);
    const GValue *formats = gst_structure_get_value (s, "format");
    GValue list = G_VALUE_INIT;

    if (!formats)
      continue;
    g_value_init (&list, GST_TYPE_LIST);
    auto keep = [&] (const GValue * v) {
      GstVideoFormat f = gst_video_format_from_string (g_value_get_string (v));
      if (klass->format_supported (self, f, nullptr))
        gst_value_list_append_value (&list, v);
    };
    if (GST_VALUE_HOLDS_LIST (formats)) {
      for (guint j = 0; j < gst_value_list_get_size (formats); j++)
        keep (gst_value_list_get_value (formats, j));
    } else if (G_VALUE_HOLDS_STRING (formats)) {
      keep (formats);
    }
    /* an empty list makes the structure empty: no format of it fits */
    gst_structure_take_value (s, "format", &list);
  }
  return caps;
}

static GstCaps *
gst_cuda_imgproc_filter_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCudaImgprocFilter *self = GST_CUDA_IMGPROC_FILTER (trans);
  /* same format and size on both pads: the other pad's formats that the
   * current properties can use */
  GstPad *other = direction == GST_PAD_SINK ? trans->srcpad : trans->sinkpad;
  GstCaps *supported = supported_caps (self, other);
  GstCaps *ret = gst_caps_intersect_full (caps, supported,
      GST_CAPS_INTERSECT_FIRST);

  gst_caps_unref (supported);
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  GST_LOG_OBJECT (self, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, ret);
  return ret;
}

void
gst_cuda_imgproc_filter_renegotiate (GstCudaImgprocFilter * self)
{
  GST_DEBUG_OBJECT (self, "properties changed the usable formats");
  /* upstream picks a format again; our source pad follows the new caps.
   * Until then the element keeps serving the current format. */
  gst_base_transform_reconfigure_sink (GST_BASE_TRANSFORM (self));
}

static gboolean
gst_cuda_imgproc_filter_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaImgprocFilter *self = GST_CUDA_IMGPROC_FILTER (trans);
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);
  GstCudaImgprocFilterClass *klass = GST_CUDA_IMGPROC_FILTER_GET_CLASS (self);
  GstVideoInfo in_info, out_info;

  if (!gst_video_info_from_caps (&in_info, incaps) ||
      !gst_video_info_from_caps (&out_info, outcaps)) {
    GST_ERROR_OBJECT (self, "invalid caps %" GST_PTR_FORMAT " -> %"
        GST_PTR_FORMAT, incaps, outcaps);
    return FALSE;
  }
  if (GST_VIDEO_INFO_FORMAT (&in_info) != GST_VIDEO_INFO_FORMAT (&out_info) ||
      in_info.width != out_info.width || in_info.height != out_info.height) {
    GST_ERROR_OBJECT (self, "input and output must have the same format and "
        "size");
    return FALSE;
  }
  if (klass->set_info && !klass->set_info (self, &in_info, &out_info))
    return FALSE;

  /* Commit only on success: a refused renegotiation keeps the old state. */
  gboolean changed = !priv->have_info ||
      !gst_video_info_is_equal (&priv->info, &in_info);
  priv->info = in_info;
  priv->out_info = out_info;
  priv->have_info = TRUE;
  if (changed) {
    cip_gpu_caps_changed (self);
    reset_state (self, "new caps");
  }
  GST_DEBUG_OBJECT (self, "configured %" GST_PTR_FORMAT, incaps);
  return TRUE;
}

static gboolean
gst_cuda_imgproc_filter_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstVideoInfo info;

  /* sized from the other side's info, not from the input buffer, whose
   * strides may be tighter (GstVideoMeta) */
  if (!gst_video_info_from_caps (&info, othercaps))
    return FALSE;
  *othersize = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

/* Caps of a format the properties exclude are refused by transform_caps;
 * this says why on the bus, which a plain not-negotiated would not. */
static void
explain_refused_caps (GstCudaImgprocFilter * self, GstCaps * caps)
{
  GstCudaImgprocFilterClass *klass = GST_CUDA_IMGPROC_FILTER_GET_CLASS (self);
  GstVideoInfo info;
  const gchar *why = nullptr;

  if (!klass->format_supported || !gst_video_info_from_caps (&info, caps) ||
      klass->format_supported (self, GST_VIDEO_INFO_FORMAT (&info), &why))
    return;
  GST_ELEMENT_WARNING (self, CORE, NEGOTIATION,
      ("%s cannot be processed with the current properties: %s",
          GST_VIDEO_INFO_NAME (&info), why ? why : "see gst-inspect-1.0"),
      ("Change the property, or convert first (videoconvert)."));
}

static gboolean
gst_cuda_imgproc_filter_accept_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps)
{
  gboolean ret = GST_BASE_TRANSFORM_CLASS (parent_class)->accept_caps (trans,
      direction, caps);
  /* the caps event of a refused format never reaches sink_event */
  if (!ret && direction == GST_PAD_SINK && gst_caps_is_fixed (caps))
    explain_refused_caps (GST_CUDA_IMGPROC_FILTER (trans), caps);
  return ret;
}

static gboolean
gst_cuda_imgproc_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    reset_state (GST_CUDA_IMGPROC_FILTER (trans), "flush");
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_cuda_imgproc_filter_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      cip_gpu_query (GST_CUDA_IMGPROC_FILTER (trans), query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

static gboolean
gst_cuda_imgproc_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCaps *caps;
  GstVideoInfo info;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  /* in place: the query went downstream */
  if (!decide_query)
    return TRUE;

  gst_query_parse_allocation (query, &caps, nullptr);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  if (!cip_gpu_propose_allocation (GST_CUDA_IMGPROC_FILTER (trans), query,
          caps, &info))
    return FALSE;
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  return TRUE;
}

static gboolean
gst_cuda_imgproc_filter_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstCudaImgprocFilter *self = GST_CUDA_IMGPROC_FILTER (trans);
  GstCudaImgprocFilterClass *klass = GST_CUDA_IMGPROC_FILTER_GET_CLASS (self);

  /* in-place elements output their input buffer: no pool of their own */
  if (!klass->in_place && !cip_gpu_decide_allocation (self, query))
    return FALSE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

static void
gst_cuda_imgproc_filter_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer)
{
  /* input CUDA memory of another context: switch before the output buffer
   * is allocated, so that the allocation is decided again */
  cip_gpu_before_transform (GST_CUDA_IMGPROC_FILTER (trans), buffer);
}

/* ---- per-frame helpers for subclasses -------------------------------------- */

const GstVideoInfo *
gst_cuda_imgproc_filter_get_info (GstCudaImgprocFilter * self)
{
  return &GET_PRIV (self)->info;
}

const GstVideoInfo *
gst_cuda_imgproc_filter_get_out_info (GstCudaImgprocFilter * self)
{
  return &GET_PRIV (self)->out_info;
}

void *
gst_cuda_imgproc_filter_workspace (GstCudaImgprocFilter * self, gsize bytes,
    GstCudaImgprocWorkspaceInit init, const GstCudaImgprocRun * run,
    cip::Status * status)
{
  return cip_gpu_workspace (self, bytes, init, run, status);
}

gboolean
gst_cuda_imgproc_filter_map_table (GstCudaImgprocFilter * self,
    const GstCudaImgprocRun * run, GstMemory * mem, GstMapInfo * map)
{
  if (run->gpu)
    return run->cuda_memory && cip_gpu_map_table (self, mem, map);
  return gst_memory_map (mem, map, GST_MAP_READ);
}

void
gst_cuda_imgproc_filter_workspace_dirty (GstCudaImgprocFilter * self)
{
  cip_gpu_workspace_dirty (self);
}

GstFlowReturn
gst_cuda_imgproc_filter_fail (GstCudaImgprocFilter * self, cip::Status status,
    const char *what)
{
  if (status == cip::Status::out_of_memory) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of memory in %s", what), ("%s. Free GPU memory, use a smaller "
            "resolution, or set compute=cpu.", cip::last_cuda_error ()));
  } else if (status == cip::Status::invalid_argument ||
      status == cip::Status::unsupported) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("%s: %s for this frame", what, cip::status_string (status)),
        ("Check the element's properties against the negotiated format."));
  } else {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("%s failed: %s", what, cip::status_string (status)),
        ("%s. Check the driver and the device, or set compute=cpu.",
            cip::last_cuda_error ()));
  }
  return GST_FLOW_ERROR;
}

/* ---- fault injection (tests only) ---------------------------------------- */

namespace {
struct FaultSpec {
  int kind = -1;                /* GstCudaImgprocFault, -1: none */
  guint nth = 1;
  gchar *name = nullptr;        /* only elements of this name, or all */
};
}  // namespace

static const char *const fault_kinds[] = { "alloc", "launch", "copy" };

/* CIP_FAULT_INJECT, parsed once per process (see gstcudaimgprocfilter.h). */
static const FaultSpec &
fault_spec (void)
{
  static FaultSpec spec;
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    const gchar *env = g_getenv ("CIP_FAULT_INJECT");
    if (env && *env) {
      gchar **at = g_strsplit (env, "@", 2);
      gchar **kn = g_strsplit (at[0], ":", 2);
      for (guint k = 0; k < G_N_ELEMENTS (fault_kinds); k++)
        if (g_strcmp0 (kn[0], fault_kinds[k]) == 0)
          spec.kind = (int) k;
      if (kn[0] && kn[1])
        spec.nth = (guint) g_ascii_strtoull (kn[1], nullptr, 10);
      if (at[0] && at[1] && *at[1])
        spec.name = g_strdup (at[1]);
      if (spec.kind < 0 || spec.nth == 0) {
        g_printerr ("CIP_FAULT_INJECT=%s: expected alloc|launch|copy[:N]"
            "[@NAME] with N >= 1; no fault injected\n", env);
        spec.kind = -1;
      }
      g_strfreev (kn);
      g_strfreev (at);
    }
    g_once_init_leave (&once, 1);
  }
  return spec;
}

gboolean
gst_cuda_imgproc_filter_fault (GstCudaImgprocFilter * self,
    GstCudaImgprocFault kind)
{
  const FaultSpec & spec = fault_spec ();

  if (G_LIKELY (spec.kind != (int) kind))
    return FALSE;
  if (spec.name && g_strcmp0 (GST_OBJECT_NAME (self), spec.name) != 0)
    return FALSE;
  /* the streaming thread counts; start/stop run outside it but never
   * together with it */
  if (++GET_PRIV (self)->fault_ops[kind] != spec.nth)
    return FALSE;
  GST_WARNING_OBJECT (self, "CIP_FAULT_INJECT: failing %s operation %u",
      fault_kinds[kind], spec.nth);
  return TRUE;
}

void
cip_plane_extent (const GstVideoInfo * info, guint plane, gsize * row_bytes,
    guint * rows)
{
  const GstVideoFormatInfo *f = info->finfo;
  *row_bytes = 0;
  *rows = 0;
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    if (GST_VIDEO_FORMAT_INFO_PLANE (f, c) != plane)
      continue;
    gsize w = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    gsize ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, c);
    /* rounded up to whole pixels: includes the x of RGBx */
    gsize end = w ? GST_ROUND_UP_N ((w - 1) * ps +
        GST_VIDEO_FORMAT_INFO_POFFSET (f, c) + 1, ps) : 0;
    *row_bytes = MAX (*row_bytes, end);
    *rows = MAX (*rows, (guint) GST_VIDEO_INFO_COMP_HEIGHT (info, c));
  }
}

/* The error of an injected copy fault (the GPU path's words). */
static GstFlowReturn
injected_copy_error (GstCudaImgprocFilter * self, const char *what)
{
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("CUDA call failed: %s", what),
      ("CIP_FAULT_INJECT: injected fault."));
  return GST_FLOW_ERROR;
}

GstFlowReturn
gst_cuda_imgproc_filter_copy_plane (GstCudaImgprocFilter * self,
    const GstCudaImgprocRun * run, const GstCudaImgprocFrame * in,
    GstCudaImgprocFrame * out, guint plane)
{
  gsize row_bytes;
  guint rows;

  if (gst_cuda_imgproc_filter_fault (self, GST_CUDA_IMGPROC_FAULT_COPY))
    return injected_copy_error (self, "copying a plane");
  cip_plane_extent (in->info, plane, &row_bytes, &rows);
  if (run->gpu)
    return cip_gpu_copy_2d (self, out->data[plane], (gsize) out->stride[plane],
        in->data[plane], (gsize) in->stride[plane], row_bytes, rows) ?
        GST_FLOW_OK : GST_FLOW_ERROR;
  for (guint y = 0; y < rows; y++)
    memcpy (out->data[plane] + (gsize) y * out->stride[plane],
        in->data[plane] + (gsize) y * in->stride[plane], row_bytes);
  return GST_FLOW_OK;
}

GstFlowReturn
gst_cuda_imgproc_filter_fill_plane (GstCudaImgprocFilter * self,
    const GstCudaImgprocRun * run, GstCudaImgprocFrame * out, guint plane,
    guint16 value)
{
  gsize row_bytes;
  guint rows;
  const guint bytes = gst_cuda_imgproc_format_depth (GST_VIDEO_INFO_FORMAT
      (out->info)) > 8 ? 2 : 1;

  if (gst_cuda_imgproc_filter_fault (self, GST_CUDA_IMGPROC_FAULT_COPY))
    return injected_copy_error (self, "filling a plane");
  cip_plane_extent (out->info, plane, &row_bytes, &rows);
  if (run->gpu)
    return cip_gpu_fill_2d (self, out->data[plane], (gsize) out->stride[plane],
        value, bytes, row_bytes, rows) ? GST_FLOW_OK : GST_FLOW_ERROR;
  for (guint y = 0; y < rows; y++) {
    guint8 *row = out->data[plane] + (gsize) y * out->stride[plane];
    if (bytes == 1) {
      memset (row, value, row_bytes);
      continue;
    }
    /* little-endian words */
    for (gsize i = 0; i + 1 < row_bytes; i += 2) {
      row[i] = (guint8) value;
      row[i + 1] = (guint8) (value >> 8);
    }
  }
  return GST_FLOW_OK;
}

/* ---- the frame loop -------------------------------------------------------- */

void
cip_fill_frame (GstCudaImgprocFrame * f, const GstVideoInfo * info,
    GstVideoFrame * vf, const GstVideoRectangle * crop, bool device)
{
  const GstVideoFormatInfo *finfo = info->finfo;

  f->info = info;
  f->device = device;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    f->data[p] = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (vf, p);
    f->stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (vf, p);
    if (!crop)
      continue;
    /* the crop's first sample in this plane (subsampled planes: rounded
     * down, as videocrop does) */
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
      if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) != p)
        continue;
      gsize x = GST_VIDEO_FORMAT_INFO_SCALE_WIDTH (finfo, c, crop->x);
      gsize y = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, c, crop->y);
      f->data[p] += y * (gsize) f->stride[p] +
          x * GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
      break;
    }
  }
}

/* The crop of `buf` within its frame, when it has one that changes
 * anything; fills *info with the cropped size. */
static const GstVideoRectangle *
frame_crop (GstCudaImgprocFilter * self, GstBuffer * buf, GstVideoInfo * info,
    GstVideoRectangle * rect)
{
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);
  GstVideoCropMeta *crop = gst_buffer_get_video_crop_meta (buf);
  GstVideoMeta *vmeta = gst_buffer_get_video_meta (buf);
  guint fw = vmeta ? vmeta->width : (guint) priv->info.width;
  guint fh = vmeta ? vmeta->height : (guint) priv->info.height;

  *info = priv->info;
  if (!crop || (crop->x == 0 && crop->y == 0 && crop->width == fw &&
          crop->height == fh))
    return nullptr;
  if (crop->width == 0 || crop->height == 0 || crop->x + crop->width > fw ||
      crop->y + crop->height > fh) {
    GST_WARNING_OBJECT (self, "ignoring a crop meta outside the frame");
    return nullptr;
  }
  rect->x = (gint) crop->x;
  rect->y = (gint) crop->y;
  rect->w = (gint) crop->width;
  rect->h = (gint) crop->height;
  info->width = rect->w;
  info->height = rect->h;
  return rect;
}

static GstFlowReturn
process_cpu (GstCudaImgprocFilter * self, GstBuffer * inbuf, GstBuffer * outbuf,
    const GstVideoInfo * in_info, const GstVideoRectangle * crop)
{
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);
  GstCudaImgprocFilterClass *klass = GST_CUDA_IMGPROC_FILTER_GET_CLASS (self);
  GstVideoFrame vin, vout;
  GstCudaImgprocFrame in, out;
  GstCudaImgprocRun run;
  GstVideoInfo out_info = priv->out_info;
  const bool in_place_write = outbuf == inbuf;
  GstFlowReturn ret;

  /* NO_REF: a mapped frame holds no ref, so an in-place element's buffer
   * stays writable (metas can be added) */
  if (!gst_video_frame_map (&vin, &priv->info, inbuf, (GstMapFlags)
          (GST_MAP_READ | GST_VIDEO_FRAME_MAP_FLAG_NO_REF |
              (in_place_write ? GST_MAP_WRITE : 0)))) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map input frame"),
        ("buffer does not match the negotiated caps"));
    return GST_FLOW_ERROR;
  }
  if (outbuf && !in_place_write && !gst_video_frame_map (&vout,
          &priv->out_info, outbuf, GST_MAP_WRITE)) {
    gst_video_frame_unmap (&vin);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map output frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  cip_fill_frame (&in, in_info, &vin, crop, false);
  if (in_place_write)
    out = in;
  else if (outbuf)
    cip_fill_frame (&out, &out_info, &vout, nullptr, false);
  ret = klass->process (self, inbuf, &in, outbuf ? &out : nullptr, &run);
  if (ret == GST_FLOW_OK && klass->while_running)
    klass->while_running (self);
  cip_aux_release_pending (priv);
  if (outbuf && !in_place_write)
    gst_video_frame_unmap (&vout);
  gst_video_frame_unmap (&vin);
  return ret;
}

static GstFlowReturn
run_frame (GstCudaImgprocFilter * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);
  GstCudaImgprocFilterClass *klass = GST_CUDA_IMGPROC_FILTER_GET_CLASS (self);
  GstFlowReturn ret;

  if (!priv->have_info) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("frame before caps were negotiated"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
  GstVideoInfo info;
  GstVideoRectangle rect;
  const GstVideoRectangle *crop = frame_crop (self, inbuf, &info, &rect);
  if (priv->gpu)
    ret = cip_gpu_process (self, inbuf, outbuf, &info, crop);
  else
    ret = process_cpu (self, inbuf, outbuf, &info, crop);
  cip_state_frame_done (priv, ret == GST_FLOW_OK);
  if (ret == GST_FLOW_OK && klass->finish)
    ret = klass->finish (self, outbuf ? outbuf : inbuf);
  return ret;
}

static GstFlowReturn
gst_cuda_imgproc_filter_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  return run_frame (GST_CUDA_IMGPROC_FILTER (trans), inbuf, outbuf);
}

static GstFlowReturn
gst_cuda_imgproc_filter_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf)
{
  GstCudaImgprocFilter *self = GST_CUDA_IMGPROC_FILTER (trans);
  /* in-place writers get their buffer as the output frame */
  return run_frame (self, buf,
      g_atomic_int_get (&GET_PRIV (self)->writes_frame) ? buf : nullptr);
}
