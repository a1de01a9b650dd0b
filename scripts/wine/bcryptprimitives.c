/* A stand-in for Windows' bcryptprimitives.dll, which Wine 8.0 lacks: Go's
   runtime calls its ProcessPrng for random bytes. It forwards to
   SystemFunction036 (RtlGenRandom) of advapi32, which Wine has. */
#include <windows.h>

typedef BOOLEAN (WINAPI *RtlGenRandomFunc)(PVOID, ULONG);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    static RtlGenRandomFunc gen;
    if (!gen) {
        HMODULE advapi = LoadLibraryA("advapi32.dll");
        if (!advapi) return FALSE;
        gen = (RtlGenRandomFunc)GetProcAddress(advapi, "SystemFunction036");
        if (!gen) return FALSE;
    }
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!gen(data, chunk)) return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
