/* GstCudaImgprocFilter: the abstract base of every element of the suite.
 *
 * It owns everything GStreamer- and memory-related so that elements only
 * describe their maths:
 * - caps: CUDA memory (NV12, I420, Y444, RGBA, BGRA, RGBx, BGRx) and system
 *   memory (the same plus GRAY8), same format and size on both pads;
 * - the GstCudaContext (context query, set_context, `cuda-device-id`, adoption
 *   of the context of incoming CUDA memory), an own non-blocking stream,
 *   CUDA buffer pools proposed and decided as nvcodec's filters do;
 * - `compute` = auto | gpu | cpu: system memory with a GPU is uploaded to
 *   device scratch frames, processed there and downloaded; with no GPU the
 *   CPU references of the kernel library do the work;
 * - auxiliary output buffers (e.g. a SAT for a meta) in CUDA memory, or system
 *   memory filled from the GPU, or system memory filled on the CPU;
 * - errors: GST_ELEMENT_ERROR with what to do, and GST_FLOW_ERROR.
 */
#pragma once

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "gstcudaimgprocformat.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_IMGPROC_FILTER (gst_cuda_imgproc_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCudaImgprocFilter, gst_cuda_imgproc_filter,
    GST, CUDA_IMGPROC_FILTER, GstBaseTransform)

typedef enum {
  GST_CUDA_IMGPROC_COMPUTE_AUTO = 0,
  GST_CUDA_IMGPROC_COMPUTE_GPU = 1,
  GST_CUDA_IMGPROC_COMPUTE_CPU = 2,
} GstCudaImgprocCompute;

#define GST_TYPE_CUDA_IMGPROC_COMPUTE (gst_cuda_imgproc_compute_get_type ())
GType gst_cuda_imgproc_compute_get_type (void);

G_END_DECLS

/* Where and how one frame is processed. */
struct GstCudaImgprocRun {
  bool gpu = false;             /* frames hold device pointers; use `stream` */
  cip::Stream stream = nullptr;
  bool cuda_memory = false;     /* the input buffer is CUDA memory */
};

/* An auxiliary buffer returned by gst_cuda_imgproc_filter_acquire_aux(). */
struct GstCudaImgprocAux {
  GstBuffer *buffer = nullptr;  /* owned by the caller (one ref) */
  guint8 *data = nullptr;       /* where the kernel writes: device on the GPU path */
  gsize pitch = 0;              /* bytes between rows of `data` and of `buffer` */
};

struct _GstCudaImgprocFilterClass {
  GstBaseTransformClass parent_class;

  /* TRUE: the element only reads frames (in place, output = input, e.g.
   * analysis attaching metas). FALSE: it writes a new output frame. */
  gboolean analysis;

  /* Validates the negotiated format (e.g. the chosen plane exists); posts a
   * GST_ELEMENT_ERROR saying why and returns FALSE to refuse the caps. */
  gboolean (*set_info) (GstCudaImgprocFilter * self, const GstVideoInfo * info);

  /* Processes one frame. `out` is NULL for analysis elements. Kernels run on
   * run->stream when run->gpu; the base synchronizes afterwards. Returns
   * GST_FLOW_OK or the result of gst_cuda_imgproc_filter_fail(). */
  GstFlowReturn (*process) (GstCudaImgprocFilter * self, GstBuffer * inbuf,
      const GstCudaImgprocFrame * in, GstCudaImgprocFrame * out,
      const GstCudaImgprocRun * run);

  /* Optional: called after the frame's work has completed and frames are
   * unmapped, outside the CUDA context (post messages here). */
  GstFlowReturn (*finish) (GstCudaImgprocFilter * self, GstBuffer * outbuf);
};

/* Negotiated input info (valid after set_info succeeded). */
const GstVideoInfo *gst_cuda_imgproc_filter_get_info (GstCudaImgprocFilter * self);

/* Initializes a freshly allocated workspace: the kernel family's
 * *_workspace_init(). */
typedef cip::Status (*GstCudaImgprocWorkspaceInit) (void *d_ws, size_t bytes,
    cip::Stream stream);

/* Device scratch of at least `bytes` for the kernels' workspace, valid until
 * caps change or stop; (re)allocated and initialized with `init` on
 * run->stream when needed (first use, larger size, or after a failed kernel
 * call). Only during process() on the GPU path. Returns NULL and sets
 * *status on failure. */
void *gst_cuda_imgproc_filter_workspace (GstCudaImgprocFilter * self,
    gsize bytes, GstCudaImgprocWorkspaceInit init,
    const GstCudaImgprocRun * run, cip::Status * status);

/* Where an auxiliary buffer lives. */
typedef enum {
  /* CUDA memory when the input is CUDA memory (GPU path), else system memory */
  GST_CUDA_IMGPROC_AUX_LIKE_INPUT,
  /* always system memory (small results the CPU reads, e.g. histograms) */
  GST_CUDA_IMGPROC_AUX_SYSTEM,
} GstCudaImgprocAuxMemory;

/* An auxiliary buffer of `rows` rows of `row_bytes` bytes that travels with
 * the frame (in a meta, or read by finish()). On the GPU path `aux->data` is
 * device memory: the buffer itself for CUDA memory, else device scratch that
 * the base downloads into the buffer after process(). `slot` (0..3) keeps one
 * pool per kind of buffer. Only during process(). Returns FALSE after posting
 * an error. */
gboolean gst_cuda_imgproc_filter_acquire_aux (GstCudaImgprocFilter * self,
    guint slot, gsize row_bytes, guint rows, GstCudaImgprocAuxMemory memory,
    const GstCudaImgprocRun * run, GstCudaImgprocAux * aux);

/* Posts GST_ELEMENT_ERROR for a failed kernel-library call and returns
 * GST_FLOW_ERROR. */
GstFlowReturn gst_cuda_imgproc_filter_fail (GstCudaImgprocFilter * self,
    cip::Status status, const char *what);
