/*
 * err.c - the error table: tachy_strerror, tachy_err_name, tachy_version.
 *
 * Both lookups are generated from TACHY_ERRNO_MAP (tachy/error.h), the same X-macro that
 * defines the codes, so a new code cannot be added without its message and name.
 */
#include <tachy/tachy.h>

#include <stddef.h>

/* Indexed by -code; slot 0 is TACHY_OK. */
/* clang-format off */
#define TACHY__ERR_MSG(name, msg) [TACHY__EIDX_##name] = msg,
static const char *const tachy__err_messages[TACHY__EIDX_END] = {
    [TACHY__EIDX_NONE] = "success",
    TACHY_ERRNO_MAP(TACHY__ERR_MSG)};
#undef TACHY__ERR_MSG

#define TACHY__ERR_NAME(name, msg) [TACHY__EIDX_##name] = #name,
static const char *const tachy__err_names[TACHY__EIDX_END] = {
    [TACHY__EIDX_NONE] = "OK",
    TACHY_ERRNO_MAP(TACHY__ERR_NAME)};
#undef TACHY__ERR_NAME
/* clang-format on */

/* Maps a code to its table slot, or -1. Positive values (byte counts) are not codes. */
static int err_index(int code) {
    if (code > 0 || code <= -(int)TACHY__EIDX_END)
        return -1;
    return -code;
}

/* Static string, never NULL; 0 gives "success". Pure: any thread. */
const char *tachy_strerror(int code) {
    int i = err_index(code);
    return i < 0 ? "unknown error" : tachy__err_messages[i];
}

/* Static string, never NULL; 0 gives "OK". Pure: any thread. */
const char *tachy_err_name(int code) {
    int i = err_index(code);
    return i < 0 ? "UNKNOWN" : tachy__err_names[i];
}

/* Static string. Any thread. */
const char *tachy_version(void) { return TACHY_VERSION_STRING; }
