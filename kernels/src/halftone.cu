#include "cip/halftone.h"
