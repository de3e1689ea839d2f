/* The GStreamer CUDA library headers, for code built with the GPU path: one
 * umbrella header from 1.24 on, the individual headers on 1.22; and the
 * stream hand-over that only 1.24+ has. */
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

/* 1.24+ hands work downstream on streams: GstCudaMemory carries the
 * GstCudaStream its producer queued work on, with
 * GST_CUDA_MEMORY_TRANSFER_NEED_SYNC while that work may be unfinished.
 * 1.22 has neither: producers synchronize before pushing. */
#if GST_CHECK_VERSION(1, 24, 0)
#define CIP_HAVE_CUDA_STREAM 1
#else
#define CIP_HAVE_CUDA_STREAM 0
#endif

/* Marks memory written by us and already synchronized: consumers need not
 * wait on its stream (1.24+). */
static inline void
cip_cuda_memory_mark_synced (GstMemory * mem)
{
#if CIP_HAVE_CUDA_STREAM
  GST_MEMORY_FLAG_UNSET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
#else
  (void) mem;
#endif
}
#endif
