/* Stub for wine 8.0 (Debian 12), which lacks bcryptprimitives.dll. Every Rust >= 1.78 Windows
 * executable imports ProcessPrng from it for std's random numbers, so without this stub no Rust test
 * binary can even load under that wine. We forward to RtlGenRandom (advapi32's SystemFunction036),
 * which wine does implement. Only used for running tests under wine; never shipped. */
#include <windows.h>
#define SystemFunction036 NTAPI SystemFunction036
#include <ntsecapi.h>
#undef SystemFunction036

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len) {
        /* RtlGenRandom takes a ULONG length: feed it in bounded chunks. */
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!RtlGenRandom(data, chunk)) return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
