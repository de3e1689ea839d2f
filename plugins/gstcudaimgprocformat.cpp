#include "gstcudaimgprocformat.h"

#include "gstcudaimgproccuda.h"

GstCaps *
gst_cuda_imgproc_template_caps (void)
{
  GstCaps *caps = gst_caps_from_string (
      GST_VIDEO_CAPS_MAKE (GST_CUDA_IMGPROC_SYSTEM_FORMATS));
#ifdef HAVE_GST_CUDA
  GstCaps *cuda = gst_caps_from_string (
      GST_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY,
          GST_CUDA_IMGPROC_CUDA_FORMATS));
  /* CUDA memory first: preferred when both sides can do it */
  gst_caps_append (cuda, caps);
  caps = cuda;
#endif
  return caps;
}

guint
gst_cuda_imgproc_n_components (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_N_COMPONENTS (info);
}

guint8 *
GstCudaImgprocFrame::component_data (guint comp) const
{
  const GstVideoFormatInfo *f = info->finfo;
  guint plane = GST_VIDEO_FORMAT_INFO_PLANE (f, comp);
  return data[plane] + GST_VIDEO_FORMAT_INFO_POFFSET (f, comp);
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
  return v;
}
