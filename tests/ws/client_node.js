#!/usr/bin/env node
// Real-client test: the npm `ws` package against an echo endpoint, with and without
// permessage-deflate.   node client_node.js ws://127.0.0.1:PORT/ws
// Prints one line per check and "N passed, N failed".
'use strict';
const WebSocket = require('ws');
const crypto = require('crypto');

const uri = process.argv[2] || 'ws://127.0.0.1:8080/ws';
let passed = 0, failed = 0;
function check(name, ok, detail) {
  if (ok) passed++; else failed++;
  console.log(`${ok ? 'PASS' : 'FAIL'} node-ws: ${name}${ok ? '' : ' ' + (detail || '')}`);
}

function open(opts) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(uri, opts);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}
function next(ws) {
  return new Promise((resolve) => ws.once('message', (data, isBinary) => resolve({ data, isBinary })));
}
function closed(ws) {
  return new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}

async function main() {
  // permessage-deflate with a threshold of 0 so every message is compressed by the client.
  let ws = await open({ perMessageDeflate: { threshold: 0, serverNoContextTakeover: false } });
  check('permessage-deflate negotiated', (ws.extensions || '').startsWith('permessage-deflate'), ws.extensions);
  ws.send('Hello, tachy');
  let m = await next(ws);
  check('text echo', !m.isBinary && m.data.toString() === 'Hello, tachy');
  const blob = crypto.randomBytes(200000);
  ws.send(blob);
  m = await next(ws);
  check('binary echo (200 kB random)', m.isBinary && Buffer.compare(m.data, blob) === 0);
  const big = 'abcdefgh'.repeat(250000);
  ws.send(big);
  m = await next(ws);
  check('2 MB compressible text echo', m.data.toString() === big);
  ws.send('frag', { fin: false });
  ws.send('mented', { fin: true });
  m = await next(ws);
  check('fragmented message echo', m.data.toString() === 'fragmented');
  const pong = new Promise((resolve) => ws.once('pong', (d) => resolve(d.toString())));
  ws.ping('hi');
  check('ping answered by pong', (await pong) === 'hi');
  const c = closed(ws);
  ws.close(1000, 'bye');
  const r = await c;
  check('close handshake 1000', r.code === 1000, String(r.code));

  ws = await open({ perMessageDeflate: false });
  check('no extension when not offered', !ws.extensions, ws.extensions);
  const got = [];
  const all = new Promise((resolve) => ws.on('message', (d) => {
    got.push(d.toString());
    if (got.length === 500) resolve();
  }));
  for (let i = 0; i < 500; i++) ws.send(`m${i}`);
  await all;
  check('500 messages in order', got.every((v, i) => v === `m${i}`));
  const c2 = closed(ws);
  ws.close(4000, 'app');
  check('application close code echoed', (await c2).code === 4000);
}

const timer = setTimeout(() => { check('finished within 60 s', false); done(); }, 60000);
function done() {
  clearTimeout(timer);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
main().then(done, (e) => { check('no exception', false, String(e)); done(); });
