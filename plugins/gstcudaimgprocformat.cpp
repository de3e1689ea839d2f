#include "gstcudaimgprocformat.h"

#include "gstcudaimgproccuda.h"

GstCaps *
gst_cuda_imgproc_template_caps (const gchar * system_formats,
    const gchar * cuda_formats)
{
  gchar *s = g_strdup_printf ("video/x-raw, format = (string) %s, "
      "width = " GST_VIDEO_SIZE_RANGE ", height = " GST_VIDEO_SIZE_RANGE ", "
      "framerate = " GST_VIDEO_FPS_RANGE, system_formats);
  GstCaps *caps = gst_caps_from_string (s);
  g_free (s);
#ifdef HAVE_GST_CUDA
  s = g_strdup_printf ("video/x-raw(" GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY "), "
      "format = (string) %s, width = " GST_VIDEO_SIZE_RANGE ", "
      "height = " GST_VIDEO_SIZE_RANGE ", framerate = " GST_VIDEO_FPS_RANGE,
      cuda_formats);
  GstCaps *cuda = gst_caps_from_string (s);
  g_free (s);
  /* CUDA memory first: preferred when both sides can do it */
  gst_caps_append (cuda, caps);
  caps = cuda;
#else
  (void) cuda_formats;
#endif
  return caps;
}

guint
gst_cuda_imgproc_n_components (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_N_COMPONENTS (info);
}

guint
gst_cuda_imgproc_format_n_components (GstVideoFormat format)
{
  return GST_VIDEO_FORMAT_INFO_N_COMPONENTS (gst_video_format_get_info (format));
}

guint
gst_cuda_imgproc_format_depth (GstVideoFormat format)
{
  return GST_VIDEO_FORMAT_INFO_DEPTH (gst_video_format_get_info (format), 0);
}

gboolean
gst_cuda_imgproc_is_bgr (const GstVideoInfo * info)
{
  const GstVideoFormatInfo *f = info->finfo;
  return GST_VIDEO_FORMAT_INFO_POFFSET (f, 2) <
      GST_VIDEO_FORMAT_INFO_POFFSET (f, 0);
}

int
gst_cuda_imgproc_scale_radius (guint r, guint sub)
{
  return (int) ((r + ((1u << sub) >> 1)) >> sub);
}

void
gst_cuda_imgproc_roi_install (GObjectClass * klass, guint first_id,
    const gchar * what)
{
  static const struct { const gchar *name, *nick, *blurb; } p[4] = {
    {"roi-x", "ROI X", "Left edge of the region in luma pixels"},
    {"roi-y", "ROI Y", "Top edge of the region in luma pixels"},
    {"roi-width", "ROI width",
        "Width of the region in luma pixels (0 = to the right edge)"},
    {"roi-height", "ROI height",
        "Height of the region in luma pixels (0 = to the bottom edge)"},
  };
  for (guint i = 0; i < 4; i++) {
    /* the blurb is made once per class and lives as long as it */
    gchar *blurb = g_strdup_printf ("%s; %s; clipped to the frame", p[i].blurb,
        what);
    g_object_class_install_property (klass, first_id + i,
        g_param_spec_uint (p[i].name, p[i].nick, blurb, 0, G_MAXINT, 0,
            (GParamFlags) (G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
                G_PARAM_STATIC_NAME | G_PARAM_STATIC_NICK)));
  }
}

gboolean
gst_cuda_imgproc_roi_set (GstCudaImgprocRoi * roi, guint i,
    const GValue * value)
{
  guint *f[4] = { &roi->x, &roi->y, &roi->width, &roi->height };
  if (i >= 4)
    return FALSE;
  *f[i] = g_value_get_uint (value);
  return TRUE;
}

gboolean
gst_cuda_imgproc_roi_get (const GstCudaImgprocRoi * roi, guint i,
    GValue * value)
{
  const guint f[4] = { roi->x, roi->y, roi->width, roi->height };
  if (i >= 4)
    return FALSE;
  g_value_set_uint (value, f[i]);
  return TRUE;
}

GstCudaImgprocRect
gst_cuda_imgproc_clip_roi (const GstVideoInfo * info,
    const GstCudaImgprocRoi & roi)
{
  const guint x = roi.x, y = roi.y, width = roi.width, height = roi.height;
  const guint fw = GST_VIDEO_INFO_WIDTH (info);
  const guint fh = GST_VIDEO_INFO_HEIGHT (info);
  GstCudaImgprocRect r;

  r.x = MIN (x, fw);
  r.y = MIN (y, fh);
  r.width = width ? MIN (width, fw - r.x) : fw - r.x;
  r.height = height ? MIN (height, fh - r.y) : fh - r.y;
  return r;
}

guint
gst_cuda_imgproc_comp_offset (const GstVideoFormatInfo * f, guint comp)
{
  const guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (f, comp);
  const guint bytes = (depth + GST_VIDEO_FORMAT_INFO_SHIFT (f, comp) + 7) / 8;
  guint off = GST_VIDEO_FORMAT_INFO_POFFSET (f, comp);
  /* GStreamer (1.22 at least) gives the V of P010_10LE/P016_LE offset 1,
   * counting samples where every other format counts bytes; a byte offset
   * is always a multiple of the sample size */
  if (off % bytes != 0)
    off *= bytes;
  return off;
}

guint8 *
GstCudaImgprocFrame::component_data (guint comp) const
{
  const GstVideoFormatInfo *f = info->finfo;
  guint plane = GST_VIDEO_FORMAT_INFO_PLANE (f, comp);
  return data[plane] + gst_cuda_imgproc_comp_offset (f, comp);
}

cip::ImageView
GstCudaImgprocFrame::component (guint comp) const
{
  const GstVideoFormatInfo *f = info->finfo;
  guint plane = GST_VIDEO_FORMAT_INFO_PLANE (f, comp);
  cip::ImageView v;
  v.data = component_data (comp);
  v.pitch = (size_t) stride[plane];
  v.width = GST_VIDEO_INFO_COMP_WIDTH (info, comp);
  v.height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp);
  v.step = GST_VIDEO_FORMAT_INFO_PSTRIDE (f, comp);
  v.depth = GST_VIDEO_FORMAT_INFO_DEPTH (f, comp);
  v.shift = GST_VIDEO_FORMAT_INFO_SHIFT (f, comp);
  /* the word that holds the value: 8-bit formats pack bytes, 10- and 16-bit
   * ones 16-bit words */
  v.bytes = (v.depth + v.shift + 7) / 8;
  return v;
}

cip::ImageView
GstCudaImgprocFrame::component_rect (guint comp,
    const GstCudaImgprocRect & r) const
{
  const GstVideoFormatInfo *f = info->finfo;
  const cip::ImageView v = component (comp);
  guint x0 = 0, x1 = 0, y0 = 0, y1 = 0;

  if (r.width > 0 && r.height > 0) {
    /* outward: every sample that covers part of the rectangle */
    const guint ws = GST_VIDEO_FORMAT_INFO_W_SUB (f, comp);
    const guint hs = GST_VIDEO_FORMAT_INFO_H_SUB (f, comp);
    x0 = r.x >> ws;
    x1 = (r.x + r.width + (1u << ws) - 1) >> ws;
    y0 = r.y >> hs;
    y1 = (r.y + r.height + (1u << hs) - 1) >> hs;
    x1 = MIN (x1, (guint) v.width);
    y1 = MIN (y1, (guint) v.height);
  }
  return v.crop ((int) x0, (int) y0, (int) (x1 - x0), (int) (y1 - y0));
}

cip::ImageView
GstCudaImgprocFrame::rgb_pixels (bool * bgr) const
{
  *bgr = gst_cuda_imgproc_is_bgr (info);
  return component (*bgr ? 2 : 0);
}
