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

/* Waits for work another element queued on `mem` on its own stream (1.24+;
 * 1.22 producers synchronize before pushing). */
static inline void
cip_cuda_memory_sync (GstMemory * mem)
{
#if GST_CHECK_VERSION(1, 24, 0)
  if (gst_is_cuda_memory (mem))
    gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (mem));
#else
  (void) mem;
#endif
}

/* Marks memory written by us and already synchronized: consumers need not
 * wait on our stream (1.24+). */
static inline void
cip_cuda_memory_mark_synced (GstMemory * mem)
{
#if GST_CHECK_VERSION(1, 24, 0)
  GST_MEMORY_FLAG_UNSET (mem, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
#else
  (void) mem;
#endif
}
#endif
