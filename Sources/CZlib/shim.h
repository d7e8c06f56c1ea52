#include <zlib.h>

/* deflateInit2 is a macro; Swift cannot call macros, so wrap it. windowBits 31 = gzip framing. */
static inline int czlib_deflate_init_gzip(z_streamp strm, int level) {
    return deflateInit2(strm, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
}
