#pragma once

#include "gstcudaimgprocfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_BOX_FILTER (gst_cuda_box_filter_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaBoxFilter, gst_cuda_box_filter, GST,
    CUDA_BOX_FILTER, GstCudaImgprocFilter)

GST_ELEMENT_REGISTER_DECLARE (cudaboxfilter);

G_END_DECLS
