/* Preloaded by test_verify_fail.sh: libm's sin, wrong by one part in 1e9, so a stencil starts
 * slightly off its eigenmode and verification must notice (exit status 1). */
#include <dlfcn.h>

double sin(double x)
{
    static double (*real_sin)(double);
    if (!real_sin)
        *(void **)&real_sin = dlsym(RTLD_NEXT, "sin");
    return real_sin(x) * (1.0 + 1e-9);
}
