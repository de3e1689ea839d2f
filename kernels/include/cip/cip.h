/* cip: CUDA image-processing kernels behind the cudaimgproc GStreamer plugin.
 *
 * Common types of the kernel library. This header compiles without the CUDA
 * headers and without GStreamer: the stream type is forward-declared and is
 * the same type as cudaStream_t / CUstream.
 *
 * Conventions shared by every family (integral.h, histogram.h, boxfilter.h):
 * - Pitches are in bytes. Views describe one 8-bit plane, or one channel of a
 *   packed plane (step = bytes between horizontally adjacent samples).
 * - GPU entry points take device pointers and a stream, are asynchronous (the
 *   caller synchronizes), never allocate, never synchronize the device and
 *   never use the default stream unless given it. Scratch memory is sized by
 *   the family's *_workspace_bytes() and owned by the caller.
 * - Arguments are checked before anything is launched; a 0x0 image is valid
 *   and does nothing. Every launch is checked (cudaPeekAtLastError).
 * - CPU references live in namespace cip::ref, take host pointers with the
 *   same semantics and produce bit-identical integer results.
 * - CIP_DEBUG_SYNC=1 in the environment synchronizes and checks the stream
 *   after every launch (debugging only).
 */
#pragma once

#include <cstddef>
#include <cstdint>

struct CUstream_st;

namespace cip {

/* Same type as cudaStream_t and CUstream. nullptr is the legacy default stream. */
using Stream = CUstream_st *;

enum class Status {
  ok = 0,
  invalid_argument, /* a null pointer, negative size, short pitch, bad option */
  unsupported,      /* valid request this build or device cannot serve */
  cuda_error,       /* a CUDA call or launch failed: see last_cuda_error() */
  out_of_memory,
};

const char *status_string (Status s);

/* Text of the last CUDA error seen by this thread in a cip call ("" if none). */
const char *last_cuda_error ();

/* An 8-bit image plane or one channel of a packed plane. */
struct ImageView {
  const uint8_t *data = nullptr; /* first sample of the first row */
  size_t pitch = 0;              /* bytes between rows */
  int width = 0;                 /* samples per row */
  int height = 0;                /* rows */
  int step = 1;                  /* bytes between samples in a row (1 planar, 4 RGBA) */

  /* A sub-rectangle of this view, without copying. */
  ImageView crop (int x, int y, int w, int h) const {
    ImageView v = *this;
    v.data = data + (size_t) y * pitch + (size_t) x * step;
    v.width = w;
    v.height = h;
    return v;
  }
};

/* Checks the shape of a view: sizes >= 0, data non-null when not empty,
 * step >= 1 and pitch large enough for a row. */
bool view_is_valid (const ImageView &v);

/* True when this build has CUDA kernels and a CUDA device is usable. */
bool gpu_available ();

}  // namespace cip
