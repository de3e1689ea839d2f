/* Error checking shared by every .cu file of the kernel library. */
#pragma once

#include <cuda_runtime.h>
#include "cip/cip.h"

namespace cip {
namespace detail {

/* Records err as the thread's last CUDA error and maps it to a Status. */
Status record_cuda_error (cudaError_t err);

/* After a launch: checks the launch, and with CIP_DEBUG_SYNC=1 also syncs the
 * stream and checks the kernel's execution. */
Status check_launch (cudaStream_t stream, const char *what);

}  // namespace detail
}  // namespace cip

/* Returns from the calling function (which returns cip::Status) on failure. */
#define CIP_CUDA_TRY(call)                                            \
  do {                                                                \
    cudaError_t cip_err_ = (call);                                    \
    if (cip_err_ != cudaSuccess)                                      \
      return ::cip::detail::record_cuda_error (cip_err_);             \
  } while (0)

#define CIP_LAUNCH_CHECK(stream, what)                                \
  do {                                                                \
    ::cip::Status cip_st_ = ::cip::detail::check_launch (stream, what); \
    if (cip_st_ != ::cip::Status::ok)                                 \
      return cip_st_;                                                 \
  } while (0)
