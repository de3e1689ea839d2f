/* Formats, caps and views of frames shared by every element of the suite.
 *
 * Words used throughout: a *plane* is a block of memory of a frame (NV12 has
 * two); a *component* is one of Y, U, V or R, G, B, A, numbered as
 * GstVideoFormatInfo does (0 = Y or R, 1 = U or G, 2 = V or B, 3 = A), which
 * the elements' `plane` properties and `planes` histograms address. */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include "cip/cip.h"

G_BEGIN_DECLS

/* Formats the GstCudaMemory allocator of GStreamer 1.22 handles (it has no
 * GRAY formats: a CUDA pool with GRAY8 or GRAY16 caps aborts on 1.22, so they
 * stay in system memory). The _8BIT lists are the 8-bit formats, for elements
 * that take no others; the full lists add 10- and 16-bit YUV (and GRAY16_LE),
 * whose samples frames describe through GstCudaImgprocFrame::component(). */
#define GST_CUDA_IMGPROC_FORMATS_8BIT_LIST \
    "NV12, I420, Y444, RGBA, BGRA, RGBx, BGRx"
#define GST_CUDA_IMGPROC_FORMATS_HBD_LIST \
    "P010_10LE, P016_LE, I420_10LE, Y444_16LE"
#define GST_CUDA_IMGPROC_CUDA_FORMATS "{ " GST_CUDA_IMGPROC_FORMATS_8BIT_LIST \
    ", " GST_CUDA_IMGPROC_FORMATS_HBD_LIST " }"
#define GST_CUDA_IMGPROC_SYSTEM_FORMATS "{ GRAY8, GRAY16_LE, " \
    GST_CUDA_IMGPROC_FORMATS_8BIT_LIST ", " GST_CUDA_IMGPROC_FORMATS_HBD_LIST " }"

/* Pad template caps: CUDA memory of `cuda_formats` (when built with the GPU
 * path) then system memory of `system_formats`. */
GstCaps *gst_cuda_imgproc_template_caps (const gchar * system_formats,
    const gchar * cuda_formats);

/* Number of components elements may address. RGBx/BGRx have 3 (the padding
 * byte is not a component). */
guint gst_cuda_imgproc_n_components (const GstVideoInfo * info);
guint gst_cuda_imgproc_format_n_components (GstVideoFormat format);

/* Byte offset of component `comp` in its pixel (GST_VIDEO_FORMAT_INFO_POFFSET
 * corrected where GStreamer counts samples instead of bytes). */
guint gst_cuda_imgproc_comp_offset (const GstVideoFormatInfo * f, guint comp);

/* Significant bits of the components of `format` (8, 10 or 16). */
guint gst_cuda_imgproc_format_depth (GstVideoFormat format);

/* For RGB formats: TRUE when the colour bytes are stored B, G, R (BGRA,
 * BGRx), FALSE for R, G, B. */
gboolean gst_cuda_imgproc_is_bgr (const GstVideoInfo * info);

/* A radius in luma pixels for a component subsampled by 2^sub, rounded to
 * nearest. */
int gst_cuda_imgproc_scale_radius (guint radius, guint sub);

G_END_DECLS

/* A rectangle in luma pixels. */
struct GstCudaImgprocRect {
  guint x = 0, y = 0, width = 0, height = 0;
};

/* The region-of-interest properties roi-x, roi-y, roi-width and roi-height
 * (luma pixels; 0 = to the frame's edge; clipped to the frame; mutable in
 * PLAYING) that elements share: installed as property ids first_id ..
 * first_id + 3, `what` saying what the region drives. */
struct GstCudaImgprocRoi {
  guint x = 0, y = 0, width = 0, height = 0;
};
void gst_cuda_imgproc_roi_install (GObjectClass * klass, guint first_id,
    const gchar * what);
/* set/get for a property id first_id + i (i = 0..3); FALSE for other ids.
 * Called with the element's object lock. */
gboolean gst_cuda_imgproc_roi_set (GstCudaImgprocRoi * roi, guint i,
    const GValue * value);
gboolean gst_cuda_imgproc_roi_get (const GstCudaImgprocRoi * roi, guint i,
    GValue * value);

/* The region of the roi-* properties in a frame of `info`: a width or
 * height of 0 extends to the frame's edge; clipped to the frame (a region
 * outside it is empty). */
GstCudaImgprocRect gst_cuda_imgproc_clip_roi (const GstVideoInfo * info,
    const GstCudaImgprocRoi & roi);

/* A mapped frame: per-plane pointers and strides, on the host or the device. */
struct GstCudaImgprocFrame {
  const GstVideoInfo *info = nullptr;
  guint8 *data[GST_VIDEO_MAX_PLANES] = {};
  gint stride[GST_VIDEO_MAX_PLANES] = {};
  bool device = false;          /* pointers are CUDA device pointers */

  /* The view of component `comp`: its plane, byte offset, pixel step,
   * subsampled size and sample layout (bytes, depth, shift: the format's, so
   * a P010 luma view reads 10-bit values from the high bits of 16). */
  cip::ImageView component (guint comp) const;
  /* Same view, writable. */
  guint8 *component_data (guint comp) const;
  /* The samples of component `comp` that cover the luma rectangle `r`
   * (subsampled components: columns ⌊x / 2⌋ .. ⌈(x + width) / 2⌉ − 1, rows
   * likewise); empty when `r` is. */
  cip::ImageView component_rect (guint comp, const GstCudaImgprocRect & r) const;
  /* For RGB formats: the view of the first of the three colour bytes, with
   * the pixel step, as the kernels' luma-of-RGB inputs take it; *bgr tells
   * the byte order. */
  cip::ImageView rgb_pixels (bool * bgr) const;
};
