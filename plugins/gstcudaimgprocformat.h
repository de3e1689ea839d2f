/* Formats, caps and plane/channel views shared by every element of the suite. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "cip/cip.h"

G_BEGIN_DECLS

/* Formats the GstCudaMemory allocator of GStreamer 1.22 handles (it has no
 * GRAY8: a CUDA pool with GRAY8 caps aborts on 1.22, so GRAY8 stays in system
 * memory). */
#define GST_CUDA_IMGPROC_CUDA_FORMATS "{ NV12, I420, Y444, RGBA, BGRA, RGBx, BGRx }"
#define GST_CUDA_IMGPROC_SYSTEM_FORMATS "{ GRAY8, NV12, I420, Y444, RGBA, BGRA, RGBx, BGRx }"

/* Pad template caps: CUDA memory (when built with the GPU path) then system
 * memory. */
GstCaps *gst_cuda_imgproc_template_caps (void);

/* Number of components (Y/U/V or R/G/B/A) elements may address. RGBx/BGRx
 * have 3 (the padding byte is not a channel). */
guint gst_cuda_imgproc_n_components (const GstVideoInfo * info);

G_END_DECLS

/* A mapped frame: per-plane pointers and strides, on the host or the device. */
struct GstCudaImgprocFrame {
  const GstVideoInfo *info = nullptr;
  guint8 *data[GST_VIDEO_MAX_PLANES] = {};
  gint stride[GST_VIDEO_MAX_PLANES] = {};
  bool device = false;          /* pointers are CUDA device pointers */

  /* The 8-bit view of component `comp` (0 = Y or R, 1 = U or G, 2 = V or B,
   * 3 = A): its plane, byte offset, pixel step and subsampled size. */
  cip::ImageView component (guint comp) const;
  /* Same view, writable. */
  guint8 *component_data (guint comp) const;
};
