/* GstCudaImgprocFilter: see gstcudaimgprocfilter.h.
 *
 * Memory paths of one frame:
 *   GPU, CUDA memory in      map with GST_MAP_CUDA, kernels read it in place
 *   GPU, system memory in    2-D copies into device scratch frames, kernels,
 *                            copies back (output frame and auxiliary buffers)
 *   CPU                      map on the host, CPU references
 * The element's stream is synchronized once per frame before buffers leave
 * the element: GStreamer 1.22 has no stream API to hand the work over.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudaimgprocfilter.h"

#include <new>

#include "gstcudaimgproccuda.h"
#ifdef HAVE_GST_CUDA
#include <cuda_runtime_api.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_cuda_imgproc_filter_debug);
#define GST_CAT_DEFAULT gst_cuda_imgproc_filter_debug

#define DEFAULT_DEVICE_ID -1
#define DEFAULT_COMPUTE GST_CUDA_IMGPROC_COMPUTE_AUTO
#define N_AUX_SLOTS 4

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

namespace {

/* One pool of auxiliary buffers, e.g. the SAT of cudaintegral. */
struct AuxSlot {
  GstBufferPool *pool = nullptr;
  gsize row_bytes = 0;
  guint rows = 0;
  bool cuda = false;
  gsize pitch = 0;
  void *dev = nullptr;          /* device scratch for system-memory aux on the GPU */
};

/* An aux buffer in use by the current frame: mapped until the frame is done. */
struct AuxPending {
  GstBuffer *buffer = nullptr;
  GstMapInfo map = GST_MAP_INFO_INIT;
  void *download_from = nullptr;        /* device scratch to copy into map.data */
  gsize bytes = 0;
};

struct DevFrame {
  void *data[GST_VIDEO_MAX_PLANES] = {};
  size_t pitch[GST_VIDEO_MAX_PLANES] = {};
};

}  // namespace

struct GstCudaImgprocFilterPrivate {
  /* properties, object lock */
  gint device_id;
  GstCudaImgprocCompute compute;

  /* streaming state */
  gboolean gpu;
  GstVideoInfo info;
  gboolean have_info;
#ifdef HAVE_GST_CUDA
  GstCudaContext *context;
  cudaStream_t stream;
#endif
  DevFrame in_dev, out_dev;     /* scratch frames for system memory on the GPU */
  void *ws;
  gsize ws_bytes;
  gboolean ws_dirty;
  AuxSlot aux[N_AUX_SLOTS];
  AuxPending pending[N_AUX_SLOTS];
  guint n_pending;
};

#define parent_class gst_cuda_imgproc_filter_parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaImgprocFilter,
    gst_cuda_imgproc_filter, GST_TYPE_BASE_TRANSFORM);

#define GET_PRIV(self) \
  ((GstCudaImgprocFilterPrivate *) gst_cuda_imgproc_filter_get_instance_private (self))

static void gst_cuda_imgproc_filter_finalize (GObject * object);
static void gst_cuda_imgproc_filter_set_property (GObject * object,
    guint prop_id, const GValue * value, GParamSpec * pspec);
static void gst_cuda_imgproc_filter_get_property (GObject * object,
    guint prop_id, GValue * value, GParamSpec * pspec);
static void gst_cuda_imgproc_filter_set_context (GstElement * element,
    GstContext * context);
static gboolean gst_cuda_imgproc_filter_start (GstBaseTransform * trans);
static gboolean gst_cuda_imgproc_filter_stop (GstBaseTransform * trans);
static gboolean gst_cuda_imgproc_filter_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_cuda_imgproc_filter_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static gboolean gst_cuda_imgproc_filter_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);
static gboolean gst_cuda_imgproc_filter_decide_allocation (GstBaseTransform *
    trans, GstQuery * query);
static GstFlowReturn gst_cuda_imgproc_filter_transform (GstBaseTransform *
    trans, GstBuffer * inbuf, GstBuffer * outbuf);
static GstFlowReturn gst_cuda_imgproc_filter_transform_ip (GstBaseTransform *
    trans, GstBuffer * buf);

static void
gst_cuda_imgproc_filter_class_init (GstCudaImgprocFilterClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCaps *caps;

  gobject_class->finalize = gst_cuda_imgproc_filter_finalize;
  gobject_class->set_property = gst_cuda_imgproc_filter_set_property;
  gobject_class->get_property = gst_cuda_imgproc_filter_get_property;

  /**
   * GstCudaImgprocFilter:cuda-device-id:
   *
   * CUDA device to use; -1 picks the device of a context shared by
   * neighbouring elements, else device 0.
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

  caps = gst_cuda_imgproc_template_caps ();
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  trans_class->passthrough_on_same_caps = FALSE;
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_set_caps);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_query);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_imgproc_filter_decide_allocation);
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
}

static void
gst_cuda_imgproc_filter_finalize (GObject * object)
{
  GstCudaImgprocFilterPrivate *priv =
      GET_PRIV (GST_CUDA_IMGPROC_FILTER (object));

#ifdef HAVE_GST_CUDA
  gst_clear_object (&priv->context);
#endif
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

/* ---- CUDA helpers --------------------------------------------------------- */

#ifdef HAVE_GST_CUDA
/* Posts an element error for a failed CUDA runtime call. */
static gboolean
cuda_ok (GstCudaImgprocFilter * self, cudaError_t err, const char *what)
{
  if (err == cudaSuccess)
    return TRUE;
  cudaGetLastError ();
  if (err == cudaErrorMemoryAllocation) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of GPU memory (%s)", what),
        ("%s: %s. Free GPU memory, use a smaller resolution, or set "
            "compute=cpu.", cudaGetErrorName (err), cudaGetErrorString (err)));
  } else {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("CUDA call failed: %s", what),
        ("%s: %s. Check the driver and the device (nvidia-smi), or set "
            "compute=cpu.", cudaGetErrorName (err), cudaGetErrorString (err)));
  }
  return FALSE;
}

static void
free_dev_frame (DevFrame & f)
{
  for (auto & d : f.data) {
    if (d)
      cudaFree (d);
    d = nullptr;
  }
}

/* Frees everything allocated in the current context. Context pushed. */
static void
free_device_state (GstCudaImgprocFilterPrivate * priv)
{
  free_dev_frame (priv->in_dev);
  free_dev_frame (priv->out_dev);
  if (priv->ws)
    cudaFree (priv->ws);
  priv->ws = nullptr;
  priv->ws_bytes = 0;
  for (auto & s : priv->aux) {
    if (s.dev)
      cudaFree (s.dev);
    s.dev = nullptr;
  }
}
#endif

static void
clear_aux_pools (GstCudaImgprocFilterPrivate * priv)
{
  for (auto & s : priv->aux) {
    if (s.pool) {
      gst_buffer_pool_set_active (s.pool, FALSE);
      gst_object_unref (s.pool);
    }
    s.pool = nullptr;
    s.row_bytes = 0;
    s.rows = 0;
  }
}

/* ---- GstElement / GstBaseTransform vfuncs --------------------------------- */

static void
gst_cuda_imgproc_filter_set_context (GstElement * element, GstContext * context)
{
#ifdef HAVE_GST_CUDA
  GstCudaImgprocFilter *self = GST_CUDA_IMGPROC_FILTER (element);
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);

  gst_cuda_handle_set_context (element, context, priv->device_id,
      &priv->context);
#endif
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

  priv->gpu = FALSE;
  priv->have_info = FALSE;
  if (compute == GST_CUDA_IMGPROC_COMPUTE_CPU) {
    GST_INFO_OBJECT (self, "compute=cpu: CPU reference path");
    return TRUE;
  }
#ifdef HAVE_GST_CUDA
  if (gst_cuda_load_library () &&
      gst_cuda_ensure_element_context (GST_ELEMENT (self), device_id,
          &priv->context)) {
    gboolean ok;
    if (!gst_cuda_context_push (priv->context)) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Could not make the CUDA context current"), (NULL));
      return FALSE;
    }
    ok = cuda_ok (self, cudaStreamCreateWithFlags (&priv->stream,
            cudaStreamNonBlocking), "creating a stream");
    gst_cuda_context_pop (NULL);
    if (!ok)
      return FALSE;
    priv->gpu = TRUE;
    GST_INFO_OBJECT (self, "GPU path on CUDA context %" GST_PTR_FORMAT,
        priv->context);
    return TRUE;
  }
  if (compute == GST_CUDA_IMGPROC_COMPUTE_GPU) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No usable CUDA device for compute=gpu"),
        ("Could not load libcuda.so.1 or open CUDA device %d. Install the "
            "NVIDIA driver, pick another cuda-device-id, or set compute=auto "
            "or compute=cpu.", device_id));
    return FALSE;
  }
#else
  if (compute == GST_CUDA_IMGPROC_COMPUTE_GPU) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("compute=gpu, but this plugin was built without CUDA"),
        ("Rebuild with nvcc and gstreamer-cuda-1.0 available, or set "
            "compute=auto or compute=cpu."));
    return FALSE;
  }
  (void) device_id;
#endif
  GST_INFO_OBJECT (self, "no usable CUDA device: CPU reference path");
  return TRUE;
}

static gboolean
gst_cuda_imgproc_filter_stop (GstBaseTransform * trans)
{
  GstCudaImgprocFilter *self = GST_CUDA_IMGPROC_FILTER (trans);
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);

  clear_aux_pools (priv);
#ifdef HAVE_GST_CUDA
  if (priv->context && gst_cuda_context_push (priv->context)) {
    free_device_state (priv);
    if (priv->stream)
      cudaStreamDestroy (priv->stream);
    gst_cuda_context_pop (NULL);
  }
  priv->stream = nullptr;
  gst_clear_object (&priv->context);
#endif
  priv->gpu = FALSE;
  priv->have_info = FALSE;
  return TRUE;
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
  if (klass->set_info && !klass->set_info (self, &in_info))
    return FALSE;

  /* Commit only on success: a refused renegotiation keeps the old state. */
  priv->info = in_info;
  priv->have_info = TRUE;
#ifdef HAVE_GST_CUDA
  /* scratch frames are sized by the caps: drop them, process() re-makes them */
  if (priv->gpu && gst_cuda_context_push (priv->context)) {
    free_dev_frame (priv->in_dev);
    free_dev_frame (priv->out_dev);
    gst_cuda_context_pop (NULL);
  }
#endif
  GST_DEBUG_OBJECT (self, "configured %" GST_PTR_FORMAT, incaps);
  return TRUE;
}

static gboolean
gst_cuda_imgproc_filter_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
#ifdef HAVE_GST_CUDA
  GstCudaImgprocFilterPrivate *priv =
      GET_PRIV (GST_CUDA_IMGPROC_FILTER (trans));

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      gst_cuda_handle_context_query (GST_ELEMENT (trans), query,
          priv->context))
    return TRUE;
#endif
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

#ifdef HAVE_GST_CUDA
static gboolean
caps_are_cuda (GstCaps * caps)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

/* A pool for `caps` of our context (CUDA caps) or a video pool. */
static GstBufferPool *
make_pool (GstCudaImgprocFilterPrivate * priv, GstCaps * caps, guint * size,
    guint min, guint max)
{
  GstBufferPool *pool = caps_are_cuda (caps) ?
      gst_cuda_buffer_pool_new (priv->context) : gst_video_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, *size, min, max);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return nullptr;
  }
  /* the CUDA pool rewrites the size for its pitched layout */
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, nullptr, size, nullptr, nullptr);
  gst_structure_free (config);
  return pool;
}
#endif

static gboolean
gst_cuda_imgproc_filter_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;
  /* passthrough: the query went downstream */
  if (!decide_query)
    return TRUE;

#ifdef HAVE_GST_CUDA
  GstCudaImgprocFilterPrivate *priv =
      GET_PRIV (GST_CUDA_IMGPROC_FILTER (trans));
  GstCaps *caps;
  GstVideoInfo info;

  gst_query_parse_allocation (query, &caps, nullptr);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  if (gst_query_get_n_allocation_pools (query) == 0 && caps_are_cuda (caps)
      && priv->context) {
    guint size = (guint) info.size;
    GstBufferPool *pool = make_pool (priv, caps, &size, 0, 0);
    if (!pool)
      return FALSE;
    gst_query_add_allocation_pool (query, pool, size, 0, 0);
    gst_object_unref (pool);
  }
#endif
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, nullptr);
  return TRUE;
}

static gboolean
gst_cuda_imgproc_filter_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
#ifdef HAVE_GST_CUDA
  GstCudaImgprocFilter *self = GST_CUDA_IMGPROC_FILTER (trans);
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);
  GstCudaImgprocFilterClass *klass = GST_CUDA_IMGPROC_FILTER_GET_CLASS (self);
  GstCaps *outcaps;
  GstBufferPool *pool = nullptr;
  guint size = 0, min = 0, max = 0;
  gboolean update;
  GstVideoInfo info;

  gst_query_parse_allocation (query, &outcaps, nullptr);
  /* analysis elements output their input buffer: no pool of their own */
  if (klass->analysis || !outcaps || !caps_are_cuda (outcaps) || !priv->context)
    return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
        query);
  if (!gst_video_info_from_caps (&info, outcaps))
    return FALSE;

  update = gst_query_get_n_allocation_pools (query) > 0;
  if (update) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    /* keep downstream's pool only if it is a CUDA pool of our context */
    if (pool && !(GST_IS_CUDA_BUFFER_POOL (pool) &&
            GST_CUDA_BUFFER_POOL (pool)->context == priv->context))
      gst_clear_object (&pool);
  }
  size = MAX (size, (guint) info.size);
  if (pool) {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_params (config, outcaps, size, min, max);
    if (!gst_buffer_pool_set_config (pool, config))
      gst_clear_object (&pool);
    else {
      config = gst_buffer_pool_get_config (pool);
      gst_buffer_pool_config_get_params (config, nullptr, &size, nullptr,
          nullptr);
      gst_structure_free (config);
    }
  }
  if (!pool)
    pool = make_pool (priv, outcaps, &size, min, max);
  if (!pool) {
    GST_ERROR_OBJECT (self, "could not configure a CUDA buffer pool");
    return FALSE;
  }
  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
#endif
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

/* ---- per-frame helpers for subclasses -------------------------------------- */

const GstVideoInfo *
gst_cuda_imgproc_filter_get_info (GstCudaImgprocFilter * self)
{
  return &GET_PRIV (self)->info;
}

void *
gst_cuda_imgproc_filter_workspace (GstCudaImgprocFilter * self, gsize bytes,
    GstCudaImgprocWorkspaceInit init, const GstCudaImgprocRun * run,
    cip::Status * status)
{
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);

  *status = cip::Status::unsupported;
#ifdef HAVE_GST_CUDA
  if (bytes == 0)
    bytes = 1;
  *status = cip::Status::ok;
  if (priv->ws && priv->ws_bytes >= bytes && !priv->ws_dirty)
    return priv->ws;
  if (priv->ws_bytes < bytes) {
    if (priv->ws)
      cudaFree (priv->ws);
    priv->ws = nullptr;
    priv->ws_bytes = 0;
    cudaError_t err = cudaMalloc (&priv->ws, bytes);
    if (err != cudaSuccess) {
      cudaGetLastError ();
      priv->ws = nullptr;
      *status = err == cudaErrorMemoryAllocation ?
          cip::Status::out_of_memory : cip::Status::cuda_error;
      return nullptr;
    }
    priv->ws_bytes = bytes;
  }
  /* the family's kernels leave the workspace ready for the next call; a
   * fresh or failed one needs initializing */
  *status = init (priv->ws, priv->ws_bytes, run->stream);
  if (*status != cip::Status::ok)
    return nullptr;
  priv->ws_dirty = FALSE;
  return priv->ws;
#else
  (void) priv;
  (void) bytes;
  (void) init;
  (void) run;
  return nullptr;
#endif
}

gboolean
gst_cuda_imgproc_filter_acquire_aux (GstCudaImgprocFilter * self, guint slot,
    gsize row_bytes, guint rows, GstCudaImgprocAuxMemory memory,
    const GstCudaImgprocRun * run, GstCudaImgprocAux * aux)
{
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);
  g_return_val_if_fail (slot < N_AUX_SLOTS, FALSE);
  g_return_val_if_fail (priv->n_pending < N_AUX_SLOTS, FALSE);
  AuxSlot & s = priv->aux[slot];
  bool cuda = run->gpu && run->cuda_memory &&
      memory == GST_CUDA_IMGPROC_AUX_LIKE_INPUT;
  GstBuffer *buf = nullptr;

  if (!s.pool || s.row_bytes != row_bytes || s.rows != rows || s.cuda != cuda) {
    GstStructure *config;

    if (s.pool) {
      gst_buffer_pool_set_active (s.pool, FALSE);
      gst_object_unref (s.pool);
      s.pool = nullptr;
    }
#ifdef HAVE_GST_CUDA
    if (s.dev)
      cudaFree (s.dev);
    s.dev = nullptr;
    if (cuda) {
      /* A table of row_bytes x rows as 4-byte "RGBA" pixels: real CUDA memory
       * of our context that downstream maps like any GstCudaMemory. */
      GstCaps *caps = gst_caps_new_simple ("video/x-raw",
          "format", G_TYPE_STRING, "RGBA",
          "width", G_TYPE_INT, (gint) ((row_bytes + 3) / 4),
          "height", G_TYPE_INT, (gint) rows,
          "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
      guint size;
      GstVideoInfo info;

      gst_caps_set_features (caps, 0,
          gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
      gst_video_info_from_caps (&info, caps);
      size = (guint) info.size;
      s.pool = make_pool (priv, caps, &size, 0, 0);
      gst_caps_unref (caps);
    } else
#endif
    {
      s.pitch = GST_ROUND_UP_N (row_bytes, (gsize) 256);
      s.pool = gst_buffer_pool_new ();
      config = gst_buffer_pool_get_config (s.pool);
      gst_buffer_pool_config_set_params (config, nullptr,
          (guint) (s.pitch * rows), 0, 0);
      if (!gst_buffer_pool_set_config (s.pool, config))
        gst_clear_object (&s.pool);
    }
    if (!s.pool || !gst_buffer_pool_set_active (s.pool, TRUE)) {
      gst_clear_object (&s.pool);
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Could not allocate a %" G_GSIZE_FORMAT " x %u output table",
              row_bytes, rows), ("buffer pool configuration failed"));
      return FALSE;
    }
    s.row_bytes = row_bytes;
    s.rows = rows;
    s.cuda = cuda;
  }

  if (gst_buffer_pool_acquire_buffer (s.pool, &buf, nullptr) != GST_FLOW_OK) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate an output table"), ("buffer pool is empty"));
    return FALSE;
  }

  AuxPending & p = priv->pending[priv->n_pending];
  p = AuxPending ();
#ifdef HAVE_GST_CUDA
  if (cuda) {
    GstMemory *mem = gst_buffer_peek_memory (buf, 0);
    if (!gst_memory_map (mem, &p.map,
            (GstMapFlags) (GST_MAP_WRITE | GST_MAP_CUDA))) {
      gst_buffer_unref (buf);
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Could not map CUDA memory"), (NULL));
      return FALSE;
    }
    aux->data = (guint8 *) p.map.data;
    aux->pitch = GST_CUDA_MEMORY_CAST (mem)->info.stride[0];
    p.buffer = buf;
    priv->n_pending++;
    aux->buffer = gst_buffer_ref (buf);
    return TRUE;
  }
#endif
  /* memory-level map, like the CUDA path: release_pending() unmaps both */
  if (!gst_memory_map (gst_buffer_peek_memory (buf, 0), &p.map,
          GST_MAP_WRITE)) {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("Could not map memory"),
        (NULL));
    return FALSE;
  }
  p.buffer = buf;
  priv->n_pending++;
  aux->buffer = gst_buffer_ref (buf);
  aux->pitch = s.pitch;
  aux->data = p.map.data;
#ifdef HAVE_GST_CUDA
  if (run->gpu) {
    /* computed in device scratch, downloaded once the kernels are queued */
    if (!s.dev && !cuda_ok (self, cudaMalloc (&s.dev, s.pitch * rows),
            "output table scratch"))
      return FALSE;
    aux->data = (guint8 *) s.dev;
    p.download_from = s.dev;
    p.bytes = s.pitch * rows;
  }
#endif
  return TRUE;
}

GstFlowReturn
gst_cuda_imgproc_filter_fail (GstCudaImgprocFilter * self, cip::Status status,
    const char *what)
{
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);

  /* a failed call may leave the workspace half-reset */
  priv->ws_dirty = TRUE;
  if (status == cip::Status::out_of_memory) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Out of memory in %s", what), ("%s", cip::last_cuda_error ()));
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

/* ---- the frame loop -------------------------------------------------------- */

static void
fill_frame (GstCudaImgprocFrame * f, const GstVideoInfo * info,
    GstVideoFrame * vf, bool device)
{
  f->info = info;
  f->device = device;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    f->data[p] = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (vf, p);
    f->stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (vf, p);
  }
}

static void
release_pending (GstCudaImgprocFilterPrivate * priv)
{
  for (guint i = 0; i < priv->n_pending; i++) {
    AuxPending & p = priv->pending[i];
    gst_memory_unmap (gst_buffer_peek_memory (p.buffer, 0), &p.map);
    gst_buffer_unref (p.buffer);
    p = AuxPending ();
  }
  priv->n_pending = 0;
}

static GstFlowReturn
process_cpu (GstCudaImgprocFilter * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);
  GstCudaImgprocFilterClass *klass = GST_CUDA_IMGPROC_FILTER_GET_CLASS (self);
  GstVideoFrame vin, vout;
  GstCudaImgprocFrame in, out;
  GstCudaImgprocRun run;
  GstFlowReturn ret;

  /* NO_REF: a mapped frame holds no ref, so an in-place element's buffer
   * stays writable (metas can be added) */
  if (!gst_video_frame_map (&vin, &priv->info, inbuf, (GstMapFlags)
          (GST_MAP_READ | GST_VIDEO_FRAME_MAP_FLAG_NO_REF))) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map input frame"),
        ("buffer does not match the negotiated caps"));
    return GST_FLOW_ERROR;
  }
  if (outbuf && !gst_video_frame_map (&vout, &priv->info, outbuf,
          GST_MAP_WRITE)) {
    gst_video_frame_unmap (&vin);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map output frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  fill_frame (&in, &priv->info, &vin, false);
  if (outbuf)
    fill_frame (&out, &priv->info, &vout, false);
  ret = klass->process (self, inbuf, &in, outbuf ? &out : nullptr, &run);
  release_pending (priv);
  if (outbuf)
    gst_video_frame_unmap (&vout);
  gst_video_frame_unmap (&vin);
  return ret;
}

#ifdef HAVE_GST_CUDA
/* Input CUDA memory from another context: use that context when allowed. */
static gboolean
adopt_context (GstCudaImgprocFilter * self, GstCudaContext * ctx)
{
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);
  guint dev = 0;
  gint device_id;

  if (ctx == priv->context)
    return TRUE;
  GST_OBJECT_LOCK (self);
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);
  g_object_get (ctx, "cuda-device-id", &dev, NULL);
  if (device_id >= 0 && (guint) device_id != dev) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Input CUDA memory is on device %u but cuda-device-id=%d", dev,
            device_id), ("Set cuda-device-id=-1 or %u.", dev));
    return FALSE;
  }
  GST_INFO_OBJECT (self, "adopting the CUDA context of the input memory");
  clear_aux_pools (priv);
  if (gst_cuda_context_push (priv->context)) {
    free_device_state (priv);
    cudaStreamDestroy (priv->stream);
    gst_cuda_context_pop (NULL);
  }
  priv->stream = nullptr;
  gst_object_replace ((GstObject **) & priv->context, (GstObject *) ctx);
  if (!gst_cuda_context_push (priv->context))
    return FALSE;
  gboolean ok = cuda_ok (self, cudaStreamCreateWithFlags (&priv->stream,
          cudaStreamNonBlocking), "creating a stream");
  gst_cuda_context_pop (NULL);
  return ok;
}

/* Bytes and rows a plane really spans (its components' extent). */
static void
plane_extent (const GstVideoInfo * info, guint plane, gsize * row_bytes,
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

static gboolean
ensure_dev_frame (GstCudaImgprocFilter * self, DevFrame & f,
    GstCudaImgprocFrame * frame)
{
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);
  const GstVideoInfo *info = &priv->info;

  frame->info = info;
  frame->device = true;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row_bytes;
    guint rows;
    plane_extent (info, p, &row_bytes, &rows);
    if (!f.data[p] && !cuda_ok (self, cudaMallocPitch (&f.data[p],
                &f.pitch[p], MAX (row_bytes, (gsize) 1), MAX (rows, 1u)),
            "scratch frame"))
      return FALSE;
    frame->data[p] = (guint8 *) f.data[p];
    frame->stride[p] = (gint) f.pitch[p];
  }
  return TRUE;
}

/* 2-D copies of every plane between a host frame and a device frame. */
static gboolean
copy_planes (GstCudaImgprocFilter * self, const GstCudaImgprocFrame * dst,
    const GstCudaImgprocFrame * src, cudaMemcpyKind kind)
{
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);
  const GstVideoInfo *info = &priv->info;

  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row_bytes;
    guint rows;
    plane_extent (info, p, &row_bytes, &rows);
    if (!cuda_ok (self, cudaMemcpy2DAsync (dst->data[p], dst->stride[p],
                src->data[p], src->stride[p], row_bytes, rows, kind,
                priv->stream), "copying a frame"))
      return FALSE;
  }
  return TRUE;
}

static GstFlowReturn
process_gpu (GstCudaImgprocFilter * self, GstBuffer * inbuf, GstBuffer * outbuf)
{
  GstCudaImgprocFilterPrivate *priv = GET_PRIV (self);
  GstCudaImgprocFilterClass *klass = GST_CUDA_IMGPROC_FILTER_GET_CLASS (self);
  GstMemory *in_mem = gst_buffer_peek_memory (inbuf, 0);
  bool in_cuda = gst_is_cuda_memory (in_mem);
  bool out_cuda = outbuf && gst_is_cuda_memory (gst_buffer_peek_memory (outbuf,
          0));
  GstVideoFrame vin, vout;
  bool in_mapped = false, out_mapped = false;
  GstCudaImgprocFrame in, out, host_out;
  GstCudaImgprocRun run;
  GstFlowReturn ret = GST_FLOW_ERROR;

  if (in_cuda && !adopt_context (self, GST_CUDA_MEMORY_CAST (in_mem)->context))
    return GST_FLOW_ERROR;
  if (!gst_cuda_context_push (priv->context)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not make the CUDA context current"), (NULL));
    return GST_FLOW_ERROR;
  }

  run.gpu = true;
  run.stream = (cip::Stream) priv->stream;
  run.cuda_memory = in_cuda;

  if (!gst_video_frame_map (&vin, &priv->info, inbuf, (GstMapFlags)
          (GST_MAP_READ | GST_VIDEO_FRAME_MAP_FLAG_NO_REF |
              (in_cuda ? GST_MAP_CUDA : 0)))) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map input frame"),
        ("buffer does not match the negotiated caps"));
    goto done;
  }
  in_mapped = true;
  if (in_cuda) {
#if GST_CHECK_VERSION(1, 24, 0)
    /* memory written on another stream: wait for it before reading */
    for (guint i = 0; i < gst_buffer_n_memory (inbuf); i++) {
      GstMemory *m = gst_buffer_peek_memory (inbuf, i);
      if (gst_is_cuda_memory (m))
        gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (m));
    }
#endif
    fill_frame (&in, &priv->info, &vin, true);
  } else {
    GstCudaImgprocFrame host_in;
    fill_frame (&host_in, &priv->info, &vin, false);
    if (!ensure_dev_frame (self, priv->in_dev, &in) ||
        !copy_planes (self, &in, &host_in, cudaMemcpyHostToDevice))
      goto done;
  }

  if (outbuf) {
    if (!gst_video_frame_map (&vout, &priv->info, outbuf, (GstMapFlags)
            (GST_MAP_WRITE | (out_cuda ? GST_MAP_CUDA : 0)))) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map output frame"),
          (NULL));
      goto done;
    }
    out_mapped = true;
    if (out_cuda)
      fill_frame (&out, &priv->info, &vout, true);
    else {
      fill_frame (&host_out, &priv->info, &vout, false);
      if (!ensure_dev_frame (self, priv->out_dev, &out))
        goto done;
    }
  }

  ret = klass->process (self, inbuf, &in, outbuf ? &out : nullptr, &run);
  if (ret == GST_FLOW_OK && outbuf && !out_cuda &&
      !copy_planes (self, &host_out, &out, cudaMemcpyDeviceToHost))
    ret = GST_FLOW_ERROR;
  for (guint i = 0; ret == GST_FLOW_OK && i < priv->n_pending; i++) {
    AuxPending & p = priv->pending[i];
    if (p.download_from && !cuda_ok (self, cudaMemcpyAsync (p.map.data,
                p.download_from, p.bytes, cudaMemcpyDeviceToHost,
                priv->stream), "downloading an output table"))
      ret = GST_FLOW_ERROR;
  }

done:
  /* always drain the stream before buffers are unmapped or reused */
  {
    cudaError_t err = cudaStreamSynchronize (priv->stream);
    if (ret == GST_FLOW_OK && !cuda_ok (self, err, "running the kernels"))
      ret = GST_FLOW_ERROR;
  }
#if GST_CHECK_VERSION(1, 24, 0)
  if (out_cuda && out_mapped) {
    /* synchronized above: consumers need not wait on our stream */
    for (guint i = 0; i < gst_buffer_n_memory (outbuf); i++)
      GST_MEMORY_FLAG_UNSET (gst_buffer_peek_memory (outbuf, i),
          GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
  }
#endif
  gst_cuda_context_pop (NULL);
  release_pending (priv);
  if (out_mapped)
    gst_video_frame_unmap (&vout);
  if (in_mapped)
    gst_video_frame_unmap (&vin);
  return ret;
}
#endif

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
#ifdef HAVE_GST_CUDA
  if (priv->gpu)
    ret = process_gpu (self, inbuf, outbuf);
  else
#endif
    ret = process_cpu (self, inbuf, outbuf);
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
  return run_frame (GST_CUDA_IMGPROC_FILTER (trans), buf, nullptr);
}
