#include "cip/equalize.h"
int main () { return 77; }
