/**
 * WebSocket (RFC 6455, permessage-deflate) on tachy servers, with an API shaped like
 * {@link java.net.http.WebSocket}: upgrade a context with
 * {@link dev.tachy.httpserver.websocket.WebSocketHandler} and receive events in a
 * {@link dev.tachy.httpserver.websocket.WebSocket.Listener}.
 */
package dev.tachy.httpserver.websocket;
