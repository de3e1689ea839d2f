#include "cip/equalize.h"
