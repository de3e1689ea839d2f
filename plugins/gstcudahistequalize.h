#pragma once

#include "gstcudaimgprocfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_HIST_EQUALIZE (gst_cuda_hist_equalize_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaHistEqualize, gst_cuda_hist_equalize, GST,
    CUDA_HIST_EQUALIZE, GstCudaImgprocFilter)

GST_ELEMENT_REGISTER_DECLARE (cudahistequalize);

G_END_DECLS
