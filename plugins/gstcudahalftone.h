#pragma once

#include "gstcudaimgprocfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_HALFTONE (gst_cuda_halftone_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaHalftone, gst_cuda_halftone, GST,
    CUDA_HALFTONE, GstCudaImgprocFilter)

GST_ELEMENT_REGISTER_DECLARE (cudahalftone);

G_END_DECLS
