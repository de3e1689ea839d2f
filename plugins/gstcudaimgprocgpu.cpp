/* GstCudaImgprocFilter: the GPU path (built only with CUDA): the CUDA
 * context and its switch, the element's stream, CUDA buffer pools, device
 * scratch frames, the workspace, device state, and one frame on the GPU.
 *
 * GStreamer 1.22 has no stream API to hand work downstream, so the element's
 * stream is synchronized once per frame before buffers leave the element;
 * on 1.24+ input memory written on another stream is synced first. */
#include "gstcudaimgprocfilterpriv.h"

#include <cuda_runtime_api.h>

#include "gstcudaimgproccuda.h"

#define GST_CAT_DEFAULT gst_cuda_imgproc_filter_debug

namespace {

struct DevFrame {
  void *data[GST_VIDEO_MAX_PLANES] = {};
  size_t pitch[GST_VIDEO_MAX_PLANES] = {};
};

}  // namespace

struct CipGpu {
  cudaStream_t stream = nullptr;
  DevFrame in_dev, out_dev;     /* scratch frames for system memory */
  void *ws = nullptr;
  gsize ws_bytes = 0;
  gsize ws_request = 0;         /* bytes of the last request */
  bool ws_dirty = false;
};

#define PRIV(self) gst_cuda_imgproc_filter_priv (self)

/* The context in use; only the streaming thread replaces it (with the
 * object lock), so the streaming thread may read it without the lock. */
static GstCudaContext *
context_of (GstCudaImgprocFilter * self)
{
  return (GstCudaContext *) PRIV (self)->context;
}

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

/* An injected fault (CIP_FAULT_INJECT) of `kind` as the error CUDA would
 * give, else the result of `call`: the call is not made when injected. */
#define FAULT_OR(self, kind, call)                                         \
  (gst_cuda_imgproc_filter_fault (self, GST_CUDA_IMGPROC_FAULT_##kind) ?    \
      (GST_CUDA_IMGPROC_FAULT_##kind == GST_CUDA_IMGPROC_FAULT_ALLOC ?      \
          cudaErrorMemoryAllocation : cudaErrorInvalidValue) : (call))

static gboolean
push (GstCudaImgprocFilter * self)
{
  if (gst_cuda_context_push (context_of (self)))
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("Could not make the CUDA context current"), (NULL));
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

/* Frees the stream and everything allocated in the current context, state
 * and auxiliary scratch included. */
static void
free_context_resources (GstCudaImgprocFilter * self)
{
  CipGpu *g = PRIV (self)->gpu;

  cip_state_free (self);
  cip_aux_clear_pools (self);
  if (gst_cuda_context_push (context_of (self))) {
    free_dev_frame (g->in_dev);
    free_dev_frame (g->out_dev);
    if (g->ws)
      cudaFree (g->ws);
    if (g->stream)
      cudaStreamDestroy (g->stream);
    gst_cuda_context_pop (NULL);
  }
  g->ws = nullptr;
  g->ws_bytes = 0;
  g->stream = nullptr;
}

static gboolean
create_stream (GstCudaImgprocFilter * self)
{
  CipGpu *g = PRIV (self)->gpu;

  if (!push (self))
    return FALSE;
  gboolean ok = cuda_ok (self, cudaStreamCreateWithFlags (&g->stream,
          cudaStreamNonBlocking), "creating a stream");
  gst_cuda_context_pop (NULL);
  return ok;
}

gboolean
cip_gpu_open (GstCudaImgprocFilter * self, gint device_id, gboolean required)
{
  GstCudaImgprocFilterPrivate *priv = PRIV (self);

  /* priv->context itself, not a copy: creating a context propagates it,
   * and the element's own set_context must then see it already set (else
   * it would take a second reference) */
  if (gst_cuda_load_library () &&
      gst_cuda_ensure_element_context (GST_ELEMENT (self), device_id,
          (GstCudaContext **) & priv->context)) {
    priv->gpu = new CipGpu ();
    if (!create_stream (self)) {
      delete priv->gpu;
      priv->gpu = nullptr;
      return FALSE;
    }
    GST_INFO_OBJECT (self, "GPU path on CUDA context %" GST_PTR_FORMAT,
        priv->context);
    return TRUE;
  }
  if (required) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No usable CUDA device for compute=gpu"),
        ("Could not load libcuda.so.1 or open CUDA device %d. Install the "
            "NVIDIA driver, pick another cuda-device-id, or set compute=auto "
            "or compute=cpu.", device_id));
    return FALSE;
  }
  return TRUE;
}

void
cip_gpu_close (GstCudaImgprocFilter * self)
{
  GstCudaImgprocFilterPrivate *priv = PRIV (self);

  if (priv->gpu) {
    free_context_resources (self);
    delete priv->gpu;
    priv->gpu = nullptr;
  }
  GST_OBJECT_LOCK (self);
  GstObject *ctx = priv->context;
  priv->context = nullptr;
  GST_OBJECT_UNLOCK (self);
  gst_clear_object (&ctx);
}

void
cip_gpu_caps_changed (GstCudaImgprocFilter * self)
{
  CipGpu *g = PRIV (self)->gpu;

  /* workspace layouts may depend on the frame size: prepare it again */
  if (g)
    g->ws_dirty = true;

  /* scratch frames are sized by the caps: process() re-makes them */
  if (g && gst_cuda_context_push (context_of (self))) {
    free_dev_frame (g->in_dev);
    free_dev_frame (g->out_dev);
    gst_cuda_context_pop (NULL);
  }
}

gboolean
cip_gpu_set_context (GstCudaImgprocFilter * self, GstContext * context)
{
  GstCudaImgprocFilterPrivate *priv = PRIV (self);
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);
  /* keeps a context it has (gst_cuda_handle_set_context does not replace
   * one): a running element switches only to its input's context */
  return gst_cuda_handle_set_context (GST_ELEMENT (self), context, device_id,
      (GstCudaContext **) & priv->context);
}

gboolean
cip_gpu_query (GstCudaImgprocFilter * self, GstQuery * query)
{
  GstCudaImgprocFilterPrivate *priv = PRIV (self);
  GstCudaContext *ctx = nullptr;

  /* any thread: take a ref under the lock, the streaming thread may switch */
  GST_OBJECT_LOCK (self);
  if (priv->context)
    ctx = (GstCudaContext *) gst_object_ref (priv->context);
  GST_OBJECT_UNLOCK (self);
  gboolean ret = gst_cuda_handle_context_query (GST_ELEMENT (self), query,
      ctx);
  gst_clear_object (&ctx);
  return ret;
}

void
cip_gpu_before_transform (GstCudaImgprocFilter * self, GstBuffer * buf)
{
  GstCudaImgprocFilterPrivate *priv = PRIV (self);
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  guint dev = 0;
  gint device_id;

  if (!priv->gpu || !gst_is_cuda_memory (mem))
    return;
  GstCudaContext *ctx = GST_CUDA_MEMORY_CAST (mem)->context;
  if (ctx == context_of (self))
    return;
  GST_OBJECT_LOCK (self);
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);
  g_object_get (ctx, "cuda-device-id", &dev, NULL);
  if (device_id >= 0 && (guint) device_id != dev) {
    /* process() refuses the frame with an error that says so */
    GST_WARNING_OBJECT (self, "input on device %u, cuda-device-id=%d", dev,
        device_id);
    return;
  }
  GST_INFO_OBJECT (self, "switching to the CUDA context of the input memory "
      "%" GST_PTR_FORMAT, ctx);
  free_context_resources (self);
  GST_OBJECT_LOCK (self);
  GstObject *old = priv->context;
  priv->context = (GstObject *) gst_object_ref (ctx);
  GST_OBJECT_UNLOCK (self);
  gst_clear_object (&old);
  /* state of the old context is gone: elements start over */
  cip_state_mark_fresh (priv);
  if (!create_stream (self))
    return;                     /* process() fails on the missing stream */
  /* our output pool belongs to the old context: decide again */
  gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

/* ---- allocation ---------------------------------------------------------- */

static gboolean
caps_are_cuda (GstCaps * caps)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

/* A pool for `caps` of our context (CUDA caps) or a video pool. */
static GstBufferPool *
make_pool (GstCudaImgprocFilter * self, GstCaps * caps, guint * size,
    guint min, guint max)
{
  GstBufferPool *pool = caps_are_cuda (caps) ?
      gst_cuda_buffer_pool_new (context_of (self)) :
      gst_video_buffer_pool_new ();
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

gboolean
cip_gpu_propose_allocation (GstCudaImgprocFilter * self, GstQuery * query,
    GstCaps * caps, const GstVideoInfo * info)
{
  if (gst_query_get_n_allocation_pools (query) > 0 || !caps_are_cuda (caps) ||
      !context_of (self))
    return TRUE;
  if (info->size > G_MAXUINT)
    return FALSE;
  guint size = (guint) info->size;
  GstBufferPool *pool = make_pool (self, caps, &size, 0, 0);
  if (!pool)
    return FALSE;
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  gst_object_unref (pool);
  return TRUE;
}

gboolean
cip_gpu_decide_allocation (GstCudaImgprocFilter * self, GstQuery * query)
{
  GstCudaContext *ctx = context_of (self);
  GstCaps *outcaps;
  GstBufferPool *pool = nullptr;
  guint size = 0, min = 0, max = 0;
  GstVideoInfo info;

  gst_query_parse_allocation (query, &outcaps, nullptr);
  if (!outcaps || !caps_are_cuda (outcaps) || !ctx)
    return TRUE;
  if (!gst_video_info_from_caps (&info, outcaps) || info.size > G_MAXUINT)
    return FALSE;

  gboolean update = gst_query_get_n_allocation_pools (query) > 0;
  if (update) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    /* keep downstream's pool only if it is a CUDA pool of our context */
    if (pool && !(GST_IS_CUDA_BUFFER_POOL (pool) &&
            GST_CUDA_BUFFER_POOL (pool)->context == ctx))
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
    pool = make_pool (self, outcaps, &size, min, max);
  if (!pool) {
    GST_ERROR_OBJECT (self, "could not configure a CUDA buffer pool");
    return FALSE;
  }
  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

/* ---- workspace, state and auxiliary scratch ------------------------------- */

void *
cip_gpu_workspace (GstCudaImgprocFilter * self, gsize bytes,
    GstCudaImgprocWorkspaceInit init, const GstCudaImgprocRun * run,
    cip::Status * status)
{
  CipGpu *g = PRIV (self)->gpu;

  if (bytes == 0)
    bytes = 1;
  *status = cip::Status::ok;
  /* a request of another size may lay the workspace out differently */
  if (bytes != g->ws_request) {
    g->ws_request = bytes;
    g->ws_dirty = true;
  }
  if (g->ws && g->ws_bytes >= bytes && !g->ws_dirty)
    return g->ws;
  if (g->ws_bytes < bytes) {
    if (g->ws)
      cudaFree (g->ws);
    g->ws = nullptr;
    g->ws_bytes = 0;
    cudaError_t err = FAULT_OR (self, ALLOC, cudaMalloc (&g->ws, bytes));
    if (err != cudaSuccess) {
      cudaGetLastError ();
      g->ws = nullptr;
      *status = err == cudaErrorMemoryAllocation ?
          cip::Status::out_of_memory : cip::Status::cuda_error;
      return nullptr;
    }
    g->ws_bytes = bytes;
  }
  /* the family's kernels leave the workspace ready for the next call; a
   * fresh or failed one needs initializing */
  *status = init (g->ws, g->ws_bytes, run->stream);
  if (*status != cip::Status::ok)
    return nullptr;
  g->ws_dirty = false;
  return g->ws;
}

void
cip_gpu_workspace_dirty (GstCudaImgprocFilter * self)
{
  if (PRIV (self)->gpu)
    PRIV (self)->gpu->ws_dirty = true;
}

gboolean
cip_gpu_aux_pool (GstCudaImgprocFilter * self, CipAuxSlot * s)
{
  /* A table of row_bytes x rows as 4-byte "RGBA" pixels: real CUDA memory of
   * our context that downstream maps like any GstCudaMemory. */
  gsize width = (s->row_bytes + 3) / 4;
  if (width > (gsize) G_MAXINT || s->rows > (guint) G_MAXINT)
    return FALSE;
  GstCaps *caps = gst_caps_new_simple ("video/x-raw",
      "format", G_TYPE_STRING, "RGBA",
      "width", G_TYPE_INT, (gint) width,
      "height", G_TYPE_INT, (gint) s->rows,
      "framerate", GST_TYPE_FRACTION, 0, 1, NULL);
  GstVideoInfo info;

  gst_caps_set_features (caps, 0,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  if (!gst_video_info_from_caps (&info, caps) || info.size > G_MAXUINT) {
    gst_caps_unref (caps);
    return FALSE;
  }
  guint size = (guint) info.size;
  s->pool = make_pool (self, caps, &size, 0, 0);
  gst_caps_unref (caps);
  if (!s->pool || !gst_buffer_pool_set_active (s->pool, TRUE))
    return FALSE;
  s->bytes = size;
  return TRUE;
}

gboolean
cip_gpu_map_aux (GstCudaImgprocFilter * self, CipAuxSlot * s,
    CipAuxPending * p, GstCudaImgprocAux * aux, const GstCudaImgprocRun * run)
{
  if (s->cuda) {
    GstMemory *mem = gst_buffer_peek_memory (p->buffer, 0);
    if (!gst_memory_map (mem, &p->map,
            (GstMapFlags) (GST_MAP_WRITE | GST_MAP_CUDA))) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Could not map CUDA memory"), (NULL));
      return FALSE;
    }
    aux->data = (guint8 *) p->map.data;
    aux->pitch = GST_CUDA_MEMORY_CAST (mem)->info.stride[0];
    return TRUE;
  }
  /* system memory on the GPU path: device scratch, downloaded after */
  if (!s->dev && !cuda_ok (self, FAULT_OR (self, ALLOC, cudaMalloc (&s->dev,
                  s->bytes)), "output table scratch"))
    return FALSE;
  aux->data = (guint8 *) s->dev;
  p->download_from = s->dev;
  p->bytes = s->bytes;
  return TRUE;
}

void
cip_gpu_free_aux (GstCudaImgprocFilter * self, CipAuxSlot * s)
{
  if (s->dev && gst_cuda_context_push (context_of (self))) {
    cudaFree (s->dev);
    gst_cuda_context_pop (NULL);
  }
  s->dev = nullptr;
}

void *
cip_gpu_alloc_state (GstCudaImgprocFilter * self, gsize bytes)
{
  void *d = nullptr;
  /* called from process(): the context is current */
  if (cudaMalloc (&d, MAX (bytes, (gsize) 1)) != cudaSuccess) {
    cudaGetLastError ();
    return nullptr;
  }
  return d;
}

void
cip_gpu_free_state (GstCudaImgprocFilter * self, void *data)
{
  if (gst_cuda_context_push (context_of (self))) {
    cudaFree (data);
    gst_cuda_context_pop (NULL);
  }
}

gboolean
cip_gpu_map_table (GstCudaImgprocFilter * self, GstMemory * mem,
    GstMapInfo * map)
{
  if (!gst_is_cuda_memory (mem) ||
      GST_CUDA_MEMORY_CAST (mem)->context != context_of (self))
    return FALSE;
  cip_cuda_memory_sync (mem);
  return gst_memory_map (mem, map,
      (GstMapFlags) (GST_MAP_READ | GST_MAP_CUDA));
}

gboolean
cip_gpu_copy_2d (GstCudaImgprocFilter * self, void *dst, gsize dpitch,
    const void *src, gsize spitch, gsize row_bytes, guint rows)
{
  return cuda_ok (self, cudaMemcpy2DAsync (dst, dpitch, src, spitch, row_bytes,
          rows, cudaMemcpyDeviceToDevice, PRIV (self)->gpu->stream),
      "copying a plane");
}

gboolean
cip_gpu_fill_2d (GstCudaImgprocFilter * self, void *dst, gsize pitch,
    guint8 value, gsize row_bytes, guint rows)
{
  return cuda_ok (self, cudaMemset2DAsync (dst, pitch, value, row_bytes, rows,
          PRIV (self)->gpu->stream), "filling a plane");
}

/* ---- one frame ------------------------------------------------------------ */

/* Device scratch frame for `info`, sized for the negotiated caps (a crop is
 * never larger). */
static gboolean
ensure_dev_frame (GstCudaImgprocFilter * self, DevFrame & f,
    const GstVideoInfo * info, GstCudaImgprocFrame * frame)
{
  const GstVideoInfo *full = &PRIV (self)->info;

  frame->info = info;
  frame->device = true;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row_bytes;
    guint rows;
    cip_plane_extent (full, p, &row_bytes, &rows);
    if (!f.data[p] && !cuda_ok (self, FAULT_OR (self, ALLOC,
                cudaMallocPitch (&f.data[p], &f.pitch[p], MAX (row_bytes,
                        (gsize) 1), MAX (rows, 1u))), "scratch frame"))
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
  const GstVideoInfo *info = src->info;

  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row_bytes;
    guint rows;
    cip_plane_extent (info, p, &row_bytes, &rows);
    if (!cuda_ok (self, FAULT_OR (self, COPY, cudaMemcpy2DAsync (dst->data[p],
                    dst->stride[p], src->data[p], src->stride[p], row_bytes,
                    rows, kind, PRIV (self)->gpu->stream)), "copying a frame"))
      return FALSE;
  }
  return TRUE;
}

/* FALSE (after an error) when CUDA memory `mem` cannot be used here. */
static gboolean
check_memory_context (GstCudaImgprocFilter * self, GstMemory * mem,
    const char *what)
{
  GstCudaContext *ctx = GST_CUDA_MEMORY_CAST (mem)->context;
  guint dev = 0;

  if (ctx == context_of (self))
    return TRUE;
  g_object_get (ctx, "cuda-device-id", &dev, NULL);
  GST_ELEMENT_ERROR (self, STREAM, FAILED,
      ("%s CUDA memory is on another CUDA context (device %u)", what, dev),
      ("Set cuda-device-id=-1 or %u, or share one CUDA context between the "
          "elements.", dev));
  return FALSE;
}

GstFlowReturn
cip_gpu_process (GstCudaImgprocFilter * self, GstBuffer * inbuf,
    GstBuffer * outbuf, const GstVideoInfo * in_info,
    const GstVideoRectangle * crop)
{
  GstCudaImgprocFilterPrivate *priv = PRIV (self);
  GstCudaImgprocFilterClass *klass = GST_CUDA_IMGPROC_FILTER_GET_CLASS (self);
  CipGpu *g = priv->gpu;
  const bool in_place_write = outbuf == inbuf;
  GstMemory *in_mem = gst_buffer_peek_memory (inbuf, 0);
  bool in_cuda = gst_is_cuda_memory (in_mem);
  bool out_cuda = outbuf && !in_place_write &&
      gst_is_cuda_memory (gst_buffer_peek_memory (outbuf, 0));
  GstVideoFrame vin, vout;
  bool in_mapped = false, out_mapped = false, pushed = false;
  GstVideoInfo out_info = priv->out_info;
  GstCudaImgprocFrame in, out, host_in, host_out;
  GstCudaImgprocRun run;
  GstFlowReturn ret = GST_FLOW_ERROR;

  if (!g->stream) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("No CUDA stream"),
        ("Creating the stream of the CUDA context failed earlier."));
    return GST_FLOW_ERROR;
  }
  if (in_cuda && !check_memory_context (self, in_mem, "Input"))
    return GST_FLOW_ERROR;
  if (out_cuda && !check_memory_context (self, gst_buffer_peek_memory (outbuf,
              0), "Output"))
    return GST_FLOW_ERROR;
  if (!push (self))
    return GST_FLOW_ERROR;
  pushed = true;

  run.gpu = true;
  run.stream = (cip::Stream) g->stream;
  run.cuda_memory = in_cuda;
  run.context = context_of (self);

  if (!gst_video_frame_map (&vin, &priv->info, inbuf, (GstMapFlags)
          (GST_MAP_READ | GST_VIDEO_FRAME_MAP_FLAG_NO_REF |
              (in_place_write ? GST_MAP_WRITE : 0) |
              (in_cuda ? GST_MAP_CUDA : 0)))) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map input frame"),
        ("buffer does not match the negotiated caps"));
    goto done;
  }
  in_mapped = true;
  if (in_cuda) {
    /* memory written on another stream: wait for it before reading */
    for (guint i = 0; i < gst_buffer_n_memory (inbuf); i++)
      cip_cuda_memory_sync (gst_buffer_peek_memory (inbuf, i));
    cip_fill_frame (&in, in_info, &vin, crop, true);
  } else {
    cip_fill_frame (&host_in, in_info, &vin, crop, false);
    if (!ensure_dev_frame (self, g->in_dev, in_info, &in) ||
        !copy_planes (self, &in, &host_in, cudaMemcpyHostToDevice))
      goto done;
  }

  if (in_place_write) {
    out = in;
  } else if (outbuf) {
    if (!gst_video_frame_map (&vout, &priv->out_info, outbuf, (GstMapFlags)
            (GST_MAP_WRITE | (out_cuda ? GST_MAP_CUDA : 0)))) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map output frame"),
          (NULL));
      goto done;
    }
    out_mapped = true;
    if (out_cuda)
      cip_fill_frame (&out, &out_info, &vout, nullptr, true);
    else {
      cip_fill_frame (&host_out, &out_info, &vout, nullptr, false);
      if (!ensure_dev_frame (self, g->out_dev, &out_info, &out))
        goto done;
    }
  }

  ret = klass->process (self, inbuf, &in, outbuf ? &out : nullptr, &run);
  if (ret == GST_FLOW_OK && outbuf && !out_cuda && !in_cuda) {
    /* written in device scratch: back to the host frame */
    const GstCudaImgprocFrame *host = in_place_write ? &host_in : &host_out;
    if (!copy_planes (self, host, &out, cudaMemcpyDeviceToHost))
      ret = GST_FLOW_ERROR;
  }
  for (guint i = 0; ret == GST_FLOW_OK && i < priv->n_pending; i++) {
    CipAuxPending & p = priv->pending[i];
    if (p.download_from && !cuda_ok (self, FAULT_OR (self, COPY,
                cudaMemcpyAsync (p.map.data, p.download_from, p.bytes,
                    cudaMemcpyDeviceToHost, g->stream)),
            "downloading an output table"))
      ret = GST_FLOW_ERROR;
  }

done:
  /* always drain the stream before buffers are unmapped or reused */
  if (pushed) {
    cudaError_t err = cudaStreamSynchronize (g->stream);
    if (ret == GST_FLOW_OK && !cuda_ok (self, err, "running the kernels"))
      ret = GST_FLOW_ERROR;
    else if (err != cudaSuccess)
      cudaGetLastError ();
  }
  /* synchronized above: consumers need not wait on our stream */
  if (out_mapped && out_cuda) {
    for (guint i = 0; i < gst_buffer_n_memory (outbuf); i++)
      cip_cuda_memory_mark_synced (gst_buffer_peek_memory (outbuf, i));
  }
  if (in_place_write && in_cuda && in_mapped) {
    for (guint i = 0; i < gst_buffer_n_memory (inbuf); i++)
      cip_cuda_memory_mark_synced (gst_buffer_peek_memory (inbuf, i));
  }
  if (pushed)
    gst_cuda_context_pop (NULL);
  cip_aux_release_pending (priv);
  if (out_mapped)
    gst_video_frame_unmap (&vout);
  if (in_mapped)
    gst_video_frame_unmap (&vin);
  return ret;
}
