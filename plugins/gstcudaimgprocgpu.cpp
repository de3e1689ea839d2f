/* GstCudaImgprocFilter: the GPU path (built only with CUDA): the CUDA
 * context and its switch, the element's stream, CUDA buffer pools, device
 * scratch frames, the workspace, device state, and one frame on the GPU.
 *
 * GStreamer 1.22 has no stream API to hand work downstream, so the element's
 * stream is synchronized once per frame before buffers leave the element.
 * On 1.24+ the element's stream is a GstCudaStream set on its CUDA pools, and
 * a frame in CUDA memory is handed over without a host wait: the element's
 * stream waits (an event, on the device) for work pending on the input's
 * stream, and afterwards every other stream whose memory it touched waits
 * for the element's work, all of that memory flagged NEED_SYNC, so a
 * consumer on any stream that follows the GstCudaMemory rules
 * (gst_cuda_memory_sync(), or waiting on the memory's stream) reads finished
 * data, and a producer that reuses its buffer does not overwrite data still
 * being read. The host still waits when the result goes to system memory,
 * when finish() reads results, when some memory has no stream (its producer
 * synchronized, so later writers will not wait for us), and when
 * CIP_FORCE_HOST_SYNC=1 is set (to measure the difference).
 *
 * System memory goes through pinned staging buffers (cudaHostAlloc, sized
 * by the caps, freed with the scratch frames): an upload copies rows into
 * the stage in chunks, each chunk's DMA running while the host copies the
 * next; downloads (output frame, tables) are queued chunk by chunk behind
 * the kernels, and the host copies each chunk out as soon as its event
 * fires, except a frame's downloads of up to 16 KiB in all (results such
 * as histograms; queue_small_downloads()), which a kernel writes into the
 * staging directly. No pageable copies, whose DMA the
 * driver would stage and wait for itself; without pinned memory
 * (cudaHostAlloc failed) they remain the fallback. */
#include "gstcudaimgprocfilterpriv.h"

#include <cuda_runtime_api.h>

#include <cstring>

#include "gstcudaimgproccuda.h"

#define GST_CAT_DEFAULT gst_cuda_imgproc_filter_debug

namespace {

struct DevFrame {
  void *data[GST_VIDEO_MAX_PLANES] = {};
  size_t pitch[GST_VIDEO_MAX_PLANES] = {};
};

/* Pinned host memory, grown on demand (cudaHostAlloc). */
struct Pinned {
  guint8 *data = nullptr;
  gsize bytes = 0;
};

/* A 2-D copy between host memory (pageable) and device memory. */
struct Transfer {
  guint8 *host = nullptr;
  gsize host_pitch = 0;
  void *dev = nullptr;
  gsize dev_pitch = 0;
  gsize row_bytes = 0;
  guint rows = 0;
};

/* Staged copies move about 1 MiB per chunk, with up to kStageDepth chunks
 * queued before the host waits for the oldest. */
constexpr gsize kStageChunk = 1u << 20;
constexpr guint kStageDepth = 8;
/* downloads of one frame: the planes and every auxiliary table */
constexpr guint kMaxTransfers = GST_VIDEO_MAX_PLANES +
    2 * GST_CUDA_IMGPROC_N_AUX_SLOTS;
static_assert (kMaxTransfers <= (guint) cip::kMaxRowCopies,
    "one copy_rows launch takes a frame's downloads");
/* A frame's downloads of up to this many bytes in all (results such as
 * histograms and tables, tiny system-memory frames) are copied by a kernel straight into the pinned staging
 * (queue_small_downloads()). In a bare loop on an H100 (RESULTS.md round
 * 26) the kernel's way took 21 us a frame for 1 KiB and 29 us for 64 KiB,
 * the copy engine's 29-31 us for 1 KiB: the limit stays well inside the
 * gain. CIP_KERNEL_COPY_MAX=BYTES sets another (0: never), for benches. */
constexpr gsize kKernelCopyMax = 16u << 10;

}  // namespace

struct CipGpu {
  cudaStream_t stream = nullptr;
#if CIP_HAVE_CUDA_STREAM
  GstCudaStream *gst_stream = nullptr;  /* owns `stream`; set on our pools */
  cudaEvent_t ready = nullptr;          /* work pending on another stream */
  cudaEvent_t done = nullptr;           /* the frame's work on our stream */
  /* this frame: other streams to wait for our work, and whether some memory
   * had no stream (then the host waits) */
  GPtrArray *waiters = nullptr;
  bool touched_unordered = false;
#endif
  bool force_host_sync = false;         /* CIP_FORCE_HOST_SYNC=1 */
  bool unified = false;         /* the device reaches pinned memory at its host address */
  gsize kernel_copy_max = kKernelCopyMax;
  DevFrame in_dev, out_dev;     /* scratch frames for system memory */
  Pinned up, down;              /* pinned staging for system memory */
  bool pinned_failed = false;   /* cudaHostAlloc failed: pageable copies */
  cudaEvent_t chunk_done[kStageDepth] = {};
  Transfer downloads[kMaxTransfers];    /* this frame's, queued at its end */
  guint n_downloads = 0;
  bool small_queued = false;    /* this frame's downloads: queue_small_downloads() */
  bool idle = false;            /* this frame's work waited for, nothing queued since */
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

static void
free_pinned (Pinned & p)
{
  if (p.data)
    cudaFreeHost (p.data);
  p = Pinned ();
}

/* Scratch frames and staging buffers sized by the caps (the context is
 * current). */
static void
free_frame_scratch (CipGpu * g)
{
  free_dev_frame (g->in_dev);
  free_dev_frame (g->out_dev);
  free_pinned (g->up);
  free_pinned (g->down);
  g->pinned_failed = false;
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
    free_frame_scratch (g);
    for (auto & e : g->chunk_done) {
      if (e)
        cudaEventDestroy (e);
      e = nullptr;
    }
    if (g->ws)
      cudaFree (g->ws);
#if CIP_HAVE_CUDA_STREAM
    if (g->ready)
      cudaEventDestroy (g->ready);
    if (g->done)
      cudaEventDestroy (g->done);
    g->ready = g->done = nullptr;
    /* the stream lives on while memory of our pools refers to it */
    if (g->gst_stream)
      gst_cuda_stream_unref (g->gst_stream);
    g->gst_stream = nullptr;
#else
    if (g->stream)
      cudaStreamDestroy (g->stream);
#endif
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
#if CIP_HAVE_CUDA_STREAM
  /* a GstCudaStream, so that our memory tells consumers where to wait */
  g->gst_stream = gst_cuda_stream_new (context_of (self));
  gboolean ok = g->gst_stream != nullptr;
  if (!ok)
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("CUDA call failed: creating a stream"), (NULL));
  else
    g->stream = (cudaStream_t) gst_cuda_stream_get_handle (g->gst_stream);
  ok = ok && cuda_ok (self, cudaEventCreateWithFlags (&g->ready,
          cudaEventDisableTiming), "creating an event") &&
      cuda_ok (self, cudaEventCreateWithFlags (&g->done,
          cudaEventDisableTiming), "creating an event");
#else
  gboolean ok = cuda_ok (self, cudaStreamCreateWithFlags (&g->stream,
          cudaStreamNonBlocking), "creating a stream");
#endif
  for (auto & e : g->chunk_done)
    ok = ok && cuda_ok (self, cudaEventCreateWithFlags (&e,
            cudaEventDisableTiming), "creating an event");
  int dev = 0, unified = 0;
  g->unified = cudaGetDevice (&dev) == cudaSuccess &&
      cudaDeviceGetAttribute (&unified, cudaDevAttrUnifiedAddressing, dev) ==
      cudaSuccess && unified;
  cudaGetLastError ();
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
    priv->gpu->force_host_sync =
        g_strcmp0 (g_getenv ("CIP_FORCE_HOST_SYNC"), "1") == 0;
    if (g_getenv ("CIP_KERNEL_COPY_MAX"))
      priv->gpu->kernel_copy_max =
          g_ascii_strtoull (g_getenv ("CIP_KERNEL_COPY_MAX"), NULL, 10);
#if CIP_HAVE_CUDA_STREAM
    priv->gpu->waiters = g_ptr_array_new ();
#endif
    if (!create_stream (self)) {
      free_context_resources (self);
#if CIP_HAVE_CUDA_STREAM
      g_ptr_array_unref (priv->gpu->waiters);
#endif
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
#if CIP_HAVE_CUDA_STREAM
    g_ptr_array_unref (priv->gpu->waiters);
#endif
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

  /* scratch frames and staging are sized by the caps: process() re-makes
   * them */
  if (g && gst_cuda_context_push (context_of (self))) {
    free_frame_scratch (g);
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

/* CUDA pools of ours carry our stream (1.24+): consumers of their memory
 * then know where our work runs. */
static void
config_set_stream (GstCudaImgprocFilter * self, GstStructure * config)
{
#if CIP_HAVE_CUDA_STREAM
  gst_buffer_pool_config_set_cuda_stream (config, PRIV (self)->gpu->gst_stream);
#endif
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
  if (caps_are_cuda (caps))
    config_set_stream (self, config);
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
    config_set_stream (self, config);
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

/* ---- stream hand-over (1.24+) -------------------------------------------- */

/* Notes CUDA memory this frame reads or writes. Our stream waits (on the
 * device) for work pending on the memory's own stream; that stream is
 * remembered, to wait in turn for our work (frame_handover()). */
static gboolean
touch_memory (GstCudaImgprocFilter * self, GstMemory * mem)
{
#if CIP_HAVE_CUDA_STREAM
  CipGpu *g = PRIV (self)->gpu;

  if (!gst_is_cuda_memory (mem))
    return TRUE;
  GstCudaStream *s = gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST (mem));
  cudaStream_t h = s ? (cudaStream_t) gst_cuda_stream_get_handle (s) : nullptr;
  if (!h) {
    /* no stream: its producer synchronized, and whoever writes it next will
     * not wait for us: the host has to */
    g->touched_unordered = true;
    return TRUE;
  }
  if (h == g->stream)
    return TRUE;                /* ordered on our stream already */
  if (GST_MEMORY_FLAG_IS_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC) &&
      !(cuda_ok (self, cudaEventRecord (g->ready, h), "recording an event") &&
          cuda_ok (self, cudaStreamWaitEvent (g->stream, g->ready, 0),
              "waiting for the input's stream")))
    return FALSE;
  for (guint i = 0; i < g->waiters->len; i++)
    if (g_ptr_array_index (g->waiters, i) == (gpointer) h)
      return TRUE;
  g_ptr_array_add (g->waiters, (gpointer) h);
  return TRUE;
#else
  (void) self;
  (void) mem;
  return TRUE;
#endif
}

#if CIP_HAVE_CUDA_STREAM
static void
set_need_sync (GstBuffer * buf)
{
  for (guint i = 0; buf && i < gst_buffer_n_memory (buf); i++) {
    GstMemory *mem = gst_buffer_peek_memory (buf, i);
    if (gst_is_cuda_memory (mem))
      GST_MINI_OBJECT_FLAG_SET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
  }
}
#endif

/* Ends a frame whose CUDA memory can carry our work downstream without a
 * host wait (see the top of the file): returns FALSE when the host must
 * wait instead. */
static gboolean
frame_handover (GstCudaImgprocFilter * self, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
#if CIP_HAVE_CUDA_STREAM
  GstCudaImgprocFilterPrivate *priv = PRIV (self);
  CipGpu *g = priv->gpu;

  if (g->touched_unordered)
    return FALSE;
  if (!cuda_ok (self, cudaEventRecord (g->done, g->stream),
          "recording an event"))
    return FALSE;
  for (guint i = 0; i < g->waiters->len; i++) {
    if (!cuda_ok (self, cudaStreamWaitEvent ((cudaStream_t)
                g_ptr_array_index (g->waiters, i), g->done, 0),
            "handing the frame to another stream"))
      return FALSE;
  }
  /* read or written by queued work: the next user waits on the stream */
  set_need_sync (inbuf);
  set_need_sync (outbuf);
  for (guint i = 0; i < priv->n_pending; i++)
    set_need_sync (priv->pending[i].buffer);
  return TRUE;
#else
  (void) self;
  (void) inbuf;
  (void) outbuf;
  return FALSE;
#endif
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
    /* 1.24+'s CUDA pool pads a buffer to its pitch: a one-row table (the
     * LUTs, 256 bytes) came as 512 bytes, the rest never written. It ends
     * where its bytes end, as in system memory (the pool restores the size
     * on release); tables of several rows stay stride x rows, as their
     * metas document */
    if (s->rows == 1 && gst_buffer_get_size (p->buffer) > s->row_bytes)
      gst_buffer_set_size (p->buffer, (gssize) s->row_bytes);
    if (!gst_memory_map (mem, &p->map,
            (GstMapFlags) (GST_MAP_WRITE | GST_MAP_CUDA))) {
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
          ("Could not map CUDA memory"), (NULL));
      return FALSE;
    }
    /* A table's row padding is never written, but a consumer's 16-byte
     * loads (cudaboxfilter's gather of an upstream SAT) cover it, and
     * compute-sanitizer's initcheck counts those bytes as read: a pool
     * buffer's memory is cleared once, when first used */
    static const GQuark cleared = g_quark_from_static_string ("cip-cleared");
    if (!gst_mini_object_get_qdata (GST_MINI_OBJECT_CAST (mem), cleared)) {
      if (!cuda_ok (self, cudaMemsetAsync (p->map.data, 0, p->map.size,
                  (cudaStream_t) run->stream), "clearing a table")) {
        gst_memory_unmap (mem, &p->map);
        return FALSE;
      }
      gst_mini_object_set_qdata (GST_MINI_OBJECT_CAST (mem), cleared,
          GINT_TO_POINTER (1), NULL);
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
  p->row_bytes = s->row_bytes;
  p->pitch = s->pitch;
  p->rows = s->rows;
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
  if (!touch_memory (self, mem))
    return FALSE;
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
    guint16 value, guint bytes, gsize row_bytes, guint rows)
{
  /* words of two equal bytes (and bytes) are a byte fill */
  if (bytes == 1 || (value >> 8) == (value & 0xff))
    return cuda_ok (self, cudaMemset2DAsync (dst, pitch, value & 0xff,
            row_bytes, rows, PRIV (self)->gpu->stream), "filling a plane");
  const cip::Status st = cip::fill_words (dst, pitch, (int) (row_bytes / 2),
      (int) rows, value, (cip::Stream) PRIV (self)->gpu->stream);
  if (st == cip::Status::ok)
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("CUDA call failed: filling a plane"),
      ("%s: %s. Check the driver and the device (nvidia-smi), or set "
          "compute=cpu.", cip::status_string (st), cip::last_cuda_error ()));
  return FALSE;
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
    if (!f.data[p]) {
      if (!cuda_ok (self, FAULT_OR (self, ALLOC,
                  cudaMallocPitch (&f.data[p], &f.pitch[p], MAX (row_bytes,
                          (gsize) 1), MAX (rows, 1u))), "scratch frame"))
        return FALSE;
      /* uploads write the plane's bytes only; a kernel's whole-word copy
       * across a ragged right edge (halftone's io warp) covers the row
       * padding too, and compute-sanitizer's initcheck counts those bytes
       * as read: clear it once */
      if (!cuda_ok (self, cudaMemsetAsync (f.data[p], 0, f.pitch[p] *
                  MAX (rows, 1u), PRIV (self)->gpu->stream),
              "clearing a scratch frame")) {
        cudaFree (f.data[p]);
        f.data[p] = nullptr;
        return FALSE;
      }
    }
    frame->data[p] = (guint8 *) f.data[p];
    frame->stride[p] = (gint) f.pitch[p];
  }
  return TRUE;
}

/* Adds one transfer per plane of a host frame and its device frame to
 * `t` (n entries so far). */
static guint
frame_transfers (Transfer * t, guint n, const GstCudaImgprocFrame * host,
    const GstCudaImgprocFrame * dev)
{
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (host->info); p++) {
    Transfer & x = t[n++];
    cip_plane_extent (host->info, p, &x.row_bytes, &x.rows);
    x.host = host->data[p];
    x.host_pitch = (gsize) host->stride[p];
    x.dev = dev->data[p];
    x.dev_pitch = (gsize) dev->stride[p];
  }
  return n;
}

/* Pinned buffer `p` of at least `bytes`; false when pinned memory cannot be
 * had (the caller then copies from pageable memory). Only system-memory
 * frames use staging, and each of them ends with a host wait: nothing is
 * queued on the old buffer. */
static bool
ensure_pinned (GstCudaImgprocFilter * self, Pinned & p, gsize bytes)
{
  CipGpu *g = PRIV (self)->gpu;

  if (p.bytes >= bytes)
    return true;
  if (g->pinned_failed)
    return false;
  free_pinned (p);
  if (cudaHostAlloc ((void **) &p.data, bytes, cudaHostAllocDefault) !=
      cudaSuccess) {
    cudaGetLastError ();
    p.data = nullptr;
    g->pinned_failed = true;
    GST_WARNING_OBJECT (self, "could not pin %" G_GSIZE_FORMAT " bytes of "
        "staging: system memory is copied from pageable memory", bytes);
    return false;
  }
  p.bytes = bytes;
  GST_DEBUG_OBJECT (self, "pinned staging of %" G_GSIZE_FORMAT " bytes", bytes);
  return true;
}

static gsize
transfer_bytes (const Transfer * t, guint n)
{
  gsize total = 0;
  for (guint i = 0; i < n; i++)
    total += t[i].row_bytes * t[i].rows;
  return total;
}

/* Rows of one transfer per chunk of staging. */
static guint
chunk_rows (const Transfer & t)
{
  return (guint) MAX ((gsize) 1, kStageChunk / MAX (t.row_bytes, (gsize) 1));
}

/* Copies from or to pageable memory (no pinned staging to be had). */
static gboolean
copy_pageable (GstCudaImgprocFilter * self, const Transfer * t, guint n,
    bool upload)
{
  for (guint i = 0; i < n; i++) {
    if (!t[i].row_bytes || !t[i].rows)
      continue;
    cudaError_t err = FAULT_OR (self, COPY, upload ?
        cudaMemcpy2DAsync (t[i].dev, t[i].dev_pitch, t[i].host,
        t[i].host_pitch, t[i].row_bytes, t[i].rows, cudaMemcpyHostToDevice,
        PRIV (self)->gpu->stream) :
        cudaMemcpy2DAsync (t[i].host, t[i].host_pitch, t[i].dev,
        t[i].dev_pitch, t[i].row_bytes, t[i].rows, cudaMemcpyDeviceToHost,
        PRIV (self)->gpu->stream));
    if (!cuda_ok (self, err, "copying a frame"))
      return FALSE;
  }
  return TRUE;
}

/* Host frame to device: each chunk is copied into pinned staging, then its
 * DMA is queued and runs while the host copies the next chunk. */
static gboolean
upload (GstCudaImgprocFilter * self, const Transfer * t, guint n)
{
  CipGpu *g = PRIV (self)->gpu;

  if (!ensure_pinned (self, g->up, transfer_bytes (t, n)))
    return copy_pageable (self, t, n, true);
  guint8 *stage = g->up.data;
  for (guint i = 0; i < n; i++) {
    const Transfer & x = t[i];
    for (guint y0 = 0; y0 < x.rows && x.row_bytes; y0 += chunk_rows (x)) {
      const guint rows = MIN (chunk_rows (x), x.rows - y0);
      for (guint y = 0; y < rows; y++)
        memcpy (stage + (gsize) y * x.row_bytes,
            x.host + (gsize) (y0 + y) * x.host_pitch, x.row_bytes);
      if (!cuda_ok (self, FAULT_OR (self, COPY, cudaMemcpy2DAsync ((guint8 *)
                      x.dev + (gsize) y0 * x.dev_pitch, x.dev_pitch, stage,
                      x.row_bytes, x.row_bytes, rows, cudaMemcpyHostToDevice,
                      g->stream)), "copying a frame"))
        return FALSE;
      stage += (gsize) rows * x.row_bytes;
    }
  }
  return TRUE;
}

/* Rows of transfer t in the pinned staging: 16-byte aligned. */
static gsize
stage_pitch (const Transfer & t)
{
  return (t.row_bytes + 15) & ~(gsize) 15;
}

/* Small downloads (a frame's downloads of kernel_copy_max bytes in all:
 * results such as histograms and tables, or a tiny system-memory frame),
 * on a device with unified addressing and once pinned staging is had: one
 * copy_rows kernel writes them into the pinned staging,
 * which the device reaches at its host address, queued right behind the
 * kernels that made them and before while_running(), so that they land
 * while the host works; download() then waits and copies them out. On an
 * H100 (RESULTS.md round 26) a 1 KiB result lands 3.4 us sooner after the
 * kernel than by a device-to-host copy and its event. FALSE after an
 * error; TRUE also when they are left to download(). */
static gboolean
queue_small_downloads (GstCudaImgprocFilter * self)
{
  CipGpu *g = PRIV (self)->gpu;
  const Transfer *t = g->downloads;
  const guint n = g->n_downloads;
  cip::RowCopy c[kMaxTransfers];
  gsize staged = 0;

  if (!n || !g->unified || transfer_bytes (t, n) > g->kernel_copy_max)
    return TRUE;
  for (guint i = 0; i < n; i++)
    staged += stage_pitch (t[i]) * t[i].rows;
  if (!ensure_pinned (self, g->down, staged))
    return TRUE;
  GST_LOG_OBJECT (self, "%u download(s) of %" G_GSIZE_FORMAT " bytes by a "
      "kernel", n, transfer_bytes (t, n));
  guint8 *stage = g->down.data;
  for (guint i = 0; i < n; i++) {
    c[i] = cip::RowCopy { stage, stage_pitch (t[i]), t[i].dev, t[i].dev_pitch,
      t[i].row_bytes, t[i].rows };
    stage += stage_pitch (t[i]) * t[i].rows;
  }
  /* an injected fault reads as the other copies' (FAULT_OR) */
  if (gst_cuda_imgproc_filter_fault (self, GST_CUDA_IMGPROC_FAULT_COPY))
    return cuda_ok (self, cudaErrorInvalidValue, "copying results");
  const cip::Status st = cip::copy_rows (c, (int) n, (cip::Stream) g->stream);
  if (st != cip::Status::ok) {
    gst_cuda_imgproc_filter_fail (self, st, "copying results");
    return FALSE;
  }
  g->small_queued = true;
  return TRUE;
}

/* The end of queue_small_downloads()'s copies: one wait, then out of the
 * staging, laid out as it wrote it. */
static gboolean
finish_small_downloads (GstCudaImgprocFilter * self, const Transfer * t,
    guint n)
{
  CipGpu *g = PRIV (self)->gpu;
  const guint8 *stage = g->down.data;

  if (!cuda_ok (self, cudaStreamSynchronize (g->stream), "copying results"))
    return FALSE;
  g->idle = true;               /* the frame's last work: no second wait */
  for (guint i = 0; i < n; i++) {
    for (guint y = 0; y < t[i].rows; y++)
      memcpy (t[i].host + (gsize) y * t[i].host_pitch,
          stage + (gsize) y * stage_pitch (t[i]), t[i].row_bytes);
    stage += stage_pitch (t[i]) * t[i].rows;
  }
  return TRUE;
}

/* Device to host, for this frame's queued downloads (g->downloads): small
 * ones already queued by a kernel (above) are waited for; else chunks are
 * queued behind the kernels into pinned staging, up to kStageDepth ahead,
 * and copied out on the host as soon as each one's event fires, while the
 * next ones are still in flight. Returns after the last is copied. */
static gboolean
download (GstCudaImgprocFilter * self)
{
  CipGpu *g = PRIV (self)->gpu;
  const Transfer *t = g->downloads;
  const guint n = g->n_downloads;
  struct Chunk {
    const Transfer *t;
    guint y0, rows;
    const guint8 *stage;
  } ring[kStageDepth];
  guint queued = 0, done = 0;

  g->n_downloads = 0;
  if (g->small_queued) {
    g->small_queued = false;
    return finish_small_downloads (self, t, n);
  }
  if (!ensure_pinned (self, g->down, transfer_bytes (t, n)))
    return copy_pageable (self, t, n, false);
  auto finish_one = [&] () -> gboolean {
    const Chunk & c = ring[done % kStageDepth];
    if (!cuda_ok (self, cudaEventSynchronize (g->chunk_done[done %
                    kStageDepth]), "copying a frame"))
      return FALSE;
    for (guint y = 0; y < c.rows; y++)
      memcpy (c.t->host + (gsize) (c.y0 + y) * c.t->host_pitch,
          c.stage + (gsize) y * c.t->row_bytes, c.t->row_bytes);
    done++;
    return TRUE;
  };
  guint8 *stage = g->down.data;
  for (guint i = 0; i < n; i++) {
    const Transfer & x = t[i];
    for (guint y0 = 0; y0 < x.rows && x.row_bytes; y0 += chunk_rows (x)) {
      const guint rows = MIN (chunk_rows (x), x.rows - y0);
      /* the oldest chunk's event is recorded again below */
      if (queued - done == kStageDepth && !finish_one ())
        return FALSE;
      if (!cuda_ok (self, FAULT_OR (self, COPY, cudaMemcpy2DAsync (stage,
                      x.row_bytes, (const guint8 *) x.dev + (gsize) y0 *
                      x.dev_pitch, x.dev_pitch, x.row_bytes, rows,
                      cudaMemcpyDeviceToHost, g->stream)), "copying a frame") ||
          !cuda_ok (self, cudaEventRecord (g->chunk_done[queued %
                      kStageDepth], g->stream), "recording an event"))
        return FALSE;
      ring[queued % kStageDepth] = Chunk { &x, y0, rows, stage };
      queued++;
      stage += (gsize) rows * x.row_bytes;
    }
  }
  while (done < queued)
    if (!finish_one ())
      return FALSE;
  return TRUE;
}

/* Queues the download of a table's rows: their bytes only, not the padding
 * up to the pitch, which no kernel writes (compute-sanitizer's initcheck
 * flagged copies of it). */
static void
queue_table_download (CipGpu * g, const CipAuxPending & p)
{
  g->downloads[g->n_downloads++] = Transfer { p.map.data, p.pitch,
    p.download_from, p.pitch, p.row_bytes, p.rows };
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
  bool host_results = false, sync_on_host = true;

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
#if CIP_HAVE_CUDA_STREAM
  g_ptr_array_set_size (g->waiters, 0);
  g->touched_unordered = false;
#endif
  g->n_downloads = 0;
  g->small_queued = false;
  g->idle = false;

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
      if (!touch_memory (self, gst_buffer_peek_memory (inbuf, i)))
        goto done;
    cip_fill_frame (&in, in_info, &vin, crop, true);
  } else {
    Transfer up[GST_VIDEO_MAX_PLANES];
    cip_fill_frame (&host_in, in_info, &vin, crop, false);
    if (!ensure_dev_frame (self, g->in_dev, in_info, &in) ||
        !upload (self, up, frame_transfers (up, 0, &host_in, &in)))
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
    if (out_cuda) {
      for (guint i = 0; i < gst_buffer_n_memory (outbuf); i++)
        if (!touch_memory (self, gst_buffer_peek_memory (outbuf, i)))
          goto done;
      cip_fill_frame (&out, &out_info, &vout, nullptr, true);
    }
    else {
      cip_fill_frame (&host_out, &out_info, &vout, nullptr, false);
      if (!ensure_dev_frame (self, g->out_dev, &out_info, &out))
        goto done;
    }
  }

  ret = klass->process (self, inbuf, &in, outbuf ? &out : nullptr, &run);
  if (ret == GST_FLOW_OK && outbuf && !out_cuda && !in_cuda) {
    /* written in device scratch: back to the host frame */
    g->n_downloads = frame_transfers (g->downloads, g->n_downloads,
        in_place_write ? &host_in : &host_out, &out);
  }
  for (guint i = 0; ret == GST_FLOW_OK && i < priv->n_pending; i++) {
    CipAuxPending & p = priv->pending[i];
    if (!p.download_from) {
      /* a table in CUDA memory of our pool */
      if (!touch_memory (self, gst_buffer_peek_memory (p.buffer, 0)))
        ret = GST_FLOW_ERROR;
      continue;
    }
    host_results = true;
    queue_table_download (g, p);
  }
  /* the kernels are queued, and small results' copies behind them: host
   * work meanwhile, before download() (which returns only once its copies
   * are done) and the wait below */
  if (ret == GST_FLOW_OK && !queue_small_downloads (self))
    ret = GST_FLOW_ERROR;
  if (ret == GST_FLOW_OK && klass->while_running)
    klass->while_running (self);
  if (ret == GST_FLOW_OK && g->n_downloads && !download (self))
    ret = GST_FLOW_ERROR;

done:
  /* the host waits unless everything stays in CUDA memory that tells its
   * users where to wait (1.24+); always after an error */
  if (ret == GST_FLOW_OK && in_cuda && (!outbuf || in_place_write || out_cuda)
      && !host_results && !klass->finish && !g->force_host_sync &&
      frame_handover (self, inbuf, outbuf)) {
    sync_on_host = false;
  }
  if (pushed && sync_on_host) {
    cudaError_t err = g->idle ? cudaSuccess : cudaStreamSynchronize (g->stream);
    if (ret == GST_FLOW_OK && !cuda_ok (self, err, "running the kernels"))
      ret = GST_FLOW_ERROR;
    else if (err != cudaSuccess)
      cudaGetLastError ();
    /* synchronized: consumers need not wait on our stream */
    if (out_mapped && out_cuda) {
      for (guint i = 0; i < gst_buffer_n_memory (outbuf); i++)
        cip_cuda_memory_mark_synced (gst_buffer_peek_memory (outbuf, i));
    }
    if (in_place_write && in_cuda && in_mapped) {
      for (guint i = 0; i < gst_buffer_n_memory (inbuf); i++)
        cip_cuda_memory_mark_synced (gst_buffer_peek_memory (inbuf, i));
    }
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
