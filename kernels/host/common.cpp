/* Status helpers shared by the GPU and CPU paths of the kernel library. */
#include "cip/cip.h"

namespace cip {

const char *
status_string (Status s)
{
  switch (s) {
    case Status::ok: return "ok";
    case Status::invalid_argument: return "invalid argument";
    case Status::unsupported: return "unsupported";
    case Status::cuda_error: return "CUDA error";
    case Status::out_of_memory: return "out of memory";
  }
  return "unknown status";
}

bool
view_is_valid (const ImageView &v)
{
  if (v.width < 0 || v.height < 0 || (v.bytes != 1 && v.bytes != 2) ||
      v.step < v.bytes || v.depth < 1 || v.shift < 0 ||
      v.depth + v.shift > 8 * v.bytes)
    return false;
  /* 16-bit words are read and written whole */
  if (v.bytes == 2 && (((uintptr_t) v.data | v.pitch | (size_t) v.step) & 1))
    return false;
  if (v.width == 0 || v.height == 0)
    return true;
  if (!v.data)
    return false;
  /* a row spans (width - 1) * step + bytes bytes */
  size_t row = (size_t) (v.width - 1) * (size_t) v.step + (size_t) v.bytes;
  return v.height == 1 || v.pitch >= row;
}

#ifndef HAVE_CUDA
/* CPU-only build: no kernels, no device. */
bool gpu_available () { return false; }
const char *last_cuda_error () { return ""; }
Status fill_words (void *, size_t, int, int, uint16_t, Stream)
{
  return Status::unsupported;
}
Status copy_rows (const RowCopy *, int, Stream)
{
  return Status::unsupported;
}
#endif

}  // namespace cip
