#pragma once

#include "gstcudaimgprocfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_HISTOGRAM (gst_cuda_histogram_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaHistogram, gst_cuda_histogram, GST,
    CUDA_HISTOGRAM, GstCudaImgprocFilter)

GST_ELEMENT_REGISTER_DECLARE (cudahistogram);

G_END_DECLS
