/* Private to the base element's three files: the shared instance state and
 * the GPU path's entry points. Builds without the GPU path get inline stubs
 * (the one #if of this header), so the other files have none. */
#pragma once

#include "gstcudaimgprocfilter.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_imgproc_filter_debug);

/* One pool of auxiliary buffers, e.g. the SAT of cudaintegral. */
struct CipAuxSlot {
  GstBufferPool *pool = nullptr;        /* NULL for tables over 4 GiB */
  gsize row_bytes = 0;
  guint rows = 0;
  bool cuda = false;
  gsize pitch = 0;
  gsize bytes = 0;                      /* pitch * rows */
  void *dev = nullptr;                  /* device scratch for system-memory aux on the GPU */
};

/* An aux buffer in use by the current frame: mapped until the frame is done. */
struct CipAuxPending {
  GstBuffer *buffer = nullptr;
  GstMapInfo map = GST_MAP_INFO_INIT;
  void *download_from = nullptr;        /* device scratch to copy into map.data */
  gsize row_bytes = 0, pitch = 0;       /* the table's rows in both */
  guint rows = 0;
};

/* A named state buffer (see gst_cuda_imgproc_filter_state()). */
struct CipState {
  const char *name = nullptr;
  void *data = nullptr;                 /* host (g_malloc) or device memory */
  gsize bytes = 0;
  bool device = false;
  guint64 kind = 0;
  bool fresh = true;
  bool used = false;                    /* handed out during this frame */
};

struct CipGpu;                          /* gstcudaimgprocgpu.cpp */

struct GstCudaImgprocFilterPrivate {
  /* properties, object lock */
  gint device_id;
  GstCudaImgprocCompute compute;
  /* in-place elements: process() writes the frame (atomic) */
  gint writes_frame;

  /* The GstCudaContext (a GstObject here so that this header needs no CUDA
   * headers): set by set_context or found at start, replaced under the
   * object lock when input memory brings another one. */
  GstObject *context;

  /* streaming state */
  CipGpu *gpu;                          /* non-NULL: the GPU path runs */
  GstVideoInfo info, out_info;
  gboolean have_info;
  CipAuxSlot aux[GST_CUDA_IMGPROC_N_AUX_SLOTS];
  CipAuxPending pending[GST_CUDA_IMGPROC_N_AUX_SLOTS];
  guint n_pending;
  CipState state[GST_CUDA_IMGPROC_N_STATE_SLOTS];

  /* operations of each GstCudaImgprocFault kind seen (fault injection) */
  guint fault_ops[3];
};

GstCudaImgprocFilterPrivate *gst_cuda_imgproc_filter_priv (GstCudaImgprocFilter * self);

/* gstcudaimgprocaux.cpp */
void cip_aux_clear_pools (GstCudaImgprocFilter * self);
void cip_aux_release_pending (GstCudaImgprocFilterPrivate * priv);
void cip_state_free (GstCudaImgprocFilter * self);
/* every state restarts (reset, or switch of path or context) */
void cip_state_mark_fresh (GstCudaImgprocFilterPrivate * priv);
/* end of a frame: states a successful frame used hold its result; the
 * others (used by a failed frame, or not used) start over */
void cip_state_frame_done (GstCudaImgprocFilterPrivate * priv, gboolean ok);

/* Bytes and rows a plane of `info` really spans (its components' extent). */
void cip_plane_extent (const GstVideoInfo * info, guint plane, gsize * row_bytes,
    guint * rows);

/* Fills `f` from a mapped video frame, cropped to `crop` when not NULL
 * (info is the cropped info). */
void cip_fill_frame (GstCudaImgprocFrame * f, const GstVideoInfo * info,
    GstVideoFrame * vf, const GstVideoRectangle * crop, bool device);

#ifdef HAVE_GST_CUDA
/* gstcudaimgprocgpu.cpp */
gboolean cip_gpu_open (GstCudaImgprocFilter * self, gint device_id,
    gboolean required);
void cip_gpu_close (GstCudaImgprocFilter * self);
void cip_gpu_caps_changed (GstCudaImgprocFilter * self);
gboolean cip_gpu_set_context (GstCudaImgprocFilter * self, GstContext * ctx);
gboolean cip_gpu_query (GstCudaImgprocFilter * self, GstQuery * query);
void cip_gpu_before_transform (GstCudaImgprocFilter * self, GstBuffer * buf);
gboolean cip_gpu_propose_allocation (GstCudaImgprocFilter * self,
    GstQuery * query, GstCaps * caps, const GstVideoInfo * info);
gboolean cip_gpu_decide_allocation (GstCudaImgprocFilter * self,
    GstQuery * query);
GstFlowReturn cip_gpu_process (GstCudaImgprocFilter * self, GstBuffer * inbuf,
    GstBuffer * outbuf, const GstVideoInfo * in_info,
    const GstVideoRectangle * crop);
void *cip_gpu_workspace (GstCudaImgprocFilter * self, gsize bytes,
    GstCudaImgprocWorkspaceInit init, const GstCudaImgprocRun * run,
    cip::Status * status);
void cip_gpu_workspace_dirty (GstCudaImgprocFilter * self);
gboolean cip_gpu_aux_pool (GstCudaImgprocFilter * self, CipAuxSlot * s);
gboolean cip_gpu_map_aux (GstCudaImgprocFilter * self, CipAuxSlot * s,
    CipAuxPending * p, GstCudaImgprocAux * aux, const GstCudaImgprocRun * run);
void cip_gpu_free_aux (GstCudaImgprocFilter * self, CipAuxSlot * s);
void *cip_gpu_alloc_state (GstCudaImgprocFilter * self, gsize bytes);
void cip_gpu_free_state (GstCudaImgprocFilter * self, void *data);
gboolean cip_gpu_map_table (GstCudaImgprocFilter * self, GstMemory * mem,
    GstMapInfo * map);
gboolean cip_gpu_copy_2d (GstCudaImgprocFilter * self, void *dst, gsize dpitch,
    const void *src, gsize spitch, gsize row_bytes, guint rows);
/* bytes: the sample size (1, or 2 for 16-bit words of `value`). */
gboolean cip_gpu_fill_2d (GstCudaImgprocFilter * self, void *dst, gsize pitch,
    guint16 value, guint bytes, gsize row_bytes, guint rows);
#else
/* Built without the GPU path: the CPU path is the only one. */
static inline gboolean cip_gpu_open (GstCudaImgprocFilter * self, gint,
    gboolean required)
{
  if (required)
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("compute=gpu, but this plugin was built without CUDA"),
        ("Rebuild with nvcc and gstreamer-cuda-1.0 available, or set "
            "compute=auto or compute=cpu."));
  return !required;
}
static inline void cip_gpu_close (GstCudaImgprocFilter *) { }
static inline void cip_gpu_caps_changed (GstCudaImgprocFilter *) { }
static inline gboolean cip_gpu_set_context (GstCudaImgprocFilter *, GstContext *) { return FALSE; }
static inline gboolean cip_gpu_query (GstCudaImgprocFilter *, GstQuery *) { return FALSE; }
static inline void cip_gpu_before_transform (GstCudaImgprocFilter *, GstBuffer *) { }
static inline gboolean cip_gpu_propose_allocation (GstCudaImgprocFilter *,
    GstQuery *, GstCaps *, const GstVideoInfo *) { return TRUE; }
static inline gboolean cip_gpu_decide_allocation (GstCudaImgprocFilter *, GstQuery *) { return TRUE; }
static inline GstFlowReturn cip_gpu_process (GstCudaImgprocFilter *, GstBuffer *,
    GstBuffer *, const GstVideoInfo *, const GstVideoRectangle *) { return GST_FLOW_ERROR; }
static inline void *cip_gpu_workspace (GstCudaImgprocFilter *, gsize,
    GstCudaImgprocWorkspaceInit, const GstCudaImgprocRun *, cip::Status * status)
{
  *status = cip::Status::unsupported;
  return nullptr;
}
static inline void cip_gpu_workspace_dirty (GstCudaImgprocFilter *) { }
static inline gboolean cip_gpu_aux_pool (GstCudaImgprocFilter *, CipAuxSlot *) { return FALSE; }
static inline gboolean cip_gpu_map_aux (GstCudaImgprocFilter *, CipAuxSlot *,
    CipAuxPending *, GstCudaImgprocAux *, const GstCudaImgprocRun *) { return FALSE; }
static inline void cip_gpu_free_aux (GstCudaImgprocFilter *, CipAuxSlot *) { }
static inline void *cip_gpu_alloc_state (GstCudaImgprocFilter *, gsize) { return nullptr; }
static inline void cip_gpu_free_state (GstCudaImgprocFilter *, void *) { }
static inline gboolean cip_gpu_map_table (GstCudaImgprocFilter *, GstMemory *,
    GstMapInfo *) { return FALSE; }
static inline gboolean cip_gpu_copy_2d (GstCudaImgprocFilter *, void *, gsize,
    const void *, gsize, gsize, guint) { return FALSE; }
static inline gboolean cip_gpu_fill_2d (GstCudaImgprocFilter *, void *, gsize,
    guint16, guint, gsize, guint) { return FALSE; }
#endif
