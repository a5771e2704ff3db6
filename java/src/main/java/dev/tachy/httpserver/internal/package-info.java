/**
 * Internals of the tachy provider shared between its packages: the JNI wire format
 * ({@link dev.tachy.httpserver.internal.Wire}) and the WebSocket upgrade's access to the C
 * exchange ({@link dev.tachy.httpserver.internal.NativeAccess}). Not exported by the module
 * and not part of the API.
 */
package dev.tachy.httpserver.internal;
