/* cudaimgproc: real-time GPU image analysis elements (registration only). */
#include <gst/gst.h>

#include "gstcudaimgproccuda.h"

#include "gstcudaboxfilter.h"
#include "gstcudahalftone.h"
#include "gstcudahistequalize.h"
#include "gstcudahistogram.h"
#include "gstcudaintegral.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
#ifdef HAVE_GST_CUDA
  /* Without a driver the elements still register and run on the CPU path. */
  if (gst_cuda_load_library ())
    gst_cuda_memory_init_once ();
  else
    GST_INFO ("libcuda.so.1 not loaded: elements run on the CPU only");
#endif
  gboolean ok = TRUE;
  ok &= GST_ELEMENT_REGISTER (cudaintegral, plugin);
  ok &= GST_ELEMENT_REGISTER (cudaboxfilter, plugin);
  ok &= GST_ELEMENT_REGISTER (cudahistogram, plugin);
  ok &= GST_ELEMENT_REGISTER (cudahistequalize, plugin);
  ok &= GST_ELEMENT_REGISTER (cudahalftone, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, cudaimgproc,
    "CUDA image analysis: integral images, histograms, histogram "
    "equalization, error-diffusion halftoning and box filters, with CPU "
    "fallbacks",
    plugin_init, PACKAGE_VERSION, "LGPL", PACKAGE, PACKAGE_ORIGIN)
