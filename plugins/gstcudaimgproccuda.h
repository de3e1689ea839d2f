/* The GStreamer CUDA library headers, for code built with the GPU path:
 * one umbrella header from 1.24 on, the individual headers on 1.22. */
#pragma once

#ifdef HAVE_GST_CUDA
#if __has_include(<gst/cuda/gstcuda.h>)
#include <gst/cuda/gstcuda.h>
#else
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>
#endif
#endif
