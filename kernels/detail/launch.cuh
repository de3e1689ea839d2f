/* Kernel launches with programmatic dependent launch (PDL), shared by the
 * kernel families whose passes chain on one stream (integral, boxfilter,
 * histogram).
 *
 * Within a call, a pass starts while the one before drains and waits for
 * its results. Between calls, the first kernel of a call is launched the
 * same way (between_calls_pdl()) and waits at its very start, before it
 * touches memory, so it is correct after any kernel of any caller; the last
 * kernel of a call lets the next be scheduled at its start. Back to back,
 * the next call's blocks are then resident and waiting when this call
 * ends, rather than launched after it. */
#pragma once

#include <cuda_runtime.h>

#include "detail/check.cuh"

#ifndef CIP_SAT_PDL
#define CIP_SAT_PDL 1             /* chained passes: programmatic dependent launch */
#endif

namespace cip {
namespace detail {

/* With PDL (sm_90+), a kernel of a chain starts while its predecessor
 * drains; it must wait here before it reads what the predecessor wrote. A
 * no-op without PDL or before sm_90. */
__device__ __forceinline__ void
wait_for_previous_kernel ()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile ("griddepcontrol.wait;" : : : "memory");
#endif
}

/* Lets the next kernel of the chain be scheduled now; it still waits for
 * this one's results in wait_for_previous_kernel(). */
__device__ __forceinline__ void
allow_next_kernel ()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile ("griddepcontrol.launch_dependents;" : : : "memory");
#endif
}

/* The start of a call's first kernel (PDL between calls, above): waits for
 * the kernel ahead of it, then lets the next kernel be scheduled, which may
 * then read this call's inputs before its own wait. */
__device__ __forceinline__ void
start_of_call ()
{
  wait_for_previous_kernel ();
  allow_next_kernel ();
}

/* PDL needs sm_90 on the current device and kernels compiled for it (a
 * build whose code is older PTX compiles griddepcontrol to nothing);
 * CIP_SAT_PDL=0 turns it off. Cached per device. */
bool pdl_supported ();

/* Whether the first kernel of a call is launched with PDL (above):
 * pdl_supported() unless turned off by set_between_calls_pdl (false), a
 * switch for benches (process-wide, not for concurrent use). */
bool between_calls_pdl ();
void set_between_calls_pdl (bool on);

/* The device attributes below are cached per device once asked for. */

/* Dynamic shared memory a block of the current device may opt in to (48 KiB
 * when the query fails). */
int max_optin_smem ();

/* The current device's L2 cache in bytes (0 when the query fails). */
int l2_cache_bytes ();

/* The current device's SMs, and shared memory an SM holds in bytes (0 when
 * the query fails). */
int sm_count ();
int smem_per_sm ();

/* Launches kernel(p) with grid x threads and smem bytes of dynamic shared
 * memory, which the kernel is already opted in to. pdl: it may start
 * before the previous kernel on the stream has finished (it calls
 * wait_for_previous_kernel() before it touches what that kernel writes or
 * reads). */
template <typename K, typename P>
Status
launch_opted (K kernel, int grid, int threads, size_t smem,
    cudaStream_t stream, const P &p, const char *what, bool pdl)
{
  cudaLaunchConfig_t cfg = { };
  cfg.gridDim = dim3 ((unsigned) grid);
  cfg.blockDim = dim3 ((unsigned) threads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = pdl ? 1 : 0;
  CIP_CUDA_TRY (cudaLaunchKernelEx (&cfg, kernel, p));
  CIP_LAUNCH_CHECK (stream, what);
  return Status::ok;
}

/* launch_opted, opting in above 48 KiB first (to smem_optin bytes when
 * given: a kernel whose size varies by call opts in to one fixed size, so
 * that threads launching it at once do not lower each other's limit; it
 * opts in whenever that size passes 48 KiB, since the kernel's static
 * shared memory counts against the same 48 KiB as smem). */
template <typename K, typename P>
Status
launch (K kernel, int grid, int threads, size_t smem, cudaStream_t stream,
    const P &p, const char *what, bool pdl = false, size_t smem_optin = 0)
{
  const size_t optin = smem_optin > smem ? smem_optin : smem;
  if (optin > 48 * 1024)
    CIP_CUDA_TRY (cudaFuncSetAttribute (kernel,
            cudaFuncAttributeMaxDynamicSharedMemorySize, (int) optin));
  return launch_opted (kernel, grid, threads, smem, stream, p, what, pdl);
}

}  // namespace detail
}  // namespace cip
