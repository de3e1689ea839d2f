/* CUDA-side helpers shared by every kernel family. */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "detail/check.cuh"

namespace cip {

static thread_local char last_error[256];

const char *
last_cuda_error ()
{
  return last_error;
}

bool
gpu_available ()
{
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess) {
    cudaGetLastError ();        /* clear the sticky-free error */
    return false;
  }
  return n > 0;
}

namespace detail {

Status
record_cuda_error (cudaError_t err)
{
  snprintf (last_error, sizeof (last_error), "%s: %s", cudaGetErrorName (err),
      cudaGetErrorString (err));
  if (err == cudaErrorMemoryAllocation)
    return Status::out_of_memory;
  return Status::cuda_error;
}

static bool
debug_sync ()
{
  static const bool on = [] {
    const char *e = getenv ("CIP_DEBUG_SYNC");
    return e && *e && strcmp (e, "0") != 0;
  }();
  return on;
}

Status
check_launch (cudaStream_t stream, const char *what)
{
  cudaError_t err = cudaPeekAtLastError ();
  if (err == cudaSuccess && debug_sync ())
    err = cudaStreamSynchronize (stream);
  if (err != cudaSuccess) {
    cudaGetLastError ();
    Status s = record_cuda_error (err);
    size_t n = strlen (last_error);
    snprintf (last_error + n, sizeof (last_error) - n, " (%s)", what);
    return s;
  }
  return Status::ok;
}

}  // namespace detail
}  // namespace cip
