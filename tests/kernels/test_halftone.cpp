#include "cip/halftone.h"
int main () { return 77; }
