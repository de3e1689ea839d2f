/* GstCudaImgprocFilter: the abstract base of every element of the suite.
 *
 * It owns everything GStreamer- and memory-related so that an element is a
 * small file of its own maths:
 * - caps: CUDA memory (NV12, I420, Y444, RGBA, BGRA, RGBx, BGRx and the 10/16-bit
 *   P010_10LE, P016_LE, I420_10LE, Y444_16LE) and system memory (the same
 *   plus GRAY8 and GRAY16_LE), same format and size on both pads; a leaf
 *   narrows the formats its current properties can use (format_supported);
 *   a property change that narrows them renegotiates;
 * - the GstCudaContext (context query, set_context, `cuda-device-id`, the
 *   switch to the context of incoming CUDA memory before the transform, as
 *   nvcodec's GstCudaBaseTransform does), an own non-blocking stream, CUDA
 *   buffer pools proposed and decided as nvcodec's filters do;
 * - `compute` = auto | gpu | cpu: system memory with a GPU is uploaded to
 *   device scratch frames, processed there and downloaded; with no GPU the
 *   CPU references of the kernel library do the work;
 * - GstVideoCropMeta: frames are processed as cropped;
 * - auxiliary output buffers (e.g. a SAT for a meta), named state kept across
 *   frames, and the kernel workspace (scratch);
 * - one dispatch of a kernel-library call to the GPU or the CPU reference;
 * - errors: GST_ELEMENT_ERROR with what to do, and GST_FLOW_ERROR.
 *
 * Files: gstcudaimgprocfilter.cpp (negotiation, properties, events, frame
 * loop), gstcudaimgprocgpu.cpp (the GPU path, built only with CUDA),
 * gstcudaimgprocaux.cpp (auxiliary-buffer pools and state buffers).
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
  void *context = nullptr;      /* the GstCudaContext of the GPU path (or NULL) */
};

/* An auxiliary buffer returned by gst_cuda_imgproc_filter_acquire_aux(). */
struct GstCudaImgprocAux {
  GstBuffer *buffer = nullptr;  /* owned by the caller (one ref) */
  guint8 *data = nullptr;       /* where the kernel writes: device on the GPU path */
  gsize pitch = 0;              /* bytes between rows of `data` and of `buffer` */
};

struct _GstCudaImgprocFilterClass {
  GstBaseTransformClass parent_class;

  /* TRUE: the output buffer is the input buffer (GstBaseTransform in-place
   * mode). FALSE: a new output buffer is allocated. */
  gboolean in_place;
  /* TRUE: process() writes frame pixels (the output frame, or the input
   * frame when in_place). FALSE: it only reads them (analysis). The default
   * of every instance; an in-place element that writes only with some
   * settings changes it with gst_cuda_imgproc_filter_set_writes_frame(). */
  gboolean writes_frame;

  /* Optional: whether `format` can be processed with the current
   * properties; transform_caps offers only those, so a property that cannot
   * work on a format is refused at negotiation (and a warning posts *why,
   * a static string naming the property, when caps of such a format
   * arrive). Called with no lock held. */
  gboolean (*format_supported) (GstCudaImgprocFilter * self,
      GstVideoFormat format, const gchar ** why);

  /* Optional: validates the negotiated input and output (same format and
   * size); returns FALSE, after logging why, to refuse the caps. */
  gboolean (*set_info) (GstCudaImgprocFilter * self,
      const GstVideoInfo * in_info, const GstVideoInfo * out_info);

  /* Processes one frame. `out` is the output frame, or NULL when the element
   * does not write pixels; for in-place writers `out` is the input frame
   * mapped writable (`in` == `out`). Kernels run on run->stream when
   * run->gpu; the base synchronizes afterwards. Returns GST_FLOW_OK or an
   * error posted through gst_cuda_imgproc_filter_run() / _fail(). */
  GstFlowReturn (*process) (GstCudaImgprocFilter * self, GstBuffer * inbuf,
      const GstCudaImgprocFrame * in, GstCudaImgprocFrame * out,
      const GstCudaImgprocRun * run);

  /* Optional: host work of the frame that needs none of its results (e.g.
   * building a message's skeleton), called after a successful process(),
   * before the base downloads the results and waits for the kernels, so
   * that on the GPU path it runs while they do; in the CUDA context (make
   * no CUDA calls). */
  void (*while_running) (GstCudaImgprocFilter * self);

  /* Optional: called after the frame's work has completed and frames are
   * unmapped, outside the CUDA context (post messages here). */
  GstFlowReturn (*finish) (GstCudaImgprocFilter * self, GstBuffer * outbuf);

  /* Optional: forgets state that lives across frames (running averages,
   * previous frames, open intervals). The base calls it on flush, on new
   * caps and on stop, and marks every state buffer fresh at the same time;
   * elements do not override stop or sink_event for this. */
  void (*reset) (GstCudaImgprocFilter * self);
};

/* Pad templates: `system_formats` in system memory and, in builds with the
 * GPU path, `cuda_formats` in CUDA memory (format lists as in caps strings,
 * e.g. GST_CUDA_IMGPROC_SYSTEM_FORMATS). The base adds the suite's default;
 * a leaf calls this from class_init to replace them. */
void gst_cuda_imgproc_filter_class_set_formats (GstElementClass * klass,
    const gchar * system_formats, const gchar * cuda_formats);

/* Asks upstream for renegotiation after a property that format_supported()
 * reads changed. Frames of the old format may still arrive (or keep
 * arriving when upstream cannot change): the element then keeps its
 * previous setting for them. */
void gst_cuda_imgproc_filter_renegotiate (GstCudaImgprocFilter * self);

/* For in-place elements that write pixels only with some settings (e.g.
 * cudahistogram draw=true): from the next frame on, process() gets the input
 * frame mapped writable as `out` (TRUE) or `out` = NULL (FALSE). Any thread;
 * process() tells from `out` which applies to its frame. */
void gst_cuda_imgproc_filter_set_writes_frame (GstCudaImgprocFilter * self,
    gboolean writes_frame);

/* Negotiated input and output info (valid after set_info succeeded). */
const GstVideoInfo *gst_cuda_imgproc_filter_get_info (GstCudaImgprocFilter * self);
const GstVideoInfo *gst_cuda_imgproc_filter_get_out_info (GstCudaImgprocFilter * self);

/* Prepares a freshly allocated workspace: the kernel family's
 * *_workspace_init(). */
typedef cip::Status (*GstCudaImgprocWorkspaceInit) (void *d_ws, size_t bytes,
    cip::Stream stream);

/* Device scratch of at least `bytes` for the kernels' workspace, valid until
 * caps change or stop; (re)allocated and initialized with `init` on
 * run->stream when needed (first use, a request of another size, whose
 * layout may differ, or after a failed kernel call). Only during process() on the GPU path. Returns NULL and sets
 * *status on failure. Elements normally reach it through
 * gst_cuda_imgproc_filter_run(). */
void *gst_cuda_imgproc_filter_workspace (GstCudaImgprocFilter * self,
    gsize bytes, GstCudaImgprocWorkspaceInit init,
    const GstCudaImgprocRun * run, cip::Status * status);

/* Marks the workspace for re-initialization before its next use (a kernel
 * call on it failed and may have left it half-reset). */
void gst_cuda_imgproc_filter_workspace_dirty (GstCudaImgprocFilter * self);

/* Test-only fault injection: CIP_FAULT_INJECT=KIND[:N][@NAME] in the
 * environment (read once per process; unset, the default, injects nothing)
 * makes the N-th (default 1st) operation of KIND in each element instance
 * (only those named NAME when given) fail once, as if CUDA had failed:
 *   alloc   device allocations (workspace, scratch frames, state, tables) and,
 *           on the CPU path, host state and table allocations;
 *   launch  kernel-library calls (gst_cuda_imgproc_filter_run), both paths;
 *   copy    uploads, downloads, plane copies and fills.
 * The count runs over the instance's life (not per start), so an element
 * works again once set to NULL and back to PLAYING. TRUE: fail this one. */
typedef enum {
  GST_CUDA_IMGPROC_FAULT_ALLOC,
  GST_CUDA_IMGPROC_FAULT_LAUNCH,
  GST_CUDA_IMGPROC_FAULT_COPY,
} GstCudaImgprocFault;

gboolean gst_cuda_imgproc_filter_fault (GstCudaImgprocFilter * self,
    GstCudaImgprocFault kind);

/* Posts GST_ELEMENT_ERROR for a failed kernel-library call and returns
 * GST_FLOW_ERROR. Only reports: it changes no state. */
GstFlowReturn gst_cuda_imgproc_filter_fail (GstCudaImgprocFilter * self,
    cip::Status status, const char *what);

/* Runs one kernel-library operation where the frame is processed: on the
 * GPU path gpu(ws, ws_bytes, stream) with the element's workspace of
 * `ws_bytes` bytes (prepared by `init`), else cpu(). On failure marks the
 * workspace dirty, posts the error naming `what` and returns
 * GST_FLOW_ERROR. */
template <typename Gpu, typename Cpu>
GstFlowReturn
gst_cuda_imgproc_filter_run (GstCudaImgprocFilter * self,
    const GstCudaImgprocRun * run, const char *what, gsize ws_bytes,
    GstCudaImgprocWorkspaceInit init, Gpu && gpu, Cpu && cpu)
{
  cip::Status st;
  if (gst_cuda_imgproc_filter_fault (self, GST_CUDA_IMGPROC_FAULT_LAUNCH)) {
    st = cip::Status::cuda_error;       /* injected: nothing ran */
  } else if (run->gpu) {
    void *ws = gst_cuda_imgproc_filter_workspace (self, ws_bytes, init, run,
        &st);
    if (ws)
      st = gpu (ws, ws_bytes, run->stream);
    if (st != cip::Status::ok)
      gst_cuda_imgproc_filter_workspace_dirty (self);
  } else {
    st = cpu ();
  }
  if (st != cip::Status::ok)
    return gst_cuda_imgproc_filter_fail (self, st, what);
  return GST_FLOW_OK;
}

/* Maps `mem` (e.g. a table of an upstream meta) for reading where the frame
 * is processed: on the GPU path only CUDA memory of the element's context
 * (device pointer; waits for work its producer queued on another stream
 * first, 1.24+), on the CPU path any memory (host pointer). FALSE when it
 * cannot be read there. Unmap with gst_memory_unmap(). */
gboolean gst_cuda_imgproc_filter_map_table (GstCudaImgprocFilter * self,
    const GstCudaImgprocRun * run, GstMemory * mem, GstMapInfo * map);

/* Plain copies and fills of whole planes where the frame is processed (on
 * run->stream on the GPU path), for what an element leaves as it was or
 * sets to a constant (e.g. the alpha plane, neutral chroma). fill_plane's
 * value is the sample written: a byte in 8-bit formats, a 16-bit word
 * (bits at the format's shift) in 10/16-bit ones. Return GST_FLOW_ERROR
 * after posting an error. */
GstFlowReturn gst_cuda_imgproc_filter_copy_plane (GstCudaImgprocFilter * self,
    const GstCudaImgprocRun * run, const GstCudaImgprocFrame * in,
    GstCudaImgprocFrame * out, guint plane);
GstFlowReturn gst_cuda_imgproc_filter_fill_plane (GstCudaImgprocFilter * self,
    const GstCudaImgprocRun * run, GstCudaImgprocFrame * out, guint plane,
    guint16 value);

/* Where an auxiliary buffer lives. */
typedef enum {
  /* CUDA memory when the input is CUDA memory (GPU path), else system memory */
  GST_CUDA_IMGPROC_AUX_LIKE_INPUT,
  /* always system memory (small results the CPU reads, e.g. histograms) */
  GST_CUDA_IMGPROC_AUX_SYSTEM,
} GstCudaImgprocAuxMemory;

#define GST_CUDA_IMGPROC_N_AUX_SLOTS 4

/* An auxiliary buffer of `rows` rows of `row_bytes` bytes that travels with
 * the frame (in a meta, or read by finish()). On the GPU path `aux->data` is
 * device memory: the buffer itself for CUDA memory, else device scratch that
 * the base downloads into the buffer after process(). `slot` (0..3) keeps one
 * pool per kind of buffer. Only during process(). Returns FALSE after posting
 * an error (nothing to release then). */
gboolean gst_cuda_imgproc_filter_acquire_aux (GstCudaImgprocFilter * self,
    guint slot, gsize row_bytes, guint rows, GstCudaImgprocAuxMemory memory,
    const GstCudaImgprocRun * run, GstCudaImgprocAux * aux);

#define GST_CUDA_IMGPROC_N_STATE_SLOTS 4

/* State that lives across frames (a running histogram, a previous output):
 * `bytes` bytes where the frame is processed (device memory on the GPU path,
 * host memory on the CPU path). *fresh is TRUE when its contents do not
 * hold the previous frame's: first use, after a reset (flush, new caps,
 * stop), a frame that failed or did not use it, a change of size or of
 * `kind`, or a switch between the GPU and CPU paths or of CUDA context; the
 * element then starts over (e.g. the first frame of a running average).
 * `kind` says what the contents mean (the settings that shape them, packed
 * into a number). `name` is for the debug log. Only during process().
 * Returns NULL after posting an error. */
void *gst_cuda_imgproc_filter_state (GstCudaImgprocFilter * self, guint slot,
    const char *name, gsize bytes, guint64 kind, const GstCudaImgprocRun * run,
    gboolean * fresh);
