/* cip: CUDA image-processing kernels behind the cudaimgproc GStreamer plugin.
 *
 * Common types of the kernel library. This header compiles without the CUDA
 * headers and without GStreamer: the stream type is forward-declared and is
 * the same type as cudaStream_t / CUstream.
 *
 * Conventions shared by every family (integral.h, histogram.h, boxfilter.h):
 * - Pitches are in bytes. Views describe one plane, or one channel of a
 *   packed plane (step = bytes between horizontally adjacent samples), of
 *   8-bit samples or of 16-bit little-endian words holding `depth` significant
 *   bits at bit `shift` (see ImageView: one description of every depth, so
 *   that no caller or kernel hard-codes a format's layout).
 * - GPU entry points take device pointers and a stream, are asynchronous (the
 *   caller synchronizes), never allocate, never synchronize the device and
 *   never use the default stream unless given it. Scratch memory is sized by
 *   the family's *_workspace_bytes() and owned by the caller.
 * - Stream order holds as for any launch. On sm_90 and later, calls that
 *   begin with the tiled SAT's first pass (integral, the box filter's table
 *   paths) or with the 8-bit histogram kernel launch it with programmatic
 *   dependent launch: it may be resident before the kernel ahead of it on
 *   the stream has finished and waits for that kernel before it touches
 *   memory, so that calls back to back overlap one's end with the next's
 *   start. Their last kernel lets a kernel launched after it with PDL start
 *   early: such a kernel of the caller's must wait for it
 *   (cudaGridDependencySynchronize) before it reads the call's outputs, as
 *   PDL requires of any kernel.
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

/* An image plane or one channel of a packed plane (a "component view").
 *
 * Samples are `bytes` bytes (1, or 2: a little-endian 16-bit word). A sample
 * s holds the value
 *     v = (s >> shift) & max_value ()            (0 .. 2^depth - 1)
 * and a value is written as s = v << shift, the other bits zero. Examples:
 *   8-bit formats          bytes 1, depth 8,  shift 0 (the default)
 *   P010_10LE              bytes 2, depth 10, shift 6 (the low 6 bits are
 *                          ignored on input and written as zero)
 *   I420_10LE              bytes 2, depth 10, shift 0 (the high 6 bits are
 *                          ignored on input and written as zero)
 *   P016_LE, Y444_16LE,    bytes 2, depth 16, shift 0
 *   GRAY16_LE
 * Families document which depths they take; the others return
 * Status::unsupported for anything but 8-bit views. */
struct ImageView {
  const uint8_t *data = nullptr; /* first sample of the first row */
  size_t pitch = 0;              /* bytes between rows */
  int width = 0;                 /* samples per row */
  int height = 0;                /* rows */
  int step = 1;                  /* bytes between samples in a row (1 planar, 4 RGBA) */
  int bytes = 1;                 /* bytes per sample: 1 or 2 */
  int depth = 8;                 /* significant bits, 1 .. 8 * bytes - shift */
  int shift = 0;                 /* bit of the value's LSB in the sample */

  /* Largest value: 2^depth - 1. */
  constexpr uint32_t max_value () const { return (1u << depth) - 1u; }
  /* True for plain 8-bit samples (bytes 1, depth 8, shift 0). */
  constexpr bool is_8bit () const { return bytes == 1 && depth == 8 && shift == 0; }

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
 * step >= bytes, pitch large enough for a row, a valid depth and shift; 16-bit
 * views need 2-byte aligned data, pitch and step. */
bool view_is_valid (const ImageView &v);

/* True when this build has CUDA kernels and a CUDA device is usable. */
bool gpu_available ();

/* Writes the little-endian 16-bit word `value` to every word of a block of
 * `width` x `height` 16-bit words in device memory (data and pitch 2-byte
 * aligned, pitch in bytes), asynchronous on stream: cudaMemset2DAsync for
 * words (e.g. neutral chroma of 10/16-bit frames). unsupported without
 * CUDA. */
Status fill_words (void *data, size_t pitch, int width, int height,
    uint16_t value, Stream stream);

/* One 2-D copy of copy_rows(): `rows` rows of `row_bytes` bytes, from rows
 * `src_pitch` bytes apart to rows `dst_pitch` bytes apart. */
struct RowCopy {
  void *dst;
  size_t dst_pitch;
  const void *src;
  size_t src_pitch;
  size_t row_bytes;
  size_t rows;
};

/* Up to kMaxRowCopies 2-D copies in one kernel launch, asynchronous on
 * stream: cudaMemcpy2DAsync done by the SMs instead of a copy engine. dst
 * may be pinned host memory (cudaHostAlloc), which a device with unified
 * addressing writes at its host address: small results read back that way,
 * queued right behind the kernels that made them, reach the host sooner
 * than by a device-to-host copy and its event (H100, RESULTS.md round 26:
 * 1 KiB 3.4 us sooner in cudahistogram, 7.4 us in a bare loop). The copies
 * must not overlap. unsupported without CUDA. */
constexpr int kMaxRowCopies = 16;
Status copy_rows (const RowCopy *copies, int n, Stream stream);

}  // namespace cip
