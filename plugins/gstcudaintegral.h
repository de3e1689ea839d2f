#pragma once

#include "gstcudaimgprocfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_INTEGRAL (gst_cuda_integral_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaIntegral, gst_cuda_integral, GST, CUDA_INTEGRAL,
    GstCudaImgprocFilter)

GST_ELEMENT_REGISTER_DECLARE (cudaintegral);

G_END_DECLS
